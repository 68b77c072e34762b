// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the horizon cpuidle governor.
 *
 * The governor's functions under test are visible to KUnit only
 * (VISIBLE_IF_KUNIT), so the suite also builds as a module. The tick and
 * PM QoS inputs are injected through the governor's static stubs.
 */

#include <kunit/test.h>
#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/tick.h>

#include "../gov.h"
#include "../horizon.h"

#define US(x)	((s64)(x) * NSEC_PER_USEC)

/**
 * struct horizon_test_env - Inputs seen by the governor under test.
 * @sleep_length_ns: Returned as the sleep length.
 * @delta_tick_ns: Returned as the time until the next tick.
 * @tick_stopped: Returned as the tick state.
 * @latency_req_ns: Returned as the PM QoS latency limit.
 * @got_tick: Returned as whether the tick ended the last idle period.
 * @queries: Number of sleep length queries.
 * @switches: Returned as the CPU's context switch count.
 * @nets: Returned as whether safety nets can be had.
 * @data_calls: Number of requests for per-CPU statistics.
 * @saved_net: The safety_net parameter when the test started.
 * @drv: Driver with the state table under test.
 * @dev: Device whose states_usage[] carries the disable flags.
 * @data: The statistics the governor works on, in place of the per-CPU
 *	ones, which the idle loop may be using.
 */
struct horizon_test_env {
	s64 sleep_length_ns;
	s64 delta_tick_ns;
	bool tick_stopped;
	s64 latency_req_ns;
	bool got_tick;
	unsigned int queries;
	u64 switches;
	bool nets;
	unsigned int data_calls;
	bool saved_net;
	struct cpuidle_driver drv;
	struct cpuidle_device dev;
	struct horizon_cpu data;
};

static struct horizon_test_env *horizon_test_env(void)
{
	return kunit_get_current_test()->priv;
}

static s64 horizon_test_sleep_length(s64 *delta_tick_ns)
{
	struct horizon_test_env *env = horizon_test_env();

	env->queries++;
	*delta_tick_ns = env->delta_tick_ns;
	return env->sleep_length_ns;
}

static bool horizon_test_tick_stopped(void)
{
	return horizon_test_env()->tick_stopped;
}

static bool horizon_test_got_tick(void)
{
	return horizon_test_env()->got_tick;
}

static s64 horizon_test_latency_req(unsigned int cpu)
{
	return horizon_test_env()->latency_req_ns;
}

static u64 horizon_test_switches(unsigned int cpu)
{
	return horizon_test_env()->switches;
}

static bool horizon_test_nets(int cpu)
{
	return horizon_test_env()->nets;
}

static struct horizon_cpu *horizon_test_cpu_data(int cpu)
{
	struct horizon_test_env *env = horizon_test_env();

	env->data_calls++;
	return &env->data;
}

static void horizon_test_add_state(struct horizon_test_env *env,
				   s64 exit_latency_ns, s64 residency_ns,
				   bool polling)
{
	struct cpuidle_state *s = &env->drv.states[env->drv.state_count++];

	s->exit_latency_ns = exit_latency_ns;
	s->target_residency_ns = residency_ns;
	s->flags = polling ? CPUIDLE_FLAG_POLLING : 0;
}

/* A client-like table: POLL, C1, C1E, C6, C10 (latency, residency in us). */
static void horizon_test_client_table(struct horizon_test_env *env)
{
	horizon_test_add_state(env, 0, 0, true);
	horizon_test_add_state(env, US(1), US(2), false);
	horizon_test_add_state(env, US(10), US(20), false);
	horizon_test_add_state(env, US(100), US(200), false);
	horizon_test_add_state(env, US(300), US(1000), false);
}

static int horizon_test_init(struct kunit *test)
{
	struct horizon_test_env *env;

	env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env);

	env->delta_tick_ns = TICK_NSEC;
	env->latency_req_ns = S64_MAX;
	env->nets = true;
	env->saved_net = READ_ONCE(horizon_safety_net);
	test->priv = env;

	kunit_activate_static_stub(test, horizon_sleep_length,
				   horizon_test_sleep_length);
	kunit_activate_static_stub(test, horizon_tick_stopped,
				   horizon_test_tick_stopped);
	kunit_activate_static_stub(test, horizon_latency_req,
				   horizon_test_latency_req);
	kunit_activate_static_stub(test, horizon_got_tick,
				   horizon_test_got_tick);
	kunit_activate_static_stub(test, horizon_switches,
				   horizon_test_switches);
	kunit_activate_static_stub(test, horizon_nets, horizon_test_nets);
	kunit_activate_static_stub(test, horizon_cpu_data,
				   horizon_test_cpu_data);
	horizon_enable_device(&env->drv, &env->dev);
	return 0;
}

static int horizon_test_select(struct kunit *test, bool *stop_tick)
{
	struct horizon_test_env *env = test->priv;

	/* As cpuidle_select() does. */
	env->dev.safety_net_ns = 0;
	*stop_tick = true;
	return horizon_select(&env->drv, &env->dev, stop_tick);
}

/**
 * struct horizon_select_case - One select() scenario on the client table.
 * @name: Description of the scenario.
 * @sleep_length_ns: Time until the next timer event.
 * @delta_tick_ns: Time until the next tick.
 * @tick_stopped: Whether the tick is already stopped.
 * @latency_req_ns: PM QoS limit.
 * @disable_mask: Bit i set disables state i.
 * @want_idx: Expected state.
 * @want_stop_tick: Expected tick decision.
 */
struct horizon_select_case {
	const char *name;
	s64 sleep_length_ns;
	s64 delta_tick_ns;
	bool tick_stopped;
	s64 latency_req_ns;
	unsigned int disable_mask;
	int want_idx;
	bool want_stop_tick;
};

/*
 * The deepest state of the client table that pays off within a tick
 * period: C10 (1000 us plus half its 300 us exit latency) below HZ=870,
 * C6 above.
 */
#define HORIZON_TEST_DEEPEST_IN_TICK \
	(US(1000) + US(300) / 2 <= TICK_NSEC ? 4 : 3)

static const struct horizon_select_case horizon_select_cases[] = {
	{ "sleep length 0 polls", 0, TICK_NSEC, false, S64_MAX, 0, 0, false },
	{ "1us polls", US(1), TICK_NSEC, false, S64_MAX, 0, 0, false },
	{ "5us picks C1", US(5), TICK_NSEC, false, S64_MAX, 0, 1, false },
	{ "50us picks C1E", US(50), TICK_NSEC, false, S64_MAX, 0, 2, false },
	{ "500us picks C6", US(500), TICK_NSEC, false, S64_MAX, 0, 3, false },
	{ "timer beyond tick stops tick", 2 * TICK_NSEC, TICK_NSEC, false,
	  S64_MAX, 0, 4, true },
	{ "KTIME_MAX stops tick", KTIME_MAX, TICK_NSEC, false, S64_MAX, 0, 4,
	  true },
	{ "timer before second tick stops", TICK_NSEC, US(30), false, S64_MAX,
	  0, HORIZON_TEST_DEEPEST_IN_TICK, true },
	{ "timer before the tick keeps it", US(500), US(800), false, S64_MAX,
	  0, 3, false },
	{ "tick stopped trusts timer", US(500), US(30), true, S64_MAX, 0, 3,
	  true },
	{ "tick stopped long timer", KTIME_MAX, US(30), true, S64_MAX, 0, 4,
	  true },
	{ "latency limit caps depth", KTIME_MAX, TICK_NSEC, false, US(50), 0,
	  2, true },
	{ "latency limit 0 polls", KTIME_MAX, TICK_NSEC, false, 0, 0, 0,
	  false },
	{ "disabled deepest skipped", KTIME_MAX, TICK_NSEC, false, S64_MAX,
	  BIT(4), 3, true },
	{ "only C1 enabled, long", KTIME_MAX, TICK_NSEC, false, S64_MAX,
	  BIT(0) | BIT(2) | BIT(3) | BIT(4), 1, true },
	{ "only C1 enabled, 0ns", 0, TICK_NSEC, false, S64_MAX,
	  BIT(0) | BIT(2) | BIT(3) | BIT(4), 1, false },
	{ "only C10 enabled, 5us", US(5), TICK_NSEC, false, S64_MAX,
	  BIT(0) | BIT(1) | BIT(2) | BIT(3), 4, false },
	{ "limit 0 without POLL", KTIME_MAX, TICK_NSEC, false, 0, BIT(0), 1,
	  true },
};

KUNIT_ARRAY_PARAM_DESC(horizon_select, horizon_select_cases, name);

static void horizon_test_select_client(struct kunit *test)
{
	const struct horizon_select_case *c = test->param_value;
	struct horizon_test_env *env = test->priv;
	bool stop_tick;
	int i, idx;

	horizon_test_client_table(env);
	for (i = 0; i < env->drv.state_count; i++)
		env->dev.states_usage[i].disable = !!(c->disable_mask & BIT(i));
	env->sleep_length_ns = c->sleep_length_ns;
	env->delta_tick_ns = c->delta_tick_ns;
	env->tick_stopped = c->tick_stopped;
	env->latency_req_ns = c->latency_req_ns;

	idx = horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, idx, c->want_idx);
	KUNIT_EXPECT_EQ(test, stop_tick, c->want_stop_tick);
}

/*
 * One state, as drivers with a single C1 register it: always that state;
 * the tick is stopped for a long sleep (no timer: the sleep length is then
 * bounded by the timekeeping's deferment, seconds, never KTIME_MAX) and
 * kept for a short one. A lone polling state never stops the tick.
 */
static void horizon_test_single_state(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_add_state(env, US(2), US(4), false);
	env->sleep_length_ns = US(1);
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 0);
	KUNIT_EXPECT_FALSE(test, stop_tick);
	env->sleep_length_ns = 4 * (s64)NSEC_PER_SEC;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 0);
	KUNIT_EXPECT_TRUE(test, stop_tick);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);

	env->drv.states[0].flags = CPUIDLE_FLAG_POLLING;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 0);
	KUNIT_EXPECT_FALSE(test, stop_tick);
}

/*
 * State 0 disabled and no enabled state within the PM QoS limit (0 here,
 * or 500 ns): never return the disabled state 0, but the shallowest
 * enabled state, whatever the sleep length and tick.
 */
static void horizon_test_disabled_state0_beyond_qos(struct kunit *test)
{
	static const s64 sleeps[] = { 0, US(5), US(300), KTIME_MAX };
	static const s64 limits[] = { 0, 500 };
	struct horizon_test_env *env = test->priv;
	bool stop_tick;
	int i, j, k;

	horizon_test_client_table(env);
	env->dev.states_usage[0].disable = 1;
	for (i = 0; i < ARRAY_SIZE(limits); i++) {
		env->latency_req_ns = limits[i];
		for (j = 0; j < ARRAY_SIZE(sleeps); j++) {
			for (k = 0; k < 2; k++) {
				env->tick_stopped = k;
				env->sleep_length_ns = sleeps[j];
				KUNIT_EXPECT_EQ_MSG(test,
						    horizon_test_select(test, &stop_tick), 1,
						    "limit %lld sleep %lld stopped %d",
						    limits[i], sleeps[j], k);
			}
		}
	}
}

/*
 * One enabled state (6.12 still asks the governor then): it is the answer
 * whatever the sleep length, tick and PM QoS limit.
 */
static void horizon_test_one_enabled_state(struct kunit *test)
{
	static const s64 sleeps[] = { 0, US(5), US(300), KTIME_MAX };
	struct horizon_test_env *env = test->priv;
	bool stop_tick;
	int i, j;

	horizon_test_client_table(env);
	for (i = 0; i < env->drv.state_count; i++)
		env->dev.states_usage[i].disable = i != 3;
	for (i = 0; i < ARRAY_SIZE(sleeps); i++) {
		for (j = 0; j < 4; j++) {
			env->tick_stopped = j & 1;
			env->latency_req_ns = j & 2 ? 0 : S64_MAX;
			env->sleep_length_ns = sleeps[i];
			KUNIT_EXPECT_EQ_MSG(test,
					    horizon_test_select(test, &stop_tick), 3,
					    "sleep %lld case %d", sleeps[i], j);
		}
	}
}

