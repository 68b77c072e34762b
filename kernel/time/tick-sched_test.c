// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the safety net that a cpuidle governor may put on the
 * stopped idle tick: where the expiry with a net lies, where no net
 * applies, when a pending net is kept, and whether the expiry of a net
 * is the tick's or the net's only.  They test the pure helpers that
 * tick-sched decides with, and run nothing of the tick itself.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/tick.h>

#include "tick-internal.h"

/**
 * struct tick_net_case - One case of tick_nohz_net_expires().
 * @name: Description of the case.
 * @expires: Expiry without a net, in ns.
 * @now: Time the net is applied, in ns.
 * @max_sleep_ns: The net.
 * @want: Expected expiry.
 */
struct tick_net_case {
	const char *name;
	u64 expires;
	u64 now;
	u64 max_sleep_ns;
	u64 want;
};

static const struct tick_net_case tick_net_cases[] = {
	{ "no net", 5000000, 1000000, 0, 5000000 },
	{ "net before the timer", 5000000, 1000000, 20000, 1020000 },
	{ "net at the timer", 5000000, 1000000, 4000000, 5000000 },
	{ "net a little beyond the timer", 5000000, 1000000, 4500000, 5000000 },
	{ "net beyond the timer", 5000000, 1000000, 9000000, 5000000 },
	{ "timer already due", 1000000, 1000500, 20000, 1000000 },
	{ "no timer", KTIME_MAX, 1000000, 20000, 1020000 },
	/*
	 * The idle loop went round without an interrupt (a polling time
	 * limit) for longer than the net since the idle entry at 1 ms:
	 * the net still counts from the time it is applied, so it does
	 * not expire at once.
	 */
	{ "net shorter than the time since idle entry", 5000000, 1200000,
	  15000, 1215000 },
};

static void tick_net_case_desc(const struct tick_net_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tick_net, tick_net_cases, tick_net_case_desc);

static void tick_net_expires_test(struct kunit *test)
{
	const struct tick_net_case *c = test->param_value;
	u64 got = tick_nohz_net_expires(c->expires, c->now, c->max_sleep_ns);

	KUNIT_EXPECT_EQ(test, got, c->want);
	/* Never later than without a net, never before the time applied. */
	KUNIT_EXPECT_LE(test, got, c->expires);
	if (c->expires > c->now)
		KUNIT_EXPECT_GT(test, got, c->now);
}

/*
 * No net asked for is none; elsewhere than on a nohz_full CPU, a net is
 * at least TICK_NOHZ_NET_MIN_NS, so that a net of 1 ns cannot expire
 * round after round of the idle loop.
 */
static void tick_net_floor_test(struct kunit *test)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		bool full = tick_nohz_full_cpu(cpu);

		KUNIT_EXPECT_EQ_MSG(test, tick_nohz_idle_net_ns(cpu, 0), 0ULL,
				    "CPU %d", cpu);
		KUNIT_EXPECT_EQ_MSG(test, tick_nohz_idle_net_ns(cpu, 1),
				    full ? 0ULL : (u64)TICK_NOHZ_NET_MIN_NS,
				    "CPU %d", cpu);
		KUNIT_EXPECT_EQ_MSG(test,
				    tick_nohz_idle_net_ns(cpu, TICK_NOHZ_NET_MIN_NS - 1),
				    full ? 0ULL : (u64)TICK_NOHZ_NET_MIN_NS,
				    "CPU %d", cpu);
		KUNIT_EXPECT_EQ_MSG(test, tick_nohz_idle_net_ns(cpu, 20000),
				    full ? 0ULL : 20000ULL, "CPU %d", cpu);
	}
}

/*
 * The floor is 10 us: a net below it is raised to it, one above it is
 * kept.  On the first CPU that is not a nohz_full one (there is always
 * one, for housekeeping).
 */
static void tick_net_floor_value_test(struct kunit *test)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		if (!tick_nohz_full_cpu(cpu))
			break;
	}
	KUNIT_ASSERT_LT(test, cpu, nr_cpu_ids);
	KUNIT_EXPECT_EQ(test, tick_nohz_idle_net_ns(cpu, 1), 10000ULL);
	KUNIT_EXPECT_EQ(test, tick_nohz_idle_net_ns(cpu, 9999), 10000ULL);
	KUNIT_EXPECT_EQ(test, tick_nohz_idle_net_ns(cpu, 10001), 10001ULL);
}

