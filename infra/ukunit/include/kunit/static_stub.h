/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space KUnit build: static stubs, as the kernel's. A function that
 * starts with KUNIT_STATIC_STUB_REDIRECT() calls the replacement that the
 * running test activated for it, if any.
 */
#ifndef UKUNIT_STATIC_STUB_H
#define UKUNIT_STATIC_STUB_H

#include <kunit/test.h>

void *ukunit_stub_lookup(const void *real_fn);
void ukunit_stub_set(struct kunit *test, const void *real_fn, void *replacement);

#define KUNIT_STATIC_STUB_REDIRECT(real_fn_name, args...)		\
do {									\
	typeof(&real_fn_name) replacement;				\
									\
	if (likely(!kunit_get_current_test()))				\
		break;							\
	replacement = (typeof(&real_fn_name))				\
		ukunit_stub_lookup((const void *)&real_fn_name);	\
	if (unlikely(replacement))					\
		return replacement(args);				\
} while (0)

#define kunit_activate_static_stub(test, real_fn_addr, replacement_addr) do {	\
	typeof(&(real_fn_addr)) __ukunit_repl = (replacement_addr);		\
	ukunit_stub_set(test, (const void *)(real_fn_addr), (void *)__ukunit_repl); \
} while (0)

#define kunit_deactivate_static_stub(test, real_fn_addr) \
	ukunit_stub_set(test, (const void *)(real_fn_addr), NULL)

#endif /* UKUNIT_STATIC_STUB_H */
