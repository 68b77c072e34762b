/* SPDX-License-Identifier: GPL-2.0 */
/* Replay stub: no KUnit in user space, so nothing is made visible. */
#define VISIBLE_IF_KUNIT static
#define REPLAY_NO_EXPORT(symbol)	static_assert(1, #symbol)
#define EXPORT_SYMBOL_IF_KUNIT		REPLAY_NO_EXPORT
