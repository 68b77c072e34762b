/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space KUnit build: the part of the KUnit API that the suites of
 * horizon and tick-sched use, with the kernel's semantics. Expectations
 * and assertions compare with the kernel's macros' conversions and report
 * the same way; a failed assertion ends the case. ukunit.c runs every case
 * (and every parameter of a parameterised case) in a process of its own
 * and prints KTAP.
 */
#ifndef UKUNIT_TEST_H
#define UKUNIT_TEST_H

#include <stdarg.h>

#define KUNIT_PARAM_DESC_SIZE	128

/* As in the kernel: the case's data, its parameter, its name. */
struct kunit {
	void *priv;
	const void *param_value;
	const char *name;
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	const void *(*generate_params)(const void *prev, char *desc);
};

struct kunit_suite {
	const char name[256];
	int (*suite_init)(struct kunit_suite *suite);
	void (*suite_exit)(struct kunit_suite *suite);
	int (*init)(struct kunit *test);
	void (*exit)(struct kunit *test);
	struct kunit_case *test_cases;
};

#define KUNIT_CASE(test_name) { .run_case = test_name, .name = #test_name }
#define KUNIT_CASE_SLOW(test_name) KUNIT_CASE(test_name)
#define KUNIT_CASE_PARAM(test_name, gen_params) \
	{ .run_case = test_name, .name = #test_name, .generate_params = gen_params }

#define KUNIT_ARRAY_PARAM(name, array, get_desc)					\
	static const void *name##_gen_params(const void *prev, char *desc)		\
	{										\
		typeof((array)[0]) *__next = prev ? ((typeof(__next))prev) + 1 : (array); \
		if (__next - (array) < ARRAY_SIZE((array))) {				\
			void (*__get_desc)(typeof(__next), char *) = get_desc;		\
			if (__get_desc)							\
				__get_desc(__next, desc);				\
			return __next;							\
		}									\
		return NULL;								\
	}

#define KUNIT_ARRAY_PARAM_DESC(name, array, desc_member)				\
	static const void *name##_gen_params(const void *prev, char *desc)		\
	{										\
		typeof((array)[0]) *__next = prev ? ((typeof(__next))prev) + 1 : (array); \
		if (__next - (array) < ARRAY_SIZE((array))) {				\
			strscpy(desc, __next->desc_member, KUNIT_PARAM_DESC_SIZE);	\
			return __next;							\
		}									\
		return NULL;								\
	}

void ukunit_register(struct kunit_suite **suites);

#define kunit_test_suites(__suites...)						\
	static struct kunit_suite *ukunit_tu_suites[] = { __suites, NULL };	\
	static void __attribute__((constructor)) ukunit_tu_register(void)	\
	{									\
		ukunit_register(ukunit_tu_suites);				\
	}
#define kunit_test_suite(suite)	kunit_test_suites(&suite)

struct kunit *kunit_get_current_test(void);
void *kunit_kzalloc(struct kunit *test, size_t size, int gfp);
#define kunit_kmalloc(test, size, gfp) kunit_kzalloc(test, size, gfp)
#define kunit_kcalloc(test, n, size, gfp) kunit_kzalloc(test, (n) * (size), gfp)
#define kunit_kmalloc_array(test, n, size, gfp) kunit_kcalloc(test, n, size, gfp)

void ukunit_skip(struct kunit *test, bool stop, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define kunit_mark_skipped(test, fmt, ...) ukunit_skip(test, false, fmt, ##__VA_ARGS__)
#define kunit_skip(test, fmt, ...) ukunit_skip(test, true, fmt, ##__VA_ARGS__)
void kunit_info(struct kunit *test, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define kunit_err kunit_info
#define kunit_warn kunit_info
#define kunit_log(lvl, test, fmt, ...) kunit_info(test, fmt, ##__VA_ARGS__)

/* Report a failed check; ends the case if @assert. */
void ukunit_failed(struct kunit *test, bool assert, const char *file, int line,
		   const char *what, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
const char *ukunit_fmt_s(char *buf, long long v);
const char *ukunit_fmt_u(char *buf, unsigned long long v);

#define UKUNIT_FMT(buf, v) _Generic((v),					\
	unsigned char: ukunit_fmt_u, unsigned short: ukunit_fmt_u,		\
	unsigned int: ukunit_fmt_u, unsigned long: ukunit_fmt_u,		\
	unsigned long long: ukunit_fmt_u, default: ukunit_fmt_s)(buf, v)

#define UKUNIT_KIND(assert) ((assert) ? "ASSERTION" : "EXPECTATION")

#define UKUNIT_BINARY(test, assert, left, op, right, fmt, ...) do {		\
	typeof(left) __left = (left);						\
	typeof(right) __right = (right);					\
	char __lb[48], __rb[48];						\
									\
	if (!(__left op __right))						\
		ukunit_failed(test, assert, __FILE__, __LINE__,			\
			"Expected " #left " " #op " " #right ", but\n"		\
			"    " #left " == ", "%s\n    " #right " == %s"	\
			fmt, UKUNIT_FMT(__lb, __left), UKUNIT_FMT(__rb, __right), \
			##__VA_ARGS__);						\
} while (0)

#define UKUNIT_TRUTH(test, assert, cond, want, fmt, ...) do {			\
	if ((bool)(cond) != (want))						\
		ukunit_failed(test, assert, __FILE__, __LINE__,			\
			"Expected " #cond " to be " #want ", but is ",		\
			"%s" fmt, (want) ? "false" : "true", ##__VA_ARGS__);	\
} while (0)

#define UKUNIT_PTR(test, assert, ptr, op, fmt, ...) do {			\
	const void *__ptr = (ptr);						\
									\
	if (!(__ptr op NULL))							\
		ukunit_failed(test, assert, __FILE__, __LINE__,			\
			"Expected " #ptr " " #op " NULL, but\n    " #ptr " == ", \
			"%p" fmt, __ptr, ##__VA_ARGS__);			\
} while (0)

#define UKUNIT_STR(test, assert, left, op, right, fmt, ...) do {		\
	const char *__l = (left), *__r = (right);				\
									\
	if (!(strcmp(__l, __r) op 0))						\
		ukunit_failed(test, assert, __FILE__, __LINE__,			\
			"Expected " #left " " #op " " #right ", but\n    " #left " == ", \
			"\"%s\"\n    " #right " == \"%s\"" fmt, __l, __r,	\
			##__VA_ARGS__);						\
} while (0)

/* The _MSG variants add a line: the message. */
#define UKUNIT_MSG(fmt) "\n" fmt

#define KUNIT_FAIL(test, fmt, ...) \
	ukunit_failed(test, false, __FILE__, __LINE__, "", fmt, ##__VA_ARGS__)
#define KUNIT_SUCCEED(test) do { } while (0)

#define KUNIT_EXPECT_EQ(t, l, r)	UKUNIT_BINARY(t, false, l, ==, r, "")
#define KUNIT_EXPECT_NE(t, l, r)	UKUNIT_BINARY(t, false, l, !=, r, "")
#define KUNIT_EXPECT_LT(t, l, r)	UKUNIT_BINARY(t, false, l, <, r, "")
#define KUNIT_EXPECT_LE(t, l, r)	UKUNIT_BINARY(t, false, l, <=, r, "")
#define KUNIT_EXPECT_GT(t, l, r)	UKUNIT_BINARY(t, false, l, >, r, "")
#define KUNIT_EXPECT_GE(t, l, r)	UKUNIT_BINARY(t, false, l, >=, r, "")
#define KUNIT_EXPECT_TRUE(t, c)		UKUNIT_TRUTH(t, false, c, true, "")
#define KUNIT_EXPECT_FALSE(t, c)	UKUNIT_TRUTH(t, false, c, false, "")
#define KUNIT_EXPECT_NULL(t, p)		UKUNIT_PTR(t, false, p, ==, "")
#define KUNIT_EXPECT_NOT_NULL(t, p)	UKUNIT_PTR(t, false, p, !=, "")
#define KUNIT_EXPECT_PTR_EQ(t, l, r)	UKUNIT_BINARY(t, false, (uintptr_t)(l), ==, (uintptr_t)(r), "")
#define KUNIT_EXPECT_PTR_NE(t, l, r)	UKUNIT_BINARY(t, false, (uintptr_t)(l), !=, (uintptr_t)(r), "")
#define KUNIT_EXPECT_MEMEQ(t, l, r, n)	UKUNIT_BINARY(t, false, memcmp(l, r, n), ==, 0, "")
#define KUNIT_EXPECT_MEMNEQ(t, l, r, n)	UKUNIT_BINARY(t, false, memcmp(l, r, n), !=, 0, "")
#define KUNIT_EXPECT_STREQ(t, l, r)	UKUNIT_STR(t, false, l, ==, r, "")
#define KUNIT_EXPECT_STRNEQ(t, l, r)	UKUNIT_STR(t, false, l, !=, r, "")

#define KUNIT_EXPECT_EQ_MSG(t, l, r, f, ...)	UKUNIT_BINARY(t, false, l, ==, r, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_EXPECT_NE_MSG(t, l, r, f, ...)	UKUNIT_BINARY(t, false, l, !=, r, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_EXPECT_LT_MSG(t, l, r, f, ...)	UKUNIT_BINARY(t, false, l, <, r, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_EXPECT_LE_MSG(t, l, r, f, ...)	UKUNIT_BINARY(t, false, l, <=, r, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_EXPECT_GT_MSG(t, l, r, f, ...)	UKUNIT_BINARY(t, false, l, >, r, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_EXPECT_GE_MSG(t, l, r, f, ...)	UKUNIT_BINARY(t, false, l, >=, r, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_EXPECT_TRUE_MSG(t, c, f, ...)	UKUNIT_TRUTH(t, false, c, true, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_EXPECT_FALSE_MSG(t, c, f, ...)	UKUNIT_TRUTH(t, false, c, false, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_EXPECT_PTR_EQ_MSG(t, l, r, f, ...) \
	UKUNIT_BINARY(t, false, (uintptr_t)(l), ==, (uintptr_t)(r), UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_EXPECT_PTR_NE_MSG(t, l, r, f, ...) \
	UKUNIT_BINARY(t, false, (uintptr_t)(l), !=, (uintptr_t)(r), UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_EXPECT_NULL_MSG(t, p, f, ...)	UKUNIT_PTR(t, false, p, ==, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_EXPECT_NOT_NULL_MSG(t, p, f, ...)	UKUNIT_PTR(t, false, p, !=, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_EXPECT_STREQ_MSG(t, l, r, f, ...)	UKUNIT_STR(t, false, l, ==, r, UKUNIT_MSG(f), ##__VA_ARGS__)

#define KUNIT_ASSERT_EQ(t, l, r)	UKUNIT_BINARY(t, true, l, ==, r, "")
#define KUNIT_ASSERT_NE(t, l, r)	UKUNIT_BINARY(t, true, l, !=, r, "")
#define KUNIT_ASSERT_LT(t, l, r)	UKUNIT_BINARY(t, true, l, <, r, "")
#define KUNIT_ASSERT_LE(t, l, r)	UKUNIT_BINARY(t, true, l, <=, r, "")
#define KUNIT_ASSERT_GT(t, l, r)	UKUNIT_BINARY(t, true, l, >, r, "")
#define KUNIT_ASSERT_GE(t, l, r)	UKUNIT_BINARY(t, true, l, >=, r, "")
#define KUNIT_ASSERT_TRUE(t, c)		UKUNIT_TRUTH(t, true, c, true, "")
#define KUNIT_ASSERT_FALSE(t, c)	UKUNIT_TRUTH(t, true, c, false, "")
#define KUNIT_ASSERT_NULL(t, p)		UKUNIT_PTR(t, true, p, ==, "")
#define KUNIT_ASSERT_NOT_NULL(t, p)	UKUNIT_PTR(t, true, p, !=, "")
#define KUNIT_ASSERT_STREQ(t, l, r)	UKUNIT_STR(t, true, l, ==, r, "")
#define KUNIT_ASSERT_STRNEQ(t, l, r)	UKUNIT_STR(t, true, l, !=, r, "")
#define KUNIT_ASSERT_PTR_EQ(t, l, r)	UKUNIT_BINARY(t, true, (uintptr_t)(l), ==, (uintptr_t)(r), "")
#define KUNIT_ASSERT_PTR_NE(t, l, r)	UKUNIT_BINARY(t, true, (uintptr_t)(l), !=, (uintptr_t)(r), "")

#define KUNIT_ASSERT_EQ_MSG(t, l, r, f, ...)	UKUNIT_BINARY(t, true, l, ==, r, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_ASSERT_NE_MSG(t, l, r, f, ...)	UKUNIT_BINARY(t, true, l, !=, r, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_ASSERT_LT_MSG(t, l, r, f, ...)	UKUNIT_BINARY(t, true, l, <, r, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_ASSERT_LE_MSG(t, l, r, f, ...)	UKUNIT_BINARY(t, true, l, <=, r, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_ASSERT_GT_MSG(t, l, r, f, ...)	UKUNIT_BINARY(t, true, l, >, r, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_ASSERT_GE_MSG(t, l, r, f, ...)	UKUNIT_BINARY(t, true, l, >=, r, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_ASSERT_TRUE_MSG(t, c, f, ...)	UKUNIT_TRUTH(t, true, c, true, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_ASSERT_FALSE_MSG(t, c, f, ...)	UKUNIT_TRUTH(t, true, c, false, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_ASSERT_NOT_NULL_MSG(t, p, f, ...)	UKUNIT_PTR(t, true, p, !=, UKUNIT_MSG(f), ##__VA_ARGS__)
#define KUNIT_ASSERT_PTR_EQ_MSG(t, l, r, f, ...) \
	UKUNIT_BINARY(t, true, (uintptr_t)(l), ==, (uintptr_t)(r), UKUNIT_MSG(f), ##__VA_ARGS__)

#endif /* UKUNIT_TEST_H */
