/* SPDX-License-Identifier: GPL-2.0 */
#ifndef REPLAY_H
#define REPLAY_H

#include "replay_kernel.h"

/*
 * The governor calls, kept in a translation unit of their own so that they
 * are never inlined: callgrind counts the instructions of select() and
 * reflect() by these two symbols.
 */
int replay_select(struct cpuidle_governor *gov, struct cpuidle_driver *drv,
		  struct cpuidle_device *dev, bool *stop_tick);
void replay_reflect(struct cpuidle_governor *gov, struct cpuidle_device *dev,
		    int idx);

#endif /* REPLAY_H */