/* Every CPU keeps the net, unless it is a nohz_full CPU. */
static void tick_net_nohz_full_test(struct kunit *test)
{
	unsigned int full = 0;
	int cpu;

	if (!tick_nohz_full_enabled())
		kunit_skip(test, "needs nohz_full= on the kernel command line");

	for_each_possible_cpu(cpu) {
		u64 want = tick_nohz_full_cpu(cpu) ? 0 : 20000;

		full += tick_nohz_full_cpu(cpu);
		KUNIT_EXPECT_EQ_MSG(test, tick_nohz_idle_net_ns(cpu, 20000),
				    want, "CPU %d", cpu);
	}
	KUNIT_EXPECT_GT(test, full, 0U);
}

/**
 * struct tick_keep_case - One case of tick_nohz_net_keep().
 * @name: Description of the case.
 * @pending: Whether a net is pending.
 * @armed: Expiry of the pending net, in ns.
 * @net: Expiry of the new net, in ns.
 * @max_sleep_ns: The new net, from now.
 * @want: Expected expiry.
 */
struct tick_keep_case {
	const char *name;
	bool pending;
	u64 armed;
	u64 net;
	u64 max_sleep_ns;
	u64 want;
};

/* "Now" is 1 ms in every case: the new net expires at 1 ms + the net. */
static const struct tick_keep_case tick_keep_cases[] = {
	{ "none pending", false, 1150000, 1200000, 200000, 1200000 },
	{ "pending, a little earlier", true, 1150000, 1200000, 200000, 1150000 },
	{ "pending, at the new net", true, 1200000, 1200000, 200000, 1200000 },
	{ "pending, half the net earlier", true, 1100000, 1200000, 200000,
	  1100000 },
	{ "pending, more than half earlier", true, 1099999, 1200000, 200000,
	  1200000 },
	{ "pending, later than the new net", true, 1200001, 1200000, 200000,
	  1200000 },
};

static void tick_keep_case_desc(const struct tick_keep_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tick_keep, tick_keep_cases, tick_keep_case_desc);

static void tick_net_keep_test(struct kunit *test)
{
	const struct tick_keep_case *c = test->param_value;
	u64 got = tick_nohz_net_keep(c->pending, c->armed, c->net,
				       c->max_sleep_ns);

	KUNIT_EXPECT_EQ(test, got, c->want);
	/* Never later than the new net. */
	KUNIT_EXPECT_LE(test, got, c->net);
}

/**
 * struct tick_rearm_case - One case of tick_nohz_net_rearm().
 * @name: Description of the case.
 * @now: Time of the expiry, in ns.
 * @unbounded: Expiry of the stopped tick without the net, in ns.
 * @want: Expected result: the expiry to arm again, or 0 for a tick.
 */
struct tick_rearm_case {
	const char *name;
	u64 now;
	u64 unbounded;
	u64 want;
};

static const struct tick_rearm_case tick_rearm_cases[] = {
	{ "net before the tick's expiry", 1100000, 5000000, 5000000 },
	{ "net just before it", 4999999, 5000000, 5000000 },
	/*
	 * The net expired late, or the two straddle a jiffy: the tick's own
	 * expiry is due, and its per-tick work is not skipped.
	 */
	{ "expiry at the tick's expiry", 5000000, 5000000, 0 },
	{ "late expiry, past the tick's expiry", 5000100, 5000000, 0 },
	{ "no timer: nothing to arm again", 1100000, KTIME_MAX, KTIME_MAX },
};

static void tick_rearm_case_desc(const struct tick_rearm_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tick_rearm, tick_rearm_cases, tick_rearm_case_desc);

static void tick_net_rearm_test(struct kunit *test)
{
	const struct tick_rearm_case *c = test->param_value;
	u64 got = tick_nohz_net_rearm(c->now, c->unbounded);

	KUNIT_EXPECT_EQ(test, got, c->want);
	/* What is armed again is the tick's own expiry, in the future. */
	if (got)
		KUNIT_EXPECT_GT(test, got, c->now);
}

static struct kunit_case tick_net_test_cases[] = {
	KUNIT_CASE_PARAM(tick_net_expires_test, tick_net_gen_params),
	KUNIT_CASE(tick_net_floor_test),
	KUNIT_CASE(tick_net_floor_value_test),
	KUNIT_CASE(tick_net_nohz_full_test),
	KUNIT_CASE_PARAM(tick_net_keep_test, tick_keep_gen_params),
	KUNIT_CASE_PARAM(tick_net_rearm_test, tick_rearm_gen_params),
	{}
};

static struct kunit_suite tick_net_test_suite = {
	.name = "tick-sched-net",
	.test_cases = tick_net_test_cases,
};

kunit_test_suite(tick_net_test_suite);

MODULE_DESCRIPTION("KUnit tests of the safety net on the stopped idle tick");
MODULE_LICENSE("GPL");
