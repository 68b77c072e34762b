/* SPDX-License-Identifier: GPL-2.0 */
/* User-space KUnit build: module metadata is dropped. */
#define MODULE_DESCRIPTION(desc)	static_assert(sizeof(desc) > 1, "undescribed")
#define MODULE_LICENSE(lic)		static_assert(sizeof(lic) > 1, "no licence")
#define MODULE_IMPORT_NS(ns)		static_assert(1, #ns)
