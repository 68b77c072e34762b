// SPDX-License-Identifier: GPL-2.0
/*
 * cpuidle-replay: drive cpuidle governors, compiled unchanged from the
 * kernel tree, over recorded or generated idle traces, the way the idle loop
 * drives them, and compare their energy with an oracle that knows the
 * future.
 *
 * Usage: replay [-g GOVERNOR | -s STATE] [-p PARAM=0|1]... [-d] TABLE TRACE
 *
 * Prints one CSV row for the oracle and one per governor (all registered
 * governors, or only -g GOVERNOR); -d prints every decision instead.
 * -p sets a boolean module parameter of a governor (module_param()).
 * -s runs, instead of the governors, "fixed": always STATE, tick stopped.
 * The trace and state table formats are described in README.rst.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "replay.h"

#define CSV_HEADER	"governor,hz,entries,energy_a_nj,energy_b_nj,ratio_a,ratio_b," \
			"above,below,miss_ratio,irq_wakeups,exit_latency_mean_ns," \
			"tick_stops,tick_restarts,tick_wakeups,poll_limits,queries," \
			"net_wakeups,idle_ns,net_programs,energy_c_nj,energy_d_nj," \
			"ratio_c,ratio_d"
#define USAGE		"usage: replay [-g GOVERNOR | -s STATE] [-p PARAM=0|1]... " \
			"[-d] TABLE TRACE\n       replay -k < CASES"
#define MAX_GOVERNORS	8
#define MAX_PARAMS	8
#define MAX_EVENTS	64
#define MAX_LINE	4096
#define US		1000LL		/* ns per microsecond */

/*
 * Without any timer, tick_nohz_get_sleep_length() is bounded by the
 * timekeeping's maximum deferment; a few seconds stands for it here.
 */
#define NO_TIMER_NS	(4 * NSEC_PER_SEC)

/* cpuidle_poll_time() bounds, as drivers/cpuidle/cpuidle.c sets them. */
#define POLL_MIN_NS	(10 * US)
#define POLL_MAX_NS	(TICK_NSEC / 16)

/*
 * Energy model, in the units mW * us = nJ.
 * WAKE_US: active time to handle a wakeup that does not end the idle period
 * (tick, quiet interrupt or timer, polling limit, safety net), then re-enter
 * idle. TICK_STOP_US, TICK_RESTART_US: active time to stop the tick
 * (reprogram the clock event for the next timer) and to restart it when the
 * idle period ends. Every programming of the stopped tick that a safety net
 * causes (arming or moving a net, going back to the timer after a net was
 * dropped, and the tick's handler arming the timer again when a net fires)
 * costs TICK_STOP_US too: it is the same clock event programming.
 */
#define WAKE_US		3
#define TICK_STOP_US	2
#define TICK_RESTART_US	2
/*
 * The power models, indices in the energy arrays. A table gives the powers
 * of models A and B; models C and D use those of model A.
 * A: a state's target residency is its break-even time against the next
 *    shallower state, and a visit costs nothing more.
 * B: as A with B's powers, and a visit also pays active power over the
 *    state's exit latency.
 * C: latency-literal: as A, and a visit also pays active power over the
 *    exit latency on entry and again on exit, taken literally as time
 *    spent active (with A's narrow power gaps this puts the break-even of
 *    deep states several times beyond their target residency).
 * D: as A, but the break-even lies at twice the target residency (the
 *    residencies a driver declares are optimistic by half).
 */
enum { MODEL_A, MODEL_B, MODEL_C, MODEL_D, NR_MODELS };

enum ev_kind { EV_TIMER, EV_IRQ };

struct event {
	s64 at_ns;		/* from the start of the idle period */
	enum ev_kind kind;
	bool quiet;		/* handled without waking a task */
	bool by_tick;		/* a timer run by the tick's handler */
};

struct period {
	int cpu;
	s64 latency_req_ns;
	s64 busy_ns;
	int nr_events;
	int end;		/* index of the event that ends the period */
	struct event ev[MAX_EVENTS];
};

struct trace {
	int nr;
	struct period *p;
};

struct table {
	struct cpuidle_driver drv;
	s64 active_mw[NR_MODELS];
	s64 power_mw[CPUIDLE_STATE_MAX][NR_MODELS];
	s64 entry_nj[CPUIDLE_STATE_MAX][NR_MODELS];
};