static void horizon_test_max_states(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;
	int i;

	/* State i: latency i * 10us, residency i * 20us. */
	for (i = 0; i < CPUIDLE_STATE_MAX; i++)
		horizon_test_add_state(env, US(10 * i), US(20 * i), false);

	/* State 7 fits with half its exit latency to spare, state 8 not. */
	env->sleep_length_ns = US(20 * 7 + 10 * 7 / 2 + 4);
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 7);
	env->sleep_length_ns = KTIME_MAX;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick),
			CPUIDLE_STATE_MAX - 1);
}

static void horizon_test_all_disabled(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;
	int i;

	horizon_test_client_table(env);
	for (i = 0; i < env->drv.state_count; i++)
		env->dev.states_usage[i].disable = 1;
	env->sleep_length_ns = KTIME_MAX;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 0);
}

/*
 * One idle period: select with the given sleep length, then let it end
 * after @measured_ns, by the tick if @got_tick.
 */
static int horizon_test_idle(struct kunit *test, s64 sleep_ns,
			     s64 measured_ns, bool got_tick, bool *stop_tick)
{
	struct horizon_test_env *env = test->priv;
	int idx;

	env->sleep_length_ns = sleep_ns;
	idx = horizon_test_select(test, stop_tick);
	env->dev.last_residency_ns = measured_ns;
	env->got_tick = got_tick;
	horizon_reflect(&env->dev, idx);
	return idx;
}

/* Idle @n times, each ended at @measured_ns by an intercept or a timer. */
static void horizon_test_repeat(struct kunit *test, int n, s64 sleep_ns,
				s64 measured_ns)
{
	bool stop_tick;

	while (n--)
		horizon_test_idle(test, sleep_ns, measured_ns, false, &stop_tick);
}

static struct horizon_cpu *horizon_test_data(void)
{
	return &horizon_test_env()->data;
}

/*
 * Set the statistics of bin @bin by hand: @intercepts and @timer_ends
 * weights, the intercepts' mean @mean_ns.  The total stays their sum.
 */
static void horizon_test_set_bin(struct horizon_cpu *data, int bin,
				 u16 intercepts, u16 timer_ends, u32 mean_ns)
{
	data->total += intercepts + timer_ends;
	data->total -= data->intercepts[bin] + data->timer_ends[bin];
	data->intercepts[bin] = intercepts;
	data->timer_ends[bin] = timer_ends;
	data->intercept_mean[bin] = mean_ns;
}

/*
 * End the idle period in state @idx by the polling time limit, after
 * @measured_ns.
 */
static void horizon_test_poll_ends(struct kunit *test, int idx,
				   s64 measured_ns)
{
	struct horizon_test_env *env = test->priv;

	env->dev.last_residency_ns = measured_ns;
	env->dev.poll_time_limit = true;
	env->got_tick = false;
	horizon_reflect(&env->dev, idx);
}

static void horizon_test_periodic_timer(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_client_table(env);
	horizon_test_repeat(test, 50, US(900), US(900));
	/* C6 (residency 200 us) fits 900 us, C10 (1000 us) does not. */
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 3);
	/* The timer comes before the next tick: nothing to stop. */
	KUNIT_EXPECT_FALSE(test, stop_tick);
}

static void horizon_test_random_intercepts(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct rnd_state rnd;
	bool stop_tick;
	int i;

	horizon_test_client_table(env);
	prandom_seed_state(&rnd, 42);
	/* Non-timer wakeups spread over 20-180 us, timers 10 ms away. */
	for (i = 0; i < 100; i++)
		horizon_test_idle(test, US(10000),
				  US(20 + prandom_u32_state(&rnd) % 160),
				  false, &stop_tick);
	/* Expected idle about 100 us: C1E (20 us) yes, C6 (200 us) no. */
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_FALSE(test, stop_tick);
}

/*
 * On the client table, with the next timer 4 ticks away, learn @n idle
 * periods: the timer ends those whose index is @slot modulo @every, an
 * intercept at 30 us the others.
 */
static void horizon_test_learn_mix(struct kunit *test, int n, int every,
				   int slot)
{
	struct horizon_test_env *env = test->priv;
	s64 sleep_ns = 4 * TICK_NSEC;
	bool stop_tick;
	int i;

	horizon_test_client_table(env);
	for (i = 0; i < n; i++)
		horizon_test_idle(test, sleep_ns,
				  i % every == slot ? sleep_ns : US(30), false,
				  &stop_tick);
}

static void horizon_test_bimodal(struct kunit *test)
{
	bool stop_tick;

	horizon_test_learn_mix(test, 100, 2, 0);
	/*
	 * Half end at 30 us, half at 4 ticks: the mean is about 2 ticks, but
	 * a deep state must be outlasted by 5/8 of the idle periods. C1E,
	 * and the tick is kept.
	 */
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_FALSE(test, stop_tick);
}

/* Wakeups within a microsecond are short, not past, at the start. */
static void horizon_test_submicrosecond(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_client_table(env);
	horizon_test_repeat(test, 50, US(10000), 500);
	/* 500 ns expected: polling, not C1 (2 us). */
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 0);
	KUNIT_EXPECT_FALSE(test, stop_tick);
	/* Nor a deep state with the tick stopped. */
	env->tick_stopped = true;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 0);
}

/*
 * A rare long idle period inflates the mean far beyond what most idle
 * periods last: a clear majority ending before a state's target residency
 * keeps the governor out of that state.
 */
static void horizon_test_rare_long_tail(struct kunit *test)
{
	bool stop_tick;

	horizon_test_learn_mix(test, 80, 4, 1);
	/*
	 * The mean is over a tick, but three in four end at 30 us: C1E
	 * (20 us), not C6 (200 us), and the tick is kept.
	 */
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_FALSE(test, stop_tick);
}

/*
 * How many long idles after @history short ones it takes the long ones to
 * carry @share (of HORIZON_ONE) of the weight, with the weights decayed as
 * horizon_learn() decays them: a model of the statistics alone.
 */
static int horizon_test_idles_to_share(int history, u64 share)
{
	u64 w_short = 0, w_long = 0;
	int n, learned = 0;

	for (n = 0; n < history + 1000; n++) {
		if (n >= history &&
		    w_long * HORIZON_ONE >= share * (w_short + w_long))
			return n - history;
		if (!(++learned % HORIZON_DECAY_EVERY)) {
			w_short -= (w_short + BIT(HORIZON_DECAY_SHIFT) - 1) >>
				   HORIZON_DECAY_SHIFT;
			w_long -= (w_long + BIT(HORIZON_DECAY_SHIFT) - 1) >>
				  HORIZON_DECAY_SHIFT;
		}
		if (n < history)
			w_short += HORIZON_WEIGHT;
		else
			w_long += HORIZON_WEIGHT;
	}
	return -1;
}

static void horizon_test_burst_then_long(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	int lo, hi, i;
	bool stop_tick;

	horizon_test_client_table(env);
	horizon_test_repeat(test, 100, US(10000), US(25));
	KUNIT_ASSERT_LE(test, horizon_test_select(test, &stop_tick), 2);

	/*
	 * Then only long timer-ended idles: deep again once they carry the
	 * majority the selection needs, not before the long ones outweigh
	 * the short ones (the history counts) and no later than a decay
	 * period after the majority (it does not linger).
	 */
	lo = horizon_test_idles_to_share(100, HORIZON_ONE / 2);
	hi = horizon_test_idles_to_share(100, HORIZON_MAJORITY_LEFT) +
	     HORIZON_DECAY_EVERY;
	KUNIT_ASSERT_GT(test, lo, 0);
	for (i = 0; i <= hi; i++) {
		if (horizon_test_idle(test, US(10000), US(10000), false,
				      &stop_tick) == 4)
			break;
	}
	kunit_info(test, "deep after %d long idles (model: %d to %d)", i, lo, hi);
	KUNIT_EXPECT_GE(test, i, lo);
	KUNIT_EXPECT_LE(test, i, hi);
}

static void horizon_test_repeating_interval(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;
	int i;

	horizon_test_client_table(env);
	for (i = 0; i < 50; i++)
		horizon_test_idle(test, US(20000), US(290 + 4 * (i % 6)), false,
				  &stop_tick);
	/* A device every 300 us: C6 (200 us), not C10 (1000 us). */
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 3);
	KUNIT_EXPECT_FALSE(test, stop_tick);
}

static void horizon_test_already_stopped(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_client_table(env);
	env->tick_stopped = true;
	/* Nothing learned: trust the timer. */
	env->sleep_length_ns = US(10000);
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 4);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);
	/* Wakeups always at 30 us: the expected cost says C1E. */
	horizon_test_repeat(test, 50, US(10000), US(30));
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
}

/* Bin 4 holds the 30 us wakeups; it ends at 32 time units. */
#define HORIZON_TEST_NET_NS	(2 * (32LL << HORIZON_UNIT_SHIFT))

/* The client table, the tick stopped, and 50 wakeups 30 us into idle. */
static void horizon_test_learn_30us(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;

	horizon_test_client_table(env);
	env->tick_stopped = true;
	horizon_test_repeat(test, 50, US(10000), US(30));
}

static void horizon_test_net_armed(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_learn_30us(test);

	/* Short prediction, tick stopped: C1E and a net. */
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, HORIZON_TEST_NET_NS);

	/* The net fires: the spell goes on, and the CPU goes deep. */
	env->dev.last_residency_ns = env->dev.safety_net_ns;
	env->got_tick = true;
	horizon_reflect(&env->dev, 2);
	env->got_tick = false;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 4);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);
	KUNIT_EXPECT_EQ(test, horizon_test_data()->spell_ns, HORIZON_TEST_NET_NS);
}

static void horizon_test_net_not_needed(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_learn_30us(test);

	/* The timer comes before the net would. */
	env->sleep_length_ns = HORIZON_TEST_NET_NS;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);

	/* No deeper state fits before the timer. */
	env->sleep_length_ns = US(150);
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);

	/* The tick runs: it is the net. */
	env->tick_stopped = false;
	env->sleep_length_ns = US(10000);
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_FALSE(test, stop_tick);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);
}

/*
 * No safety net to be had (the module parameter off, or a nohz_full CPU):
 * with the tick stopped, a short prediction keeps the CPU shallow only if
 * the timer comes soon; otherwise the timer decides.
 */
static void horizon_test_net_off(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_learn_30us(test);
	env->nets = false;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 4);
	KUNIT_EXPECT_TRUE(test, stop_tick);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);

	/* At the edge of the safe range, the timer is the net. */
	env->sleep_length_ns = HORIZON_SAFE_TIMER_NS;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);
	env->sleep_length_ns = HORIZON_SAFE_TIMER_NS + 1;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 4);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);
}

/* The parameter and the nohz_full CPUs decide whether nets can be had. */
static void horizon_test_nets_where(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;
	int cpu;

	kunit_deactivate_static_stub(test, horizon_nets);
	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_EQ_MSG(test, horizon_nets(cpu),
				    READ_ONCE(horizon_safety_net) &&
				    !tick_nohz_full_cpu(cpu), "CPU %d", cpu);

	/* On a nohz_full CPU, select() bounds a short prediction itself. */
	for_each_possible_cpu(cpu) {
		if (tick_nohz_full_cpu(cpu))
			break;
	}
	if (cpu >= nr_cpu_ids)
		kunit_skip(test, "no nohz_full CPU (boot with nohz_full=)");
	horizon_test_learn_30us(test);
	env->dev.cpu = cpu;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 4);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);
}

