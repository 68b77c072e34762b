// SPDX-License-Identifier: GPL-2.0
/*
 * horizon.c - the horizon cpuidle governor
 */

/**
 * DOC: horizon-description
 *
 * The horizon governor predicts how long the CPU will stay idle, selects the
 * idle state with the lowest expected energy for that prediction, and only
 * then decides whether or not to stop the scheduler tick.
 *
 * Terms used below:
 *
 * ``sleep length``
 *	The time until the closest timer event, tick excluded, as reported by
 *	tick_nohz_get_sleep_length().  No idle period lasts longer, unless the
 *	timer is cancelled.
 *
 * ``intercept``
 *	An idle period ended by something other than a timer (a device
 *	interrupt, an IPI) before the sleep length.
 *
 * ``bins``
 *	Idle durations are sorted into logarithmic bins: bin 0 holds
 *	durations below 2 "time units" of 1024 ns (about 2 us), bin ``i`` those
 *	from ``2^i`` to ``2^(i+1)`` units, and the last bin everything longer.
 *	For each bin the governor keeps, per CPU, the weight of the intercepts
 *	that ended in it, the mean of their durations weighted alike (which
 *	catches repeating non-timer intervals), and the weight of the idle
 *	periods that were still going when a timer ended them there.
 *	Every fourth observation decays all of them by a quarter (about 1/16
 *	an observation), so the statistics follow a change of workload within
 *	a few dozen wakeups.
 *
 * Together these make a survival estimate (Kaplan-Meier, with the
 * timer-ended periods as censored observations) of the time ``X`` until the
 * next non-timer wakeup, independent of the timers, which are known.  For a
 * time limit ``L`` (the sleep length, or the next tick when the tick runs)
 * the expected idle duration is ``E[min(X, L)]``.  As state ``i`` costs its
 * entry energy plus its power times the idle duration, and its target
 * residency is the break-even time against state ``i - 1``, the state with
 * the lowest expected energy is the deepest one whose target residency does
 * not exceed the expected idle duration.
 *
 * A mean is swayed by rare long idle periods: one idle period of 20 ms in a
 * hundred of 30 us makes it 230 us, and a state chosen for that would be
 * left too early nearly every time.  The mean is also the right measure
 * only if target residencies are exact break-even times; where leaving a
 * deep state costs more than its target residency tells (its exit latency
 * spent at active power), a state entered for a mean that a minority of
 * long idle periods make up is paid for by the majority that end early.
 * So the expected idle duration used below is capped by the time that most
 * (5/8) of the idle periods outlast, interpolated across the intercepts of
 * the bin where that share is reached (spread evenly around their mean),
 * and a state is taken to pay off only beyond its target residency plus
 * half its exit latency.
 *
 * The selection proceeds in these steps:
 *
 * 1. Learn from the previous idle period (deferred from reflect() so that
 *    the exit path stays short).  The period ended by a timer if it lasted
 *    at least the sleep length less HORIZON_TIMER_SLACK_NS (the residency
 *    is measured from the state entry, the sleep length from the idle
 *    entry), and by an intercept if not.  A wakeup by the tick (or a
 *    safety net) before the sleep length, or by the polling limit, is not
 *    an outcome if the CPU stayed in the idle loop: its time is carried
 *    over to the next period, which continues the same idle spell.  Once
 *    the CPU has left the idle loop (its context switch count moved), the
 *    spell is over and is learned as it ended.  The sleep length counts
 *    from the last interrupt or idle loop entry: if it has not changed
 *    since a polling-limit wakeup (no interrupt), the time spent polling
 *    is taken off it.
 *    If step 2 skipped the query, how the period ended is not known: a
 *    period too short for any state but the shallowest is learned as an
 *    intercept, a longer one as a timer end.
 *
 * 2. If the tick runs, no idle spell is carried over, state 0 polls, and
 *    at least 15/16 of the recent weight are intercepts in bins that end
 *    before RESIDENCY_THRESHOLD_NS (too short for any state but the
 *    shallowest), skip the sleep length query (it is not free), keep the
 *    tick and select for those short wakeups.
 *
 * 3. Query the sleep length.  Compute the expected idle duration up to it,
 *    given the time already spent idle in this spell.  If it is at least a
 *    tick period, select the state for it and let the tick be stopped; if
 *    a deeper state would fit before the next timer, ask the idle loop for
 *    a safety net, a wakeup after twice the expected idle duration, so that
 *    a CPU idle for that long is asked again.  If the expected idle
 *    duration is shorter and the tick is stopped already, there is no tick
 *    to end a too shallow state: ask for a safety net instead, a wakeup
 *    after twice the end of the last bin holding observations (at least
 *    HORIZON_NET_MIN_NS, at most a tick period), and select for the
 *    expected idle duration up to the net.  If nothing observed lies
 *    ahead (nothing learned, or only decay residues), no net is asked for
 *    and the expected idle duration is the sleep length.  If a net fires,
 *    step 1 carries the time over as for the tick.
 *
 *    A net cannot always be had: the safety_net module parameter turns
 *    nets off, tick-sched ignores them on nohz_full CPUs, and none is
 *    asked for a state that stops the local timer (its net would have to
 *    go through the broadcast timer device).  Without a net, a state
 *    selected for less than the sleep length is kept with the tick
 *    stopped only if the next timer comes within HORIZON_SAFE_TIMER_NS
 *    (two tick periods) or within twice the expected idle duration, or if
 *    no deeper state fits before it; otherwise the state is selected for
 *    the sleep length.  So no CPU stays in a state shallower than its next
 *    timer allows for longer than that, with or without nets.  If the
 *    tick still runs, it is the net: rather than stop it and select for
 *    the sleep length, keep it and select as in step 4.
 *
 * 4. Otherwise keep the tick, which ends the idle period at the next tick
 *    at the latest, and select the state for the expected idle duration up
 *    to the earlier of the sleep length and the next tick.  If the idle
 *    period turns out to be long, the tick wakes the CPU and step 1 carries
 *    the time over, so the next selection goes deeper.  One exception: if
 *    the next timer comes before the second tick from now and the spell
 *    probably outlasts the next tick, let the tick be stopped and select
 *    for the expected idle duration up to the sleep length, as the timer
 *    then ends the idle period no later than a retained tick would.
 *
 * Every selection skips disabled states and respects the PM QoS latency
 * limit.  If no enabled state is within the limit, the shallowest enabled
 * state is selected; state 0 is returned disabled only if every state is
 * disabled.  When a polling state is selected, the tick is not stopped for
 * it (the idle loop keeps a tick that was stopped already, and the
 * polling time limit then bounds the state); and a polling state is not
 * entered again right after its time limit ended an idle period: the
 * deepest state that fits in the time already spent idle is used instead.
 */

