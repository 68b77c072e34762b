// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the bound that a cpuidle governor may put on the stopped
 * idle tick (a safety net): where the bounded expiry lies, and where no
 * bound applies.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/tick.h>

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

static struct kunit_case tick_bound_test_cases[] = {
	KUNIT_CASE_PARAM(tick_bound_expires_test, tick_bound_gen_params),
	KUNIT_CASE(tick_bound_nohz_full_test),
	{}
};

static struct kunit_suite tick_bound_test_suite = {
	.name = "tick-sched-bound",
	.test_cases = tick_bound_test_cases,
};

kunit_test_suite(tick_bound_test_suite);

MODULE_DESCRIPTION("KUnit tests of the bounded idle tick");
MODULE_LICENSE("GPL");
