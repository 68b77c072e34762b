/* SPDX-License-Identifier: GPL-2.0 */
/* User-space KUnit build: as the kernel's with CONFIG_KUNIT enabled. */
#define VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(symbol)	static_assert(1, #symbol)