#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/cpuidle.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/tick.h>

#include <kunit/static_stub.h>
#include <kunit/visibility.h>

#include "gov.h"
#include "horizon.h"

VISIBLE_IF_KUNIT bool horizon_safety_net = true;
EXPORT_SYMBOL_IF_KUNIT(horizon_safety_net);
module_param_named(safety_net, horizon_safety_net, bool, 0644);
MODULE_PARM_DESC(safety_net,
		 "Safety-net wakeups for the CPU idle with the tick stopped (default: Y)");

/* Four 16-bit bins in a u64. */
#define HORIZON_LANES		0x0001000100010001ULL

static DEFINE_PER_CPU(struct horizon_cpu, horizon_cpus);

/* The statistics of @cpu (KUnit gives its tests their own). */
VISIBLE_IF_KUNIT struct horizon_cpu *horizon_cpu_data(int cpu)
{
	KUNIT_STATIC_STUB_REDIRECT(horizon_cpu_data, cpu);
	return per_cpu_ptr(&horizon_cpus, cpu);
}
EXPORT_SYMBOL_IF_KUNIT(horizon_cpu_data);

/*
 * Seams for KUnit: the tick and PM QoS inputs go through these wrappers so
 * that the test suite can inject them.
 */
VISIBLE_IF_KUNIT s64 horizon_sleep_length(s64 *delta_tick_ns)
{
	ktime_t delta_tick, sleep_length;

	KUNIT_STATIC_STUB_REDIRECT(horizon_sleep_length, delta_tick_ns);

	sleep_length = tick_nohz_get_sleep_length(&delta_tick);
	*delta_tick_ns = ktime_to_ns(delta_tick);
	return ktime_to_ns(sleep_length);
}
EXPORT_SYMBOL_IF_KUNIT(horizon_sleep_length);

VISIBLE_IF_KUNIT bool horizon_tick_stopped(void)
{
	KUNIT_STATIC_STUB_REDIRECT(horizon_tick_stopped);

	return tick_nohz_tick_stopped();
}
EXPORT_SYMBOL_IF_KUNIT(horizon_tick_stopped);

VISIBLE_IF_KUNIT bool horizon_got_tick(void)
{
	KUNIT_STATIC_STUB_REDIRECT(horizon_got_tick);

	return tick_nohz_idle_got_tick();
}
EXPORT_SYMBOL_IF_KUNIT(horizon_got_tick);

VISIBLE_IF_KUNIT s64 horizon_latency_req(unsigned int cpu)
{
	KUNIT_STATIC_STUB_REDIRECT(horizon_latency_req, cpu);

	return cpuidle_governor_latency_req(cpu);
}
EXPORT_SYMBOL_IF_KUNIT(horizon_latency_req);

/*
 * How often the idle task, which runs select(), has been switched out: that
 * changes when the CPU leaves the idle loop to run a task, and not when the
 * loop merely goes round.
 */
VISIBLE_IF_KUNIT u64 horizon_switches(unsigned int cpu)
{
	KUNIT_STATIC_STUB_REDIRECT(horizon_switches, cpu);

	return current->nvcsw + current->nivcsw;
}
EXPORT_SYMBOL_IF_KUNIT(horizon_switches);

/* The bin of a duration in nanoseconds. */
VISIBLE_IF_KUNIT int horizon_bin(s64 ns)
{
	u64 units = ns > 0 ? (u64)ns >> HORIZON_UNIT_SHIFT : 0;

	if (units >= 1ULL << (HORIZON_BINS - 1))
		return HORIZON_BINS - 1;
	return units ? fls((u32)units) - 1 : 0;
}
EXPORT_SYMBOL_IF_KUNIT(horizon_bin);

/*
 * The shortest duration in bin @bin, in nanoseconds: 2^bin units, except
 * for bin 0, which starts at 0 (the mask clears 2^0 units, no branch).
 */
VISIBLE_IF_KUNIT s64 horizon_bin_start_ns(int bin)
{
	return ((s64)1 << (bin + HORIZON_UNIT_SHIFT)) &
	       ~((s64)1 << HORIZON_UNIT_SHIFT);
}
EXPORT_SYMBOL_IF_KUNIT(horizon_bin_start_ns);