/*
 * No net for a state that stops the local timer (the net would go through
 * the broadcast device): the timer decides.  A shallower state that keeps
 * the timer running gets its net, whatever deeper states do.
 */
static void horizon_test_net_timer_stop(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_learn_30us(test);
	env->drv.states[3].flags |= CPUIDLE_FLAG_TIMER_STOP;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, HORIZON_TEST_NET_NS);

	env->drv.states[2].flags |= CPUIDLE_FLAG_TIMER_STOP;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 4);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);

	/* Within the safe range the timer bounds the stay. */
	env->sleep_length_ns = HORIZON_SAFE_TIMER_NS;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);
}

/*
 * Every access to per-CPU statistics goes through the stub, so the tests
 * never touch the statistics of a CPU the idle loop may be using, and no
 * test changes the safety_net parameter.
 */
static void horizon_test_live_untouched(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	unsigned int calls;
	bool stop_tick;
	int idx;

	horizon_test_learn_30us(test);
	calls = env->data_calls;
	idx = horizon_test_select(test, &stop_tick);
	horizon_reflect(&env->dev, idx);
	horizon_enable_device(&env->drv, &env->dev);
	/* select(), reflect() and enable() each reached them so. */
	KUNIT_EXPECT_GE(test, env->data_calls, calls + 3);
	KUNIT_EXPECT_EQ(test, horizon_test_data()->total, 0U);

	kunit_deactivate_static_stub(test, horizon_cpu_data);
	KUNIT_EXPECT_PTR_NE(test, horizon_cpu_data(0), &env->data);
	KUNIT_EXPECT_EQ(test, READ_ONCE(horizon_safety_net), env->saved_net);
}

/*
 * A long expected idle duration with the tick stopped, yet too short for
 * the deepest state that fits before the timer: a net at twice the
 * expected duration asks again if the CPU is idle still.
 */
static void horizon_test_net_long(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;
	int idx;

	horizon_test_add_state(env, 0, 0, true);
	horizon_test_add_state(env, US(1), US(2), false);
	horizon_test_add_state(env, US(100), US(200), false);
	horizon_test_add_state(env, US(500), 4 * TICK_NSEC, false);
	horizon_test_repeat(test, 50, 20 * TICK_NSEC, 2 * TICK_NSEC);
	env->sleep_length_ns = 20 * TICK_NSEC;
	idx = horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, idx, 2);
	KUNIT_EXPECT_TRUE(test, stop_tick);
	KUNIT_EXPECT_GE(test, env->dev.safety_net_ns, 2 * (u64)TICK_NSEC);
	KUNIT_EXPECT_LE(test, env->dev.safety_net_ns, 4 * (u64)TICK_NSEC);

	/* No net if the deep state does not fit before the timer. */
	env->sleep_length_ns = 3 * TICK_NSEC;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);

	/* Without a net, the running tick is kept as the net... */
	env->nets = false;
	env->sleep_length_ns = 20 * TICK_NSEC;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_FALSE(test, stop_tick);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);

	/* ...and once it is stopped, the timer, far beyond, decides. */
	env->tick_stopped = true;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 3);
	KUNIT_EXPECT_TRUE(test, stop_tick);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);
}

/*
 * The client table, intercepts at 100 us learned, then the tick retained
 * ends an idle period 500 us in.
 */
static void horizon_test_tick_ends_500us(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_client_table(env);
	horizon_test_repeat(test, 50, US(20000), US(100));
	env->delta_tick_ns = US(500);
	horizon_test_idle(test, US(20000), US(500), true, &stop_tick);
	env->delta_tick_ns = TICK_NSEC;
}

static void horizon_test_tick_wakeup_continues(struct kunit *test)
{
	struct horizon_cpu *data = horizon_test_data();
	bool stop_tick;

	horizon_test_tick_ends_500us(test);
	horizon_test_select(test, &stop_tick);
	/* Not an outcome: carried over, nothing learned. */
	KUNIT_EXPECT_EQ(test, data->spell_ns, US(500));
	KUNIT_EXPECT_EQ(test, data->timer_ends[horizon_bin(US(500))], 0U);
	/* Already past every intercept seen: expect long, go deep. */
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 4);
}

/*
 * A tick wakeup whose softirq work makes a task runnable: the CPU leaves
 * the idle loop and runs it. The next idle entry starts a new spell; the
 * one the tick interrupted is learned, not carried over.
 */
static void horizon_test_spell_ends_with_loop(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct horizon_cpu *data = horizon_test_data();
	bool stop_tick;

	horizon_test_tick_ends_500us(test);
	/* Out of the idle loop to run a task, and back. */
	env->switches += 2;
	horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, data->spell_ns, 0);
	KUNIT_EXPECT_GT(test, data->intercepts[horizon_bin(US(500))], 0U);
}

/*
 * Only decay residues at and after the time spent: nothing learned says
 * the spell ends soon. Not a run of minimal nets in a shallow state, but
 * the deepest state that fits before the timer, as with nothing learned.
 */
static void horizon_test_residue_no_minimal_net(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct horizon_cpu *data = horizon_test_data();
	bool stop_tick;
	int idx;

	horizon_test_client_table(env);
	env->tick_stopped = true;
	/* One intercept at 300 us, decayed to a residue by 32 at 30 us. */
	horizon_test_repeat(test, 1, US(10000), US(300));
	horizon_test_repeat(test, 32, US(10000), US(30));
	KUNIT_ASSERT_GT(test, data->intercepts[horizon_bin(US(300))], 0U);
	KUNIT_ASSERT_LT(test, data->intercepts[horizon_bin(US(300))],
			HORIZON_MIN_SEEN);
	/* A net fires 200 us into the spell; the timer is 900 us away. */
	horizon_test_idle(test, US(1100), US(200), true, &stop_tick);
	env->sleep_length_ns = US(900);
	idx = horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, data->spell_ns, US(200));
	KUNIT_EXPECT_EQ(test, idx, 3);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);

	/*
	 * A distant timer: the residue ahead is no observation, so no net
	 * (a residue taken for one would ask for the minimal net) and the
	 * deepest state.
	 */
	env->sleep_length_ns = US(10000);
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 4);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);
}

/*
 * The last bin has no end: a spell far beyond its start (90 ms, with
 * only timer ends seen, at 40 ms) must not turn its bounds negative, and
 * the expectation stays within the limit.
 */
static void horizon_test_last_bin_open(struct kunit *test)
{
	struct horizon_cpu *data = horizon_test_data();
	struct horizon_estimate est;
	s64 spent_ns = 90 * NSEC_PER_MSEC;
	s64 limit_ns = 20 * NSEC_PER_MSEC;
	int i;

	for (i = 0; i < 20; i++)
		horizon_learn(data, 40 * NSEC_PER_MSEC, true);
	horizon_estimate(data, spent_ns, limit_ns, &est, 0, NULL);
	KUNIT_EXPECT_GE(test, est.seen_ns, 0);
	KUNIT_EXPECT_GE(test, horizon_expected_ns(&est, false), 0);
	KUNIT_EXPECT_LE(test, horizon_expected_ns(&est, false), limit_ns);
	KUNIT_EXPECT_LE(test, horizon_expected_ns(&est, true), limit_ns);
}

/*
 * The mean of a bin follows its intercepts: rounding at each update must
 * not drag it below them (36 and 52 us alternating: about 44 us).
 */
static void horizon_test_bin_mean(struct kunit *test)
{
	struct horizon_cpu *data = horizon_test_data();
	int bin = horizon_bin(US(44));
	u32 weight;
	int i;

	for (i = 0; i < 40; i++)
		horizon_learn(data, US(i % 2 ? 52 : 36), false);
	KUNIT_ASSERT_EQ(test, horizon_bin(US(36)), bin);
	weight = data->intercepts[bin];
	KUNIT_EXPECT_GT(test, horizon_to_come(data, bin, 0, &weight), US(43));
	KUNIT_EXPECT_LT(test, horizon_to_come(data, bin, 0, &weight), US(45));
}

/*
 * Round trips skewed to the right within their bin (36-50 us, and a few at
 * 60 us, in the bin of 32-65 us) have a tail: a spell that a tick wakeup
 * carried over to 58 us, past nearly all of them, still expects an intercept
 * soon, not the timer 10 ms away.
 */
static void horizon_test_bin_tail(struct kunit *test)
{
	struct horizon_cpu *data = horizon_test_data();
	struct horizon_estimate est;
	static const int round_us[] = { 36, 38, 40, 42, 44, 46, 50, 60 };
	int i, j;

	for (j = 0; j < 4; j++)
		for (i = 0; i < ARRAY_SIZE(round_us); i++)
			horizon_learn(data, US(round_us[i]), false);
	KUNIT_ASSERT_EQ(test, horizon_bin(US(36)), horizon_bin(US(60)));
	horizon_estimate(data, US(58), US(10000), &est, 0, NULL);
	KUNIT_EXPECT_LT(test, horizon_expected_ns(&est, true), US(100));
}

/*
 * A timer wakeup from a shallow state, measured from state entry, a few
 * microseconds after the idle entry the sleep length counts from: still
 * a timer end, not an intercept.
 */
static void horizon_test_shallow_timer_is_timer(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct horizon_cpu *data = horizon_test_data();
	bool stop_tick;

	horizon_test_client_table(env);
	env->sleep_length_ns = US(1000);
	horizon_test_select(test, &stop_tick);
	/* C1, entered 8 us after the idle entry, left 1 us after the timer. */
	env->dev.last_residency_ns = US(1000 - 8 + 1);
	horizon_reflect(&env->dev, 1);
	horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, data->intercepts[horizon_bin(US(993))], 0U);
	KUNIT_EXPECT_GT(test, data->timer_ends[horizon_bin(US(993))], 0U);
}

/*
 * An interrupt 400 us before the timer, in a state with an exit latency
 * of 300 us (worst case; 100 us spent leaving it): an intercept, not a
 * timer end.
 */
static void horizon_test_deep_intercept_is_intercept(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct horizon_cpu *data = horizon_test_data();
	bool stop_tick;
	s64 measured_ns = US(5000 - 400 + 100);

	horizon_test_client_table(env);
	env->sleep_length_ns = US(5000);
	horizon_test_select(test, &stop_tick);
	env->dev.last_residency_ns = measured_ns;
	horizon_reflect(&env->dev, 4);
	horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_GT(test, data->intercepts[horizon_bin(measured_ns)], 0U);
	KUNIT_EXPECT_EQ(test, data->timer_ends[horizon_bin(measured_ns)], 0U);
}

/*
 * A state pays off beyond its target residency plus half its exit
 * latency: 240 us fits C6's residency (200 us) but not with its margin
 * (50 us of its 100 us exit latency); 260 us does.
 */
static void horizon_test_exit_margin(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;

	horizon_test_client_table(env);
	KUNIT_EXPECT_EQ(test, horizon_find_state(&env->drv, &env->dev, US(240),
						 S64_MAX), 2);
	KUNIT_EXPECT_EQ(test, horizon_find_state(&env->drv, &env->dev, US(260),
						 S64_MAX), 3);
}

/* Only poll_idle() sets poll_time_limit: a stale flag must not linger. */
static void horizon_test_poll_flag_consumed(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct horizon_cpu *data = horizon_test_data();
	bool stop_tick;

	horizon_test_client_table(env);
	env->dev.poll_time_limit = true;
	horizon_test_idle(test, US(5000), US(40), false, &stop_tick);
	KUNIT_EXPECT_FALSE(test, env->dev.poll_time_limit);
	horizon_test_idle(test, US(5000), US(300), false, &stop_tick);
	/* The first was a safety net: its time is carried over. */
	KUNIT_EXPECT_EQ(test, data->spell_ns, US(40));
	horizon_test_select(test, &stop_tick);
	/* The second ended the spell: an intercept at 340 us. */
	KUNIT_EXPECT_EQ(test, data->spell_ns, 0LL);
	KUNIT_EXPECT_EQ(test, data->intercepts[horizon_bin(US(340))],
			(u32)HORIZON_WEIGHT);
}