struct stats {
	u64 entries, above, below;
	u64 irq_wakeups, exit_latency_ns;
	u64 tick_stops, tick_restarts, tick_wakeups, poll_limits;
	u64 queries, net_wakeups, idle_ns, net_programs;
	s64 energy_nj[NR_MODELS];
};

/* What the governors see through the kernel API stubs. */
int replay_cpu;
static s64 now_ns, next_timer_ns, next_tick_ns;
struct task_struct replay_idle_tasks[REPLAY_NR_CPUS];
static bool tick_stopped, got_tick;
static s64 latency_req_ns = S64_MAX;
static u64 queries;

static struct cpuidle_governor *governors[MAX_GOVERNORS];
static int nr_governors;

/*
 * -s STATE: instead of the registered governors, one that always selects
 * STATE and asks for the tick to be stopped, so that a test knows which
 * state every visit was made in.
 */
static int fixed_state = -1;

static int fixed_select(struct cpuidle_driver *drv, struct cpuidle_device *dev,
			bool *stop_tick)
{
	return fixed_state;
}

static void fixed_reflect(struct cpuidle_device *dev, int index)
{
}

static struct cpuidle_governor fixed_gov = {
	.name = "fixed",
	.select = fixed_select,
	.reflect = fixed_reflect,
};

static struct {
	const char *name;
	bool *val;
} params[MAX_PARAMS];
static int nr_params;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("replay: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

int cpuidle_register_governor(struct cpuidle_governor *gov)
{
	if (nr_governors == MAX_GOVERNORS)
		return -ENOSPC;
	governors[nr_governors++] = gov;
	return 0;
}

void replay_register_param(const char *name, bool *val)
{
	if (nr_params == MAX_PARAMS)
		fail("too many module parameters");
	params[nr_params].name = name;
	params[nr_params++].val = val;
}

/* -p NAME=0|1: set a boolean module parameter. */
static void set_param(const char *arg)
{
	const char *eq = strchr(arg, '=');
	int i;

	if (!eq || (strcmp(eq + 1, "0") && strcmp(eq + 1, "1")))
		fail("-p %s: expected NAME=0 or NAME=1", arg);
	for (i = 0; i < nr_params; i++) {
		if (strlen(params[i].name) == (size_t)(eq - arg) &&
		    !strncmp(params[i].name, arg, eq - arg)) {
			*params[i].val = eq[1] == '1';
			return;
		}
	}
	fail("-p %s: no such module parameter", arg);
}

s64 cpuidle_governor_latency_req(unsigned int cpu)
{
	return latency_req_ns;
}

ktime_t tick_nohz_get_sleep_length(ktime_t *delta_next)
{
	s64 next = next_timer_ns;

	queries++;
	if (!tick_stopped && next_tick_ns < next)
		next = next_tick_ns;
	*delta_next = next - now_ns;
	return next_timer_ns - now_ns;
}

bool tick_nohz_tick_stopped(void)
{
	return tick_stopped;
}

bool tick_nohz_idle_got_tick(void)
{
	return got_tick;
}

u64 local_clock(void)
{
	return now_ns;
}

void replay_warn_on(int cond, const char *file, int line)
{
	if (cond)
		fprintf(stderr, "replay: warning at %s:%d\n", file, line);
}

/* ---- input ---------------------------------------------------------- */

/* Parse a whole non-negative integer of at most 10^9 from @s. */
static int parse_u(const char *s, s64 *out)
{
	char *end;
	long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v > 1000000000LL)
		return -1;
	*out = v;
	return 0;
}

static FILE *open_input(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f)
		fail("%s: %s", path, strerror(errno));
	return f;
}

/* Split @line into at most @max words; returns the count or -1. */
static int split(char *line, char **w, int max)
{
	int n = 0;
	char *tok;

	for (tok = strtok(line, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
		if (*tok == '#')
			break;
		if (n == max)
			return -1;
		w[n++] = tok;
	}
	return n;
}

static int parse_event(const char *tok, struct event *ev)
{
	ev->kind = *tok == 'i' ? EV_IRQ : EV_TIMER;
	ev->by_tick = *tok == 'k';
	if (*tok != 't' && *tok != 'i' && *tok != 'k')
		return -1;
	tok++;
	ev->quiet = *tok == 'q';
	if (ev->quiet)
		tok++;
	if (parse_u(tok, &ev->at_ns) || !ev->at_ns)
		return -1;
	ev->at_ns *= US;
	return 0;
}

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	return (x->at_ns > y->at_ns) - (x->at_ns < y->at_ns);
}

