/* SPDX-License-Identifier: GPL-2.0 */
/* Replay stub: see replay_kernel.h. */
#include "../replay_kernel.h"