/**
 * horizon_decay - Decay every bin.
 * @data: Statistics of the CPU.
 *
 * Decay the weight of each bin by 1/2^HORIZON_DECAY_SHIFT, rounded up so
 * that it reaches 0, four 16-bit weights at a time: as no weight exceeds
 * 2^14, adding the rounding cannot carry out of a lane, and the mask drops
 * what the shift brings down from the lane above.
 *
 * Return: the sum of the decrements.
 */
VISIBLE_IF_KUNIT u32 horizon_decay(struct horizon_cpu *data)
{
	const u64 round = ((1ULL << HORIZON_DECAY_SHIFT) - 1) * HORIZON_LANES;
	const u64 mask = (0xffffULL >> HORIZON_DECAY_SHIFT) * HORIZON_LANES;
	u64 sum = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(data->lanes); i++) {
		u64 dec = ((data->lanes[i] + round) >> HORIZON_DECAY_SHIFT) & mask;

		data->lanes[i] -= dec;
		sum += dec;
	}
	/* Each lane of @sum is below 2^15: add them up in two 32-bit ones. */
	sum = (sum & 0x0000ffff0000ffffULL) + ((sum >> 16) & 0x0000ffff0000ffffULL);
	return (u32)sum + (u32)(sum >> 32);
}
EXPORT_SYMBOL_IF_KUNIT(horizon_decay);

/**
 * horizon_learn - Record how an idle spell ended.
 * @data: Statistics of the CPU.
 * @spell_ns: Duration of the idle spell.
 * @by_timer: Whether a timer ended it (otherwise an intercept did).
 */
VISIBLE_IF_KUNIT void horizon_learn(struct horizon_cpu *data, s64 spell_ns,
				    bool by_timer)
{
	/*
	 * Nanoseconds, not time units: the mean is rounded down at each
	 * update, which in time units would bias it by a few units.
	 */
	u64 ns = min_t(s64, spell_ns, HORIZON_SPELL_MAX_NS);
	int bin = horizon_bin(spell_ns);
	u32 old;

	if (!(++data->learned % HORIZON_DECAY_EVERY))
		data->total -= horizon_decay(data);
	data->total += HORIZON_WEIGHT;

	if (by_timer) {
		data->timer_ends[bin] += HORIZON_WEIGHT;
		return;
	}
	old = data->intercepts[bin];
	data->intercepts[bin] += HORIZON_WEIGHT;
	data->intercept_mean[bin] = div_u64((u64)data->intercept_mean[bin] * old +
					    ns * HORIZON_WEIGHT,
					    data->intercepts[bin]);
}
EXPORT_SYMBOL_IF_KUNIT(horizon_learn);

/**
 * horizon_update - Learn from the last idle period (step 1).
 * @data: Statistics of the CPU.
 * @measured_ns: Time spent in the idle state entered.
 * @left_loop: Whether the CPU left the idle loop since the last period.
 */
static void horizon_update(struct horizon_cpu *data, s64 measured_ns,
			   bool left_loop)
{
	/*
	 * A timer ended the period if it ended within HORIZON_TIMER_SLACK_NS
	 * of the sleep length; a polling-limit wakeup continues the spell
	 * whatever the sleep length says (it can be negative, with an expired
	 * timer not yet handled).
	 */
	bool by_timer = measured_ns + HORIZON_TIMER_SLACK_NS >=
			data->sleep_length_ns;

	/*
	 * Step 2 did not query the sleep length, so how the period ended is
	 * not known.  A short one is taken as one of the short intercepts
	 * that step 2 expects (no state but the shallowest fits before a
	 * timer that close either); a longer one shows at least that no
	 * intercept came before its end, and is learned as a timer end.
	 */
	if (data->sleep_length_ns == KTIME_MAX)
		by_timer = horizon_bin(data->spell_ns + measured_ns) >=
			   horizon_bin(RESIDENCY_THRESHOLD_NS);

	if (!left_loop &&
	    (data->poll_limit || (!by_timer && data->tick_wakeup))) {
		/* The tick or a safety net fired: the idle spell goes on. */
		data->spell_ns = min(data->spell_ns + measured_ns,
				     HORIZON_SPELL_MAX_NS);
		data->polled_ns = data->poll_limit ?
				  min(data->polled_ns + measured_ns,
				      HORIZON_SPELL_MAX_NS) : 0;
		return;
	}

	horizon_learn(data, data->spell_ns + measured_ns, by_timer);
	data->spell_ns = 0;
	data->polled_ns = 0;
}

/**
 * horizon_stale_ns - How stale the base of the sleep length is.
 * @data: Statistics of the CPU.
 * @queried_ns: What tick_nohz_get_sleep_length() returned now.
 *
 * The sleep length counts from the last interrupt or idle loop entry.  The
 * polling time limit is no interrupt, so after it the base may lie before
 * the time spent polling: it does if the sleep length did not change since
 * the last query (no interrupt moved the base, no timer came or went).
 * Otherwise an interrupt came during the polling, and the base is taken as
 * fresh.
 *
 * Return: the time by which the sleep length overstates the time to the
 * next timer event.
 */
static s64 horizon_stale_ns(const struct horizon_cpu *data, s64 queried_ns)
{
	return queried_ns == data->queried_ns ? data->polled_ns : 0;
}

/* The weight of the observations in bin @first and after it. */
static u64 horizon_at_risk(const struct horizon_cpu *data, int first)
{
	u64 at_risk = 0;
	int i;

	if (!first)
		return data->total;
	for (i = first; i < HORIZON_BINS; i++)
		at_risk += data->intercepts[i] + data->timer_ends[i];
	return at_risk;
}

