#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Tests of cpuidle-ab: its arithmetic and parsing, and whole runs on a fake
# /sys and /proc (SYSROOT) whose files are plain files, so that neither
# root nor a cpuidle driver nor RAPL is needed. Every test runs under sh
# and under busybox sh (whose awk lacks the math functions; busybox is
# what the guest of `make run` runs the tool with, and a dependency of the
# project: without it, its half of the checks fails). Prints TAP: the
# plan "1..N" first, then "ok N NAME", "ok N NAME # SKIP WHY" or
# "not ok N NAME" per check; a check not made (a test that returned early,
# a shell that stopped) is a failure. Then "N passed, N failed, N skipped";
# writes "PASSED FAILED" to COUNTFILE and the number skipped to
# COUNTFILE.skip if given.
#
# Usage: run_tests.sh [COUNTFILE]

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
tool=$top/cpuidle-ab.sh
# shellcheck source=../cpuidle-ab-lib.sh
. "$top/cpuidle-ab-lib.sh"

usage() {
	cat <<EOF
usage: ${0##*/} [COUNTFILE]
Runs the tests of cpuidle-ab.sh under sh and busybox sh; writes "PASSED
FAILED" to COUNTFILE and the number of skipped checks to COUNTFILE.skip.
  -h  this help (also --help)
EOF
}

# planned TEST N: TEST is run, in the order of these lines, and makes N
# checks on every path; a check that cannot be made here is a skip (see
# skip), never left out.
tests='' plan=0
planned() {
	tests="$tests $1:$2"
	plan=$((plan + $2))
}

# check NAME GOT WANT: ok if the two strings are equal.
check() {
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n $label: $1"
	else
		echo "not ok $n $label: $1"
		echo "#   got:  $(echo "$2" | head -n 5 | tr '\n' '|')"
		echo "#   want: $(echo "$3" | head -n 5 | tr '\n' '|')"
	fi
}

# has NAME FILE PATTERN: ok if a line of FILE matches the grep PATTERN.
has() {
	if grep -q -- "$3" "$2"; then
		check "$1" "" ""
	else
		check "$1" "no line like '$3' in: $(tr '\n' '|' <"$2")" ""
	fi
}

# skip WHY NAME...: the checks NAME cannot be made here; a skip each.
skip() {
	skip_why=$1
	shift
	for skip_name; do
		n=$((n + 1))
		echo "ok $n $label: $skip_name # SKIP $skip_why"
	done
}

# hasnot NAME FILE PATTERN: ok if no line of FILE matches.
hasnot() {
	if grep -q -- "$3" "$2"; then
		check "$1" "$(grep -- "$3" "$2" | head -n 1)" ""
	else
		check "$1" "" ""
	fi
}

# csv FILE ROUND GOVERNOR METRIC: a value of rounds.csv.
csv() {
	awk -F, -v r="$2" -v g="$3" -v m="$4" \
		'$1 == r && $2 == g && $3 == m { print $4 }' "$1"
}

# A turbostat of our own, first on PATH for every whole run: with
# FAKE_TURBOSTAT=1 it runs the command and reports package C-states 2, 6
# and 10 as turbostat --Summary does; otherwise it fails as on a machine
# without MSR access.
mkturbostat() {
	mkdir -p "$tmp/bin"
	cat >"$tmp/bin/turbostat" <<'EOF'
#!/bin/sh
if [ "${FAKE_TURBOSTAT:-}" != 1 ]; then
	echo "fake: no MSR" >&2
	exit 1
fi
o=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	[ "$1" != -o ] || { o=$2; shift; }
	shift
done
shift
"$@"
t=$(printf 'Busy%%\tCPU%%c1\tPkg%%pc2\tPkg%%pc6\tPk%%pc10\n0.50\t90.00\t12.50\t40.00\t5.50')
if [ -n "$o" ]; then echo "$t" >"$o"; else echo "$t"; fi
echo "0.050000 sec" >&2
EOF
	chmod +x "$tmp/bin/turbostat"
}

# A perf of our own, first on PATH too: with FAKE_PERF=1, "perf stat -x,
# -o FILE ... -- COMMAND" runs the command and writes the counts of the
# cstate_pkg events and msr/tsc/ (c10 not counted) as perf does, and logs
# its arguments in $tmp/perf.args; otherwise it fails.
mkperf() {
	mkdir -p "$tmp/bin"
	cat >"$tmp/bin/perf" <<EOF
#!/bin/sh
[ "\${FAKE_PERF:-}" = 1 ] || { echo "fake: perf not here" >&2; exit 1; }
echo "\$*" >>"$tmp/perf.args"
o=/dev/stderr
while [ \$# -gt 0 ] && [ "\$1" != -- ]; do
	[ "\$1" != -o ] || { o=\$2; shift; }
	shift
done
shift
"\$@"
printf '%s\n' '# started on Mon Dec  7 00:00:00 2026' '' \
	'<not counted>,,cstate_pkg/c10-residency/,0,100.00,,' \
	'1000000,,cstate_pkg/c2-residency/,5000,100.00,,' \
	'4000000,,cstate_pkg/c6-residency/,5000,100.00,,' \
	'10000000,,msr/tsc/,5000,100.00,,' >"\$o"
EOF
	chmod +x "$tmp/bin/perf"
}

# The PMUs perf reads package C-states from, in fake tree $1.
mkpmu() {
	d=$1/sys/bus/event_source/devices
	mkdir -p "$d/cstate_pkg/events" "$d/msr/events"
	for e in c2 c6 c10; do
		echo "event=0x00" >"$d/cstate_pkg/events/$e-residency"
	done
	echo 0 >"$d/cstate_pkg/cpumask"
	echo "event=0x00" >"$d/msr/events/tsc"
}

planned test_wrap 3
test_wrap() {
	check wrap_none "$(ab_wrap_delta 1000 251000 262143328850)" 250000
	# 850 uJ up to the maximum, 1 to get back to 0, then 500.
	check wrap_once "$(ab_wrap_delta 262143328000 500 262143328850)" 1351
	check wrap_no_max "$(ab_wrap_delta 500 400 0)" -100
}

planned test_schedule 2
test_schedule() {
	check interleave_order "$(ab_schedule 2 horizon menu teo | tr '\n' ,)" \
		"1 horizon,1 menu,1 teo,2 horizon,2 menu,2 teo,"
	check interleave_one "$(ab_schedule 3 menu | tr '\n' ,)" \
		"1 menu,2 menu,3 menu,"
}

planned test_cpu_list 2
test_cpu_list() {
	check cpu_list_ranges "$(ab_cpu_list 0-3,8,10-11)" "0 1 2 3 8 10 11"
	check cpu_list_one "$(ab_cpu_list 5)" 5
}

planned test_percentiles 4
test_percentiles() {
	check percentiles_100 \
		"$(seq 1 100 | sort -r | ab_percentiles 50 90 99)" "50 90 99"
	check percentiles_10 "$(seq 10 -1 1 | ab_percentiles 50 90 99)" "5 9 10"
	check percentiles_one "$(echo 7 | ab_percentiles 50 99)" "7 7"
	check percentiles_none "$(ab_percentiles 50 99 </dev/null)" "- -"
}

planned test_stats 2
test_stats() {
	check mean_spread "$(printf 'a 1\na 2\nb 5\na 3\na 4\n' | ab_stats)" \
		"a 4 2.500000 1.290994
b 1 5.000000 0.000000"
	# Large values, small differences: Welford keeps the digits.
	check spread_large \
		"$(printf 'x 1000000001\nx 1000000003\n' | ab_stats)" \
		"x 2 1000000002.000000 1.414214"
}

planned test_rtt_us 2
test_rtt_us() {
	check rtt_us "$(printf '100.999990 101.000010\n7.000001 7.000101\n' |
		ab_rtt_us | tr '\n' ' ')" "20 100 "
	check rtt_us_octal "$(echo "1796400970.000008 1796400970.000090" |
		ab_rtt_us)" 82
}

