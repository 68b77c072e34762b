/* SPDX-License-Identifier: GPL-2.0 */
/*
 * horizon.h - internals of the horizon cpuidle governor, shared with its
 * KUnit suite
 */
#ifndef __CPUIDLE_GOV_HORIZON_H
#define __CPUIDLE_GOV_HORIZON_H

#include <linux/bits.h>
#include <linux/cpuidle.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/types.h>

/* Durations are binned in time units of 1024 ns (shift, not division). */
#define HORIZON_UNIT_SHIFT	10
/* Logarithmic bins: the last one starts at 2^15 units, about 33 ms. */
#define HORIZON_BINS		16
/* The weight one observation adds to its bin. */
#define HORIZON_WEIGHT		1024
/*
 * Every HORIZON_DECAY_EVERY observations decay every bin by
 * 1/2^HORIZON_DECAY_SHIFT: about 1/16 an observation, for a quarter of the
 * work.
 */
#define HORIZON_DECAY_EVERY	4
#define HORIZON_DECAY_SHIFT	2
/*
 * So no bin weighs more than the fixed point of w = 3/4 w + 4 * 1024, 2^14:
 * 16 bits hold it, and the decay works on four bins at a time in a u64.
 */
#define HORIZON_WEIGHT_MAX	(HORIZON_DECAY_EVERY * HORIZON_WEIGHT << \
				 HORIZON_DECAY_SHIFT)
/* Fixed-point one for probabilities. */
#define HORIZON_ONE_SHIFT	16
#define HORIZON_ONE		BIT_ULL(HORIZON_ONE_SHIFT)
/* Step 2: skip the query if this many sixteenths of the weight are short. */
#define HORIZON_SHORT_16THS	15
/*
 * A wakeup within this of the sleep length was the timer's: the time the
 * idle entry takes before the state is entered (the sleep length counts
 * from the idle entry, the residency from the state entry), with room for
 * a slow CPU. An intercept closer to the timer than this, plus the time
 * actually spent leaving the state, counts as a timer end.
 */
#define HORIZON_TIMER_SLACK_NS	(25 * NSEC_PER_USEC)
/* An idle spell carried over safety-net wakeups is capped at this. */
#define HORIZON_SPELL_MAX_NS	((s64)NSEC_PER_SEC)
/* Bins with less weight than this (decay residues) are left out. */
#define HORIZON_MIN_SEEN	(HORIZON_WEIGHT / 8)
/* Expectations are computed up to 2^40 ns (18 min): no overflow in u64. */
#define HORIZON_LIMIT_MAX_NS	((s64)1 << 40)
/*
 * A target residency is the break-even time of a state only if leaving it
 * costs nothing; it costs the exit latency at active power, which drivers
 * account for to different degrees. A state is taken to pay off beyond its
 * target residency plus half its exit latency: a little energy where the
 * residencies are exact break-evens, much where each visit pays its exit
 * latency on top.
 */
#define HORIZON_EXIT_MARGIN(lat)	((lat) / 2)
/*
 * With the tick stopped and no safety net, a state selected for less than
 * the sleep length is kept only if the next timer comes within this (or
 * within twice the expected idle duration): the timer then ends the stay
 * about as soon as two ticks would have.
 */
#define HORIZON_SAFE_TIMER_NS	(2 * (s64)TICK_NSEC)
/* The shortest safety net worth a wakeup. */
#define HORIZON_NET_MIN_NS	RESIDENCY_THRESHOLD_NS
/*
 * The time by which survival drops below this (5/8 of the spells still
 * going) caps the expectation.
 */
#define HORIZON_MAJORITY_LEFT	(HORIZON_ONE * 10 / 16)

