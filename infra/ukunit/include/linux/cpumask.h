/* SPDX-License-Identifier: GPL-2.0 */
/* User-space KUnit build: for_each_possible_cpu() is in ukunit.h. */