# The fake machine: two CPUs with a polling state and "C1 deep" (a name
# with a blank), RAPL with the MSR and MMIO interfaces to one package,
# and a LOC line. Package energy starts 1 J short of its wrap.
mkfake() {
	f=$1
	c=$f/sys/devices/system/cpu
	mkdir -p "$c/cpuidle" "$f/proc"
	echo "ladder menu teo" >"$c/cpuidle/available_governors"
	echo teo >"$c/cpuidle/current_governor"
	echo acpi_idle >"$c/cpuidle/current_driver"
	echo 0-1 >"$c/online"
	for cpu in 0 1; do
		for s in 0 1; do
			d=$c/cpu$cpu/cpuidle/state$s
			mkdir -p "$d"
			for k in usage time above below; do
				echo $((s * 1000 + cpu)) >"$d/$k"
			done
		done
		echo POLL >"$c/cpu$cpu/cpuidle/state0/name"
		echo "C1 deep" >"$c/cpu$cpu/cpuidle/state1/name"
		for k in latency residency disable; do
			echo 0 >"$c/cpu$cpu/cpuidle/state0/$k"
		done
		echo 3 >"$c/cpu$cpu/cpuidle/state1/latency"
		echo 9 >"$c/cpu$cpu/cpuidle/state1/residency"
		echo 1 >"$c/cpu$cpu/cpuidle/state1/disable"
		mkdir -p "$c/cpu$cpu/cpufreq"
		echo schedutil >"$c/cpu$cpu/cpufreq/scaling_governor"
	done
	model="model name	: Fake CPU \"9000\" @ 1GHz"
	printf '%s\n' "processor	: 0" "$model" "processor	: 1" "$model" \
		>"$f/proc/cpuinfo"
	echo "root=/dev/fake cpuidle.governor=teo quiet" >"$f/proc/cmdline"
	p=$f/sys/class/powercap
	mkdir -p "$p/intel-rapl:0/intel-rapl:0:0" "$p/intel-rapl-mmio:0"
	ln -s "intel-rapl:0/intel-rapl:0:0" "$p/intel-rapl:0:0"
	for z in intel-rapl:0 intel-rapl-mmio:0 intel-rapl:0:0; do
		echo 262143328850 >"$p/$z/max_energy_range_uj"
	done
	echo package-0 >"$p/intel-rapl:0/name"
	echo package-0 >"$p/intel-rapl-mmio:0/name"
	echo core >"$p/intel-rapl:0:0/name"
	echo 262142328850 >"$p/intel-rapl:0/energy_uj"
	echo 262142328850 >"$p/intel-rapl-mmio:0/energy_uj"
	echo 7000000 >"$p/intel-rapl:0:0/energy_uj"
	printf '%s\n' "           CPU0       CPU1" \
		"  0:         10          0   IO-APIC    2-edge      timer" \
		"LOC:       1000       2000   Local timer interrupts" \
		"RES:          5          6   Rescheduling interrupts" \
		>"$f/proc/interrupts"
}

# The workload of the whole runs: log the governor, then move every
# counter by a known amount: state1 on each CPU usage +10, time +1000,
# above +1, below +2; package +5 J (wrapping), core +2 J; LOC +100 each.
mkbump() {
	cat >"$tmp/bump.sh" <<'EOF'
f=$1
c=$f/sys/devices/system/cpu
cat "$c/cpuidle/current_governor" >>"$f/order.log"
add() { echo $(($(cat "$1") + $2)) >"$1"; }
for cpu in 0 1; do
	d=$c/cpu$cpu/cpuidle/state1
	add "$d/usage" 10; add "$d/time" 1000; add "$d/above" 1; add "$d/below" 2
done
p=$f/sys/class/powercap
for z in intel-rapl:0 intel-rapl-mmio:0; do
	echo $((($(cat "$p/$z/energy_uj") + 5000000) % 262143328851)) \
		>"$p/$z/energy_uj"
done
add "$p/intel-rapl:0:0/energy_uj" 2000000
awk '$1 == "LOC:" { $2 += 100; $3 += 100 } { print }' "$f/proc/interrupts" \
	>"$f/proc/i" && mv "$f/proc/i" "$f/proc/interrupts"
EOF
}