/*
 * Trace lines: "cpu N", "latency_req US|none", or an idle period
 * "idle BUSY_US EVENT..." with EVENT t<us>, i<us>, tq<us> or iq<us>.
 */
static void read_trace(const char *path, struct trace *tr)
{
	s64 latency = S64_MAX, v;
	char line[MAX_LINE], *w[MAX_EVENTS + 3];
	int lineno = 0, cpu = 0, cap = 0, n, i;
	FILE *f = open_input(path);

	memset(tr, 0, sizeof(*tr));
	while (fgets(line, sizeof(line), f)) {
		struct period *p;

		lineno++;
		if (!strchr(line, '\n') && !feof(f))
			fail("%s:%d: line too long", path, lineno);
		n = split(line, w, MAX_EVENTS + 2);
		if (n < 0)
			fail("%s:%d: more than %d events", path, lineno, MAX_EVENTS);
		if (!n)
			continue;
		if (!strcmp(w[0], "cpu")) {
			if (n != 2 || parse_u(w[1], &v) || v >= REPLAY_NR_CPUS)
				fail("%s:%d: expected 'cpu N' with N below %d",
				     path, lineno, REPLAY_NR_CPUS);
			cpu = v;
			continue;
		}
		if (!strcmp(w[0], "latency_req")) {
			if (n == 2 && !strcmp(w[1], "none"))
				latency = S64_MAX;
			else if (n == 2 && !parse_u(w[1], &v))
				latency = v * US;
			else
				fail("%s:%d: expected 'latency_req US|none'",
				     path, lineno);
			continue;
		}
		if (strcmp(w[0], "idle") || n < 3)
			fail("%s:%d: expected 'idle BUSY_US EVENT...', 'cpu N' or 'latency_req US'",
			     path, lineno);
		if (tr->nr == cap) {
			cap = cap ? 2 * cap : 1024;
			tr->p = realloc(tr->p, cap * sizeof(*tr->p));
			if (!tr->p)
				fail("out of memory");
		}
		p = &tr->p[tr->nr];
		memset(p, 0, sizeof(*p));
		p->cpu = cpu;
		p->latency_req_ns = latency;
		if (parse_u(w[1], &p->busy_ns))
			fail("%s:%d: bad busy time '%s'", path, lineno, w[1]);
		p->busy_ns *= US;
		p->nr_events = n - 2;
		for (i = 0; i < p->nr_events; i++)
			if (parse_event(w[i + 2], &p->ev[i]))
				fail("%s:%d: bad event '%s' (want t, i, tq or iq, then us > 0)",
				     path, lineno, w[i + 2]);
		qsort(p->ev, p->nr_events, sizeof(p->ev[0]), cmp_event);
		p->end = -1;
		for (i = 0; i < p->nr_events; i++) {
			if (i && p->ev[i].at_ns == p->ev[i - 1].at_ns)
				fail("%s:%d: two events at %lld us", path, lineno,
				     (long long)(p->ev[i].at_ns / US));
			if (p->end < 0 && !p->ev[i].quiet)
				p->end = i;
		}
		if (p->end < 0)
			fail("%s:%d: no event ends the idle period (all quiet)",
			     path, lineno);
		tr->nr++;
	}
	if (ferror(f))
		fail("%s: read error", path);
	fclose(f);
	if (!tr->nr)
		fail("%s: no idle periods", path);
}

/*
 * Table lines: "active PA PB" (active power under models A and B, mW), then
 * one line per state, shallowest first:
 * "NAME LATENCY_US RESIDENCY_US PA PB [poll]".
 */