/**
 * horizon_to_come - Find the intercepts of a bin still to come.
 * @data: Statistics of the CPU.
 * @bin: The bin.
 * @spent_ns: Time already spent idle in the spell.
 * @weight: The bin's intercept weight; set to that of those still to come.
 *
 * Once the spell has outlasted the mean of the bin's intercepts, these are
 * taken as spread with a density falling linearly from the start of the
 * bin to zero, over three times the distance of their mean from the start
 * (wakeup delays within a logarithmic bin are mostly skewed that way): the
 * fraction still to come is the square of the part of that span left over
 * the span, and their mean is a third of the part left.  A symmetric
 * spread would have no tail: a spell just past it would expect no more
 * intercepts from the bin, where delayed ones still come.
 *
 * Return: the mean time from now of the intercepts still to come.
 */
VISIBLE_IF_KUNIT s64 horizon_to_come(const struct horizon_cpu *data, int bin,
				     s64 spent_ns, u32 *weight)
{
	s64 mean_ns = data->intercept_mean[bin];
	s64 start_ns = horizon_bin_start_ns(bin);
	s64 len_ns = 3 * (mean_ns - start_ns);
	s64 left_ns = start_ns + len_ns - spent_ns;

	if (mean_ns > spent_ns || !spent_ns)
		return mean_ns - spent_ns;
	if (left_ns <= 0) {
		*weight = 0;
		return 0;
	}
	/* @len_ns is below 2^32: a spell is carried over for at most 1 s. */
	*weight = div_u64((u64)*weight * left_ns, len_ns);
	*weight = div_u64((u64)*weight * left_ns, len_ns);
	return div_s64(left_ns, 3);
}
EXPORT_SYMBOL_IF_KUNIT(horizon_to_come);

/**
 * horizon_add - Let intercepts end the spell in the estimate.
 * @est: The estimate so far.
 * @prob: Probability, out of HORIZON_ONE, that they end the spell.
 * @rel_ns: Their mean time from now.
 * @lo_ns: Start of their bin, from now (may be negative).
 */
static void horizon_add(struct horizon_estimate *est, u64 prob, s64 rel_ns,
			s64 lo_ns)
{
	est->sum += prob * rel_ns;
	if (est->survival >= HORIZON_MAJORITY_LEFT &&
	    est->survival - prob < HORIZON_MAJORITY_LEFT) {
		s64 from_ns = max_t(s64, lo_ns, 0);
		s64 span_ns = 2 * max_t(s64, rel_ns - from_ns, 0);

		/*
		 * Interpolated across a span from the start of the bin that
		 * is centred on their mean (a logarithmic bin is too coarse
		 * to spread them over); @prob is at most HORIZON_ONE.
		 */
		est->majority_ns = from_ns +
			div_u64((u64)span_ns *
				(est->survival - HORIZON_MAJORITY_LEFT), prob);
	}
	est->survival -= prob;
}

/*
 * Once the walk reaches the earlier limit @cut_ns, the estimate up to it
 * is what the walk has gathered so far: copy it, once.
 */
static void horizon_cut(const struct horizon_estimate *est,
			struct horizon_estimate *at_cut, s64 *cut_ns)
{
	*at_cut = *est;
	at_cut->limit_ns = *cut_ns;
	/* Observations lie beyond the cut. */
	at_cut->seen_ns = *cut_ns;
	*cut_ns = S64_MAX;
}

/**
 * horizon_estimate - Estimate the rest of the idle spell up to a limit.
 * @data: Statistics of the CPU.
 * @spent_ns: Time already spent idle in the current spell.
 * @limit_ns: Time from now after which the idle period ends for sure,
 *	taken between 0 and HORIZON_LIMIT_MAX_NS.
 * @est: Filled in with the estimate.
 * @cut_ns: An earlier limit, taken between 0 and @limit_ns.
 * @at_cut: Filled in with the estimate up to @cut_ns, unless NULL.
 *
 * Walk the bins from the one holding @spent_ns, estimating for each the
 * probability that an intercept ends the spell there, given that it has
 * not ended before: the intercepts still to come over all the weight still
 * at risk.  Empty bins are skipped, bins holding only a decay residue are
 * left out, and the walk ends at the limit or when only a residue is left
 * at risk.  If nothing but residues lies ahead, the estimate is that of
 * nothing learned: the spell lasts to the limit.  The estimate up to
 * @cut_ns is what the walk has gathered when it gets there, so one walk
 * serves both limits.
 *
 * Every division is of a u64 by a u32 (or of u32s): at most two per bin
 * walked and one per walk, cheap on 32-bit too.
 */