planned test_snapshot_delta 13
test_snapshot_delta() {
	mkfake "$tmp/f1"
	SYSROOT=$tmp/f1
	ab_paths
	ab_snapshot "$tmp/s1"
	sh "$tmp/bump.sh" "$tmp/f1"
	ab_snapshot "$tmp/s2"
	SYSROOT=
	ab_paths
	check snapshot_names "$(SYSROOT=$tmp/f1 && ab_paths && ab_state_names)" \
		"state0 POLL
state1 C1_deep"
	check snapshot_rapl_dedup "$(grep -c '^rapl package-0 ' "$tmp/s1")" 1
	check snapshot_idle_sum "$(grep '^idle state1 usage ' "$tmp/s1")" \
		"idle state1 usage 2001"
	check snapshot_loc "$(grep '^loc ' "$tmp/s1")" "loc 3000"
	# Two seconds between the snapshots, exactly.
	sed -i 's/^time .*/time 1796400000.250000/' "$tmp/s1"
	sed -i 's/^time .*/time 1796400002.250000/' "$tmp/s2"
	ab_delta "$tmp/s1" "$tmp/s2" 2 >"$tmp/d"
	v() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/d"; }
	check delta_secs "$(v secs)" 2.000000
	check delta_usage "$(v s.state1.usage) $(v s.state0.usage)" "20 0"
	check delta_above_below "$(v s.state1.above) $(v s.state1.below)" "2 4"
	check delta_usage_rate "$(v s.state1.usage_per_s)" 10.000000
	# 2000 us idle of 2 CPUs x 2 s.
	check delta_time_pct "$(v s.state1.time_pct)" 0.050000
	check delta_miss "$(v miss_pct)" 30.000000
	check delta_rapl_wrap "$(v pkg_J) $(v pkg_W)" "5.000000 2.500000"
	check delta_rapl_core "$(v core_J) $(v core_W)" "2.000000 1.000000"
	check delta_loc "$(v loc_per_s)" 100.000000
}

planned test_net_stats 3
test_net_stats() {
	cat >"$tmp/trace" <<'EOF'
# tracer: nop
<idle>-0 [001] d..2.   100.000000: tick_idle_net: net_ns=500000 expires=100500000000
<idle>-0 [001] d.h2.   100.500001: hrtimer_expire_entry: function=tick_nohz_handler now=100500000500
<idle>-0 [002] d..2.   101.000000: tick_idle_net: net_ns=500000 expires=101500000000
<idle>-0 [002] d..2.   101.100000: cpu_idle: state=4294967295 cpu_id=2
<idle>-0 [002] d.h2.   101.600000: hrtimer_expire_entry: function=tick_nohz_handler now=101600000000
<idle>-0 [003] d..2.   102.000000: tick_idle_net: net_ns=500000 expires=102500000000
<idle>-0 [003] d.h2.   102.500001: local_timer_entry: vector=236
<idle>-0 [000] d..2.   103.000000: tick_idle_net: net_ns=500000 expires=103500000000
<idle>-0 [000] d.h2.   103.100000: hrtimer_expire_entry: function=tick_nohz_handler now=103100000000
EOF
	# CPU 1 fired (hrtimer), 2 left idle first, 3 fired (clock event),
	# 0 ended early by the tick.
	check nets_armed_fired "$(ab_net_stats timer:tick_idle_net <"$tmp/trace")" "4 2"
	sed 's/tick_idle_net:/idle_net_renamed:/' "$tmp/trace" >"$tmp/trace2"
	check nets_event_name "$(ab_net_stats timer:idle_net_renamed <"$tmp/trace2")" "4 2"
	check nets_other_event "$(ab_net_stats timer:tick_idle_net <"$tmp/trace2")" "0 0"
}

planned test_report 8
test_report() {
	printf '%s\n' "1 menu secs 2" "1 menu miss_pct 1" "1 teo miss_pct 3" \
		"2 menu secs 2" "2 menu miss_pct 2" "2 teo miss_pct 5" \
		"1 menu s.state1.usage_per_s 10" "2 menu s.state1.usage_per_s 30" \
		"1 teo s.state1.usage_per_s 20" "2 teo s.state1.usage_per_s 20" \
		>"$tmp/data"
	echo "state1 C1_deep" >"$tmp/names"
	ab_report "$tmp/data" "$tmp/names" menu teo >"$tmp/table"
	has report_rounds "$tmp/table" "over 2 rounds"
	has report_header "$tmp/table" "^ *menu  *teo$"
	has report_miss "$tmp/table" "^idle misses %  *1.500 (0.707)  *4.000 (1.414)$"
	has report_state "$tmp/table" \
		"^state1 C1_deep entries/s  *20.00 (14.14)  *20.00 (0.000)$"
	has report_na "$tmp/table" "^package power W  *n/a  *n/a$"
	hasnot report_no_empty_state "$tmp/table" "state1 C1_deep above"
	ab_csv "$tmp/data" "$tmp"
	has csv_rounds "$tmp/rounds.csv" "^2,teo,miss_pct,5$"
	has csv_summary "$tmp/summary.csv" "^teo,miss_pct,2,4.000000,1.414214$"
}

# run_ab FAKE ARGS...: the tool on FAKE, under the shell being tested;
# output in $tmp/out, exit status in $ab_rc.
run_ab() {
	fake=$1
	shift
	# shellcheck disable=SC2086
	PATH=${AB_PATH:-}$tmp/bin:$PATH SYSROOT=$fake $AB_SH "$tool" "$@" >"$tmp/out" 2>&1
	ab_rc=$?
}

gov_of() {
	cat "$1/sys/devices/system/cpu/cpuidle/current_governor"
}

planned test_run 11
test_run() {
	f=$tmp/f2
	mkfake "$f"
	run_ab "$f" -g menu,ladder -r 2 -n 0 -s 0 -o "$tmp/o2" \
		-- sh "$tmp/bump.sh" "$f"
	check run_status "$ab_rc" 0
	check run_order "$(tr '\n' ' ' <"$f/order.log")" "menu ladder menu ladder "
	check run_restored "$(gov_of "$f")" teo
	has run_restored_line "$tmp/out" "^governor restored: teo$"
	r=$tmp/o2/rounds.csv
	check run_usage "$(csv "$r" 1 menu s.state1.usage) $(csv "$r" 2 ladder s.state1.usage)" \
		"20 20"
	check run_miss "$(csv "$r" 2 menu miss_pct)" 30.000000
	check run_rapl "$(csv "$r" 1 menu pkg_J) $(csv "$r" 2 ladder pkg_J)" \
		"5.000000 5.000000"
	check run_core "$(csv "$r" 1 ladder core_J)" 2.000000
	has run_table "$tmp/out" "^idle misses %  *30.00 (0.000)  *30.00 (0.000)$"
	has run_no_trace "$tmp/out" "^nets: not available (no tracefs"
	hasnot run_no_rapl_line "$tmp/out" "^RAPL: not available"
}