/**
 * struct horizon_cpu - Per-CPU statistics of the horizon governor.
 * @intercepts: Decayed weight of the intercepts that ended in each bin.
 * @timer_ends: Decayed weight of the idle spells ended by a timer in each
 *	bin (censored observations of the intercept time).
 * @lanes: @intercepts and @timer_ends, four at a time.
 * @intercept_mean: Weighted mean duration, in nanoseconds, of the
 *	intercepts in each bin.
 * @total: Sum of @intercepts and @timer_ends over all bins.
 * @learned: Number of observations, modulo 256.
 * @sleep_length_ns: Sleep length at the last selection, or KTIME_MAX if it
 *	was not queried.
 * @spell_ns: Idle time carried over from tick and polling-limit wakeups.
 * @polled_ns: Time spent polling since the last wakeup that was not the
 *	polling time limit's.
 * @queried_ns: What tick_nohz_get_sleep_length() returned at the last
 *	selection, or KTIME_MAX if it was not queried.
 * @tick_wakeup: Whether the tick ended the last idle period.
 * @poll_limit: Whether the polling time limit ended the last idle period.
 * @needs_update: Whether the last idle period has not been learned yet.
 * @switches: The idle task's context switch count at the last selection.
 * @ordered: Whether the target residency plus exit margin of the driver's
 *	states never decreases with the index, so that horizon_find_state()
 *	may start its scan at the state entered last.
 */
struct horizon_cpu {
	union {
		struct {
			u16 intercepts[HORIZON_BINS];
			u16 timer_ends[HORIZON_BINS];
		};
		u64 lanes[HORIZON_BINS / 2];
	};
	u32 intercept_mean[HORIZON_BINS];
	u32 total;
	u8 learned;
	s64 sleep_length_ns;
	s64 spell_ns;
	s64 polled_ns;
	s64 queried_ns;
	bool tick_wakeup;
	bool poll_limit;
	bool needs_update;
	bool ordered;
	u64 switches;
};

/**
 * struct horizon_estimate - Distribution of the rest of an idle spell.
 * @sum: Sum of the probabilities (out of HORIZON_ONE) of the intercepts
 *	before the limit times their durations from now, in nanoseconds.
 * @survival: Probability, out of HORIZON_ONE, that no intercept ends the
 *	spell before the limit or the end of what was observed.
 * @seen_ns: End of the last bin holding observations, from now.
 * @limit_ns: The limit the estimate was made for.
 * @majority_ns: Time from now by which an intercept has ended the spell
 *	with probability 9/16, or S64_MAX if that is beyond the limit.
 */
struct horizon_estimate {
	u64 sum;
	u64 survival;
	s64 seen_ns;
	s64 limit_ns;
	s64 majority_ns;
};

#if IS_ENABLED(CONFIG_KUNIT)
extern bool horizon_safety_net;

struct horizon_cpu *horizon_cpu_data(int cpu);
bool horizon_nets(int cpu);

int horizon_bin(s64 ns);
s64 horizon_bin_start_ns(int bin);
u32 horizon_decay(struct horizon_cpu *data);
int horizon_enable_device(struct cpuidle_driver *drv,
			  struct cpuidle_device *dev);
void horizon_estimate(const struct horizon_cpu *data, s64 spent_ns,
		      s64 limit_ns, struct horizon_estimate *est,
		      s64 cut_ns, struct horizon_estimate *at_cut);
s64 horizon_expected_ns(const struct horizon_estimate *est,
			bool trust_tail);
int horizon_find_state(struct cpuidle_driver *drv,
		       struct cpuidle_device *dev, s64 duration_ns,
		       s64 latency_req);
bool horizon_got_tick(void);
s64 horizon_latency_req(unsigned int cpu);
void horizon_learn(struct horizon_cpu *data, s64 spell_ns,
		   bool by_timer);
u64 horizon_net_ns(s64 seen_ns, s64 sleep_ns);
void horizon_reflect(struct cpuidle_device *dev, int index);
int horizon_select(struct cpuidle_driver *drv,
		   struct cpuidle_device *dev, bool *stop_tick);
s64 horizon_sleep_length(s64 *delta_tick_ns);
u64 horizon_switches(unsigned int cpu);
bool horizon_tick_stopped(void);
s64 horizon_to_come(const struct horizon_cpu *data, int bin,
		    s64 spent_ns, u32 *weight);
#endif /* CONFIG_KUNIT */

#endif /* __CPUIDLE_GOV_HORIZON_H */
