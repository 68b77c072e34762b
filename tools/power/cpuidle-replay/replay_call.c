// SPDX-License-Identifier: GPL-2.0
/* The governor calls of cpuidle-replay: see replay.h. */
#include "replay.h"

int replay_select(struct cpuidle_governor *gov, struct cpuidle_driver *drv,
		  struct cpuidle_device *dev, bool *stop_tick)
{
	/* As cpuidle_select() does. */
	dev->safety_net_ns = 0;
	return gov->select(drv, dev, stop_tick);
}

void replay_reflect(struct cpuidle_governor *gov, struct cpuidle_device *dev,
		    int idx)
{
	gov->reflect(dev, idx);
}
