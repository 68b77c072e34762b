#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The idle loop's safety net: with the tick stopped, horizon asks for a
# wakeup after a short prediction, and tick-sched bounds the stopped tick
# by it (the timer:tick_idle_net event marks each net programmed). Checks
# that the net is armed and fires under horizon, that the CPU then goes
# deeper, that nothing of it shows under menu or with
# horizon.safety_net=N, and how many more local timer interrupts an idle
# system takes under horizon than under menu. Then what the timers and
# nohz maintainers ask: a net counts from the time it is armed
# (net_time_base), nets do none of the per-tick work and leave the idle
# time accounting alone (net_idle_accounting, also under the net_test
# governor, whose nets expire many times a jiffy), no net on a nohz_full
# CPU (net_nohz_full), and what nets cost in tick timer programmings per
# idle entry (net_reprogram_cost). Last, the failure nets exist for: a CPU
# left in a shallow state with the tick stopped after interrupts that
# wake no task (net_unsticks_shallow_state).

DIR=$(dirname "$0")
# shellcheck source=tools/testing/selftests/cpuidle/cpuidle_lib.sh
. "$DIR/cpuidle_lib.sh"

LOAD=$DIR/cpuidle_load
TRACING=/sys/kernel/tracing
PARAM=/sys/module/horizon/parameters/safety_net
TESTS="test_param test_param_rejects test_net_fires test_net_param_off
test_net_menu test_local_timer_irqs test_net_time_base
test_net_idle_accounting test_net_rearm test_net_nohz_full
test_net_reprogram_cost test_stuck_shallow test_stuck_shallow_no_net"
# CPUIDLE_NET_TESTS: a subset of TESTS to run instead, by function name.
TESTS=${CPUIDLE_NET_TESTS:-$TESTS}
TRACE_OUT=/tmp/cpuidle_net.trace
NET_GAP_US=5

initial=$(cpuidle_governor)
# nohz_full CPUs (none if the kernel was booted without nohz_full=).
nohz_full=$(cat /sys/devices/system/cpu/nohz_full 2>/dev/null | tr , ' ')
# The target CPU: the last one that is not nohz_full, so that CPU 0 can
# send it interrupts.
target=$(($(nproc) - 1))
while [ "$target" -gt 0 ] && echo " $nohz_full " | grep -q " $target "; do
	target=$((target - 1))
done
# The nohz_full CPU that net_nohz_full sends interrupts to.
full_cpu=""
for c in $nohz_full; do
	case "$c" in
	*-*) c=${c%-*} ;;
	esac
	[ "$c" -gt 0 ] && full_cpu=$c && break
done

test_param() {
	if [ "$(cat "$PARAM")" = Y ]; then
		ktap_result OK "safety_net_param_default"
	else
		ktap_result FAIL "safety_net_param_default" "$PARAM: $(cat "$PARAM")"
	fi
}

test_param_rejects() {
	if echo maybe 2>/dev/null >"$PARAM"; then
		ktap_result FAIL "safety_net_param_rejects" "'maybe' accepted"
	elif [ "$(cat "$PARAM")" != Y ]; then
		ktap_result FAIL "safety_net_param_rejects" "value changed"
	else
		ktap_result OK "safety_net_param_rejects"
	fi
}

# trace_start GOVERNOR CPU: switch to GOVERNOR and trace CPU. The trace
# clock is CLOCK_MONOTONIC, like the net's expiry; the tick's timer shows
# as an hrtimer_expire_entry of tick_nohz_handler in high-resolution mode,
# and in low-resolution mode (highres=off) as the clock event itself,
# seen on x86 as irq_vectors:local_timer_entry.
trace_start() {
	cpuidle_set_governor "$1" || return 1
	echo 0 >"$TRACING/tracing_on"
	echo >"$TRACING/trace"
	echo mono >"$TRACING/trace_clock"
	printf '%x\n' $((1 << $2)) >"$TRACING/tracing_cpumask"
	for ev in timer/tick_idle_net timer/tick_idle_net_expire \
		  timer/hrtimer_expire_entry \
		  timer/hrtimer_start power/cpu_idle irq_vectors/local_timer_entry; do
		[ ! -d "$TRACING/events/$ev" ] || echo 1 >"$TRACING/events/$ev/enable"
	done
	echo 1 >"$TRACING/tracing_on"
}