planned test_missing 10
test_missing() {
	f=$tmp/f3
	mkfake "$f"
	rm -r "$f/sys/class/powercap"
	awk '$1 != "LOC:"' "$f/proc/interrupts" >"$f/proc/i"
	mv "$f/proc/i" "$f/proc/interrupts"
	mkdir -p "$f/sys/kernel/tracing/events/timer"
	run_ab "$f" -g horizon,menu -r 1 -n 0 -s 0 -t 0.05 -o "$tmp/o3"
	check missing_status "$ab_rc" 0
	has missing_rapl "$tmp/out" "^RAPL: not available (no RAPL zone"
	has missing_loc "$tmp/out" "^local timer interrupts: not available"
	has missing_event "$tmp/out" \
		"^nets: not available (no tracefs event timer:tick_idle_net)$"
	has missing_governor "$tmp/out" "^governor horizon: not available"
	has missing_na "$tmp/out" "^local timer irqs/s  *n/a$"
	check missing_restored "$(gov_of "$f")" teo
	mkdir -p "$f/sys/kernel/tracing/events/timer/tick_idle_net"
	CPUIDLE_AB_NET_EVENT=timer:renamed_net run_ab "$f" -g menu -r 1 -n 0 \
		-s 0 -t 0.05 -o "$tmp/o3"
	has missing_renamed_event "$tmp/out" \
		"^nets: not available (no tracefs event timer:renamed_net)$"
	run_ab "$f" -g horizon -r 1 -n 0 -s 0 -t 0.05 -o "$tmp/o3"
	check none_available_status "$ab_rc" 1
	has none_available_error "$tmp/out" "none of the governors (horizon)"
}

planned test_bad_options 24
test_bad_options() {
	f=$tmp/f4
	mkfake "$f"
	for args in "-r 0" "-r x" "-t -1" "-t 1.2.3" "-n x" "-G 0" "-g menu,menu" \
		    "-g me/nu" "-w busy" "-w cmd" "-w idle -- true" "-x" \
		    --bogus "-w idle -- --help" "-w timer-0hz" "-w timer-07hz" \
		    "-w pingpong-5s" "-w blockio-x" "--suite -w idle" "--suite -- true" \
		    "-w blockio -D $tmp/nodir/x" "-w idle -D $tmp/x" "-w mix -L $tmp/none"; do
		# shellcheck disable=SC2086
		run_ab "$f" $args -o "$tmp/o4"
		made=$([ -e "$tmp/o4" ] && echo "$tmp/o4 made")
		check "bad_option '$args'" "$ab_rc $(gov_of "$f") $made" "2 teo "
	done
	has bad_option_message "$tmp/out" "mix needs cpuidle_load\|is not an executable"
}

# Variants: NAME:PARAM=VALUE runs governor NAME with its module parameter
# set, and the plain NAME with the parameter as found; it is put back at
# the end. A variant whose parameter does not exist is left out; a
# malformed one is refused before anything changes.
planned test_param_variant 8
test_param_variant() {
	f=$tmp/f9
	mkfake "$f"
	echo "ladder menu teo horizon" >"$f/sys/devices/system/cpu/cpuidle/available_governors"
	m=$f/sys/module/horizon/parameters
	mkdir -p "$m"
	echo Y >"$m/safety_net"
	cat >"$tmp/logpar.sh" <<'EOF2'
echo "$(cat "$1/sys/devices/system/cpu/cpuidle/current_governor")" \
	"$(cat "$1/sys/module/horizon/parameters/safety_net")" >>"$1/order.log"
EOF2
	run_ab "$f" -g horizon:safety_net=N,horizon,menu:nope=1,menu -r 2 -n 0 -s 0 \
		-o "$tmp/o9" -- sh "$tmp/logpar.sh" "$f"
	check variant_status "$ab_rc" 0
	check variant_order "$(tr '\n' ' ' <"$f/order.log")" \
		"horizon N horizon Y menu Y horizon N horizon Y menu Y "
	check variant_put_back "$(cat "$m/safety_net")" Y
	has variant_left_out "$tmp/out" \
		"^menu:nope=1: no parameter .*/sys/module/menu/parameters/nope; left out$"
	check variant_csv "$(csv "$tmp/o9/rounds.csv" 2 horizon:safety_net=N s.state1.usage)" 0
	echo N >"$m/safety_net"
	run_ab "$f" -g horizon:safety_net=Y,menu -r 1 -n 0 -s 0 -o "$tmp/o9" \
		-- sh "$tmp/logpar.sh" "$f"
	check variant_put_back_n "$(cat "$m/safety_net") $(gov_of "$f")" "N teo"
	for args in "-g horizon:safety_net" "-g horizon:a=b=c"; do
		# shellcheck disable=SC2086
		run_ab "$f" $args -r 1 -n 0 -s 0 -o "$tmp/o9b"
		check "variant_refused '$args'" "$ab_rc $(cat "$m/safety_net") $(gov_of "$f")" \
			"2 N teo"
	done
}

# The usage on -h and on --help wherever getopts takes an option: on
# stdout, exit status 0, nothing changed. The runner's too.
planned test_help 5
test_help() {
	f=$tmp/f11
	mkfake "$f"
	for args in -h --help "-g menu --help"; do
		# shellcheck disable=SC2086
		SYSROOT=$f $AB_SH "$tool" $args -o "$tmp/o11" >"$tmp/out" 2>"$tmp/err"
		got="$? $(head -n 1 "$tmp/out" | cut -d' ' -f1-2) $(gov_of "$f")"
		[ ! -s "$tmp/err" ] || got="$got, stderr: $(head -n 1 "$tmp/err")"
		[ ! -e "$tmp/o11" ] || got="$got, $tmp/o11 made"
		check "help '$args'" "$got" "0 usage: cpuidle-ab.sh teo"
	done
	run_ab "$f" -g menu --bogus=1 -o "$tmp/o11"
	check unknown_long_option "$ab_rc $(head -n 1 "$tmp/out")" \
		"2 cpuidle-ab: unknown option --bogus=1"
	# shellcheck disable=SC2086
	$AB_SH "$here/run_tests.sh" --help >"$tmp/out" 2>&1
	check runner_help "$? $(head -n 1 "$tmp/out")" \
		"0 usage: run_tests.sh [COUNTFILE]"
}

planned test_mix 1
test_mix() {
	f=$tmp/f5
	mkfake "$f"
	printf '#!/bin/sh\necho "$*" >>%s\n' "$tmp/load.log" >"$tmp/load"
	chmod +x "$tmp/load"
	run_ab "$f" -w mix -L "$tmp/load" -t 0.25 -g menu,ladder -r 1 -n 0 -s 0 \
		-o "$tmp/o5"
	check mix_args "$ab_rc $(tr '\n' , <"$tmp/load.log")" "0 mix 250,mix 250,"
}