VISIBLE_IF_KUNIT void horizon_estimate(const struct horizon_cpu *data, s64 spent_ns,
				       s64 limit_ns, struct horizon_estimate *est,
				       s64 cut_ns, struct horizon_estimate *at_cut)
{
	int i = horizon_bin(spent_ns);
	u64 at_risk = horizon_at_risk(data, i);
	/* Bin i spans [lo_ns, hi_ns) from now; each ends at twice the last. */
	s64 lo_ns = horizon_bin_start_ns(i) - spent_ns;
	s64 hi_ns = horizon_bin_start_ns(i + 1) - spent_ns;

	limit_ns = clamp_t(s64, limit_ns, 0, HORIZON_LIMIT_MAX_NS);
	/* A cut at the limit is taken when the walk ends. */
	cut_ns = at_cut ? clamp_t(s64, cut_ns, 0, limit_ns) : S64_MAX;
	est->sum = 0;
	est->survival = HORIZON_ONE;
	est->seen_ns = 0;
	est->limit_ns = limit_ns;
	est->majority_ns = S64_MAX;
	if (at_risk < HORIZON_MIN_SEEN) {
		/* Nothing learned, or only decay residues, from here on. */
		est->seen_ns = limit_ns;
		i = HORIZON_BINS;
	}

	for (; i < HORIZON_BINS; i++, lo_ns = hi_ns, hi_ns += hi_ns + spent_ns) {
		u32 weight = data->intercepts[i];
		u32 seen = weight + data->timer_ends[i];
		u32 past;
		s64 rel_ns;

		if (!seen)
			continue;
		if (lo_ns >= limit_ns) {
			est->seen_ns = limit_ns;
			break;
		}
		if (lo_ns >= cut_ns)
			horizon_cut(est, at_cut, &cut_ns);
		if (seen >= HORIZON_MIN_SEEN) {
			/*
			 * The last bin has no end: it is taken to end at the
			 * later of its nominal end and twice the time spent.
			 */
			if (i == HORIZON_BINS - 1)
				hi_ns = max(hi_ns, spent_ns);
			est->seen_ns = hi_ns;
			if (weight) {
				rel_ns = horizon_to_come(data, i, spent_ns, &weight);
				past = data->intercepts[i] - weight;
				at_risk -= past;
				seen -= past;
			}
			if (weight) {
				if (rel_ns >= cut_ns)
					horizon_cut(est, at_cut, &cut_ns);
				if (rel_ns >= limit_ns) {
					est->seen_ns = limit_ns;
					break;
				}
				/*
				 * survival <= 2^16 and weight <= 2^14: the
				 * product and @at_risk fit in 32 bits.
				 */
				horizon_add(est, (u32)(est->survival * weight) /
					    (u32)at_risk, rel_ns, lo_ns);
			}
		}
		at_risk -= seen;
		/* Less than that left is a decay residue: the walk is over. */
		if (at_risk < HORIZON_MIN_SEEN)
			break;
	}
	/* The walk ended before the cut: nothing more up to it. */
	if (cut_ns != S64_MAX) {
		horizon_cut(est, at_cut, &cut_ns);
		at_cut->seen_ns = min(est->seen_ns, at_cut->limit_ns);
	}
}
EXPORT_SYMBOL_IF_KUNIT(horizon_estimate);

/**
 * horizon_expected_ns - Expected rest of the idle spell.
 * @est: Estimate made by horizon_estimate().
 * @trust_tail: Whether the spell may last beyond anything observed.
 *
 * What survives the observations ends at the limit if @trust_tail, and at
 * the end of the last bin holding observations otherwise: with a safety
 * net (the tick) to wake the CPU, nothing is assumed beyond what was seen.
 *
 * Return: E[min(X, limit)] in nanoseconds, X being the time from now to
 * the next intercept, or the time that 5/8 of the spells outlast if that
 * is shorter.
 */
VISIBLE_IF_KUNIT s64 horizon_expected_ns(const struct horizon_estimate *est,
					 bool trust_tail)
{
	s64 tail_ns = trust_tail ? est->limit_ns :
				   min(est->seen_ns, est->limit_ns);

	s64 exp_ns = (est->sum + est->survival * (u64)tail_ns) >> HORIZON_ONE_SHIFT;

	return min(exp_ns, est->majority_ns);
}
EXPORT_SYMBOL_IF_KUNIT(horizon_expected_ns);

/**
 * horizon_mostly_short - Check whether recent wakeups were nearly all short.
 * @data: Statistics of the CPU.
 * @short_ns: What counts as short.
 *
 * Return: true if at least HORIZON_SHORT_16THS sixteenths of the weight are
 * intercepts in bins that end before @short_ns.
 */
static bool horizon_mostly_short(const struct horizon_cpu *data, s64 short_ns)
{
	/* The bins that end before @short_ns are those before its bin. */
	int end = horizon_bin(short_ns);
	u32 short_sum = 0;
	int i;

	for (i = 0; i < end; i++)
		short_sum += data->intercepts[i];
	return data->total && 16 * short_sum >= HORIZON_SHORT_16THS * data->total;
}

/*
 * Safety nets are off with the module parameter, and on nohz_full CPUs,
 * where tick-sched ignores them.
 */
VISIBLE_IF_KUNIT bool horizon_nets(int cpu)
{
	KUNIT_STATIC_STUB_REDIRECT(horizon_nets, cpu);

	return READ_ONCE(horizon_safety_net) && !tick_nohz_full_cpu(cpu);
}
EXPORT_SYMBOL_IF_KUNIT(horizon_nets);

/**
 * horizon_net_ns - Size the safety net for a short prediction.
 * @seen_ns: End of the last bin holding observations, from now.
 * @sleep_ns: Sleep length.
 *
 * With the tick stopped, a net of the governor's own replaces it: if no
 * intercept has come by twice the end of what was observed, the idle spell
 * is longer than anything learned, and the CPU should be asked again.  The
 * net is never longer than the tick period (the net the tick would have
 * been) nor shorter than HORIZON_NET_MIN_NS.
 *
 * Return: the safety net in nanoseconds, or 0 if the next timer comes
 * first and no net is needed, or if nothing observed lies ahead (then the
 * estimate is that of nothing learned, which trusts the timer).
 */
VISIBLE_IF_KUNIT u64 horizon_net_ns(s64 seen_ns, s64 sleep_ns)
{
	s64 net_ns = clamp_t(s64, 2 * seen_ns, HORIZON_NET_MIN_NS, TICK_NSEC);

	if (seen_ns <= 0)
		return 0;
	return net_ns < sleep_ns ? net_ns : 0;
}
EXPORT_SYMBOL_IF_KUNIT(horizon_net_ns);