# trace_stop: stop tracing and save the trace into $TRACE_OUT.
trace_stop() {
	echo 0 >"$TRACING/tracing_on"
	echo 0 >"$TRACING/events/enable"
	cat "$TRACING/trace" >"$TRACE_OUT"
	# Changing the clock clears the buffer: only once it has been read.
	echo local >"$TRACING/trace_clock"
	printf '%x\n' $(((1 << $(nproc)) - 1)) >"$TRACING/tracing_cpumask"
}

# trace_ipiburst_on GOVERNOR CPU MSECS [GAP_US]: trace CPU into $TRACE_OUT
# while CPU 0 sends it bursts of interrupts, GAP_US apart.
trace_ipiburst_on() {
	trace_start "$1" "$2" || return 1
	"$LOAD" ipiburst "$2" "$3" ${4:-} || { trace_stop; return 1; }
	trace_stop
}

# net_stats: from $TRACE_OUT, "armed fired deeper early entries programs
# expired":
# nets armed (kept ones included), nets that fired (the tick's timer ran at
# or after the net's expiry before the CPU left the state), fired nets
# after which the next
# state was deeper, nets counted from a time before the CPU last left an
# idle state (a stale base: the decision comes after that exit), idle
# state entries, (re)programmings of the tick's hrtimer (0 in
# low-resolution mode, where none is traced), and expiries of the stopped
# tick that tick-sched took for a net's (timer:tick_idle_net_expire) once
# the CPU first left an idle state in the trace.
net_stats() {
	awk "$CPUIDLE_AWK_VAL"'
	# The trace timestamp, in ns (printed in us).
	function stamp(   i) {
		for (i = 1; i < NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/)
				return substr($i, 1, length($i) - 1) * 1e9
		return -1
	}
	/ tick_idle_net: / {
		armed++
		net = val("expires")
		# Trace stamps have 1 us resolution.  A pending net that is kept
		# (kept=1) was counted from the idle entry that armed it.
		if (val("kept") != 1 && left && net - val("net_ns") < left - 1000)
			early++
		next
	}
	/ hrtimer_start: .*function=tick_nohz_handler/ { programs++; next }
	# One before the first idle exit may be of a net armed before the
	# trace began, under other settings.
	/ tick_idle_net_expire: / { if (left) expired++; next }
	/ local_timer_entry: / {
		if (net && stamp() >= net - 1000) { fired++; check = 1; net = 0 }
		next
	}
	/ hrtimer_expire_entry: .*function=tick_nohz_handler/ {
		if (net && val("now") >= net) { fired++; check = 1 }
		net = 0
		next
	}
	/ cpu_idle: / {
		s = val("state")
		if (s == 4294967295) { net = 0; left = stamp(); next }
		entries++
		if (check && s > last) deeper++
		check = 0
		last = s
	}
	END {
		print armed + 0, fired + 0, deeper + 0, early + 0, entries + 0,
			programs + 0, expired + 0
	}' "$TRACE_OUT"
}

# trace_ipiburst GOVERNOR MSECS: net_stats of bursts sent to the target.
trace_ipiburst() {
	trace_ipiburst_on "$1" "$target" "$2" || return 1
	net_stats
}

# The deepest target residency of the target CPU's states, in us.
deepest_residency() {
	cat /sys/devices/system/cpu/cpu"$target"/cpuidle/state*/residency | sort -n | tail -1
}

# net_to_gain: whether a state is deep enough for a net to gain anything:
# the bursts space interrupts by 40 us and more.
net_to_gain() {
	[ "$(deepest_residency)" -gt 100 ]
}

# no_net_to_gain NAME: skip NAME, and return 0, if no state is deep enough
# for a net to gain anything.
no_net_to_gain() {
	net_to_gain && return 1
	ktap_skip "$1" "no state with a target residency beyond 100 us"
}