/*
 * With an overdue timer (negative sleep length) the expectation is 0, yet
 * a polling state that hit its limit is not entered again.
 */
static void horizon_test_no_repoll(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_client_table(env);
	KUNIT_EXPECT_EQ(test, horizon_test_idle(test, -US(10), US(25), false,
						&stop_tick), 0);
	env->dev.poll_time_limit = true;
	horizon_reflect(&env->dev, 0);
	/* 25 us spent idle: C1E (20 us) fits, C6 (200 us) does not. */
	env->sleep_length_ns = -US(10);
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_FALSE(test, stop_tick);
}

static void horizon_test_measured_beyond_sleep(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct horizon_cpu *data = horizon_test_data();
	bool stop_tick;

	horizon_test_client_table(env);
	horizon_test_idle(test, US(300), US(450), false, &stop_tick);
	horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, data->timer_ends[horizon_bin(US(450))],
			(u32)HORIZON_WEIGHT);
	KUNIT_EXPECT_EQ(test, data->intercepts[horizon_bin(US(450))], 0U);
}

static void horizon_test_skips_query(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	unsigned int queries;
	bool stop_tick;
	int idx;

	horizon_test_client_table(env);
	horizon_test_repeat(test, 50, US(5000), 1000);
	queries = env->queries;
	idx = horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, env->queries, queries);
	KUNIT_EXPECT_LE(test, env->drv.states[idx].target_residency_ns,
			(s64)RESIDENCY_THRESHOLD_NS);
	KUNIT_EXPECT_FALSE(test, stop_tick);
}

static void horizon_test_enable_resets(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct horizon_cpu *data = horizon_test_data();
	bool stop_tick;

	horizon_test_client_table(env);
	horizon_test_repeat(test, 10, US(5000), US(30));
	KUNIT_EXPECT_EQ(test, env->dev.last_state_idx, 2);
	KUNIT_EXPECT_EQ(test, horizon_enable_device(&env->drv, &env->dev), 0);
	KUNIT_EXPECT_EQ(test, env->dev.last_state_idx, -1);
	KUNIT_EXPECT_EQ(test, data->total, 0U);
	KUNIT_EXPECT_FALSE(test, data->needs_update);
	/* Nothing queried yet: no base for the next sleep length. */
	KUNIT_EXPECT_EQ(test, data->sleep_length_ns, KTIME_MAX);
	KUNIT_EXPECT_EQ(test, data->queried_ns, KTIME_MAX);
	env->sleep_length_ns = US(5000);
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 4);
}

/*
 * The estimate up to the cut is filled in whatever the cut: at or below 0
 * (an overdue tick) it is that of a limit of 0, beyond the limit that of
 * the limit.  Stale contents must not survive.
 */
static void horizon_test_cut_filled(struct kunit *test)
{
	static const s64 cuts[] = { -1000, 0, US(100000) };
	struct horizon_cpu *data = horizon_test_data();
	struct horizon_estimate est, at_cut;
	int i;

	for (i = 0; i < 20; i++)
		horizon_learn(data, US(50), false);
	for (i = 0; i < ARRAY_SIZE(cuts); i++) {
		memset(&at_cut, 0x5a, sizeof(at_cut));
		horizon_estimate(data, 0, US(10000), &est, cuts[i], &at_cut);
		KUNIT_EXPECT_EQ_MSG(test, at_cut.limit_ns,
				    clamp_t(s64, cuts[i], 0, US(10000)),
				    "cut %lld", cuts[i]);
		KUNIT_EXPECT_LE(test, at_cut.survival, HORIZON_ONE);
		KUNIT_EXPECT_LE(test, at_cut.seen_ns, at_cut.limit_ns);
	}
	/* Beyond the limit, the cut changes nothing. */
	KUNIT_EXPECT_EQ(test, at_cut.sum, est.sum);
	KUNIT_EXPECT_EQ(test, at_cut.survival, est.survival);
	KUNIT_EXPECT_EQ(test, horizon_expected_ns(&at_cut, false),
			horizon_expected_ns(&est, false));
}

/*
 * With the tick running and overdue (delta_tick <= 0, as
 * tick_nohz_get_sleep_length() allows) and no timer, the tick ends the
 * idle period at once: keep it and take the shallowest usable state.
 */
static void horizon_test_overdue_tick(struct kunit *test)
{
	static const s64 deltas[] = { 0, -1000, -(s64)TICK_NSEC };
	struct horizon_test_env *env = test->priv;
	bool stop_tick;
	int i, idx;

	horizon_test_client_table(env);
	horizon_test_repeat(test, 20, US(10000), US(50));
	for (i = 0; i < ARRAY_SIZE(deltas); i++) {
		env->delta_tick_ns = deltas[i];
		env->sleep_length_ns = KTIME_MAX;
		idx = horizon_test_select(test, &stop_tick);
		KUNIT_EXPECT_EQ_MSG(test, idx, 0, "delta_tick %lld", deltas[i]);
		KUNIT_EXPECT_FALSE_MSG(test, stop_tick, "delta_tick %lld",
				       deltas[i]);
	}
}

/*
 * A polling-limit wakeup is no interrupt: the next sleep length still
 * counts from before the polling.  A timer that ends the next period
 * where the sleep length, less the time polled, said is a timer end.
 */
static void horizon_test_stale_base(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct horizon_cpu *data = horizon_test_data();
	u32 intercepts = 0;
	bool stop_tick;
	int i, idx;

	horizon_test_client_table(env);
	env->sleep_length_ns = US(1000);
	idx = horizon_test_select(test, &stop_tick);
	env->dev.last_residency_ns = US(200);
	env->dev.poll_time_limit = true;
	horizon_reflect(&env->dev, idx);

	/* Still 1000 us from the same base: 800 us from now. */
	idx = horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, data->sleep_length_ns, US(800));
	env->dev.last_residency_ns = US(790);
	horizon_reflect(&env->dev, idx);

	horizon_test_select(test, &stop_tick);
	for (i = 0; i < HORIZON_BINS; i++)
		intercepts += data->intercepts[i];
	KUNIT_EXPECT_EQ(test, intercepts, 0U);
	KUNIT_EXPECT_EQ(test, data->timer_ends[horizon_bin(US(990))],
			HORIZON_WEIGHT);
}

/*
 * Step 2 skips the sleep length query: a period longer than the short
 * wakeups it expects is learned as a timer end (no intercept came before
 * it ended), not as an intercept.
 */
static void horizon_test_unqueried_long_is_timer_end(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct horizon_cpu *data = horizon_test_data();
	unsigned int queries;
	bool stop_tick;
	int bin = horizon_bin(US(500));

	horizon_test_client_table(env);
	horizon_test_repeat(test, 50, US(5000), 1000);
	queries = env->queries;
	horizon_test_idle(test, US(5000), US(500), false, &stop_tick);
	KUNIT_ASSERT_EQ(test, env->queries, queries);
	horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, data->intercepts[bin], 0U);
	KUNIT_EXPECT_EQ(test, data->timer_ends[bin], HORIZON_WEIGHT);
	/* The short ones are still intercepts. */
	KUNIT_EXPECT_GT(test, data->intercepts[horizon_bin(1000)], 0U);
}

/**
 * struct horizon_bin_case - One duration and its bin.
 * @name: Description of the case.
 * @ns: Duration in nanoseconds.
 * @want: Expected bin.
 */
struct horizon_bin_case {
	const char *name;
	s64 ns;
	int want;
};

static const struct horizon_bin_case horizon_bin_cases[] = {
	{ "negative", -5, 0 },
	{ "zero", 0, 0 },
	{ "below one unit", 1023, 0 },
	{ "one unit", 1024, 0 },
	{ "just below two units", 2047, 0 },
	{ "two units", 2048, 1 },
	{ "2^14 units less 1 ns", (1LL << 24) - 1, 13 },
	{ "2^14 units", 1LL << 24, 14 },
	{ "2^15 units less 1 ns", (1LL << 25) - 1, 14 },
	{ "2^15 units: the last bin", 1LL << 25, 15 },
	{ "2^16 units", 1LL << 26, 15 },
	{ "one second", NSEC_PER_SEC, 15 },
	{ "2^42 ns, beyond 32 bits of units", 1LL << 42, 15 },
	{ "S64_MAX", S64_MAX, 15 },
};

KUNIT_ARRAY_PARAM_DESC(horizon_bin, horizon_bin_cases, name);

static void horizon_test_bin_edges(struct kunit *test)
{
	const struct horizon_bin_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, horizon_bin(c->ns), c->want);
}

/* Bin b starts at 2^b units (bin 0 at 0) and ends where bin b + 1 starts. */
static void horizon_test_bin_start(struct kunit *test)
{
	int b;

	KUNIT_EXPECT_EQ(test, horizon_bin_start_ns(0), 0LL);
	for (b = 1; b <= HORIZON_BINS; b++) {
		KUNIT_EXPECT_EQ_MSG(test, horizon_bin_start_ns(b),
				    1LL << (b + HORIZON_UNIT_SHIFT), "bin %d", b);
		if (b == HORIZON_BINS)
			break;
		KUNIT_EXPECT_EQ(test, horizon_bin(horizon_bin_start_ns(b)), b);
		KUNIT_EXPECT_EQ(test, horizon_bin(horizon_bin_start_ns(b) - 1),
				b - 1);
	}
}

/**
 * struct horizon_come_case - One case of horizon_to_come() in bin 5.
 * @name: Description of the case.
 * @mean_ns: Mean of the bin's intercepts.
 * @spent_ns: Time spent idle in the spell.
 * @want_ns: Expected mean time from now of the intercepts to come.
 * @want_weight: Expected weight of those, out of 1024.
 */
struct horizon_come_case {
	const char *name;
	u32 mean_ns;
	s64 spent_ns;
	s64 want_ns;
	u32 want_weight;
};

/*
 * Bin 5 starts at 32768 ns; a mean of 40000 ns spreads the intercepts
 * over 3 * 7232 = 21696 ns from the start, to 54464 ns.  What is left of
 * that span over the span, squared, is the weight to come; a third of
 * it their mean from now.
 */
static const struct horizon_come_case horizon_come_cases[] = {
	{ "nothing spent: the mean", 40000, 0, 40000, 1024 },
	{ "before the mean: the rest of it", 40000, 30000, 10000, 1024 },
	/* 14464 ns left: 1024 * 14464 / 21696 = 682, then 454. */
	{ "at the mean: the tail", 40000, 40000, 14464 / 3, 454 },
	/* 4464 ns left: 210, then 43. */
	{ "past the mean", 40000, 50000, 4464 / 3, 43 },
	{ "at the end of the spread", 40000, 54464, 0, 0 },
	{ "beyond the spread", 40000, 60000, 0, 0 },
	/* A mean 1 ns into the bin spreads over 3 ns; 1 ns left: 341, 113. */
	{ "1 ns left of a 3 ns spread", 32769, 32770, 0, 113 },
};

KUNIT_ARRAY_PARAM_DESC(horizon_come, horizon_come_cases, name);

static void horizon_test_to_come(struct kunit *test)
{
	const struct horizon_come_case *c = test->param_value;
	struct horizon_cpu *data = horizon_test_data();
	u32 weight = 1024;

	horizon_test_set_bin(data, 5, weight, 0, c->mean_ns);
	KUNIT_EXPECT_EQ(test, horizon_to_come(data, 5, c->spent_ns, &weight),
			c->want_ns);
	KUNIT_EXPECT_EQ(test, weight, c->want_weight);
}

/*
 * All weight in bin 5, mean 40000 ns: the spell ends there for sure.  The
 * 5/8 point is interpolated over 2 * (40000 - 32768) ns from the bin's
 * start: 32768 + 14464 * (1 - 5/8) = 38192 ns.
 */