static void read_table(const char *path, struct table *t)
{
	char line[MAX_LINE], *w[8];
	int lineno = 0, n, m;
	bool have_active = false;
	FILE *f = open_input(path);
	struct cpuidle_driver *drv = &t->drv;

	memset(t, 0, sizeof(*t));
	while (fgets(line, sizeof(line), f)) {
		struct cpuidle_state *s;
		s64 v[4];
		int i;

		lineno++;
		n = split(line, w, 8);
		if (!n)
			continue;
		if (!strcmp(w[0], "active")) {
			if (n != 3 || parse_u(w[1], &v[0]) || parse_u(w[2], &v[1]))
				fail("%s:%d: expected 'active PA_MW PB_MW'", path, lineno);
			for (m = 0; m < NR_MODELS; m++)
				t->active_mw[m] = v[m == MODEL_B ? 1 : 0];
			have_active = true;
			continue;
		}
		if ((n != 5 && n != 6) || (n == 6 && strcmp(w[5], "poll")))
			fail("%s:%d: expected 'NAME LATENCY_US RESIDENCY_US PA_MW PB_MW [poll]'",
			     path, lineno);
		if (drv->state_count == CPUIDLE_STATE_MAX)
			fail("%s:%d: more than %d states", path, lineno,
			     CPUIDLE_STATE_MAX);
		for (i = 0; i < 4; i++)
			if (parse_u(w[i + 1], &v[i]))
				fail("%s:%d: bad number '%s'", path, lineno, w[i + 1]);
		s = &drv->states[drv->state_count];
		snprintf(s->name, sizeof(s->name), "%s", w[0]);
		s->exit_latency = v[0];
		s->target_residency = v[1];
		s->exit_latency_ns = v[0] * US;
		s->target_residency_ns = v[1] * US;
		if (n == 6) {
			if (drv->state_count)
				fail("%s:%d: only state 0 may poll", path, lineno);
			s->flags |= CPUIDLE_FLAG_POLLING;
		}
		for (m = 0; m < NR_MODELS; m++)
			t->power_mw[drv->state_count][m] = v[m == MODEL_B ? 3 : 2];
		drv->state_count++;
	}
	fclose(f);
	if (!have_active || !drv->state_count)
		fail("%s: need an 'active' line and at least one state", path);

	/*
	 * Entry plus exit energy of each state, chosen so that its target
	 * residency is the break-even time against the next shallower state
	 * (or against staying active, for state 0): E_i + P_i * r_i =
	 * E_{i-1} + P_{i-1} * r_i, with twice the target residency for r_i
	 * under model D. A polling state costs no transition.
	 */
	for (m = 0; m < NR_MODELS; m++) {
		s64 prev_p = t->active_mw[m], prev_e = 0;
		int i;

		for (i = 0; i < drv->state_count; i++) {
			s64 r = drv->states[i].target_residency *
				(m == MODEL_D ? 2 : 1);
			s64 e = prev_e + (prev_p - t->power_mw[i][m]) * r;

			t->entry_nj[i][m] = e > 0 ? e : 0;
			prev_p = t->power_mw[i][m];
			prev_e = t->entry_nj[i][m];
		}
	}
}

/* ---- energy ----------------------------------------------------------- */

/*
 * A visit of @ns to state @i: its power over the time, plus its entry/exit
 * energy. Under model A that is all, and the target residency is the
 * break-even time against the next shallower state. Under model B the
 * exit latency is also paid at active power, so a visit costs more the
 * slower the state is to leave, and the break-even time lies beyond the
 * target residency, as on hardware whose residencies are optimistic. Model
 * C pays that twice (entry and exit), model D has the break-even at twice
 * the target residency through the entry energy.
 */
static s64 state_energy(const struct table *t, int i, s64 ns, int m)
{
	s64 e = t->entry_nj[i][m] + t->power_mw[i][m] * ns / US;

	if (m == MODEL_B)
		e += t->active_mw[m] * t->drv.states[i].exit_latency;
	else if (m == MODEL_C)
		e += 2 * t->active_mw[m] * t->drv.states[i].exit_latency;
	return e;
}

static s64 active_energy(const struct table *t, s64 us, int m)
{
	return t->active_mw[m] * us;
}

static bool state_allowed(const struct table *t, int i, s64 latency)
{
	return t->drv.states[i].exit_latency_ns <= latency;
}

/* Cheapest allowed state for an interval of @ns known in advance. */
static s64 best_energy(const struct table *t, s64 ns, s64 latency, int m)
{
	s64 best = S64_MAX;
	int i;

	for (i = 0; i < t->drv.state_count; i++) {
		if (state_allowed(t, i, latency))
			best = min(best, state_energy(t, i, ns, m));
	}
	if (best == S64_MAX)	/* nothing within the limit: shallowest */
		best = state_energy(t, 0, ns, m);
	return best;
}