test_net_fires() {
	no_net_to_gain "safety_net_fires" && return
	set -- $(trace_ipiburst horizon 3000)
	if [ "${1:-0}" -gt 0 ] && [ "${2:-0}" -gt 0 ] &&
	   [ $((2 * ${3:-0})) -ge "${2:-0}" ]; then
		ktap_result OK "safety_net_fires" \
			"armed $1, fired $2, deeper after $3"
	else
		ktap_result FAIL "safety_net_fires" \
			"armed ${1:-?}, fired ${2:-?}, deeper after ${3:-?}"
	fi
}

# The checks that no net is armed would pass if timer:tick_idle_net were
# never emitted: each runs a control in the same boot and trace set-up
# first, which must see nets armed.

# With the parameter off, horizon asks for none under the bursts that make
# it ask for nets with the parameter on (the control, same bursts).
test_net_param_off() {
	no_net_to_gain "safety_net_param_off" && return
	set -- $(trace_ipiburst horizon 2000)
	on_armed=${1:-0}
	echo N >"$PARAM"
	set -- $(trace_ipiburst horizon 2000)
	echo Y >"$PARAM"
	diag="parameter on: $on_armed nets armed; off: ${5:-?} idle entries,"
	diag="$diag ${1:-?} nets armed, ${7:-?} expired"
	if [ "$on_armed" -gt 0 ] && [ "${1:-x}" = 0 ] && [ "${7:-x}" = 0 ] &&
	   [ "${5:-0}" -gt 0 ]; then
		ktap_result OK "safety_net_param_off" "$diag"
	else
		ktap_result FAIL "safety_net_param_off" "$diag"
	fi
}

# No net under menu, right after net_test armed nets under the same bursts
# (the control): a governor that asks for none gets none, and no expiry of
# its stopped tick is taken for a net's.
test_net_menu() {
	set -- $(trace_ipiburst net_test 2000)
	test_armed=${1:-0} test_expired=${7:-0}
	set -- $(trace_ipiburst menu 2000)
	diag="net_test: $test_armed nets armed, $test_expired expired; menu:"
	diag="$diag ${5:-?} idle entries, ${1:-?} nets armed, ${7:-?} expired"
	if [ "$test_armed" -gt 0 ] && [ "$test_expired" -gt 0 ] &&
	   [ "${1:-x}" = 0 ] && [ "${7:-x}" = 0 ] && [ "${5:-0}" -gt 0 ]; then
		ktap_result OK "no_safety_net_under_menu" "$diag"
	else
		ktap_result FAIL "no_safety_net_under_menu" "$diag"
	fi
}

# clock_and_jiffies: CLOCK_MONOTONIC in nanoseconds and jiffies, both
# from one read of /proc/timer_list, so that no read skew or centisecond
# rounding of /proc/uptime enters the ratio.
clock_and_jiffies() {
	awk '$1 == "now" && $2 == "at" { t = $3 }
	     $1 == "jiffies:" { print t, $2; exit }' /proc/timer_list
}

# Local timer interrupts of the CPUs whose tick the governor decides: all
# but the timekeeper, CPU 0, when the kernel runs nohz_full CPUs (it then
# keeps its tick, HZ interrupts a second whatever the governor).
local_timer_irqs() {
	awk -v skip="${nohz_full:+1}" '$1 == "LOC:" {
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++)
			if (!(skip && i == 2))
				s += $i
	}
	END { print s + 0 }' /proc/interrupts
}

# loc_idle GOVERNOR: those local timer interrupts in 3 s of an idle system.
loc_idle() {
	cpuidle_set_governor "$1" || return 1
	sleep 1
	before=$(local_timer_irqs)
	sleep 3
	echo $(($(local_timer_irqs) - before))
}

