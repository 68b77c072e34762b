// SPDX-License-Identifier: GPL-2.0
/*
 * horizon.c - the horizon cpuidle governor
 *
 * Copyright (C) 2026 The horizon developers
 */

/**
 * DOC: horizon-description
 *
 * The horizon governor chooses an idle state from a prediction of how long
 * the CPU will stay idle, and decides whether or not to stop the scheduler
 * tick only after that choice has been made.
 *
 * Terms used below:
 *
 * ``sleep length``
 *	The time until the closest timer event, as reported by
 *	tick_nohz_get_sleep_length() (the tick itself left out).  Unless
 *	something other than a timer wakes the CPU, this is how long the idle
 *	period will last.
 *
 * ``tick delta``
 *	The time until the next scheduler tick.  While the tick runs, no idle
 *	period can last longer than this.
 *
 * ``horizon``
 *	The idle duration the state choice is based on.
 *
 * The selection proceeds in these steps:
 *
 * 1. If the tick is already stopped, nothing but a timer or an interrupt
 *    will end the idle period, so the horizon is the sleep length.
 *
 * 2. Otherwise, the horizon is the sleep length too, but the tick is only
 *    worth stopping when the horizon extends beyond one tick period.  When
 *    it does not, the tick is retained and the horizon is cut to the tick
 *    delta, because the tick will end the idle period by then.
 *
 * 3. The deepest enabled state whose exit latency is within the PM QoS
 *    latency limit and whose target residency fits in the horizon is
 *    selected.  If no state fits, the shallowest enabled state is used.
 *
 * 4. A polling state never runs with the tick stopped: if one is selected,
 *    the tick is retained so that it bounds the polling.
 */

#include <linux/cpuidle.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/tick.h>

#include <kunit/static_stub.h>

/**
 * struct horizon_tick_input - What the tick decision depends on.
 * @sleep_length_ns: Time until the closest timer event, tick excluded.
 * @delta_tick_ns: Time until the next tick.
 * @tick_stopped: Whether the tick is already stopped on this CPU.
 */
struct horizon_tick_input {
	s64 sleep_length_ns;
	s64 delta_tick_ns;
	bool tick_stopped;
};

/*
 * Seams for KUnit: the tick and PM QoS inputs of select() go through these
 * wrappers so that the test suite can inject them.
 */
static s64 horizon_sleep_length(s64 *delta_tick_ns)
{
	ktime_t delta_tick, sleep_length;

	KUNIT_STATIC_STUB_REDIRECT(horizon_sleep_length, delta_tick_ns);

	sleep_length = tick_nohz_get_sleep_length(&delta_tick);
	*delta_tick_ns = ktime_to_ns(delta_tick);
	return ktime_to_ns(sleep_length);
}

static bool horizon_tick_stopped(void)
{
	KUNIT_STATIC_STUB_REDIRECT(horizon_tick_stopped);

	return tick_nohz_tick_stopped();
}

static s64 horizon_latency_req(unsigned int cpu)
{
	KUNIT_STATIC_STUB_REDIRECT(horizon_latency_req, cpu);

	return cpuidle_governor_latency_req(cpu);
}

/**
 * horizon_read_tick_input - Collect the inputs of the tick decision.
 * @in: Structure to fill in.
 */
static void horizon_read_tick_input(struct horizon_tick_input *in)
{
	in->tick_stopped = horizon_tick_stopped();
	in->sleep_length_ns = horizon_sleep_length(&in->delta_tick_ns);
}

/**
 * horizon_tick_horizon - Decide the tick and the idle duration to plan for.
 * @in: Sleep length, tick delta and tick state.
 * @stop_tick: Set to false if the tick should be retained.
 *
 * Return: the idle duration, in nanoseconds, to choose the idle state for.
 */
static s64 horizon_tick_horizon(const struct horizon_tick_input *in,
				bool *stop_tick)
{
	if (in->tick_stopped || in->sleep_length_ns > TICK_NSEC)
		return in->sleep_length_ns;

	*stop_tick = false;
	return min(in->sleep_length_ns, in->delta_tick_ns);
}