static s64 next_tick_after(s64 t)
{
	return (t / TICK_NSEC + 1) * TICK_NSEC;
}

/*
 * The oracle knows every event of the period. Between two events it may
 * keep the tick (waking at each tick boundary) or stop it (once per
 * period, paid when stopped and again when restarted), and it enters the
 * cheapest state for each interval's exact length. A dynamic program over
 * the wakeup points finds the optimum under model @m.
 */
static s64 oracle_period(const struct table *t, const struct period *p,
			 s64 start, int m)
{
	const s64 inf = S64_MAX / 4;
	s64 run = 0, stopped = inf;	/* best cost so far, per tick status */
	s64 pos = start;
	int i;

	for (i = 0; i <= p->end; i++) {
		s64 ev = start + p->ev[i].at_ns;
		s64 wake = i < p->end ? active_energy(t, WAKE_US, m) : 0;
		s64 seg_run = 0, s = pos, new_run, new_stopped;

		/* Tick running over the segment: split at tick boundaries. */
		while (next_tick_after(s) < ev) {
			s64 tk = next_tick_after(s);

			seg_run += best_energy(t, tk - s, p->latency_req_ns, m) +
				   active_energy(t, WAKE_US, m);
			s = tk;
		}
		seg_run += best_energy(t, ev - s, p->latency_req_ns, m);

		new_run = run + seg_run + wake;
		new_stopped = min(stopped, run + active_energy(t, TICK_STOP_US, m)) +
			      best_energy(t, ev - pos, p->latency_req_ns, m) + wake;
		/*
		 * Stopping in the middle of a segment, after some tick
		 * wakeups, is never cheaper than stopping at its start.
		 */
		run = new_run;
		stopped = new_stopped;
		pos = ev;
	}
	return min(run, stopped + active_energy(t, TICK_RESTART_US, m));
}

/* ---- the idle loop ---------------------------------------------------- */

static u64 poll_time_ns(const struct cpuidle_driver *drv,
			const struct cpuidle_device *dev)
{
	u64 limit = POLL_MAX_NS;
	int i;

	if (dev->poll_limit_ns)
		return dev->poll_limit_ns;
	for (i = 1; i < drv->state_count; i++) {
		u64 r = drv->states[i].target_residency_ns;

		if (dev->states_usage[i].disable || r < POLL_MIN_NS)
			continue;
		limit = min_t(u64, r, POLL_MAX_NS);
		break;
	}
	return limit;
}

/*
 * The residency cpuidle_enter_state() measures for a visit of @slept_ns
 * (from entry to the wakeup) to state @idx: local_clock() is read right
 * before the state's ->enter() and again after it returns, when the CPU has
 * left the state, so the exit latency is part of it. The kernel's below
 * test subtracts it again; its above test does not.
 */
static s64 residency_ns(const struct cpuidle_driver *drv, int idx, s64 slept_ns)
{
	return slept_ns + drv->states[idx].exit_latency_ns;
}

/* The idle/miss accounting of cpuidle_enter_state(), @diff as it measures it. */
static void account(const struct cpuidle_driver *drv, struct cpuidle_device *dev,
		    int idx, s64 diff, struct stats *st)
{
	s64 delay = drv->states[idx].exit_latency_ns;
	int i;

	dev->last_residency_ns = diff;
	dev->states_usage[idx].usage++;
	dev->states_usage[idx].time_ns += diff;
	if (diff < drv->states[idx].target_residency_ns) {
		for (i = idx - 1; i >= 0; i--) {
			if (dev->states_usage[i].disable)
				continue;
			st->above++;
			break;
		}
	} else if (diff > delay) {
		for (i = idx + 1; i < drv->state_count; i++) {
			if (dev->states_usage[i].disable)
				continue;
			if (diff - delay >= drv->states[i].target_residency_ns)
				st->below++;
			break;
		}
	}
}

static bool dump;

/* The shortest net tick-sched applies (TICK_NOHZ_NET_MIN_NS). */
#define NET_MIN_NS	(10 * US)

/*
 * The stopped tick's expiry, as tick_nohz_stop_tick() programs it: the next
 * timer, or @net_ns (at least NET_MIN_NS) from @now if that is earlier; a
 * net @armed already is kept if it is not later than the new one nor
 * earlier than half of it from @now.
 */