# An idle system takes local timer interrupts from timers under either
# governor, and under horizon also from the nets it asks for when a
# state deeper than the one its prediction allows would fit before the
# next timer: a net is a wakeup, so horizon may take more than menu, and
# this bounds how many more. Six alternating rounds of 3 s each, totals
# compared: horizon passes with no more than menu plus LOC_MARGIN_PCT
# percent. Measured with 4 vCPUs under TCG (nohz_full=2, CPU 0 left out,
# 2026-12-07): 33 to 41 per round, a standard deviation of about 7% per
# round, so about 4% on the difference of two six-round totals; horizon
# took 228 against menu's 227. 20% is five of those deviations. A
# governor keeping the tick on idle CPUs would take HZ per CPU and
# second, over 20 times that.
LOC_MARGIN_PCT=20
test_local_timer_irqs() {
	m=0 h=0 rounds=""
	for round in 1 2 3 4 5 6; do
		rm=$(loc_idle menu)
		rh=$(loc_idle horizon)
		m=$((m + rm)) h=$((h + rh)) rounds="$rounds $rh/$rm"
	done
	fig="in 18 s idle: horizon $h, menu $m (rounds:$rounds)"
	if [ "$m" -gt 0 ] && [ $((100 * h)) -le $(((100 + LOC_MARGIN_PCT) * m)) ]; then
		ktap_result OK "local_timer_irqs_within_menu_margin" "$fig"
	else
		ktap_result FAIL "local_timer_irqs_within_menu_margin" "$fig"
	fi
}

# A net counts from the moment it is decided, which comes after the CPU
# left its last idle state; counted from the idle entry time instead, it
# would start before that exit (and after a polling time limit, it could
# even be programmed in the past and fire at once). The rule is the core's,
# checked on the nets of net_test, which asks for one on every idle entry
# with the tick stopped, and on those horizon asks for: where a state is
# deep enough for a net to gain anything, horizon must have armed some,
# or its half of the check proves nothing.
test_net_time_base() {
	set -- $(trace_ipiburst net_test 2000)
	tarmed=${1:-0} tearly=${4:-x}
	set -- $(trace_ipiburst horizon 2000)
	harmed=${1:-0} hearly=${4:-x}
	hmin=0
	net_to_gain && hmin=1
	diag="nets armed, counted from before the last exit:"
	diag="$diag net_test $tarmed, $tearly; horizon $harmed, $hearly"
	[ "$hmin" = 0 ] && diag="$diag (no state deep enough for horizon to ask)"
	if [ "$tarmed" -gt 0 ] && [ "$tearly" = 0 ] && [ "$hearly" = 0 ] &&
	   [ "$harmed" -ge "$hmin" ]; then
		ktap_result OK "net_time_base" "$diag"
	else
		ktap_result FAIL "net_time_base" "$diag"
	fi
}

# cpu_stat_cs CPU: the time in /proc/stat of CPU, all fields, in
# centiseconds (USER_HZ is 100), and its idle time.
cpu_stat_cs() {
	awk -v c="cpu$1" '$1 == c { s = 0; for (i = 2; i <= NF; i++) s += $i
		print s, $5 }' /proc/stat
}

uptime_cs() {
	tr -d . </proc/uptime | cut -d' ' -f1
}

# tick_sched_idle_us CPU: idle_sleeptime of CPU from /proc/timer_list.
tick_sched_idle_us() {
	awk -v c="$1" '$1 == "cpu:" { cpu = $2 }
		cpu == c && $1 == ".idle_sleeptime" { print int($3 / 1000); exit }
		' /proc/timer_list
}

# idle_grew_within_wall WORKLOAD: eval WORKLOAD, then print what is
# wrong, one line each, if any online CPU's idle time in /proc/stat grew
# by more than the wall time meanwhile, or the target's tick-sched idle
# time did; then, on a line starting with '=', the target's figures.
idle_grew_within_wall() {
	workload=$1
	# The uptime is read before the first and after the last reading.
	u0=$(uptime_cs)
	for c in $online; do
		set -- $(cpu_stat_cs "$c")
		eval "i0_$c=\$2"
	done
	t0=$(tick_sched_idle_us "$target")
	eval "$workload" >/dev/null || echo "workload failed: $workload"
	t1=$(tick_sched_idle_us "$target")
	for c in $online; do
		set -- $(cpu_stat_cs "$c")
		eval "d_$c=\$((\$2 - \$i0_$c))"
	done
	u1=$(uptime_cs)
	for c in $online; do
		eval "d=\$d_$c"
		# 2 cs of slack for the rounding of both readings.
		[ "$d" -le $((u1 - u0 + 2)) ] ||
			echo "cpu$c: idle grew $d cs in $((u1 - u0)) cs"
	done
	[ $((t1 - t0)) -le $(((u1 - u0 + 2) * 10000)) ] ||
		echo "cpu$target: tick-sched idle grew $((t1 - t0)) us in $((u1 - u0)) cs"
	eval "d=\$d_$target"
	echo "=cpu$target idle $d cs (/proc/stat)," \
		"$(((t1 - t0) / 10000)) cs (tick-sched) in $((u1 - u0)) cs"
}