/* The idle duration beyond which a visit to state @s pays off. */
static s64 horizon_cost_ns(const struct cpuidle_state *s)
{
	return s->target_residency_ns + HORIZON_EXIT_MARGIN(s->exit_latency_ns);
}

/* Whether an idle period of @duration_ns pays for a visit to state @s. */
static bool horizon_fits(const struct cpuidle_state *s, s64 duration_ns)
{
	return horizon_cost_ns(s) <= duration_ns;
}

/**
 * horizon_find_state - Find the deepest state fitting in a duration.
 * @drv: cpuidle driver of the CPU.
 * @dev: cpuidle device of the CPU.
 * @duration_ns: Expected idle duration.
 * @latency_req: PM QoS exit latency limit, in nanoseconds.
 *
 * States are ordered by increasing depth and target residency (as teo
 * assumes too), so the scan stops at the first enabled state within
 * @latency_req that does not pay off in @duration_ns.  Where the cost of a
 * visit (target residency plus exit margin) never decreases with the index
 * (struct horizon_cpu.ordered), the scan starts at the state entered last,
 * if it is enabled and within @latency_req: up from it if it fits, down
 * from it otherwise, as the state sought is usually close to it.
 * Otherwise it starts at state 0, as where it stops would depend on where
 * it starts.
 *
 * Return: the index of the deepest enabled state within @latency_req that
 * pays off in @duration_ns (see horizon_fits()); failing that, the
 * shallowest enabled state within @latency_req; failing that, the shallowest
 * enabled state; and if every state is disabled, 0.
 */