static void horizon_test_estimate_one_bin(struct kunit *test)
{
	struct horizon_cpu *data = horizon_test_data();
	struct horizon_estimate est;

	horizon_test_set_bin(data, 5, 1024, 0, 40000);
	horizon_estimate(data, 0, US(10000), &est, 0, NULL);
	KUNIT_EXPECT_EQ(test, est.sum, HORIZON_ONE * 40000);
	KUNIT_EXPECT_EQ(test, est.survival, 0ULL);
	KUNIT_EXPECT_EQ(test, est.seen_ns, horizon_bin_start_ns(6));
	KUNIT_EXPECT_EQ(test, est.limit_ns, US(10000));
	KUNIT_EXPECT_EQ(test, est.majority_ns, 38192LL);
	KUNIT_EXPECT_EQ(test, horizon_expected_ns(&est, true), 38192LL);
}

/*
 * Survival reaches exactly 5/8 at the end of bin 5 (3/8 of the weight):
 * the 5/8 point is not there but in the next bin holding intercepts, bin
 * 7 (1/5 of the rest at risk: survival 5/8 -> 1/2), at its start.
 */
static void horizon_test_estimate_majority_edge(struct kunit *test)
{
	struct horizon_cpu *data = horizon_test_data();
	struct horizon_estimate est;

	horizon_test_set_bin(data, 5, 384, 0, 40000);
	horizon_test_set_bin(data, 7, 128, 0, 140000);
	horizon_test_set_bin(data, 12, 0, 512, 0);
	horizon_estimate(data, 0, US(100000), &est, 0, NULL);
	KUNIT_EXPECT_EQ(test, est.survival, HORIZON_ONE / 2);
	KUNIT_EXPECT_EQ(test, est.majority_ns, horizon_bin_start_ns(7));

	/* Bin 5 alone: survival stops at 5/8, no 5/8 point before the limit. */
	horizon_test_set_bin(data, 7, 0, 128, 0);
	horizon_estimate(data, 0, US(100000), &est, 0, NULL);
	KUNIT_EXPECT_EQ(test, est.survival, HORIZON_ONE * 5 / 8);
	KUNIT_EXPECT_EQ(test, est.majority_ns, S64_MAX);
}

/*
 * A limit at the very start of a bin, or at its intercepts' mean: they
 * lie beyond it, add nothing, and what was seen ends at the limit.
 */
static void horizon_test_estimate_limit_at_bin_start(struct kunit *test)
{
	struct horizon_cpu *data = horizon_test_data();
	s64 start_ns = horizon_bin_start_ns(5);
	struct horizon_estimate est;

	horizon_test_set_bin(data, 5, 1024, 0, 40000);
	horizon_estimate(data, 0, start_ns, &est, 0, NULL);
	KUNIT_EXPECT_EQ(test, est.sum, 0ULL);
	KUNIT_EXPECT_EQ(test, est.survival, HORIZON_ONE);
	KUNIT_EXPECT_EQ(test, est.seen_ns, start_ns);
	horizon_estimate(data, 0, start_ns + 1, &est, 0, NULL);
	KUNIT_EXPECT_EQ(test, est.survival, HORIZON_ONE);
	KUNIT_EXPECT_EQ(test, est.seen_ns, start_ns + 1);
	horizon_estimate(data, 0, 40000, &est, 0, NULL);
	KUNIT_EXPECT_EQ(test, est.survival, HORIZON_ONE);
	KUNIT_EXPECT_EQ(test, est.seen_ns, 40000LL);
	/* Timer ends only, from the limit on: seen up to the limit only. */
	horizon_test_set_bin(data, 5, 0, 1024, 0);
	horizon_estimate(data, 0, start_ns, &est, 0, NULL);
	KUNIT_EXPECT_EQ(test, est.seen_ns, start_ns);
	/* An overdue limit is 0. */
	horizon_estimate(data, 0, -1000, &est, 0, NULL);
	KUNIT_EXPECT_EQ(test, est.limit_ns, 0LL);
}

/*
 * Exactly HORIZON_MIN_SEEN at risk is an observation, not a residue; one
 * less is a residue, and the estimate that of nothing learned.
 */
static void horizon_test_estimate_min_seen(struct kunit *test)
{
	struct horizon_cpu *data = horizon_test_data();
	struct horizon_estimate est;

	horizon_test_set_bin(data, 5, HORIZON_MIN_SEEN, 0, 40000);
	horizon_estimate(data, 0, US(10000), &est, 0, NULL);
	KUNIT_EXPECT_EQ(test, est.survival, 0ULL);
	KUNIT_EXPECT_EQ(test, est.seen_ns, horizon_bin_start_ns(6));

	horizon_test_set_bin(data, 5, HORIZON_MIN_SEEN - 1, 0, 40000);
	horizon_estimate(data, 0, US(10000), &est, 0, NULL);
	KUNIT_EXPECT_EQ(test, est.survival, HORIZON_ONE);
	KUNIT_EXPECT_EQ(test, est.seen_ns, US(10000));
}

/*
 * The walk goes on while HORIZON_MIN_SEEN or more is at risk, and stops
 * below: with HORIZON_MIN_SEEN left after bin 5 it reaches bin 8; with
 * less, it ends at bin 5, not at the limit.
 */
static void horizon_test_estimate_walk_end(struct kunit *test)
{
	struct horizon_cpu *data = horizon_test_data();
	struct horizon_estimate est;

	horizon_test_set_bin(data, 5, 1024 - HORIZON_MIN_SEEN, 0, 40000);
	horizon_test_set_bin(data, 8, HORIZON_MIN_SEEN, 0, 300000);
	horizon_estimate(data, 0, US(10000), &est, 0, NULL);
	KUNIT_EXPECT_EQ(test, est.survival, 0ULL);
	KUNIT_EXPECT_EQ(test, est.seen_ns, horizon_bin_start_ns(9));

	horizon_test_set_bin(data, 5, 1024 - 100, 0, 40000);
	horizon_test_set_bin(data, 8, 100, 0, 300000);
	horizon_estimate(data, 0, US(200), &est, 0, NULL);
	KUNIT_EXPECT_EQ(test, est.seen_ns, horizon_bin_start_ns(6));
}

/* Bins of residues only, at risk together: nothing seen, no end. */
static void horizon_test_estimate_residues(struct kunit *test)
{
	struct horizon_cpu *data = horizon_test_data();
	struct horizon_estimate est;

	horizon_test_set_bin(data, 5, 100, 0, 40000);
	horizon_test_set_bin(data, 6, 100, 0, 80000);
	memset(&est, 0x5a, sizeof(est));
	horizon_estimate(data, 0, US(10000), &est, 0, NULL);
	KUNIT_EXPECT_EQ(test, est.seen_ns, 0LL);
	KUNIT_EXPECT_EQ(test, est.survival, HORIZON_ONE);
}

/*
 * A bin holding intercepts and timer ends: the timer ends stay at risk
 * (censored), so the bin's intercepts end a third of the spells, and the
 * next bin's all the rest.
 */
static void horizon_test_estimate_censored(struct kunit *test)
{
	struct horizon_cpu *data = horizon_test_data();
	struct horizon_estimate est;

	horizon_test_set_bin(data, 5, 512, 512, 40000);
	horizon_test_set_bin(data, 8, 512, 0, 300000);
	horizon_estimate(data, 0, US(10000), &est, 0, NULL);
	KUNIT_EXPECT_EQ(test, est.sum, HORIZON_ONE / 3 * 40000 +
			(HORIZON_ONE - HORIZON_ONE / 3) * 300000);
	KUNIT_EXPECT_EQ(test, est.survival, 0ULL);
}

/*
 * From within a spell, bins are measured from now, not from its start,
 * and those behind the spell are no longer at risk.
 */
static void horizon_test_estimate_spent(struct kunit *test)
{
	struct horizon_cpu *data = horizon_test_data();
	s64 start_ns = horizon_bin_start_ns(6);
	struct horizon_estimate est;

	horizon_test_set_bin(data, 6, 1024, 0, 80000);
	horizon_test_set_bin(data, 2, 1024, 0, 5000);
	horizon_test_set_bin(data, 0, 0, 256, 0);
	horizon_estimate(data, 40000, US(10000), &est, 0, NULL);
	KUNIT_EXPECT_EQ(test, est.sum, HORIZON_ONE * 40000);
	KUNIT_EXPECT_EQ(test, est.seen_ns, horizon_bin_start_ns(7) - 40000);
	KUNIT_EXPECT_EQ(test, est.majority_ns,
			start_ns - 40000 + 2 * (80000 - start_ns) * 3 / 8);
}

/*
 * The estimate up to a cut inside the walk holds nothing of what lies
 * beyond the cut; a cut beyond the end of the walk sees what was seen.
 */
static void horizon_test_estimate_cut_inside(struct kunit *test)
{
	struct horizon_cpu *data = horizon_test_data();
	struct horizon_estimate est, at_cut;

	horizon_test_set_bin(data, 5, 1024, 0, 40000);
	horizon_estimate(data, 0, US(10000), &est, 35000, &at_cut);
	KUNIT_EXPECT_EQ(test, at_cut.limit_ns, 35000LL);
	KUNIT_EXPECT_EQ(test, at_cut.seen_ns, 35000LL);
	KUNIT_EXPECT_EQ(test, at_cut.survival, HORIZON_ONE);
	/* A cut at the intercepts' mean: they lie beyond it. */
	horizon_estimate(data, 0, US(10000), &est, 40000, &at_cut);
	KUNIT_EXPECT_EQ(test, at_cut.survival, HORIZON_ONE);
	KUNIT_EXPECT_EQ(test, at_cut.sum, 0ULL);
	/* Beyond the end of the walk, at the end of bin 5. */
	horizon_estimate(data, 0, US(10000), &est, US(1000), &at_cut);
	KUNIT_EXPECT_EQ(test, at_cut.limit_ns, US(1000));
	KUNIT_EXPECT_EQ(test, at_cut.seen_ns, horizon_bin_start_ns(6));
}

/**
 * struct horizon_majority_case - Where the 5/8 point rounds.
 * @name: Description of the case.
 * @bin: Bin holding the intercepts.
 * @intercepts: Their weight.
 * @mean_ns: Their mean.
 * @timer_ends: Weight of timer ends in bin 12, beyond the limit.
 * @spent_ns: Time spent idle in the spell.
 * @want_ns: Expected 5/8 point, from now.
 */
struct horizon_majority_case {
	const char *name;
	int bin;
	u16 intercepts;
	u32 mean_ns;
	u16 timer_ends;
	s64 spent_ns;
	s64 want_ns;
};

static const struct horizon_majority_case horizon_majority_cases[] = {
	/* From now on, 10001 ns ahead: 2 * 10001 * 3/8 = 7500.75. */
	{ "interpolated from now", 5, 1024, 50001, 0, 40000, 7500 },
	/* ONE * 625/1024 = 40000 at 32768 ns exactly. */
	{ "at the bin's start: no span", 5, 625, 32768, 399, 0, 32768 },
	/* The mean 500 ns ahead: 2 * 500 * 3/8. */
	{ "within bin 0", 0, 1024, 1500, 0, 1000, 375 },
};

KUNIT_ARRAY_PARAM_DESC(horizon_majority, horizon_majority_cases, name);

static void horizon_test_estimate_majority(struct kunit *test)
{
	const struct horizon_majority_case *c = test->param_value;
	struct horizon_cpu *data = horizon_test_data();
	struct horizon_estimate est;

	horizon_test_set_bin(data, c->bin, c->intercepts, 0, c->mean_ns);
	horizon_test_set_bin(data, 12, 0, c->timer_ends, 0);
	horizon_estimate(data, c->spent_ns, US(100000), &est, 0, NULL);
	KUNIT_EXPECT_EQ(test, est.majority_ns, c->want_ns);
}