# figures OUTPUT: the '=' line of idle_grew_within_wall's OUTPUT; errors
# OUTPUT: the others.
figures() {
	printf '%s\n' "$1" | sed -n 's/^=//p'
}

errors() {
	printf '%s\n' "$1" | sed '/^=/d;/^$/d'
}

# offline_idle_cs: with the target offline, the idle time /proc/stat
# counts for it, in cs. The "cpu" line sums the idle time of all possible
# CPUs, the tick-based count for offline ones (the tick-sched count for
# the others); the per-CPU lines show online CPUs only.
offline_idle_cs() {
	awk '$1 == "cpu" { all = $5 } $1 ~ /^cpu[0-9]/ { on += $5 }
	     END { print all - on }' /proc/stat
}

# offline_stat: take the target offline; print offline_idle_cs and the
# uptime in cs; bring the target back online.
offline_stat() {
	on=/sys/devices/system/cpu/cpu$target/online
	echo 0 >"$on" || return 1
	i=$(offline_idle_cs)
	u=$(uptime_cs)
	echo 1 >"$on" || return 1
	sleep 1
	echo "$i $u"
}

# accounted_within_uptime BEFORE AFTER: what is wrong if the idle time
# /proc/stat counts for the offline target grew by more than the uptime
# between two offline_stat readings. Slack: a tick each side, and each
# reading rounds every online CPU's line down to a cs.
accounted_within_uptime() {
	set -- $1 $2
	if [ $# -ne 4 ]; then
		echo "cpu$target could not be taken offline and back"
	elif [ $(($3 - $1)) -gt $(($4 - $2 + 2 + 2 * $(nproc))) ]; then
		echo "cpu$target offline: idle grew $(($3 - $1)) cs in $(($4 - $2)) cs"
	fi
}

# stress_round: idle_grew_within_wall over 3 s of an idle system under
# net_test, whose 100 us nets expire many times a jiffy, with the target
# traced; then, on a line starting with '=', the target's net_stats and
# the jiffies that passed.
stress_round() {
	set -- $(clock_and_jiffies)
	j0=${2:-0}
	trace_start net_test "$target" || echo "no net_test governor"
	idle_grew_within_wall "sleep 3"
	trace_stop
	set -- $(clock_and_jiffies)
	echo "=$(net_stats) $((${2:-0} - j0))"
}

# fired_nets: the nets that fired in $TRACE_OUT.
fired_nets() {
	set -- $(net_stats)
	echo "${2:-?}"
}

# add_err TEXT: add TEXT, if any, as a line of $err.
add_err() {
	[ -z "$1" ] || err="${err:+$err
}$1"
}