planned test_workload_fails 2
test_workload_fails() {
	f=$tmp/f6
	mkfake "$f"
	run_ab "$f" -g menu -r 1 -n 0 -s 0 -o "$tmp/o6" -- false
	check workload_fails_status "$ab_rc $(gov_of "$f")" "1 teo"
	has workload_fails_line "$tmp/out" "workload exited with status 1"
}

# The governor file refuses writes (a read-only /proc/sys file): an error,
# and nothing left changed.
planned test_cannot_select 2
test_cannot_select() {
	if [ ! -r /proc/sys/kernel/osrelease ]; then
		skip "no /proc/sys/kernel/osrelease" cannot_select_status \
			cannot_select_message
		return
	fi
	f=$tmp/f7
	mkfake "$f"
	ln -sf /proc/sys/kernel/osrelease "$f/sys/devices/system/cpu/cpuidle/current_governor"
	run_ab "$f" -g menu -r 1 -n 0 -s 0 -t 0.05 -o "$tmp/o7"
	check cannot_select_status "$ab_rc" 1
	has cannot_select_message "$tmp/out" "cannot select governor menu"
}

# wait_gov FAKE NAME: wait (up to 10 s) until FAKE's governor is NAME.
wait_gov() {
	i=0
	while [ "$(gov_of "$1")" != "$2" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# A signal in the middle of a run: the governor is restored, at once.
planned test_signal 4
test_signal() {
	f=$tmp/f8
	mkfake "$f"
	# shellcheck disable=SC2086
	SYSROOT=$f $AB_SH "$tool" -g menu -r 1 -n 0 -s 0 -o "$tmp/o8" \
		-- sleep 30 >"$tmp/out" 2>&1 &
	pid=$!
	wait_gov "$f" menu
	t0=$(date +%s)
	kill -TERM $pid
	wait $pid
	rc=$?
	check term_restores "$rc $(gov_of "$f")" "143 teo"
	check term_at_once "$(($(date +%s) - t0 < 10))" 1
	# Ctrl-C: SIGINT, which a background job ignores unless reset.
	if ! /usr/bin/env --default-signal=INT true 2>/dev/null; then
		skip "no env --default-signal" int_restores int_restored_line
		return
	fi
	# shellcheck disable=SC2086
	SYSROOT=$f /usr/bin/env --default-signal=INT $AB_SH "$tool" -g ladder \
		-r 1 -n 0 -s 0 -o "$tmp/o8" -- sleep 30 >"$tmp/out" 2>&1 &
	pid=$!
	wait_gov "$f" ladder
	kill -INT $pid
	wait $pid
	rc=$?
	check int_restores "$rc $(gov_of "$f")" "130 teo"
	has int_restored_line "$tmp/out" "^governor restored: teo$"
}

# Not root: the run stops before changing anything.
planned test_not_root 3
test_not_root() {
	if [ "$(id -u)" != 0 ] || [ ! -x /usr/bin/setpriv ]; then
		skip "needs root and util-linux setpriv" not_root_status \
			not_root_line not_root_error
		return
	fi
	f=$tmp/f9
	mkfake "$f"
	# The checkout may sit where only root can enter (/root): the
	# unprivileged run uses a copy of the tool.
	mkdir -p "$tmp/tool9"
	cp "$tool" "$top/cpuidle-ab-lib.sh" "$tmp/tool9/"
	chmod -R a+rX "$tmp"
	# shellcheck disable=SC2086
	SYSROOT=$f /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups \
		$AB_SH "$tmp/tool9/cpuidle-ab.sh" -g menu -r 1 -n 0 -s 0 -o "$tmp/o9" \
		>"$tmp/out" 2>&1
	rc=$?
	check not_root_status "$rc $(gov_of "$f")" "1 teo"
	has not_root_line "$tmp/out" "^not root"
	has not_root_error "$tmp/out" "not writable (not root?)"
}

# The ping-pong, on the real CPUs 0 and 1.
planned test_rtt 2
test_rtt() {
	if [ "$(ab_cpu_list "$(cat /sys/devices/system/cpu/online)" | wc -w)" -lt 2 ]; then
		skip "one CPU" rtt_measured rtt_table
		return
	fi
	f=$tmp/f10
	mkfake "$f"
	run_ab "$f" -g menu -r 1 -n 20 -G 200 -s 0 -t 0.05 -o "$tmp/o10"
	p50=$(csv "$tmp/o10/rounds.csv" 1 menu rtt_p50_us)
	p99=$(csv "$tmp/o10/rounds.csv" 1 menu rtt_p99_us)
	check rtt_measured "$ab_rc $([ "${p50:-0}" -gt 0 ] && [ "$p99" -ge "$p50" ] && echo ok)" \
		"0 ok"
	has rtt_table "$tmp/out" "^wakeup rtt p50 us  *[0-9]"
}

# The record of the machine: meta.json from the fake /sys and /proc, and
# the state table; a value with quotes stays valid JSON.
planned test_meta 9
test_meta() {
	f=$tmp/f12
	mkfake "$f"
	run_ab "$f" -g menu -r 1 -n 0 -s 0 -t 0.05 -o "$tmp/o12"
	m=$tmp/o12/meta.json
	check meta_status "$ab_rc" 0
	has meta_cpu_model "$m" '^  "cpu_model": "Fake CPU \\"9000\\" @ 1GHz",$'
	has meta_cmdline "$m" '^  "cmdline": "root=/dev/fake cpuidle.governor=teo quiet",$'
	has meta_driver "$m" '^  "cpuidle_driver": "acpi_idle",$'
	has meta_governor "$m" '^  "cpuidle_governor": "teo",$'
	has meta_cpufreq "$m" '^  "cpufreq_governor": "schedutil",$'
	has meta_state "$m" '{"state": "state1", "name": "C1 deep", '\
'"latency_us": 3, "residency_us": 9, "disabled": 1}'
	has meta_state_table "$tmp/o12/state-table.txt" \
		"^state1 C1 deep: exit latency 3 us, target residency 9 us, disabled$"
	if command -v python3 >/dev/null 2>&1; then
		python3 -m json.tool "$tmp/o12/summary.json" >/dev/null 2>"$tmp/err"
		check meta_summary_json_valid "$? $(head -n 1 "$tmp/err")" "0 "
	else
		skip "no python3 to parse JSON" meta_summary_json_valid
	fi
}

# Package C-states from turbostat's summary, where it reports them; said
# in one line where it does not.
planned test_pkg 6
test_pkg() {
	f=$tmp/f13
	mkfake "$f"
	FAKE_TURBOSTAT=1 run_ab "$f" -g menu,ladder -r 2 -n 0 -s 0 -t 0.05 -o "$tmp/o13"
	check pkg_status "$ab_rc" 0
	hasnot pkg_no_line "$tmp/out" "^package C-states: not available"
	check pkg_csv "$(csv "$tmp/o13/rounds.csv" 2 ladder pkg_pc6_pct) $(
		csv "$tmp/o13/rounds.csv" 1 menu pkg_pc10_pct)" "40.000000 5.500000"
	has pkg_table "$tmp/out" "^package C6 %  *40.00 (0.000)  *40.00 (0.000)$"
	run_ab "$f" -g menu -r 1 -n 0 -s 0 -t 0.05 -o "$tmp/o13"
	has pkg_not_available "$tmp/out" "^package C-states: not available \
(turbostat reports none: fake: no MSR; no perf cstate_pkg PMU)$"
	hasnot pkg_no_row "$tmp/out" "^package C[0-9]"
}

# Package C-states from perf's cstate_pkg counters where turbostat does
# not work: residency over the TSC of one CPU a package.
planned test_pkg_perf 9
test_pkg_perf() {
	check pkg_perf_parse "$(printf '%s\n' '400,,cstate_pkg/c6-residency/,1,100.00,,' \
		'1000,,msr/tsc/,1,100.00,,' | ab_pkg_perf_parse)" "pkg_pc6_pct 40.000000"
	check pkg_perf_parse_no_tsc "$(echo '400,,cstate_pkg/c6-residency/,1,100.00,,' |
		ab_pkg_perf_parse)" ""
	f=$tmp/f16
	mkfake "$f"
	mkpmu "$f"
	rm -f "$tmp/perf.args"
	FAKE_PERF=1 run_ab "$f" -g menu,ladder -r 2 -n 0 -s 0 -t 0.05 -o "$tmp/o16"
	check pkg_perf_status "$ab_rc" 0
	has pkg_perf_line "$tmp/out" "^package C-states: perf cstate_pkg \
(no turbostat: turbostat reports none: fake: no MSR)$"
	check pkg_perf_csv "$(csv "$tmp/o16/rounds.csv" 2 ladder pkg_pc6_pct) $(
		csv "$tmp/o16/rounds.csv" 1 menu pkg_pc2_pct)" "40.000000 10.000000"
	check pkg_perf_not_counted "$(csv "$tmp/o16/rounds.csv" 1 menu pkg_pc10_pct)" ""
	has pkg_perf_args "$tmp/perf.args" "^stat -x, -o .* -C 0 -e \
cstate_pkg/c10-residency/,cstate_pkg/c2-residency/,cstate_pkg/c6-residency/,\
msr/tsc/ -- sh -c "
	rm "$f/sys/bus/event_source/devices/msr/events/tsc"
	FAKE_PERF=1 run_ab "$f" -g menu -r 1 -n 0 -s 0 -t 0.05 -o "$tmp/o16"
	has pkg_perf_no_tsc "$tmp/out" "^package C-states: not available \
(turbostat reports none: fake: no MSR; no perf cstate_pkg PMU)$"
	mkpmu "$f"
	run_ab "$f" -g menu -r 1 -n 0 -s 0 -t 0.05 -o "$tmp/o16"
	has pkg_perf_fails "$tmp/out" "^package C-states: not available \
(turbostat reports none: fake: no MSR; perf counts none: fake: perf not here)$"
}

