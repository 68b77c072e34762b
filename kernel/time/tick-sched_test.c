// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the bound that a cpuidle governor may put on the stopped
 * idle tick (a safety net): where the bounded expiry lies, where no bound
 * applies, and what the tick's handler does when a bound expires.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kernel_stat.h>
#include <linux/sched/isolation.h>
#include <linux/tick.h>

#include <asm/irq_regs.h>

#include "tick-internal.h"

/**
 * struct tick_bound_case - One case of tick_nohz_bound_expires().
 * @name: Description of the case.
 * @expires: Expiry without a bound, in ns.
 * @now: Time the bound is applied, in ns.
 * @max_sleep_ns: The bound.
 * @want: Expected expiry.
 */
struct tick_bound_case {
	const char *name;
	u64 expires;
	u64 now;
	u64 max_sleep_ns;
	u64 want;
};

static const struct tick_bound_case tick_bound_cases[] = {
	{ "no bound", 5000000, 1000000, 0, 5000000 },
	{ "bound before the timer", 5000000, 1000000, 20000, 1020000 },
	{ "bound at the timer", 5000000, 1000000, 4000000, 5000000 },
	{ "bound beyond the timer", 5000000, 1000000, 9000000, 5000000 },
	{ "timer already due", 1000000, 1000500, 20000, 1000000 },
	{ "no timer", KTIME_MAX, 1000000, 20000, 1020000 },
	/*
	 * The idle loop went round without an interrupt (a polling time
	 * limit) for longer than the bound since the idle entry at 1 ms:
	 * the bound still counts from the time it is applied, so it does
	 * not expire at once.
	 */
	{ "bound shorter than the time since idle entry", 5000000, 1200000,
	  15000, 1215000 },
};

static void tick_bound_case_desc(const struct tick_bound_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tick_bound, tick_bound_cases, tick_bound_case_desc);

static void tick_bound_expires_test(struct kunit *test)
{
	const struct tick_bound_case *c = test->param_value;
	u64 got = tick_nohz_bound_expires(c->expires, c->now, c->max_sleep_ns);

	KUNIT_EXPECT_EQ(test, got, c->want);
	/* Never later than without a bound, never before the time applied. */
	KUNIT_EXPECT_LE(test, got, c->expires);
	if (c->expires > c->now)
		KUNIT_EXPECT_GT(test, got, c->now);
}

/* Every CPU keeps the bound, unless it is a nohz_full CPU. */
static void tick_bound_nohz_full_test(struct kunit *test)
{
	unsigned int full = 0;
	int cpu;

	if (!tick_nohz_full_enabled())
		kunit_skip(test, "needs nohz_full= on the kernel command line");

	for_each_possible_cpu(cpu) {
		u64 want = tick_nohz_full_cpu(cpu) ? 0 : 20000;

		full += tick_nohz_full_cpu(cpu);
		KUNIT_EXPECT_EQ_MSG(test, tick_nohz_idle_bound_ns(cpu, 20000),
				    want, "CPU %d", cpu);
		KUNIT_EXPECT_EQ(test, tick_nohz_idle_bound_ns(cpu, 0), 0ULL);
	}
	KUNIT_EXPECT_GT(test, full, 0U);
}

/*
 * A bound shorter than a tick period keeps a running tick running, as the
 * tick comes about as early, but only where the bound applies: on a
 * nohz_full CPU it keeps no tick either.  A stopped tick stays stopped.
 */
static void tick_bound_keeps_tick_test(struct kunit *test)
{
	const u64 short_ns = 20000;
	int cpu;

	for_each_possible_cpu(cpu) {
		bool full = tick_nohz_full_cpu(cpu);

		KUNIT_EXPECT_EQ_MSG(test,
				    tick_nohz_idle_keeps_tick(cpu, false, short_ns),
				    !full, "CPU %d", cpu);
		KUNIT_EXPECT_FALSE_MSG(test,
				       tick_nohz_idle_keeps_tick(cpu, true, short_ns),
				       "CPU %d", cpu);
		KUNIT_EXPECT_FALSE_MSG(test,
				       tick_nohz_idle_keeps_tick(cpu, false, TICK_NSEC),
				       "CPU %d", cpu);
		KUNIT_EXPECT_FALSE_MSG(test,
				       tick_nohz_idle_keeps_tick(cpu, false, 0),
				       "CPU %d", cpu);
	}
}

/**
 * struct tick_bound_expiry - One expiry of the stopped tick, run by the
 *	tick's handler on a tick_sched of the test's own.
 * @work: Runs the handler in hard interrupt context, as the tick runs.
 * @regs: Registers of the interrupted context (kernel mode), which the
 *	tick's interrupt provides and an irq_work does not.
 * @ts: The tick_sched, its timer never started.
 * @idle_jiffies: @ts->idle_jiffies before the expiry.
 * @ret: What the handler returned.
 * @accounted: CPU time the handler accounted to the CPU, in ns.
 */
struct tick_bound_expiry {
	struct irq_work work;
	struct pt_regs regs;
	struct tick_sched *ts;
	unsigned long idle_jiffies;
	enum hrtimer_restart ret;
	u64 accounted;
};