# Nets fire many times a tick period under net_test (and some under the
# bursts with horizon); a net is no tick, so it must account no tick of
# idle time. The tick-based count is what /proc/stat counts of an offline
# CPU: between two times the target is taken offline, it may not grow by
# more than the uptime does. Under net_test, more nets must fire on the
# target than jiffies pass, or the stress did not happen and the test
# proves nothing. How many nets horizon asks for under the bursts depends
# on what it has learned: the count is reported, not asserted (where no
# state is deep enough for a net, it asks for none).
test_net_idle_accounting() {
	online=$(awk '$1 ~ /^cpu[0-9]/ { print substr($1, 4) }' /proc/stat)
	bursts='trace_ipiburst_on horizon "$target" 3000 "$NET_GAP_US"'
	o0=$(offline_stat)
	out=$(idle_grew_within_wall "$bursts")
	err=""
	add_err "$(errors "$out")"
	fig="horizon online: $(figures "$out"), nets fired $(fired_nets)"
	o1=$(offline_stat)
	add_err "$(accounted_within_uptime "$o0" "$o1")"
	out=$(idle_grew_within_wall "$bursts")
	add_err "$(errors "$out")"
	fig="$fig; after offline: $(figures "$out"), nets fired $(fired_nets)"
	out=$(stress_round)
	add_err "$(errors "$out")"
	# armed fired deeper early entries programs expired jiffies
	set -- $(printf '%s\n' "$out" | sed -n '$s/^=//p')
	armed=${1:-0} fired=${2:-0} jif=${8:-0}
	[ "$fired" -gt "$jif" ] || add_err \
		"net_test: $fired nets fired on cpu$target in $jif jiffies"
	fig="$fig; net_test: $(figures "$out" | head -1),"
	fig="$fig nets armed $armed, fired $fired in $jif jiffies"
	o2=$(offline_stat)
	add_err "$(accounted_within_uptime "$o1" "$o2")"
	fig="$fig; offline idle, uptime (cs): $o0, $o1, $o2"
	cpuidle_set_governor horizon
	if [ -z "$err" ]; then
		ktap_result OK "net_idle_accounting" "$fig"
	else
		ktap_result FAIL "net_idle_accounting" "$fig" "$err"
	fi
}

# A nohz_full CPU stops its tick to be left alone: no net is armed there,
# not even for net_test, which asks for one on every idle entry with the
# tick stopped (tick-sched ignores it there), nor for horizon (which asks
# for none there). The control: net_test gets nets on the target CPU.
test_net_nohz_full() {
	if [ -z "$full_cpu" ]; then
		ktap_skip "net_nohz_full" "no nohz_full CPU (boot with nohz_full=)"
		return
	fi
	set -- $(trace_ipiburst net_test 2000)
	control=${1:-0}
	diag="cpu$target under net_test: $control nets armed"
	fail=0
	[ "$control" -gt 0 ] || fail=1
	for gov in net_test horizon; do
		trace_ipiburst_on "$gov" "$full_cpu" 2000 || true
		set -- $(net_stats)
		diag="$diag; cpu$full_cpu under $gov: ${5:-?} idle entries, ${1:-?} nets armed"
		[ "${1:-x}" = 0 ] && [ "${5:-0}" -gt 0 ] || fail=1
	done
	if [ "$fail" = 0 ]; then
		ktap_result OK "net_nohz_full" "$diag"
	else
		ktap_result FAIL "net_nohz_full" "$diag"
	fi
}

# per_1000 A B: A per thousand B.
per_1000() {
	[ "$2" -gt 0 ] && echo $((1000 * $1 / $2)) || echo 0
}

# programming_rate GOVERNOR: tick timer programmings of the target per
# 1000 idle entries and per second over 3 s of bursts, then the nets armed
# and fired in them.
programming_rate() {
	set -- $(trace_ipiburst "$1" 3000)
	echo "$(per_1000 "${6:-0}" "${5:-0}") $((${6:-0} / 3)) ${1:-0} ${2:-0}"
}

# rearm_stats: from $TRACE_OUT, "expiries rearmed": the nets that expired
# before the stopped tick's own expiry (timer:tick_idle_net_expire, tick=0,
# with a timer to come), and those after which the tick's hrtimer was
# started again at that expiry before anything else of the tick's timer.
rearm_stats() {
	awk "$CPUIDLE_AWK_VAL"'
	# The pending expiry is settled by the next event of the tick timer
	# (one cut off at the end of the trace is not counted).
	function settle(ok) {
		if (want) {
			expiries++
			rearmed += ok
		}
		want = 0
	}
	/ tick_idle_net_expire: / {
		settle(0)
		if (val("tick") == 0 && val("unbounded") < 9e18)
			want = val("unbounded")
		next
	}
	/ hrtimer_start: .*function=tick_nohz_handler/ {
		settle(val("expires") == want)
		next
	}
	/ hrtimer_expire_entry: .*function=tick_nohz_handler/ { settle(0) }
	END { printf "%d %d\n", expiries, rearmed }' "$TRACE_OUT"
}