# --json prints the summary; --report writes the report; both are taken
# only where options are, not from the command.
planned test_json_report 7
test_json_report() {
	f=$tmp/f14
	mkfake "$f"
	run_ab "$f" -g menu,ladder --json -r 1 -n 0 -s 0 --report -o "$tmp/o14" \
		-- sh "$tmp/bump.sh" "$f"
	check json_status "$ab_rc" 0
	has json_printed "$tmp/out" \
		'^    "miss_pct": {"rounds": 1, "mean": 30.000000, "spread": 0.000000}'
	r=$tmp/o14/report.txt
	has report_cmdline "$r" "^cmdline: *root=/dev/fake cpuidle.governor=teo quiet$"
	check report_sections "$(grep -c '^Summary$\|^Per state$\|^Idle states of CPU 0$' "$r")" 3
	has report_state_row "$r" "^state1 C1_deep above/s  *[1-9]"
	has report_cpu_model "$r" '^cpu_model: *Fake CPU "9000" @ 1GHz$'
	run_ab "$f" -g menu -r 1 -n 0 -s 0 -o "$tmp/o14b" -- echo --json --report
	check json_report_in_command "$ab_rc $(cat "$tmp/o14b/command.log") $(
		[ -e "$tmp/o14b/report.txt" ] && echo report)" "0 --json --report "
}

# The named workloads: what runs each, and cpuidle_load's arguments.
planned test_workload_names 5
test_workload_names() {
	kinds=
	for w in $AB_SUITE mix cmd; do
		kinds="$kinds$(ab_workload_kind "$w"),"
	done
	check workload_kinds "$kinds" \
		"idle,load,load,load,load,load,load,load,blockio,load,cmd,"
	args=
	for w in pingpong-50us pingpong-500us pingpong-3ms timer-73hz timer-151hz \
		 timer-401hz burst mix; do
		args="$args$(ab_load_args "$w" 250),"
	done
	check workload_load_args "$args" "pingpong 250 50,pingpong 250 500,\
pingpong 250 3000,timer 13699 250,timer 6623 250,timer 2494 250,burst 250,mix 250,"
	check workload_other_args "$(ab_load_args pingpong-0100us 7) $(
		ab_load_args timer-1hz 7) $(ab_load_args timer-100000hz 7)" \
		"pingpong 7 100 timer 1000000 7 timer 10 7"
	check workload_blockio_think "$(ab_blockio_think_us blockio) $(
		ab_blockio_think_us blockio-0us) $(ab_blockio_think_us blockio-2ms)" \
		"1000 0 2000"
	bad_names=
	for w in busy timer-0hz timer-07hz timer-100001hz timer-hz pingpong-0us \
		 pingpong-11s pingpong-10001ms pingpong-us blockio-x blockio-1s suite; do
		! ab_workload_kind "$w" >/dev/null || bad_names="$bad_names $w"
	done
	check workload_unknown_refused "$bad_names" ""
}

