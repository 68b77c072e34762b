// SPDX-License-Identifier: GPL-2.0
/*
 * net_test: a cpuidle governor to test the safety net of the stopped tick.
 *
 * On every idle entry it selects the deepest enabled state within the PM QoS
 * latency limit, lets the tick stop and asks for a safety net of
 * NET_TEST_NET_NS, so that on an idle CPU nets expire many times per tick
 * period.  That wastes energy on purpose: the cpuidle kselftests use it to
 * check what tick-sched does with nets that expire far more often than
 * jiffies advance (no tick's worth of idle time accounted per net), and it
 * warns if tick_nohz_get_sleep_length() leaves the time to the next event
 * unwritten, which governors read to decide the tick.  It is built only into
 * debug kernels, and registered only when the kernel is booted with
 * net_test.enable=1: a kernel that merely has it built in does not offer it
 * in available_governors.
 */

#include <linux/cpuidle.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/tick.h>
#include <linux/time64.h>

/* Far below the tick period at any HZ, far above the cost of an expiry. */
#define NET_TEST_NET_NS	(100 * NSEC_PER_USEC)

static bool net_test_enable;
module_param_named(enable, net_test_enable, bool, 0444);
MODULE_PARM_DESC(enable, "Register the net_test governor (default: N)");

static int net_test_select(struct cpuidle_driver *drv,
			   struct cpuidle_device *dev, bool *stop_tick)
{
	s64 latency_req = cpuidle_governor_latency_req(dev->cpu);
	ktime_t delta_tick = KTIME_MIN;
	int idx = -1;
	int i;

	/*
	 * tick-sched's side of what governors rely on, checked under the nets
	 * of this governor: the time to the next event of the tick device is
	 * written on every call, a net pending or not.
	 */
	tick_nohz_get_sleep_length(&delta_tick);
	WARN_ON_ONCE(delta_tick == KTIME_MIN);

	for (i = 0; i < drv->state_count; i++) {
		if (dev->states_usage[i].disable)
			continue;
		if (idx >= 0 && drv->states[i].exit_latency_ns > latency_req)
			break;
		idx = i;
	}

	*stop_tick = true;
	dev->safety_net_ns = NET_TEST_NET_NS;

	return idx < 0 ? 0 : idx;
}

static struct cpuidle_governor net_test_governor = {
	.name =		"net_test",
	/* Below every other governor: only chosen by name. */
	.rating =	1,
	.select =	net_test_select,
};

static int __init net_test_governor_init(void)
{
	if (!net_test_enable)
		return 0;
	return cpuidle_register_governor(&net_test_governor);
}

postcore_initcall(net_test_governor_init);