# A net that expires before the stopped tick's own expiry is no tick, but
# the tick's own expiry must stay armed (a later sleep may not reprogram
# it): every such expiry re-arms the tick's hrtimer at the expiry without
# the net, checked on the nets of net_test on an idle target.
test_net_rearm() {
	if grep -q "highres=off" /proc/cmdline; then
		ktap_skip "net_expiry_rearms_tick" \
			"hrtimer starts are not traced in low-resolution mode"
		return
	fi
	trace_start net_test "$target" || echo "no net_test governor"
	sleep 2
	trace_stop
	set -- $(rearm_stats)
	diag="net_test, 2 s idle: ${1:-?} nets expired before the tick, ${2:-?} re-armed it"
	if [ "${1:-0}" -gt 0 ] && [ "${2:-x}" = "$1" ]; then
		ktap_result OK "net_expiry_rearms_tick" "$diag"
	else
		ktap_result FAIL "net_expiry_rearms_tick" "$diag"
	fi
}

# Tick timer programmings per idle entry under the bursts, horizon with
# its nets against menu in the same boot (horizon without nets for
# reference). The bound is explained in the README
# (tools/testing/selftests/cpuidle): QEMU guests measured 124 to 192
# more per 1000 entries with nets than under menu.
NET_PROGRAMS_EXTRA_PER_1000=230
test_net_reprogram_cost() {
	if grep -q "highres=off" /proc/cmdline; then
		ktap_skip "net_reprogram_cost" \
			"clock-event programmings are not traced in low-resolution mode"
		return
	fi
	set -- $(programming_rate horizon)
	h=$1 hs=$2 harmed=$3 hfired=$4
	echo N >"$PARAM"
	set -- $(programming_rate horizon)
	echo Y >"$PARAM"
	n=$1 ns=$2
	set -- $(programming_rate menu)
	m=$1 ms=$2
	diag="tick timer programmings per 1000 idle entries (per second):"
	diag="$diag horizon $h ($hs), horizon without nets $n ($ns), menu $m ($ms)"
	diag="$diag; horizon nets in 3 s: armed $harmed, fired $hfired"
	if [ "$h" -gt 0 ] && [ "$m" -gt 0 ] &&
	   [ "$h" -le $((m + NET_PROGRAMS_EXTRA_PER_1000)) ]; then
		ktap_result OK "net_reprogram_cost" "$diag"
	else
		ktap_result FAIL "net_reprogram_cost" "$diag"
	fi
}

# deep_share GOVERNOR [CPU]: "DEEP ABOVE" for CPU (the target CPU by
# default) under GOVERNOR while CPU 0 sends it bursts of interrupts that
# wake no task, each burst followed by 20 ms of silence: the share of its
# idle time, in percent, spent in states with a target residency beyond
# 100 us, and its above misses per 100 idle entries.
deep_share() {
	local cpu=${2:-$target}

	cpuidle_set_governor "$1" || return 1
	sleep 1
	cpuidle_counters "$cpu" >"$TRACE_OUT.before"
	"$LOAD" ipiburst "$cpu" 2000 || return 1
	cpuidle_counters "$cpu" >"$TRACE_OUT.after"
	cpuidle_delta "$TRACE_OUT.before" "$TRACE_OUT.after" |
	while read -r st _ usage time above _; do
		echo "$(cat "/sys/devices/system/cpu/cpu$cpu/cpuidle/$st/residency")" \
			"$usage $time $above"
	done | awk '{ u += $2; t += $3; a += $4; if ($1 > 100) d += $3 }
		END { printf "%d %d\n", t ? 100 * d / t : 0, u ? 100 * a / u : 0 }'
}