# A cpuidle_load that logs its arguments and moves the counters as bump.sh
# does, with five more misses per CPU under menu; a dd that logs its
# arguments and copies without O_DIRECT (tmpfs may not have it); a dd
# that only logs.
mkload() {
	cat >"$tmp/load" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/load.log"
sh "$tmp/bump.sh" "\$FAKE"
c=\$FAKE/sys/devices/system/cpu
[ "\$(cat "\$c/cpuidle/current_governor")" = menu ] || exit 0
for cpu in 0 1; do
	a=\$c/cpu\$cpu/cpuidle/state1/above
	echo \$((\$(cat "\$a") + 5)) >"\$a"
done
EOF
	mkdir -p "$tmp/ddpass" "$tmp/ddlog"
	cat >"$tmp/ddpass/dd" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/dd.log"
for a; do
	shift
	case "\$a" in
	iflag=direct | oflag=direct) ;;
	*) set -- "\$@" "\$a" ;;
	esac
done
exec "$(ab_which dd)" "\$@"
EOF
	printf '#!/bin/sh\necho "$*" >>"%s"\n' "$tmp/dd.log" >"$tmp/ddlog/dd"
	chmod +x "$tmp/load" "$tmp/ddpass/dd" "$tmp/ddlog/dd"
}

planned test_named_run 3
test_named_run() {
	f=$tmp/f15
	mkfake "$f"
	mkload
	rm -f "$tmp/load.log"
	for w in pingpong-3ms timer-401hz; do
		FAKE=$f run_ab "$f" -w "$w" -L "$tmp/load" -t 0.25 -g menu,ladder -r 1 \
			-n 0 -s 0 -o "$tmp/o15"
	done
	check named_run_args "$ab_rc $(tr '\n' , <"$tmp/load.log")" \
		"0 pingpong 250 3000,pingpong 250 3000,timer 2494 250,timer 2494 250,"
	has named_run_line "$tmp/out" "each $tmp/load timer 2494 250;"
	has named_run_table "$tmp/o15/table.txt" \
		"^idle misses %  *80.00 (0.000)  *30.00 (0.000)$"
}

# The suite: each workload in its own subdirectory, the same governors
# and rounds, one combined summary; blockio on a file, left as it was.
planned test_suite 15
test_suite() {
	f=$tmp/f16
	mkfake "$f"
	mkload
	rm -f "$tmp/load.log" "$tmp/dd.log"
	awk 'BEGIN { for (i = 0; i < 3000; i++) printf "block %08d\n", i }' \
		>"$tmp/blk"
	cp "$tmp/blk" "$tmp/blk.orig"
	FAKE=$f AB_PATH=$tmp/ddpass: run_ab "$f" --suite -D "$tmp/blk" -L "$tmp/load" \
		-t 0.1 -g menu,ladder -r 1 -n 0 -s 0 -o "$tmp/o16" --json --report
	o=$tmp/o16
	check suite_status "$ab_rc $(gov_of "$f")" "0 teo"
	dirs=
	for w in $AB_SUITE; do
		[ -s "$o/$w/summary.csv" ] && [ -s "$o/$w/meta.json" ] &&
			[ -s "$o/$w/report.txt" ] && dirs="$dirs $w"
	done
	check suite_subdirs "$dirs" " $AB_SUITE"
	check suite_load_args "$(awk '{ print $1, $NF }' "$tmp/load.log" | tr '\n' ,)" \
		"pingpong 50,pingpong 50,pingpong 500,pingpong 500,pingpong 3000,\
pingpong 3000,timer 100,timer 100,timer 100,timer 100,timer 100,timer 100,burst 100,burst 100,"
	check suite_same_rounds "$(cut -d, -f1,2 "$o/timer-151hz/rounds.csv" |
		sort -u | tr '\n' ' ')" "1,ladder 1,menu round,governor "
	has suite_blockio_read "$tmp/dd.log" \
		"^if=$tmp/blk of=.* bs=4096 count=1 skip=[0-9]* iflag=direct$"
	has suite_blockio_write "$tmp/dd.log" \
		"^if=.* of=$tmp/blk bs=4096 count=1 seek=[0-9]* oflag=direct conv=notrunc,fsync$"
	check suite_blockio_unchanged "$(cmp "$tmp/blk" "$tmp/blk.orig" 2>&1)" ""
	io=$(csv "$o/blockio/rounds.csv" 1 ladder io_per_s)
	check suite_blockio_rate "$(awk -v x="${io:-0}" 'BEGIN { print (x > 0) }')" 1
	s=$o/suite-summary.txt
	has suite_header "$s" "^workload  *fewest misses  *figure  *menu  *ladder$"
	has suite_fewest "$s" "^pingpong-50us  *ladder  *idle misses %  *80.00 (0.000)  *30.00"
	has suite_tie "$s" "^idle  *menu\*  *idle misses %  *0.000 (0.000)  *0.000"
	has suite_blockio_row "$s" "^  *block I/O per s  *[0-9]"
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
w = d["workloads"]
print(len(w), w["timer-73hz"]["fewest_misses"], w["idle"]["next_within_spread"],
      w["burst"]["governors"]["menu"]["miss_pct"]["mean"], d["meta"]["tool"])' \
			"$o/suite-summary.json" >"$tmp/py" 2>&1
		check suite_json "$(cat "$tmp/py")" "9 ladder True 80.0 cpuidle-ab"
	else
		skip "no python3 to parse JSON" suite_json
	fi
	has suite_json_printed "$tmp/out" '^    "fewest_misses": "ladder",$'
	has suite_report "$o/report.txt" "^  blockio/report.txt$"
}

# blockio_try NAME PATTERN: a blockio run on $bdev is refused with a
# message matching PATTERN, and changes nothing: no dd, no output.
blockio_try() {
	rm -rf "$tmp/dd.log" "$tmp/o17b"
	AB_PATH=$tmp/ddlog: run_ab "$f" -w blockio -D "$bdev" -t 0.05 -g menu \
		-r 1 -n 0 -s 0 -o "$tmp/o17b"
	check "$1" "$ab_rc $(gov_of "$f") $([ -e "$tmp/o17b" ] && echo made) $(
		[ -e "$tmp/dd.log" ] && echo dd) $(grep -c "$2" "$tmp/out")" \
		"2 teo   1"
}