static s64 tick_bound(s64 now, s64 timer, u64 net_ns, s64 armed)
{
	s64 want;

	if (net_ns && net_ns < NET_MIN_NS)
		net_ns = NET_MIN_NS;
	if (!net_ns || timer <= now || net_ns >= (u64)(timer - now))
		return timer;
	want = now + (s64)net_ns;
	if (armed && armed <= want && armed + (s64)(net_ns / 2) >= want)
		return armed;
	return want;
}

/*
 * One idle period as kernel/sched/idle.c runs it: select, stop or retain
 * the tick, enter, wake at the first of the next event, the next tick (if
 * running), the safety net (if the tick is stopped and the governor asked
 * for one, as tick_nohz_stop_tick() programs it) and the polling limit,
 * reflect; if nothing became runnable, select again with the tick state
 * carried over.
 */
static s64 run_period(struct cpuidle_governor *gov, const struct table *t,
		      struct cpuidle_device *dev, const struct period *p,
		      s64 start, struct stats *st)
{
	const struct cpuidle_driver *drv = &t->drv;
	s64 end = start + p->ev[p->end].at_ns;
	/* The stopped tick's expiry if a net set it. */
	s64 armed = 0;
	bool tick_woke = false;
	int next = 0, m, i;

	now_ns = start;
	tick_stopped = false;
	latency_req_ns = p->latency_req_ns;
	for (;;) {
		bool stop_tick = true, poll_limit = false, is_tick = false;
		bool is_net = false, stopped_now = false;
		s64 wake;
		int idx;

		while (p->ev[next].at_ns + start <= now_ns)
			next++;
		next_timer_ns = start + NO_TIMER_NS + p->ev[p->nr_events - 1].at_ns;
		for (i = next; i < p->nr_events; i++) {
			if (p->ev[i].kind == EV_TIMER) {
				next_timer_ns = start + p->ev[i].at_ns;
				break;
			}
		}
		next_tick_ns = next_tick_after(now_ns);

		if (drv->state_count > 1) {
			idx = replay_select(gov, (struct cpuidle_driver *)drv,
					    dev, &stop_tick);
		} else {
			/*
			 * As the idle loop does (6.12 and mainline alike), no
			 * governor for a single state: the tick is stopped
			 * after a tick wakeup of the same idle loop.
			 */
			idx = 0;
			stop_tick = tick_woke;
			dev->safety_net_ns = 0;
		}
		if (idx < 0 || idx >= drv->state_count)
			fail("%s selected invalid state %d", gov->name, idx);
		/*
		 * As tick_nohz_idle_stop_tick() does, a stop request is
		 * ignored when the next timer comes before the next tick.
		 */
		if (stop_tick && !tick_stopped && next_timer_ns > next_tick_ns) {
			tick_stopped = true;
			stopped_now = true;
			st->tick_stops++;
			for (m = 0; m < NR_MODELS; m++)
				st->energy_nj[m] += active_energy(t, TICK_STOP_US, m);
		}
		if (tick_stopped) {
			s64 want = tick_bound(now_ns, next_timer_ns,
					      dev->safety_net_ns, armed);
			bool bounded = want < next_timer_ns;

			if (!stopped_now && (bounded ? want != armed : armed)) {
				st->net_programs++;
				for (m = 0; m < NR_MODELS; m++)
					st->energy_nj[m] +=
						active_energy(t, TICK_STOP_US, m);
			}
			armed = bounded ? want : 0;
		}

		wake = start + p->ev[next].at_ns;
		if (!tick_stopped && next_tick_ns < wake) {
			wake = next_tick_ns;
			is_tick = true;
		}
		if (armed && armed < wake) {
			wake = armed;
			is_net = true;
		}
		if (drv->states[idx].flags & CPUIDLE_FLAG_POLLING &&
		    now_ns + (s64)poll_time_ns(drv, dev) < wake) {
			wake = now_ns + poll_time_ns(drv, dev);
			poll_limit = true;
			is_tick = false;
			is_net = false;
		}
		if (dump)
			printf("%s cpu%d t=%lld sel=%d stop=%d stopped=%d res=%lld wake=+%lld%s\n",
			       gov->name, dev->cpu, (long long)now_ns, idx,
			       stop_tick, tick_stopped,
			       (long long)residency_ns(drv, idx, wake - now_ns),
			       (long long)(wake - now_ns),
			       is_tick ? " tick" : is_net ? " net" :
			       poll_limit ? " poll" : "");

		st->entries++;
		account(drv, dev, idx, residency_ns(drv, idx, wake - now_ns), st);
		for (m = 0; m < NR_MODELS; m++)
			st->energy_nj[m] += state_energy(t, idx, wake - now_ns, m);
		if (!is_tick && !is_net && !poll_limit &&
		    p->ev[next].kind == EV_IRQ) {
			st->irq_wakeups++;
			st->exit_latency_ns += drv->states[idx].exit_latency_ns;
		}
		st->tick_wakeups += is_tick;
		st->poll_limits += poll_limit;
		st->net_wakeups += is_net;
		st->idle_ns += wake - now_ns;

		now_ns = wake;
		/*
		 * The safety net fires the tick's timer, as the tick does; a
		 * timer run by the tick's handler reports a tick wakeup too,
		 * and if it wakes a task the CPU then leaves the idle loop.
		 */
		got_tick = is_tick || is_net ||
			   (!poll_limit && wake == start + p->ev[next].at_ns &&
			    p->ev[next].by_tick);
		/* The tick's handler arms the timer again. */
		if (is_net) {
			armed = 0;
			st->net_programs++;
			for (m = 0; m < NR_MODELS; m++)
				st->energy_nj[m] += active_energy(t, TICK_STOP_US, m);
		}
		/* poll_idle() sets the flag; nothing else touches it. */
		if (drv->states[idx].flags & CPUIDLE_FLAG_POLLING)
			dev->poll_time_limit = poll_limit;
		tick_woke = got_tick;
		if (drv->state_count > 1)
			replay_reflect(gov, dev, idx);
		if (wake == end)
			break;
		for (m = 0; m < NR_MODELS; m++)
			st->energy_nj[m] += active_energy(t, WAKE_US, m);
	}
	if (tick_stopped) {
		st->tick_restarts++;
		for (m = 0; m < NR_MODELS; m++)
			st->energy_nj[m] += active_energy(t, TICK_RESTART_US, m);
	}
	return end;
}