/* Nothing within the PM QoS limit: the shallowest enabled state. */
static void horizon_test_find_state_none_within_qos(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;

	horizon_test_add_state(env, US(1), US(2), false);
	horizon_test_add_state(env, US(10), US(20), false);
	KUNIT_EXPECT_EQ(test, horizon_find_state(&env->drv, &env->dev, US(100),
						 0), 0);
}

/*
 * Step 2 skips the query when exactly 15/16 of the weight are short
 * intercepts (bins 0-2 end before 15 us, bin 3 does not), not below.
 */
static void horizon_test_mostly_short_edge(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct horizon_cpu *data = horizon_test_data();
	unsigned int queries;
	bool stop_tick;

	horizon_test_client_table(env);
	env->sleep_length_ns = US(10000);
	horizon_test_set_bin(data, 0, 960, 0, 500);
	horizon_test_set_bin(data, 3, 64, 0, 10000);
	queries = env->queries;
	horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, env->queries, queries);

	horizon_test_set_bin(data, 0, 959, 0, 500);
	horizon_test_set_bin(data, 3, 65, 0, 10000);
	queries = env->queries;
	horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, env->queries, queries + 1);
}

/* Step 2 needs a polling state 0: without one the query is made. */
static void horizon_test_short_needs_poll(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_add_state(env, US(1), US(2), false);
	horizon_test_add_state(env, US(10), US(20), false);
	env->sleep_length_ns = US(10000);
	horizon_test_set_bin(horizon_test_data(), 0, 1024, 0, 500);
	horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, env->queries, 1U);
}

/* Step 2 keeps the tick also when it selects a state that does not poll. */
static void horizon_test_short_keeps_tick(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_client_table(env);
	horizon_test_set_bin(horizon_test_data(), 2, 1024, 0, 6000);
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 1);
	KUNIT_EXPECT_EQ(test, env->queries, 0U);
	KUNIT_EXPECT_FALSE(test, stop_tick);
}

/*
 * Step 2 expects intercepts that came at once (0 ns into the spell) at
 * once: it polls rather than enter a state worth 1 ns.
 */
static void horizon_test_short_at_once(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_add_state(env, 0, 0, true);
	horizon_test_add_state(env, 0, 1, false);
	horizon_test_set_bin(horizon_test_data(), 0, 1024, 0, 0);
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 0);
	KUNIT_EXPECT_EQ(test, env->queries, 0U);
}

/*
 * A sleep length queried before a step 2 selection is no base for one
 * queried after it and a polling-limit wakeup, even if equal.
 */
static void horizon_test_step2_forgets_query(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct horizon_cpu *data = horizon_test_data();
	bool stop_tick;
	int idx;

	horizon_test_client_table(env);
	horizon_test_idle(test, US(10000), 1000, false, &stop_tick);
	KUNIT_ASSERT_EQ(test, env->queries, 1U);
	horizon_test_set_bin(data, 0, 1024, 0, 1000);
	idx = horizon_test_select(test, &stop_tick);
	KUNIT_ASSERT_EQ(test, env->queries, 1U);
	horizon_test_poll_ends(test, idx, US(20));
	horizon_test_select(test, &stop_tick);
	KUNIT_ASSERT_EQ(test, env->queries, 2U);
	KUNIT_EXPECT_EQ(test, data->sleep_length_ns, env->sleep_length_ns);
}

/* Ended exactly HORIZON_TIMER_SLACK_NS before the sleep length: a timer end. */
static void horizon_test_timer_slack_edge(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct horizon_cpu *data = horizon_test_data();
	s64 measured_ns = US(1000) - HORIZON_TIMER_SLACK_NS;
	bool stop_tick;

	horizon_test_client_table(env);
	horizon_test_idle(test, US(1000), measured_ns, false, &stop_tick);
	horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, data->timer_ends[horizon_bin(measured_ns)],
			HORIZON_WEIGHT);
	KUNIT_EXPECT_EQ(test, data->intercepts[horizon_bin(measured_ns)], 0);
}

/*
 * Unqueried (step 2), a period that ends at the start of the bin of
 * RESIDENCY_THRESHOLD_NS is learned as a timer end.
 */
static void horizon_test_unqueried_threshold_bin(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct horizon_cpu *data = horizon_test_data();
	int bin = horizon_bin(RESIDENCY_THRESHOLD_NS);
	bool stop_tick;

	horizon_test_client_table(env);
	horizon_test_set_bin(data, 0, 1024, 0, 500);
	horizon_test_idle(test, US(10000), horizon_bin_start_ns(bin), false,
			  &stop_tick);
	KUNIT_ASSERT_EQ(test, env->queries, 0U);
	horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, data->timer_ends[bin], HORIZON_WEIGHT);
}

/*
 * The sleep length is taken as stale (less the time polled) only after
 * polling-limit wakeups: after a tick wakeup, and after a spell has ended,
 * the same sleep length is the sleep length.
 */
static void horizon_test_stale_only_after_polling(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct horizon_cpu *data = horizon_test_data();
	bool stop_tick;

	horizon_test_client_table(env);
	/* A tick wakeup 500 us in: carried over, nothing polled. */
	horizon_test_idle(test, US(10000), US(500), true, &stop_tick);
	horizon_test_select(test, &stop_tick);
	KUNIT_ASSERT_EQ(test, data->spell_ns, US(500));
	KUNIT_EXPECT_EQ(test, data->sleep_length_ns, US(10000));

	/* A polling-limit wakeup, then an intercept ends the spell. */
	horizon_test_poll_ends(test, 0, US(200));
	horizon_test_idle(test, US(10000), US(300), false, &stop_tick);
	horizon_test_select(test, &stop_tick);
	KUNIT_ASSERT_EQ(test, data->spell_ns, 0LL);
	KUNIT_EXPECT_EQ(test, data->sleep_length_ns, US(10000));
}

/* Selecting twice after one idle period learns it once. */
static void horizon_test_learn_once(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_client_table(env);
	horizon_test_idle(test, US(10000), US(300), false, &stop_tick);
	horizon_test_select(test, &stop_tick);
	horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, horizon_test_data()->total, (u32)HORIZON_WEIGHT);
}

/*
 * The context switch count is taken anew at each selection: a tick
 * wakeup with no task run since the last selection carries the spell
 * over, whatever the count was before.
 */
static void horizon_test_switches_rebased(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_client_table(env);
	env->switches = 2;
	horizon_test_idle(test, US(10000), US(300), false, &stop_tick);
	horizon_test_idle(test, US(10000), US(500), true, &stop_tick);
	horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, horizon_test_data()->spell_ns, US(500));
}

/**
 * struct horizon_repoll_case - A timer at or after a polling-limit wakeup.
 * @name: Description of the case.
 * @sleep_length_ns: Sleep length after the wakeup.
 * @want_idx: Expected state.
 */
struct horizon_repoll_case {
	const char *name;
	s64 sleep_length_ns;
	int want_idx;
};

/*
 * 25 us polled: C1E fits the time spent idle.  A timer due now is overdue
 * and left out; one 1 ns away bounds the state.
 */
static const struct horizon_repoll_case horizon_repoll_cases[] = {
	{ "timer due now: C1E", 0, 2 },
	{ "timer 1 ns away: POLL", 1, 0 },
};

KUNIT_ARRAY_PARAM_DESC(horizon_repoll, horizon_repoll_cases, name);

static void horizon_test_repoll_timer_edge(struct kunit *test)
{
	const struct horizon_repoll_case *c = test->param_value;
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_client_table(env);
	env->sleep_length_ns = US(5000);
	horizon_test_select(test, &stop_tick);
	horizon_test_poll_ends(test, 0, US(25));
	/* The sleep length changed: none of it is taken as stale. */
	env->sleep_length_ns = c->sleep_length_ns;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), c->want_idx);
}

/*
 * An overdue tick leaves no time at all: with the tick kept, a state
 * worth 1 ns does not fit before it.
 */
static void horizon_test_overdue_tick_no_time(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_add_state(env, 0, 0, true);
	horizon_test_add_state(env, 0, 1, false);
	horizon_test_repeat(test, 20, US(10000), US(50));
	env->delta_tick_ns = 0;
	env->sleep_length_ns = KTIME_MAX;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 0);
	KUNIT_EXPECT_FALSE(test, stop_tick);
}

/*
 * After a polling-limit wakeup the next tick, like the timer, is nearer
 * by the time polled: 25 us polled, the tick 300 us and the timer 340 us
 * from the base, so 275 us and 315 us from now.  The timer comes after
 * the tick and before the second one, and nothing learned says the spell
 * ends before the tick: the tick is stopped.
 */
static void horizon_test_stale_tick(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_client_table(env);
	env->sleep_length_ns = US(340);
	env->delta_tick_ns = US(300);
	horizon_test_select(test, &stop_tick);
	horizon_test_poll_ends(test, 0, US(25));
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 3);
	KUNIT_EXPECT_EQ(test, horizon_test_data()->sleep_length_ns, US(315));
	KUNIT_EXPECT_TRUE(test, stop_tick);
}

/* A deeper state at exactly the PM QoS limit justifies a net. */
static void horizon_test_net_qos_edge(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_learn_30us(test);
	/* C6's exit latency is 100 us: the limit allows it, not C10. */
	env->latency_req_ns = US(100);
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, HORIZON_TEST_NET_NS);
	env->latency_req_ns = US(100) - 1;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);
}

/**
 * struct horizon_tick_case - Step 3 against step 4 on the client table.
 * @name: Description of the case.
 * @intercepts: Weight of intercepts at 30 us (bin 4).
 * @timer_ends: Weight of timer ends at about 10 ms (bin 13).
 * @sleep_length_ns: Time until the next timer event.
 * @delta_tick_ns: Time until the next tick.
 * @want_stop_tick: Expected tick decision.
 */
struct horizon_tick_case {
	const char *name;
	u16 intercepts;
	u16 timer_ends;
	s64 sleep_length_ns;
	s64 delta_tick_ns;
	bool want_stop_tick;
};

static const struct horizon_tick_case horizon_tick_cases[] = {
	{ "expected idle of a tick stops it", 0, 0, TICK_NSEC, 2 * TICK_NSEC,
	  true },
	{ "timer with the tick keeps it", 0, 0, US(500), US(500), false },
	/* Half the spells outlast the next tick, the timer ends the rest. */
	{ "timer a tick after the tick, half outlast", 512, 512,
	  US(400) + TICK_NSEC, US(400), true },
	{ "timer beyond that keeps it", 512, 512, US(400) + TICK_NSEC + 1,
	  US(400), false },
	{ "timer half a tick after, half outlast", 512, 512,
	  US(400) + TICK_NSEC / 2, US(400), true },
	{ "timer half a tick after, 3/8 outlast", 640, 384,
	  US(400) + TICK_NSEC / 2, US(400), false },
};

KUNIT_ARRAY_PARAM_DESC(horizon_tick, horizon_tick_cases, name);

static void horizon_test_tick_edges(struct kunit *test)
{
	const struct horizon_tick_case *c = test->param_value;
	struct horizon_test_env *env = test->priv;
	struct horizon_cpu *data = horizon_test_data();
	bool stop_tick;

	horizon_test_client_table(env);
	horizon_test_set_bin(data, 4, c->intercepts, 0, US(30));
	horizon_test_set_bin(data, 13, 0, c->timer_ends, 0);
	env->sleep_length_ns = c->sleep_length_ns;
	env->delta_tick_ns = c->delta_tick_ns;
	horizon_test_select(test, &stop_tick);
	KUNIT_EXPECT_EQ(test, stop_tick, c->want_stop_tick);
}

/*
 * POLL, C1, C6 and a state worth two ticks; all intercepts at 1.5 ticks,
 * so that 5/8 of the spells end by about 1.39 ticks: the expected idle
 * duration E is the same up to any sleep length beyond their bin.
 */