# blockio writes only to what -D names, and never to a block device that
# is mounted (by number or by name, itself or a partition), a swap area,
# or held by another device; what is refused changes nothing. The device
# node is a real one, its sysfs entry and the mounts fake, and dd only
# logs.
planned test_blockio_refused 9
test_blockio_refused() {
	f=$tmp/f17
	mkfake "$f"
	mkload
	rm -f "$tmp/dd.log"
	AB_PATH=$tmp/ddlog: run_ab "$f" -w blockio -g menu -r 1 -n 0 -s 0 -o "$tmp/o17"
	check blockio_no_dev "$ab_rc $(gov_of "$f") $([ -e "$tmp/o17" ] && echo made) $(
		grep -c 'needs -D PATH' "$tmp/out")" "2 teo  1"
	AB_PATH=$tmp/ddpass: run_ab "$f" -w blockio -D "$tmp/new.blk" -t 0.05 -g menu \
		-r 1 -n 0 -s 0 -o "$tmp/o17"
	check blockio_new_file_removed "$ab_rc $([ -e "$tmp/new.blk" ] && echo left) $(
		grep -q "of=$tmp/new.blk bs=1048576 count=16" "$tmp/dd.log" && echo made) $(
		grep -q "of=$tmp/new.blk .*oflag=direct" "$tmp/dd.log" && echo written)" \
		"0  made written"
	bdev=
	for b in /dev/loop[0-9]* /dev/*; do
		if [ -b "$b" ]; then
			bdev=$b
			break
		fi
	done
	if [ -z "$bdev" ]; then
		skip "no block device node" blockio_mounted blockio_mounted_by_name \
			blockio_partition_mounted blockio_swap blockio_held \
			blockio_no_mountinfo blockio_unmounted_taken
		return
	fi
	mm=$(stat -L -c '%t %T' "$bdev")
	mm=$(printf '%d:%d' "0x${mm% *}" "0x${mm#* }")
	sd=$f/sys/dev/block/$mm
	mkdir -p "$sd/holders" "$sd/xp1"
	echo 2048 >"$sd/size"
	: >"$f/proc/swaps"
	mi=$f/proc/self/mountinfo
	mkdir -p "${mi%/*}"
	echo "29 1 $mm / /mnt rw - ext4 /dev/other rw" >"$mi"
	blockio_try blockio_mounted "will not write to $bdev: mounted on /mnt (device $mm)"
	echo "29 1 0:45 / /mnt rw - btrfs $bdev rw" >"$mi"
	blockio_try blockio_mounted_by_name "will not write to $bdev: mounted on /mnt"
	: >"$sd/xp1/partition"
	echo 259:77 >"$sd/xp1/dev"
	echo "29 1 259:77 / /boot rw - ext4 /dev/xp1 rw" >"$mi"
	blockio_try blockio_partition_mounted "mounted on /boot (device 259:77)"
	: >"$mi"
	printf 'Filename Type\n%s partition 100 0 -2\n' "$bdev" >"$f/proc/swaps"
	blockio_try blockio_swap "will not write to $bdev: a swap area"
	: >"$f/proc/swaps"
	mkdir -p "$sd/holders/dm-3"
	blockio_try blockio_held "will not write to $bdev: held by dm-3"
	rmdir "$sd/holders/dm-3"
	rm "$mi"
	blockio_try blockio_no_mountinfo "cannot read .*mountinfo"
	: >"$mi"
	if [ ! -w "$bdev" ]; then
		skip "$bdev is not writable here (not root)" blockio_unmounted_taken
		return
	fi
	rm -f "$tmp/dd.log"
	AB_PATH=$tmp/ddlog: run_ab "$f" -w blockio -D "$bdev" -t 0.05 -g menu -r 1 -n 0 \
		-s 0 -o "$tmp/o17c"
	check blockio_unmounted_taken "$ab_rc $(grep -q "of=$bdev .*oflag=direct" \
		"$tmp/dd.log" && echo written)" "0 written"
}

# In one shell ($2 names it), its first check numbered $3: every test.
if [ "${1:-}" = --in-shell ]; then
	label=$2
	AB_SH=$2
	n=$((${3:-1} - 1))
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkbump
	mkturbostat
	mkperf
	for plan_t in $tests; do
		plan_want=${plan_t#*:}
		plan_t=${plan_t%:*}
		plan_from=$n
		$plan_t
		plan_made=$((n - plan_from))
		while [ "$plan_made" -lt "$plan_want" ]; do
			plan_made=$((plan_made + 1))
			n=$((n + 1))
			echo "not ok $n $label: $plan_t: check $plan_made of" \
				"$plan_want not made"
		done
		[ "$plan_made" = "$plan_want" ] ||
			echo "# $label: $plan_t: $plan_made checks, planned $plan_want"
	done
	exit 0
fi

case "${1:-}" in
-h | --help)
	usage
	exit 0 ;;
-?*)
	echo "${0##*/}: unknown option $1" >&2
	usage >&2
	exit 2 ;;
esac
if [ $# -gt 1 ]; then
	usage >&2
	exit 2
fi
countfile=${1:-}

# The plan: every test, under each shell. A shell that is missing or stops
# early leaves results missing: each is a failure.
set -- sh "busybox sh"
total=$(($# * plan))
echo "1..$total"
out=$(mktemp) || exit 1
first=1
for shell; do
	# shellcheck disable=SC2086
	if command -v ${shell%% *} >/dev/null 2>&1; then
		# shellcheck disable=SC2086
		$shell "$0" --in-shell "$shell" "$first" 2>&1 | tee -a "$out"
	else
		echo "# $shell: ${shell%% *} not found: install it (Debian:" \
			"busybox-static, see infra/deps.sh)"
	fi
	first=$((first + plan))
done
skipped=$(grep -c '^ok [0-9]* .*# SKIP' "$out")
passed=$(($(grep -c '^ok [0-9]* ' "$out") - skipped))
failed=$(grep -c '^not ok [0-9]* ' "$out")
rm -f "$out"
made=$((passed + failed + skipped))
if [ "$made" -lt "$total" ]; then
	echo "# $((total - made)) of the $total planned results missing:" \
		"counted as failed"
	failed=$((failed + total - made))
elif [ "$made" -gt "$total" ]; then
	echo "# $made results, more than the $total planned: a planned line" \
		"is wrong; counted as one failure"
	failed=$((failed + 1))
fi
[ "$total" -gt 0 ] || failed=$((failed + 1))
echo "$passed passed, $failed failed, $skipped skipped"
if [ -n "$countfile" ]; then
	echo "$passed $failed" >"$countfile"
	echo "$skipped" >"$countfile.skip"
fi
[ "$failed" = 0 ]