static void print_row(const char *name, const struct stats *st,
		      const s64 *oracle)
{
	unsigned long long entries = st->entries, irq = st->irq_wakeups;

	printf("%s,%d,%llu,%lld,%lld,%.4f,%.4f,%llu,%llu,%.4f,%llu,%.1f,",
	       name, HZ, entries, (long long)st->energy_nj[0],
	       (long long)st->energy_nj[1],
	       (double)st->energy_nj[0] / oracle[0],
	       (double)st->energy_nj[1] / oracle[1],
	       (unsigned long long)st->above, (unsigned long long)st->below,
	       entries ? (double)(st->above + st->below) / entries : 0, irq,
	       irq ? (double)st->exit_latency_ns / irq : 0);
	printf("%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,",
	       (unsigned long long)st->tick_stops,
	       (unsigned long long)st->tick_restarts,
	       (unsigned long long)st->tick_wakeups,
	       (unsigned long long)st->poll_limits,
	       (unsigned long long)st->queries,
	       (unsigned long long)st->net_wakeups,
	       (unsigned long long)st->idle_ns,
	       (unsigned long long)st->net_programs);
	printf("%lld,%lld,%.4f,%.4f\n", (long long)st->energy_nj[MODEL_C],
	       (long long)st->energy_nj[MODEL_D],
	       (double)st->energy_nj[MODEL_C] / oracle[MODEL_C],
	       (double)st->energy_nj[MODEL_D] / oracle[MODEL_D]);
}

static struct cpuidle_device devs[REPLAY_NR_CPUS];