# Interrupts that wake no task keep the CPU in the idle loop, so the tick
# stopped before a burst of them stays stopped. After the burst, a
# governor that learned short idle periods from it selects a shallow
# state, and with no tick to wake the CPU it stays there through the
# silence that follows (20 ms here, up to the next timer in general).
# horizon asks for a safety net there: with nets, the target CPU must
# spend at least STUCK_DEEP_PCT of its idle time in deep states (target
# residency beyond 100 us), as a total over two rounds interleaved with
# rounds under horizon.safety_net=N (shown; judged by the next test).
# What every other governor does there is shown, not judged.
STUCK_DEEP_PCT=40
test_stuck_shallow() {
	no_net_to_gain "net_unsticks_shallow_state" && return
	on=0 off=0 diag=""
	for r in 1 2; do
		echo Y >"$PARAM"
		set -- $(deep_share horizon)
		on=$((on + ${1:-0}))
		diag="$diag round $r: nets ${1:-?}% (above ${2:-?}),"
		echo N >"$PARAM"
		set -- $(deep_share horizon)
		off=$((off + ${1:-0}))
		diag="$diag no nets ${1:-?}% (above ${2:-?});"
	done
	echo Y >"$PARAM"
	for g in $(cat "$CPUIDLE_SYSFS/available_governors"); do
		case "$g" in
		horizon | net_test) continue ;;
		esac
		set -- $(deep_share "$g")
		diag="$diag $g ${1:-?}% (above ${2:-?});"
	done
	cpuidle_set_governor horizon
	diag="deep share of idle time, above misses per 100 entries:$diag"
	if [ "$on" -ge $((2 * STUCK_DEEP_PCT)) ]; then
		ktap_result OK "net_unsticks_shallow_state" "$diag"
	else
		ktap_result FAIL "net_unsticks_shallow_state" "$diag"
	fi
}

# The same bursts where horizon can have no net: with
# horizon.safety_net=N, and on a nohz_full CPU, where tick-sched ignores
# nets. With the tick stopped, horizon must then keep no state shallower
# than the next timer allows, unless that timer is close: the CPU must
# spend at least STUCK_DEEP_PCT of its idle time in deep states there
# too (totals over two rounds; one round on the nohz_full CPU).
test_stuck_shallow_no_net() {
	no_net_to_gain "shallow_state_bounded_without_net" && return
	off=0 full=0 diag=""
	echo N >"$PARAM"
	for r in 1 2; do
		set -- $(deep_share horizon)
		off=$((off + ${1:-0}))
		diag="$diag safety_net=N round $r: ${1:-?}% (above ${2:-?});"
	done
	echo Y >"$PARAM"
	if [ -n "$full_cpu" ]; then
		set -- $(deep_share horizon "$full_cpu")
		full=${1:-0}
		diag="$diag nohz_full cpu$full_cpu: ${1:-?}% (above ${2:-?});"
	else
		full=$STUCK_DEEP_PCT
		diag="$diag no nohz_full CPU (boot with nohz_full=);"
	fi
	cpuidle_set_governor horizon
	diag="deep share of idle time, above misses per 100 entries:$diag"
	if [ "$off" -ge $((2 * STUCK_DEEP_PCT)) ] && [ "$full" -ge "$STUCK_DEEP_PCT" ]; then
		ktap_result OK "shallow_state_bounded_without_net" "$diag"
	else
		ktap_result FAIL "shallow_state_bounded_without_net" "$diag"
	fi
}

[ "$(id -u)" -eq 0 ] || ktap_skip_all "must be run as root"
[ -r "$CPUIDLE_SYSFS/current_governor" ] ||
	ktap_skip_all "no cpuidle sysfs (CONFIG_CPU_IDLE off?)"
[ "$(cat "$CPUIDLE_SYSFS/current_driver")" != none ] ||
	ktap_skip_all "no cpuidle driver registered"
[ -w "$PARAM" ] || ktap_skip_all "no $PARAM (CONFIG_CPU_IDLE_GOV_HORIZON off?)"
[ -d "$TRACING/events/timer/tick_idle_net" ] ||
	ktap_skip_all "no timer:tick_idle_net event (tracefs or the idle-loop change missing)"
[ "$target" -gt 0 ] && [ -r "/dev/cpu/$target/cpuid" ] ||
	ktap_skip_all "needs 2 CPUs and /dev/cpu/N/cpuid (CONFIG_X86_CPUID)"
[ -x "$LOAD" ] || ktap_skip_all "$LOAD not built"

set -- $TESTS
ktap_header $#
for t in $TESTS; do
	$t
done
cpuidle_set_governor "$initial"
ktap_finished