static void horizon_test_long_table(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	s64 mean_ns = 3 * TICK_NSEC / 2;

	horizon_test_add_state(env, 0, 0, true);
	horizon_test_add_state(env, US(1), US(2), false);
	horizon_test_add_state(env, US(100), US(200), false);
	horizon_test_add_state(env, US(300), 2 * TICK_NSEC, false);
	horizon_test_set_bin(horizon_test_data(), horizon_bin(mean_ns), 1024,
			     0, mean_ns);
}

/*
 * Without a net, with the tick stopped, the state selected for E is
 * kept if the timer comes within 2 * E, and the state for the sleep
 * length is taken beyond.
 */
static void horizon_test_guard_twice_expected(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_long_table(test);
	env->tick_stopped = true;
	env->nets = false;
	env->sleep_length_ns = 5 * TICK_NSEC / 2;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	env->sleep_length_ns = 3 * TICK_NSEC;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 3);
}

/* A net after a long prediction only if the timer comes after 2 * E. */
static void horizon_test_long_net_edge(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct horizon_estimate est;
	bool stop_tick;
	s64 e;

	horizon_test_long_table(test);
	env->tick_stopped = true;
	horizon_estimate(horizon_test_data(), 0, 10 * TICK_NSEC, &est, 0, NULL);
	e = horizon_expected_ns(&est, true);
	KUNIT_ASSERT_GE(test, e, (s64)TICK_NSEC);
	env->sleep_length_ns = 2 * e;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, 0);
	env->sleep_length_ns = 2 * e + 1;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, (u64)(2 * e));
	env->sleep_length_ns = 5 * e / 2;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_EQ(test, env->dev.safety_net_ns, (u64)(2 * e));
}

/*
 * A long prediction, no net to be had, the tick running: the tick is
 * kept and the state selected for the time up to it (C6), not for the
 * prediction, which a state worth 1.2 ticks would fit.
 */
static void horizon_test_long_no_net_keeps_tick(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	s64 mean_ns = 3 * TICK_NSEC / 2;
	bool stop_tick;

	horizon_test_add_state(env, 0, 0, true);
	horizon_test_add_state(env, US(1), US(2), false);
	horizon_test_add_state(env, US(100), US(200), false);
	horizon_test_add_state(env, 0, 6 * TICK_NSEC / 5, false);
	horizon_test_add_state(env, US(300), 4 * TICK_NSEC, false);
	horizon_test_set_bin(horizon_test_data(), horizon_bin(mean_ns), 1024,
			     0, mean_ns);
	env->nets = false;
	env->sleep_length_ns = 10 * TICK_NSEC;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_FALSE(test, stop_tick);
}

/*
 * With the tick stopped and a net, the state is selected for the expected
 * idle duration up to the net: 30% of the spells end at 30 us, the rest
 * outlast what was seen, the timer is 0.8 ticks away.  Up to the timer
 * that is deep, up to the net C1E.
 */
static void horizon_test_stopped_selects_for_net(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	bool stop_tick;

	horizon_test_client_table(env);
	horizon_test_set_bin(horizon_test_data(), 4, 307, 717, US(30));
	env->tick_stopped = true;
	env->sleep_length_ns = 4 * TICK_NSEC / 5;
	KUNIT_EXPECT_EQ(test, horizon_test_select(test, &stop_tick), 2);
	KUNIT_EXPECT_NE(test, env->dev.safety_net_ns, 0);
}

/* Draw a value in [0, n). */
static u32 horizon_test_rand(struct rnd_state *rnd, u32 n)
{
	return prandom_u32_state(rnd) % n;
}

/*
 * A random table: optional POLL, then non-decreasing residency, and
 * non-decreasing latency if @monotonic (drivers do not promise it).
 */
static void horizon_test_random_table(struct horizon_test_env *env,
				      struct rnd_state *rnd, bool monotonic)
{
	int count = 1 + horizon_test_rand(rnd, CPUIDLE_STATE_MAX);
	s64 lat = 0, res = 0;
	int i;

	memset(&env->drv, 0, sizeof(env->drv));
	memset(&env->dev, 0, sizeof(env->dev));
	if (horizon_test_rand(rnd, 2))
		horizon_test_add_state(env, 0, 0, true);
	while (env->drv.state_count < count) {
		if (!monotonic) {
			/* Any latency, residencies close together. */
			lat = US(horizon_test_rand(rnd, 1000));
			res = max(res + US(horizon_test_rand(rnd, 100)), lat >> 1);
			horizon_test_add_state(env, lat, res, false);
			continue;
		}
		lat += US(horizon_test_rand(rnd, 200));
		res = max(res + US(horizon_test_rand(rnd, 400)), lat);
		/* Now and then a state only worth it beyond a tick or two. */
		if (!horizon_test_rand(rnd, 8))
			res += horizon_test_rand(rnd, 3) * TICK_NSEC;
		horizon_test_add_state(env, lat, res, false);
	}
	/* As the core does: the governor sees the table once it is built. */
	horizon_enable_device(&env->drv, &env->dev);
	for (i = 0; i < count; i++)
		env->dev.states_usage[i].disable = !horizon_test_rand(rnd, 4);
}

/* Starting from the state entered last changes no choice. */
static void horizon_test_find_state_hint(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct rnd_state rnd;
	int round, hint, k, unordered = 0;

	prandom_seed_state(&rnd, 0x68696e74ULL);
	for (round = 0; round < 200; round++) {
		horizon_test_random_table(env, &rnd, round & 1);
		/* Monotonic latencies and residencies make an ordered table. */
		if (round & 1)
			KUNIT_EXPECT_TRUE(test, env->data.ordered);
		unordered += !env->data.ordered;
		env->latency_req_ns = horizon_test_rand(&rnd, 4) ?
				      US(horizon_test_rand(&rnd, 1000)) : S64_MAX;
		for (k = 0; k < 8; k++) {
			s64 duration_ns = US(horizon_test_rand(&rnd, 3000));
			int want;

			env->dev.last_state_idx = -1;
			want = horizon_find_state(&env->drv, &env->dev,
						  duration_ns,
						  env->latency_req_ns);
			for (hint = 0; hint < env->drv.state_count; hint++) {
				env->dev.last_state_idx = hint;
				KUNIT_EXPECT_EQ(test,
						horizon_find_state(&env->drv,
								   &env->dev,
								   duration_ns,
								   env->latency_req_ns),
						want);
			}
		}
	}
	/* The scan from state 0 was tested too. */
	KUNIT_EXPECT_GT(test, unordered, 0);
}

/*
 * The edges of the scan from the last state: a table whose state 1 costs
 * less than state 0 is not ordered; going down from the last state, a
 * state whose exit latency is the PM QoS limit itself is usable.
 */
static void horizon_test_find_state_hint_edges(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;

	horizon_test_add_state(env, US(10), US(20), false);
	horizon_test_add_state(env, 0, US(5), false);
	horizon_enable_device(&env->drv, &env->dev);
	KUNIT_EXPECT_FALSE(test, env->data.ordered);

	memset(&env->drv, 0, sizeof(env->drv));
	horizon_test_client_table(env);
	/* C6 with C1E's exit latency: still ordered by cost. */
	env->drv.states[3].exit_latency_ns = US(10);
	horizon_enable_device(&env->drv, &env->dev);
	KUNIT_ASSERT_TRUE(test, env->data.ordered);
	env->dev.last_state_idx = 3;
	KUNIT_EXPECT_EQ(test, horizon_find_state(&env->drv, &env->dev, US(30),
						 US(10)), 2);
}

/* Durations spanning 0 to a few ticks, plus KTIME_MAX. */
static s64 horizon_test_random_ns(struct rnd_state *rnd)
{
	if (!horizon_test_rand(rnd, 16))
		return KTIME_MAX;
	return (s64)horizon_test_rand(rnd, 3 * TICK_NSEC);
}

static void horizon_test_check_choice(struct kunit *test, int idx,
				      bool stop_tick, bool queried)
{
	struct horizon_test_env *env = test->priv;
	struct cpuidle_driver *drv = &env->drv;
	struct horizon_cpu *data = horizon_test_data();
	bool any_enabled = false, any_usable = false;
	/*
	 * As the governor sees them: less the time polled since the base
	 * they count from, and an overdue tick as due now.
	 */
	s64 sleep_ns = queried ? data->sleep_length_ns : env->sleep_length_ns;
	s64 delta_ns = max_t(s64, env->delta_tick_ns -
			     (env->sleep_length_ns - sleep_ns), 0);
	s64 residency;
	int i;

	KUNIT_ASSERT_GE(test, idx, 0);
	KUNIT_ASSERT_LT(test, idx, drv->state_count);
	residency = drv->states[idx].target_residency_ns;

	for (i = 0; i < drv->state_count; i++) {
		if (env->dev.states_usage[i].disable)
			continue;
		any_enabled = true;
		if (drv->states[i].exit_latency_ns <= env->latency_req_ns)
			any_usable = true;
	}
	if (any_enabled)
		KUNIT_EXPECT_FALSE(test, env->dev.states_usage[idx].disable);
	if (any_usable)
		KUNIT_EXPECT_LE(test, drv->states[idx].exit_latency_ns,
				env->latency_req_ns);

	/*
	 * Never beyond the next timer, unless that is the only usable
	 * state, or the query was skipped for a very shallow state.
	 */
	if (!queried)
		KUNIT_EXPECT_LE(test, residency, (s64)RESIDENCY_THRESHOLD_NS);
	else if (idx != horizon_find_state(drv, &env->dev, 0,
					   env->latency_req_ns))
		KUNIT_EXPECT_LE(test, residency, sleep_ns);

	/*
	 * The tick is stopped with a shallow state only if the timer says
	 * the idle will be long, or will end before the second tick.
	 */
	if (stop_tick && !env->tick_stopped && residency < TICK_NSEC &&
	    sleep_ns <= TICK_NSEC + delta_ns)
		KUNIT_EXPECT_GT(test, sleep_ns, delta_ns);
	else if (stop_tick && !env->tick_stopped && residency < TICK_NSEC)
		KUNIT_EXPECT_GE(test, sleep_ns, (s64)TICK_NSEC);
	if (drv->states[idx].flags & CPUIDLE_FLAG_POLLING)
		KUNIT_EXPECT_FALSE(test, stop_tick);

	/*
	 * With the tick stopped and no net, a timer beyond the safe range
	 * leaves no room for a deeper state, unless the timer is within
	 * twice the prediction: then nothing deeper pays off in half of it.
	 */
	if (stop_tick && !env->dev.safety_net_ns &&
	    sleep_ns > HORIZON_SAFE_TIMER_NS) {
		for (i = idx + 1; i < drv->state_count; i++) {
			const struct cpuidle_state *s = &drv->states[i];

			if (env->dev.states_usage[i].disable ||
			    s->exit_latency_ns > env->latency_req_ns)
				continue;
			KUNIT_EXPECT_GT_MSG(test, s->target_residency_ns +
					    HORIZON_EXIT_MARGIN(s->exit_latency_ns),
					    sleep_ns >> 1, "state %d of %d", i, idx);
		}
	}

	/*
	 * A safety net only with the tick stopped or being stopped, and
	 * before the timer: up to a tick for a short prediction, twice the
	 * expected idle duration, so at least two ticks, for a long one.
	 */
	if (env->dev.safety_net_ns) {
		KUNIT_EXPECT_TRUE(test, env->tick_stopped || stop_tick);
		KUNIT_EXPECT_FALSE(test, drv->states[idx].flags &
				   CPUIDLE_FLAG_POLLING);
		KUNIT_EXPECT_GE(test, env->dev.safety_net_ns,
				(u64)HORIZON_NET_MIN_NS);
		if (env->dev.safety_net_ns > TICK_NSEC)
			KUNIT_EXPECT_GE(test, env->dev.safety_net_ns,
					2 * (u64)TICK_NSEC);
		KUNIT_EXPECT_LT(test, (s64)env->dev.safety_net_ns, sleep_ns);
		/*
		 * And only for somewhere to go: the net wakes the CPU to
		 * select again, which pays only if a deeper state, enabled
		 * and within the latency limit, fits before the timer.  Not
		 * from a state that stops the timer the net would run on.
		 */
		KUNIT_EXPECT_FALSE(test, drv->states[idx].flags &
				   CPUIDLE_FLAG_TIMER_STOP);
		for (i = idx + 1; i < drv->state_count; i++) {
			const struct cpuidle_state *s = &drv->states[i];

			if (!env->dev.states_usage[i].disable &&
			    s->exit_latency_ns <= env->latency_req_ns &&
			    s->target_residency_ns +
			    HORIZON_EXIT_MARGIN(s->exit_latency_ns) <= sleep_ns)
				break;
		}
		KUNIT_EXPECT_LT_MSG(test, i, drv->state_count,
				    "a net from state %d with no deeper state to go to",
				    idx);
	}
}