static void run_governor(struct cpuidle_governor *gov, const struct table *t,
			 const struct trace *tr, struct stats *st)
{
	s64 clock[REPLAY_NR_CPUS];
	int c, i;

	memset(st, 0, sizeof(*st));
	memset(replay_idle_tasks, 0, sizeof(replay_idle_tasks));
	for (c = 0; c < REPLAY_NR_CPUS; c++) {
		memset(&devs[c], 0, sizeof(devs[c]));
		devs[c].cpu = c;
		devs[c].last_state_idx = -1;
		/* Each CPU starts at its own phase of the tick. */
		clock[c] = TICK_NSEC * c / REPLAY_NR_CPUS + 1;
		replay_cpu = c;
		if (gov->enable && gov->enable((struct cpuidle_driver *)&t->drv,
					       &devs[c]))
			fail("%s: enable failed", gov->name);
	}
	queries = 0;
	for (i = 0; i < tr->nr; i++) {
		const struct period *p = &tr->p[i];

		replay_cpu = p->cpu;
		clock[p->cpu] = run_period(gov, t, &devs[p->cpu], p,
					   clock[p->cpu], st) + p->busy_ns;
		/* The CPU runs a task after the period, and comes back. */
		replay_idle_tasks[p->cpu].nivcsw++;
	}
	st->queries = queries;
}

static void run_oracle(const struct table *t, const struct trace *tr,
		       s64 *energy)
{
	s64 clock[REPLAY_NR_CPUS];
	int c, i, m;

	for (c = 0; c < REPLAY_NR_CPUS; c++)
		clock[c] = TICK_NSEC * c / REPLAY_NR_CPUS + 1;
	for (m = 0; m < NR_MODELS; m++)
		energy[m] = 0;
	for (i = 0; i < tr->nr; i++) {
		const struct period *p = &tr->p[i];

		for (m = 0; m < NR_MODELS; m++)
			energy[m] += oracle_period(t, p, clock[p->cpu], m);
		clock[p->cpu] += p->ev[p->end].at_ns + p->busy_ns;
	}
}

/*
 * replay -k: the stopped tick's expiry as the replay models tick-sched, for
 * the tests to check against the cases of the kernel's KUnit suite. Reads
 * "NOW TIMER NET_NS ARMED" lines (ns; ARMED 0 for no pending net), prints
 * tick_bound() of each.
 */
static int check_bound(void)
{
	char line[MAX_LINE], extra;
	long long v[4];
	int n = 0;

	while (fgets(line, sizeof(line), stdin)) {
		n++;
		if (sscanf(line, "%lld %lld %lld %lld %c", &v[0], &v[1], &v[2],
			   &v[3], &extra) != 4 || v[0] < 0 || v[1] < 0 ||
		    v[2] < 0 || v[3] < 0)
			fail("-k: line %d: expected NOW TIMER NET_NS ARMED", n);
		printf("%lld\n", (long long)tick_bound(v[0], v[1], v[2], v[3]));
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	struct stats st, ost;
	struct table table;
	struct trace tr;
	s64 oracle[NR_MODELS];
	s64 v;
	int opt, i, ran = 0;

	if (argc == 2 && !strcmp(argv[1], "-k"))
		return check_bound();
	while ((opt = getopt(argc, argv, "g:p:s:d")) != -1) {
		switch (opt) {
		case 'g':
			only = optarg;
			break;
		case 's':
			if (parse_u(optarg, &v) || v >= CPUIDLE_STATE_MAX)
				fail("-s %s: expected a state index below %d",
				     optarg, CPUIDLE_STATE_MAX);
			fixed_state = v;
			break;
		case 'p':
			set_param(optarg);
			break;
		case 'd':
			dump = true;
			break;
		default:
			fail(USAGE);
		}
	}
	if (argc - optind != 2)
		fail(USAGE);
	if (only && fixed_state >= 0)
		fail(USAGE);
	read_table(argv[optind], &table);
	read_trace(argv[optind + 1], &tr);
	if (fixed_state >= table.drv.state_count)
		fail("-s %d: %s has %d states", fixed_state, argv[optind],
		     table.drv.state_count);
	if (fixed_state >= 0) {
		governors[0] = &fixed_gov;
		nr_governors = 1;
	}

	run_oracle(&table, &tr, oracle);
	if (!dump) {
		puts(CSV_HEADER);
		memset(&ost, 0, sizeof(ost));
		memcpy(ost.energy_nj, oracle, sizeof(ost.energy_nj));
		print_row("oracle", &ost, oracle);
	}
	for (i = 0; i < nr_governors; i++) {
		if (only && strcmp(only, governors[i]->name))
			continue;
		run_governor(governors[i], &table, &tr, &st);
		if (!dump)
			print_row(governors[i]->name, &st, oracle);
		ran++;
	}
	if (!ran)
		fail("no governor named '%s'", only ? only : "");
	free(tr.p);
	return 0;
}