/* All CPU time accounted to this CPU: any tick accounts to one of these. */
static u64 tick_bound_cpustat_sum(void)
{
	const u64 *cpustat = kcpustat_this_cpu->cpustat;
	u64 sum = 0;
	int i;

	for (i = 0; i < NR_STATS; i++)
		sum += cpustat[i];
	return sum;
}

static void tick_bound_expire(struct irq_work *work)
{
	struct tick_bound_expiry *e = container_of(work, struct tick_bound_expiry,
						   work);
	struct pt_regs *old_regs = set_irq_regs(&e->regs);
	u64 before = tick_bound_cpustat_sum();

	e->ts->last_tick_jiffies = READ_ONCE(jiffies);
	e->ret = tick_nohz_handler(&e->ts->sched_timer);
	e->accounted = tick_bound_cpustat_sum() - before;
	set_irq_regs(old_regs);
}

/*
 * Expire the stopped idle tick of a tick_sched with @flags set, on a
 * housekeeping CPU (on a nohz_full CPU, ticks account no CPU time), in the
 * hard interrupt context of an irq_work with its registers.  Interrupts stay
 * disabled throughout, so no other tick accounts in between.
 */
static struct tick_bound_expiry *
tick_bound_expiry_run(struct kunit *test, unsigned long flags)
{
	struct tick_bound_expiry *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	int cpu = housekeeping_any_cpu(HK_TYPE_TICK);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->ts = kunit_kzalloc(test, sizeof(*e->ts), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->ts);
	hrtimer_init(&e->ts->sched_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_HARD);
	e->ts->flags = TS_FLAG_NOHZ | TS_FLAG_HIGHRES | TS_FLAG_INIDLE |
		       TS_FLAG_STOPPED | flags;
	e->ts->next_tick = ktime_get();
	e->ts->idle_jiffies = jiffies;
	e->idle_jiffies = e->ts->idle_jiffies;
	e->ret = HRTIMER_RESTART;
	e->work = IRQ_WORK_INIT_HARD(tick_bound_expire);

	KUNIT_ASSERT_TRUE(test, irq_work_queue_on(&e->work, cpu));
	irq_work_sync(&e->work);
	return e;
}

/*
 * A stopped tick that expires at its timer event runs the per-tick work,
 * which accounts a tick of CPU time: this is what the bounded case below
 * must not do, and shows that the test sees it.
 */
static void tick_bound_expiry_control_test(struct kunit *test)
{
	struct tick_bound_expiry *e = tick_bound_expiry_run(test, 0);

	KUNIT_EXPECT_EQ(test, e->ret, HRTIMER_NORESTART);
	KUNIT_EXPECT_GT(test, e->accounted, 0ULL);
	KUNIT_EXPECT_EQ(test, e->ts->next_tick, 0);
	KUNIT_EXPECT_EQ(test, e->ts->got_idle_tick, 1U);
}

/*
 * A bound that expires is no tick: the handler notes the wakeup for the
 * cpuidle governor (got_idle_tick) and forgets the programmed expiry, and
 * neither accounts CPU time nor advances idle_jiffies, so nets that fire
 * more often than jiffies advance cannot inflate idle time.  Nor does it
 * count as a tick that saw jiffies stall: the tick_sched's last tick saw
 * the jiffies of the expiry (unless they moved in between, which resets
 * the count too).
 */
static void tick_bound_expiry_test(struct kunit *test)
{
	struct tick_bound_expiry *e = tick_bound_expiry_run(test, TS_FLAG_BOUNDED);

	KUNIT_EXPECT_EQ(test, e->ret, HRTIMER_NORESTART);
	KUNIT_EXPECT_EQ(test, e->accounted, 0ULL);
	KUNIT_EXPECT_EQ(test, e->ts->idle_jiffies, e->idle_jiffies);
	KUNIT_EXPECT_EQ(test, e->ts->stalled_jiffies, 0U);
	KUNIT_EXPECT_EQ(test, e->ts->next_tick, 0);
	KUNIT_EXPECT_EQ(test, e->ts->got_idle_tick, 1U);
	KUNIT_EXPECT_FALSE(test, e->ts->flags & TS_FLAG_BOUNDED);
	KUNIT_EXPECT_TRUE(test, e->ts->flags & TS_FLAG_STOPPED);
}

static struct kunit_case tick_bound_test_cases[] = {
	KUNIT_CASE_PARAM(tick_bound_expires_test, tick_bound_gen_params),
	KUNIT_CASE(tick_bound_nohz_full_test),
	KUNIT_CASE(tick_bound_keeps_tick_test),
	KUNIT_CASE(tick_bound_expiry_control_test),
	KUNIT_CASE(tick_bound_expiry_test),
	{}
};

static struct kunit_suite tick_bound_test_suite = {
	.name = "tick-sched-bound",
	.test_cases = tick_bound_test_cases,
};

kunit_test_suite(tick_bound_test_suite);

MODULE_DESCRIPTION("KUnit tests of the bounded idle tick");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
