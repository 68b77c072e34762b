// SPDX-License-Identifier: GPL-2.0
/*
 * Cases for the shim itself, half of which must fail: run_tests.sh checks
 * that each is reported as it should be.
 */
#include <signal.h>
#include <unistd.h>

#include <kunit/test.h>
#include <kunit/static_stub.h>

static int shared_counter;

static int shim_init(struct kunit *test)
{
	static int data = 42;

	test->priv = &data;
	return 0;
}

static void shim_pass(struct kunit *test)
{
	s64 minus_one = -1;
	u64 big = U64_MAX;

	KUNIT_EXPECT_EQ(test, *(int *)test->priv, 42);
	KUNIT_EXPECT_LT(test, minus_one, 0);
	/* The usual conversions, as the kernel's macros: -1 is U64_MAX. */
	KUNIT_EXPECT_EQ(test, big, (u64)minus_one);
	KUNIT_EXPECT_TRUE(test, big);
	KUNIT_EXPECT_NOT_NULL(test, test->priv);
	shared_counter++;
}

static void shim_own_process(struct kunit *test)
{
	/* shim_pass ran before, in a process of its own. */
	KUNIT_EXPECT_EQ(test, shared_counter, 0);
}

static void shim_expect_fails(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, 1 + 1, 3, "arithmetic %d", 2);
	kunit_info(test, "after a failed expectation");
}

static void shim_assert_stops(struct kunit *test)
{
	KUNIT_ASSERT_GT(test, 1, 2);
	kunit_info(test, "after a failed assertion");
}

static void shim_crash(struct kunit *test)
{
	raise(SIGSEGV);
}

static void shim_hang(struct kunit *test)
{
	for (;;)
		pause();
}

static void shim_skip(struct kunit *test)
{
	kunit_skip(test, "not here");
	KUNIT_FAIL(test, "after a skip");
}

int shim_real(int x);

int shim_real(int x)
{
	KUNIT_STATIC_STUB_REDIRECT(shim_real, x);
	return x;
}

static int shim_fake(int x)
{
	return -x;
}

static void shim_stub(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, shim_real(3), 3);
	kunit_activate_static_stub(test, shim_real, shim_fake);
	KUNIT_EXPECT_EQ(test, shim_real(3), -3);
	kunit_deactivate_static_stub(test, shim_real);
	KUNIT_EXPECT_EQ(test, shim_real(3), 3);
}

struct shim_param {
	const char *name;
	int value;
};

static const struct shim_param shim_params[] = {
	{ "even 2", 2 }, { "odd 3", 3 }, { "even 4", 4 },
};

KUNIT_ARRAY_PARAM_DESC(shim, shim_params, name);

static void shim_param_even(struct kunit *test)
{
	const struct shim_param *p = test->param_value;

	KUNIT_EXPECT_EQ(test, p->value % 2, 0);
}

static struct kunit_case shim_cases[] = {
	KUNIT_CASE(shim_pass),
	KUNIT_CASE(shim_own_process),
	KUNIT_CASE(shim_expect_fails),
	KUNIT_CASE(shim_assert_stops),
	KUNIT_CASE(shim_crash),
	KUNIT_CASE(shim_hang),
	KUNIT_CASE(shim_skip),
	KUNIT_CASE(shim_stub),
	KUNIT_CASE_PARAM(shim_param_even, shim_gen_params),
	{}
};

static struct kunit_suite shim_suite = {
	.name = "ukunit-shim",
	.init = shim_init,
	.test_cases = shim_cases,
};

kunit_test_suite(shim_suite);