/* The statistics stay within their bounds, whatever the input. */
static void horizon_test_check_bounds(struct kunit *test)
{
	const u32 max_weight = HORIZON_WEIGHT_MAX;
	struct horizon_cpu *data = horizon_test_data();
	u32 sum = 0;
	int i;

	/* The running total is the sum of the bins' weights. */
	for (i = 0; i < HORIZON_BINS; i++)
		sum += data->intercepts[i] + data->timer_ends[i];
	KUNIT_EXPECT_EQ(test, data->total, sum);
	KUNIT_EXPECT_LE(test, data->total, max_weight);
	KUNIT_EXPECT_LE(test, data->spell_ns, HORIZON_SPELL_MAX_NS);
	KUNIT_EXPECT_GE(test, data->spell_ns, 0LL);
	for (i = 0; i < HORIZON_BINS - 1; i++)
		KUNIT_EXPECT_LT(test, data->intercept_mean[i],
				horizon_bin_start_ns(i + 1));
}

/* Four lanes at a time decay exactly as one bin at a time would. */
static void horizon_test_decay_lanes(struct kunit *test)
{
	/* Edge cases, the largest weight (2^14), then values spread below. */
	static const u16 edges[] = { 0, 1, BIT(HORIZON_DECAY_SHIFT) - 1,
				     BIT(HORIZON_DECAY_SHIFT),
				     BIT(HORIZON_DECAY_SHIFT) + 1,
				     HORIZON_WEIGHT_MAX };
	struct horizon_cpu *data = horizon_test_data();
	u16 want[2 * HORIZON_BINS];
	u32 dec = 0;
	int i;

	for (i = 0; i < 2 * HORIZON_BINS; i++) {
		u16 w = i < ARRAY_SIZE(edges) ? edges[i] : i * 523;

		if (i < HORIZON_BINS)
			data->intercepts[i] = w;
		else
			data->timer_ends[i - HORIZON_BINS] = w;
		want[i] = w - DIV_ROUND_UP(w, 1U << HORIZON_DECAY_SHIFT);
		dec += w - want[i];
	}
	KUNIT_EXPECT_EQ(test, horizon_decay(data), dec);
	for (i = 0; i < HORIZON_BINS; i++) {
		KUNIT_EXPECT_EQ(test, data->intercepts[i], want[i]);
		KUNIT_EXPECT_EQ(test, data->timer_ends[i], want[HORIZON_BINS + i]);
	}
}

static void horizon_test_random_inputs(struct kunit *test)
{
	struct horizon_test_env *env = test->priv;
	struct rnd_state rnd;
	int round, step;

	prandom_seed_state(&rnd, 0x686f72697a6f6eULL);
	for (round = 0; round < 200; round++) {
		horizon_test_random_table(env, &rnd, true);
		for (step = 0; step < 100; step++) {
			unsigned int queries = env->queries;
			bool stop_tick;
			int idx;

			env->sleep_length_ns = horizon_test_random_ns(&rnd);
			/* The tick may be overdue: delta_tick <= 0. */
			env->delta_tick_ns = (s64)horizon_test_rand(&rnd,
					5 * TICK_NSEC / 4) - TICK_NSEC / 4 + 1;
			env->tick_stopped = !horizon_test_rand(&rnd, 3);
			env->nets = horizon_test_rand(&rnd, 4);
			env->latency_req_ns = horizon_test_rand(&rnd, 4) ?
				S64_MAX : US(horizon_test_rand(&rnd, 500));

			idx = horizon_test_select(test, &stop_tick);
			horizon_test_check_choice(test, idx, stop_tick,
						  env->queries != queries);
			env->dev.last_residency_ns =
				horizon_test_rand(&rnd, 2 * TICK_NSEC);
			env->dev.poll_time_limit = !horizon_test_rand(&rnd, 8);
			env->got_tick = !horizon_test_rand(&rnd, 4);
			horizon_reflect(&env->dev, idx);
		}
		horizon_test_check_bounds(test);
	}
}

static struct kunit_case horizon_test_cases[] = {
	KUNIT_CASE_PARAM(horizon_test_select_client,
			 horizon_select_gen_params),
	KUNIT_CASE(horizon_test_single_state),
	KUNIT_CASE(horizon_test_max_states),
	KUNIT_CASE(horizon_test_disabled_state0_beyond_qos),
	KUNIT_CASE(horizon_test_one_enabled_state),
	KUNIT_CASE(horizon_test_all_disabled),
	KUNIT_CASE(horizon_test_periodic_timer),
	KUNIT_CASE(horizon_test_random_intercepts),
	KUNIT_CASE(horizon_test_bimodal),
	KUNIT_CASE(horizon_test_rare_long_tail),
	KUNIT_CASE(horizon_test_submicrosecond),
	KUNIT_CASE(horizon_test_burst_then_long),
	KUNIT_CASE(horizon_test_repeating_interval),
	KUNIT_CASE(horizon_test_already_stopped),
	KUNIT_CASE(horizon_test_net_armed),
	KUNIT_CASE(horizon_test_net_not_needed),
	KUNIT_CASE(horizon_test_net_off),
	KUNIT_CASE(horizon_test_nets_where),
	KUNIT_CASE(horizon_test_net_timer_stop),
	KUNIT_CASE(horizon_test_live_untouched),
	KUNIT_CASE(horizon_test_net_long),
	KUNIT_CASE(horizon_test_tick_wakeup_continues),
	KUNIT_CASE(horizon_test_spell_ends_with_loop),
	KUNIT_CASE(horizon_test_residue_no_minimal_net),
	KUNIT_CASE(horizon_test_last_bin_open),
	KUNIT_CASE(horizon_test_bin_mean),
	KUNIT_CASE(horizon_test_bin_tail),
	KUNIT_CASE(horizon_test_shallow_timer_is_timer),
	KUNIT_CASE(horizon_test_deep_intercept_is_intercept),
	KUNIT_CASE(horizon_test_exit_margin),
	KUNIT_CASE(horizon_test_poll_flag_consumed),
	KUNIT_CASE(horizon_test_no_repoll),
	KUNIT_CASE(horizon_test_measured_beyond_sleep),
	KUNIT_CASE(horizon_test_skips_query),
	KUNIT_CASE(horizon_test_cut_filled),
	KUNIT_CASE(horizon_test_overdue_tick),
	KUNIT_CASE(horizon_test_stale_base),
	KUNIT_CASE(horizon_test_unqueried_long_is_timer_end),
	KUNIT_CASE_PARAM(horizon_test_bin_edges, horizon_bin_gen_params),
	KUNIT_CASE(horizon_test_bin_start),
	KUNIT_CASE_PARAM(horizon_test_to_come, horizon_come_gen_params),
	KUNIT_CASE(horizon_test_estimate_one_bin),
	KUNIT_CASE(horizon_test_estimate_majority_edge),
	KUNIT_CASE(horizon_test_estimate_limit_at_bin_start),
	KUNIT_CASE(horizon_test_estimate_min_seen),
	KUNIT_CASE(horizon_test_estimate_walk_end),
	KUNIT_CASE(horizon_test_estimate_residues),
	KUNIT_CASE(horizon_test_estimate_censored),
	KUNIT_CASE(horizon_test_estimate_spent),
	KUNIT_CASE(horizon_test_estimate_cut_inside),
	KUNIT_CASE_PARAM(horizon_test_estimate_majority,
			 horizon_majority_gen_params),
	KUNIT_CASE(horizon_test_find_state_none_within_qos),
	KUNIT_CASE(horizon_test_mostly_short_edge),
	KUNIT_CASE(horizon_test_short_needs_poll),
	KUNIT_CASE(horizon_test_short_keeps_tick),
	KUNIT_CASE(horizon_test_short_at_once),
	KUNIT_CASE(horizon_test_step2_forgets_query),
	KUNIT_CASE(horizon_test_timer_slack_edge),
	KUNIT_CASE(horizon_test_unqueried_threshold_bin),
	KUNIT_CASE(horizon_test_stale_only_after_polling),
	KUNIT_CASE(horizon_test_learn_once),
	KUNIT_CASE(horizon_test_switches_rebased),
	KUNIT_CASE_PARAM(horizon_test_repoll_timer_edge,
			 horizon_repoll_gen_params),
	KUNIT_CASE(horizon_test_overdue_tick_no_time),
	KUNIT_CASE(horizon_test_stale_tick),
	KUNIT_CASE(horizon_test_net_qos_edge),
	KUNIT_CASE_PARAM(horizon_test_tick_edges, horizon_tick_gen_params),
	KUNIT_CASE(horizon_test_guard_twice_expected),
	KUNIT_CASE(horizon_test_long_net_edge),
	KUNIT_CASE(horizon_test_long_no_net_keeps_tick),
	KUNIT_CASE(horizon_test_stopped_selects_for_net),
	KUNIT_CASE(horizon_test_enable_resets),
	KUNIT_CASE(horizon_test_decay_lanes),
	KUNIT_CASE(horizon_test_find_state_hint),
	KUNIT_CASE(horizon_test_find_state_hint_edges),
	KUNIT_CASE(horizon_test_random_inputs),
	{}
};

static struct kunit_suite horizon_test_suite = {
	.name = "horizon",
	.init = horizon_test_init,
	.test_cases = horizon_test_cases,
};

/**
 * struct horizon_net_case - A safety net sizing case.
 * @name: Description of the case.
 * @seen_ns: End of what was observed, from now.
 * @sleep_ns: Sleep length.
 * @want: Expected net.
 */
struct horizon_net_case {
	const char *name;
	s64 seen_ns, sleep_ns;
	s64 want;
};

static const struct horizon_net_case horizon_net_size_cases[] = {
	{ "nothing seen ahead: no net", 0, US(10000), 0 },
	{ "1 ns seen: the minimum", 1, US(10000), HORIZON_NET_MIN_NS },
	{ "little seen: the minimum", US(1), US(10000), HORIZON_NET_MIN_NS },
	{ "twice what was seen", US(100), US(10000), US(200) },
	{ "never beyond the tick", 10 * TICK_NSEC, KTIME_MAX, TICK_NSEC },
	{ "timer first: no net", US(100), US(200), 0 },
	{ "overdue timer: no net", US(100), -US(5), 0 },
};

KUNIT_ARRAY_PARAM_DESC(horizon_net_size, horizon_net_size_cases, name);

static void horizon_test_net_size(struct kunit *test)
{
	const struct horizon_net_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, horizon_net_ns(c->seen_ns, c->sleep_ns),
			(u64)c->want);
}

static struct kunit_case horizon_net_test_cases[] = {
	KUNIT_CASE_PARAM(horizon_test_net_size, horizon_net_size_gen_params),
	{}
};

static struct kunit_suite horizon_net_test_suite = {
	.name = "horizon_safety_net",
	.test_cases = horizon_net_test_cases,
};

kunit_test_suites(&horizon_test_suite, &horizon_net_test_suite);

MODULE_DESCRIPTION("KUnit tests for the horizon cpuidle governor");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
