/* SPDX-License-Identifier: GPL-2.0 */
/* Replay stub: no KUnit in user space, so calls are never redirected. */
#define KUNIT_STATIC_STUB_REDIRECT(real_fn_name, args...) ((void)(real_fn_name))