VISIBLE_IF_KUNIT int horizon_find_state(struct cpuidle_driver *drv,
					struct cpuidle_device *dev, s64 duration_ns,
					s64 latency_req)
{
	int hint = horizon_cpu_data(dev->cpu)->ordered ? dev->last_state_idx : -1;
	int idx = -1;
	int i = 0;

	if (hint > 0 && hint < drv->state_count &&
	    !dev->states_usage[hint].disable &&
	    drv->states[hint].exit_latency_ns <= latency_req) {
		if (horizon_fits(&drv->states[hint], duration_ns)) {
			i = hint;
		} else {
			/* Nothing from @hint on fits: look below it. */
			for (i = hint - 1; i >= 0; i--) {
				if (dev->states_usage[i].disable ||
				    drv->states[i].exit_latency_ns > latency_req)
					continue;
				if (horizon_fits(&drv->states[i], duration_ns))
					return i;
				hint = i;
			}
			/* The first usable state, even if it does not fit. */
			return hint;
		}
	}

	for (; i < drv->state_count; i++) {
		if (dev->states_usage[i].disable ||
		    drv->states[i].exit_latency_ns > latency_req)
			continue;
		/* The first usable state is taken even if it does not fit. */
		if (!horizon_fits(&drv->states[i], duration_ns))
			return idx >= 0 ? idx : i;
		idx = i;
	}
	if (idx >= 0)
		return idx;

	/* Nothing within the latency limit: the shallowest enabled state. */
	for (i = 0; i < drv->state_count; i++) {
		if (!dev->states_usage[i].disable)
			return i;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(horizon_find_state);

/**
 * horizon_finish - Select the state for an expected idle duration.
 * @drv: cpuidle driver of the CPU.
 * @dev: cpuidle device of the CPU.
 * @data: Statistics of the CPU.
 * @expected_ns: Expected idle duration.
 * @latency_req: PM QoS exit latency limit, in nanoseconds.
 * @stop_tick: Cleared if the selected state polls.
 *
 * Return: the index of the selected state.
 */
static int horizon_finish(struct cpuidle_driver *drv,
			  struct cpuidle_device *dev,
			  const struct horizon_cpu *data, s64 expected_ns,
			  s64 latency_req, bool *stop_tick)
{
	int idx = horizon_find_state(drv, dev, expected_ns, latency_req);
	s64 limit_ns;

	if (!(drv->states[idx].flags & CPUIDLE_FLAG_POLLING))
		return idx;

	/* The tick bounds the time spent polling. */
	*stop_tick = false;
	if (!data->poll_limit)
		return idx;

	/*
	 * The CPU has polled as long as polling pays: rather than poll again,
	 * take the deepest state that fits in the time already spent idle
	 * and, unless it is overdue, before the next timer.
	 */
	limit_ns = data->spell_ns;
	if (data->sleep_length_ns > 0)
		limit_ns = min(limit_ns, data->sleep_length_ns);
	return horizon_find_state(drv, dev, limit_ns, latency_req);
}

/**
 * horizon_deeper_fits - Check whether the timer leaves room for a deeper state.
 * @drv: cpuidle driver of the CPU.
 * @dev: cpuidle device of the CPU.
 * @idx: The state selected.
 * @sleep_ns: Sleep length.
 * @latency_req: PM QoS exit latency limit, in nanoseconds.
 *
 * Return: true if an enabled state deeper than @idx, within @latency_req,
 * would pay off before the next timer.
 */
static bool horizon_deeper_fits(struct cpuidle_driver *drv,
				struct cpuidle_device *dev, int idx,
				s64 sleep_ns, s64 latency_req)
{
	int i;

	for (i = idx + 1; i < drv->state_count; i++) {
		if (!dev->states_usage[i].disable &&
		    drv->states[i].exit_latency_ns <= latency_req &&
		    horizon_fits(&drv->states[i], sleep_ns))
			return true;
	}
	return false;
}

/*
 * Whether the next timer, @sleep_ns away, ends a stay in a state selected
 * for @expected_ns about as soon as two ticks would have.
 */
static bool horizon_timer_bounds(s64 sleep_ns, s64 expected_ns)
{
	return sleep_ns <= max_t(s64, HORIZON_SAFE_TIMER_NS, 2 * expected_ns);
}

/**
 * horizon_guard - Bound a state selected for less than the sleep length.
 * @drv: cpuidle driver of the CPU.
 * @dev: cpuidle device of the CPU.
 * @data: Statistics of the CPU.
 * @idx: The state selected for @expected_ns.
 * @sleep_ns: Sleep length.
 * @expected_ns: Expected idle duration @idx was selected for.
 * @net_ns: Safety net to ask for, 0 if none can be had.
 * @latency_req: PM QoS exit latency limit, in nanoseconds.
 * @tick_est: Estimate up to the next tick if the tick runs, else NULL.
 * @stop_tick: Whether the tick is to be stopped; cleared if a polling
 *	state is selected or the running tick is kept.
 *
 * With the tick stopped, only the next timer ends an idle period that
 * outlasts the prediction.  If the timer leaves room for a deeper state,
 * @idx is kept only with a safety net, or if the timer comes within
 * HORIZON_SAFE_TIMER_NS or twice @expected_ns.  Otherwise, if the tick
 * still runs, it is kept as the net and the state selected as in step 4;
 * if not, the deepest state that fits before the timer is selected, as if
 * the prediction were the sleep length.  No net is asked for a state that
 * stops the local timer
 * (CPUIDLE_FLAG_TIMER_STOP): the net would have to go through the
 * broadcast timer device.  A polling state needs no net: its time limit
 * bounds it, and the tick is not stopped for it.
 *
 * Return: @idx, or the state selected for the next tick or the sleep
 * length.
 */
static int horizon_guard(struct cpuidle_driver *drv,
			 struct cpuidle_device *dev,
			 const struct horizon_cpu *data, int idx,
			 s64 sleep_ns, s64 expected_ns, u64 net_ns,
			 s64 latency_req,
			 const struct horizon_estimate *tick_est,
			 bool *stop_tick)
{
	if (!*stop_tick)
		return idx;

	if (net_ns && !(drv->states[idx].flags & CPUIDLE_FLAG_TIMER_STOP)) {
		if (horizon_deeper_fits(drv, dev, idx, sleep_ns, latency_req))
			dev->safety_net_ns = net_ns;
		return idx;
	}
	/* The cheap test first: this runs on most selections. */
	if (horizon_timer_bounds(sleep_ns, expected_ns) ||
	    !horizon_deeper_fits(drv, dev, idx, sleep_ns, latency_req))
		return idx;
	if (tick_est) {
		*stop_tick = false;
		return horizon_finish(drv, dev, data,
				      horizon_expected_ns(tick_est, false),
				      latency_req, stop_tick);
	}
	return horizon_finish(drv, dev, data, sleep_ns, latency_req, stop_tick);
}

/**
 * horizon_select_stopped - Select for a short prediction, tick stopped.
 * @drv: cpuidle driver of the CPU.
 * @dev: cpuidle device of the CPU.
 * @data: Statistics of the CPU.
 * @est: Estimate up to the sleep length.
 * @expected_ns: Expected idle duration up to the sleep length.
 * @latency_req: PM QoS exit latency limit, in nanoseconds.
 * @stop_tick: Cleared if the selected state polls.
 *
 * Step 3 with the tick stopped and a short expected idle duration.  With a
 * safety net to be had, select for the expected idle duration up to the
 * net; without one, for the expected idle duration up to the sleep length.
 * horizon_guard() then asks for the net, or bounds the choice by the timer.
 *
 * Return: the index of the selected state.
 */
static int horizon_select_stopped(struct cpuidle_driver *drv,
				  struct cpuidle_device *dev,
				  const struct horizon_cpu *data,
				  const struct horizon_estimate *est,
				  s64 expected_ns, s64 latency_req,
				  bool *stop_tick)
{
	struct horizon_estimate net_est;
	u64 net_ns = 0;
	int idx;

	if (horizon_nets(dev->cpu))
		net_ns = horizon_net_ns(est->seen_ns, est->limit_ns);
	if (net_ns) {
		horizon_estimate(data, data->spell_ns, net_ns, &net_est, 0,
				 NULL);
		expected_ns = horizon_expected_ns(&net_est, true);
	}
	idx = horizon_finish(drv, dev, data, expected_ns, latency_req,
			     stop_tick);
	return horizon_guard(drv, dev, data, idx, est->limit_ns, expected_ns,
			     net_ns, latency_req, NULL, stop_tick);
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
VISIBLE_IF_KUNIT int horizon_select(struct cpuidle_driver *drv,
				    struct cpuidle_device *dev, bool *stop_tick)
{
	struct horizon_cpu *data = horizon_cpu_data(dev->cpu);
	s64 latency_req = horizon_latency_req(dev->cpu);
	bool tick_stopped = horizon_tick_stopped();
	s64 sleep_ns, delta_tick_ns, expected_ns, stale_ns;
	struct horizon_estimate est, tick_est;

	u64 switches = horizon_switches(dev->cpu);

	if (data->needs_update) {
		horizon_update(data, dev->last_residency_ns,
			       switches != data->switches);
		data->needs_update = false;
	}
	data->switches = switches;

	/* Step 2: frequent short wakeups need no timer information. */
	if (!tick_stopped && !data->spell_ns &&
	    drv->states[0].flags & CPUIDLE_FLAG_POLLING &&
	    horizon_mostly_short(data, RESIDENCY_THRESHOLD_NS)) {
		data->sleep_length_ns = KTIME_MAX;
		data->queried_ns = KTIME_MAX;
		*stop_tick = false;
		horizon_estimate(data, 0, RESIDENCY_THRESHOLD_NS, &est, 0, NULL);
		expected_ns = horizon_expected_ns(&est, false);
		return horizon_finish(drv, dev, data, expected_ns, latency_req,
				      stop_tick);
	}

	/*
	 * Step 3: an expected idle beyond the tick, or the tick stopped.  The
	 * tick may be overdue (delta_tick_ns <= 0): it then ends the idle
	 * period at once.
	 */
	sleep_ns = horizon_sleep_length(&delta_tick_ns);
	stale_ns = horizon_stale_ns(data, sleep_ns);
	data->queried_ns = sleep_ns;
	sleep_ns -= stale_ns;
	delta_tick_ns = max_t(s64, delta_tick_ns - stale_ns, 0);
	data->sleep_length_ns = sleep_ns;
	horizon_estimate(data, data->spell_ns, sleep_ns, &est, delta_tick_ns,
			 tick_stopped ? NULL : &tick_est);
	expected_ns = horizon_expected_ns(&est, true);
	if (expected_ns >= TICK_NSEC) {
		int idx = horizon_finish(drv, dev, data, expected_ns,
					 latency_req, stop_tick);
		u64 net_ns = 0;

		if (horizon_nets(dev->cpu) && 2 * expected_ns < sleep_ns)
			net_ns = 2 * expected_ns;
		return horizon_guard(drv, dev, data, idx, sleep_ns,
				     expected_ns, net_ns, latency_req,
				     tick_stopped ? NULL : &tick_est, stop_tick);
	}
	if (tick_stopped)
		return horizon_select_stopped(drv, dev, data, &est, expected_ns,
					      latency_req, stop_tick);

	/* Step 4: keep the tick, which bounds the idle period... */
	if (delta_tick_ns < sleep_ns) {
		/*
		 * ...unless a timer ends the spell before the second tick
		 * from now and the spell probably outlasts the next tick:
		 * then stopping the tick saves a wakeup and cannot leave the
		 * CPU in a shallow state longer than a retained tick would.
		 */
		if (sleep_ns - delta_tick_ns <= TICK_NSEC &&
		    2 * tick_est.survival >= HORIZON_ONE)
			return horizon_finish(drv, dev, data, expected_ns,
					      latency_req, stop_tick);
		est = tick_est;
	}
	*stop_tick = false;
	expected_ns = horizon_expected_ns(&est, false);
	return horizon_finish(drv, dev, data, expected_ns, latency_req,
			      stop_tick);
}
EXPORT_SYMBOL_IF_KUNIT(horizon_select);

/**
 * horizon_reflect - Note how the last idle period ended.
 * @dev: cpuidle device of the CPU.
 * @index: Index of the state entered.
 *
 * Called on the exit path from idle with interrupts disabled, so it only
 * takes note in O(1); horizon_select() learns from it later.
 */
VISIBLE_IF_KUNIT void horizon_reflect(struct cpuidle_device *dev, int index)
{
	struct horizon_cpu *data = horizon_cpu_data(dev->cpu);

	dev->last_state_idx = index;
	data->tick_wakeup = horizon_got_tick();
	/* Only the polling state sets the flag: consume it. */
	data->poll_limit = dev->poll_time_limit;
	dev->poll_time_limit = false;
	data->needs_update = true;
}
EXPORT_SYMBOL_IF_KUNIT(horizon_reflect);

/**
 * horizon_enable_device - Reset the statistics of a CPU.
 * @drv: cpuidle driver of the CPU.
 * @dev: cpuidle device of the CPU.
 *
 * Called when the governor is switched to and whenever the cpuidle core
 * enables a CPU's device (on CPU hotplug with some drivers, not all), so
 * that nothing learned before is trusted.  Also notes whether the driver's
 * states are ordered by the cost of a visit (see horizon_find_state()).
 *
 * Return: 0.
 */
VISIBLE_IF_KUNIT int horizon_enable_device(struct cpuidle_driver *drv,
					   struct cpuidle_device *dev)
{
	struct horizon_cpu *data = horizon_cpu_data(dev->cpu);
	int i;

	memset(data, 0, sizeof(*data));
	data->sleep_length_ns = KTIME_MAX;
	data->queried_ns = KTIME_MAX;
	data->ordered = true;
	for (i = 1; i < drv->state_count; i++) {
		if (horizon_cost_ns(&drv->states[i]) <
		    horizon_cost_ns(&drv->states[i - 1]))
			data->ordered = false;
	}
	dev->last_state_idx = -1;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(horizon_enable_device);

static struct cpuidle_governor horizon_governor = {
	.name =		"horizon",
	/*
	 * Below menu (20) and teo (19): where either is built, horizon is
	 * used only when asked for (cpuidle.governor= or current_governor).
	 */
	.rating =	15,
	.enable =	horizon_enable_device,
	.select =	horizon_select,
	.reflect =	horizon_reflect,
};

static int __init horizon_governor_init(void)
{
	/* The per-CPU state stays within a few cache lines. */
	BUILD_BUG_ON(sizeof(struct horizon_cpu) > 512);
	return cpuidle_register_governor(&horizon_governor);
}

postcore_initcall(horizon_governor_init);