/**
 * horizon_find_state - Find the deepest state fitting in a duration.
 * @drv: cpuidle driver of the CPU.
 * @dev: cpuidle device of the CPU.
 * @duration_ns: Expected idle duration.
 * @latency_req: PM QoS exit latency limit, in nanoseconds.
 *
 * States are ordered by increasing depth, so the scan stops at the first
 * enabled state within @latency_req whose target residency does not fit.
 *
 * Return: the index of the deepest enabled state within @latency_req whose
 * target residency does not exceed @duration_ns; failing that, the
 * shallowest enabled state within @latency_req; failing that, the shallowest
 * enabled state; and if every state is disabled, 0.
 */
static int horizon_find_state(struct cpuidle_driver *drv,
			      struct cpuidle_device *dev, s64 duration_ns,
			      s64 latency_req)
{
	int enabled = -1, usable = -1, idx = -1;
	int i;

	for (i = 0; i < drv->state_count; i++) {
		if (dev->states_usage[i].disable)
			continue;
		if (enabled < 0)
			enabled = i;
		if (drv->states[i].exit_latency_ns > latency_req)
			continue;
		if (usable < 0)
			usable = i;
		if (drv->states[i].target_residency_ns > duration_ns)
			break;
		idx = i;
	}

	if (idx >= 0)
		return idx;
	if (usable >= 0)
		return usable;
	return enabled >= 0 ? enabled : 0;
}

/**
 * horizon_select - Select the idle state to enter.
 * @drv: cpuidle driver of the CPU.
 * @dev: cpuidle device of the CPU.
 * @stop_tick: Set to false if the scheduler tick should be retained.
 *
 * Called by the idle loop with interrupts disabled; @stop_tick is true on
 * entry.
 *
 * Return: the index of the selected state.
 */
static int horizon_select(struct cpuidle_driver *drv,
			  struct cpuidle_device *dev, bool *stop_tick)
{
	s64 latency_req = horizon_latency_req(dev->cpu);
	struct horizon_tick_input in;
	s64 duration_ns;
	int idx;

	horizon_read_tick_input(&in);
	duration_ns = horizon_tick_horizon(&in, stop_tick);
	idx = horizon_find_state(drv, dev, duration_ns, latency_req);

	/* Step 4: the tick bounds the time spent polling. */
	if (drv->states[idx].flags & CPUIDLE_FLAG_POLLING)
		*stop_tick = false;

	return idx;
}

/**
 * horizon_reflect - Note the state that was entered.
 * @dev: cpuidle device of the CPU.
 * @index: Index of the state entered.
 *
 * Called on the exit path from idle with interrupts disabled: O(1).
 */
static void horizon_reflect(struct cpuidle_device *dev, int index)
{
	dev->last_state_idx = index;
}

/**
 * horizon_enable_device - Prepare a CPU for the governor.
 * @drv: cpuidle driver of the CPU.
 * @dev: cpuidle device of the CPU.
 *
 * Called when the governor is switched to and when a CPU comes online.
 *
 * Return: 0.
 */
static int horizon_enable_device(struct cpuidle_driver *drv,
				 struct cpuidle_device *dev)
{
	dev->last_state_idx = -1;
	return 0;
}

static struct cpuidle_governor horizon_governor = {
	.name =		"horizon",
	/* Below menu (20) and teo (19): never picked silently over them. */
	.rating =	15,
	.enable =	horizon_enable_device,
	.select =	horizon_select,
	.reflect =	horizon_reflect,
};

static int __init horizon_governor_init(void)
{
	return cpuidle_register_governor(&horizon_governor);
}

postcore_initcall(horizon_governor_init);

#ifdef CONFIG_CPU_IDLE_GOV_HORIZON_KUNIT_TEST
#include "tests/horizon_kunit.c"
#endif
