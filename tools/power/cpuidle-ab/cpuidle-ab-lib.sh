# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers of cpuidle-ab.sh, sourced by it and by its tests: reading the
# counters (cpuidle sysfs, RAPL powercap, /proc/interrupts), their deltas,
# the order of the rounds, the statistics and the report. POSIX sh; the
# arithmetic is done in awk and avoids what busybox awk built without
# math support lacks (^, sqrt(), %d beyond 32 bits).
#
# Every path is under $SYSROOT (default empty), so that the tests can
# build a fake /sys and /proc in a temporary directory.

# shellcheck disable=SC2034 # used by cpuidle-ab.sh
ab_paths() {
	AB_CPU=${SYSROOT:-}/sys/devices/system/cpu
	AB_CPUIDLE=$AB_CPU/cpuidle
	AB_POWERCAP=${SYSROOT:-}/sys/class/powercap
	AB_INTERRUPTS=${SYSROOT:-}/proc/interrupts
	AB_PMU=${SYSROOT:-}/sys/bus/event_source/devices
	AB_TRACEFS=
	for _t in "${SYSROOT:-}/sys/kernel/tracing" \
		  "${SYSROOT:-}/sys/kernel/debug/tracing"; do
		if [ -d "$_t/events" ]; then
			AB_TRACEFS=$_t
			break
		fi
	done
}
ab_paths

# awk functions shared by every program below.
AB_AWK='
# The square root by Newton iteration (no sqrt() in some busybox builds).
function ab_sqrt(x,   r, last, i) {
	if (x <= 0)
		return 0
	r = x > 1 ? x : 1
	for (i = 0; i < 200; i++) {
		last = r
		r = (r + x / r) / 2
		if (r == last)
			break
	}
	return r
}
# The growth of a counter that runs from 0 to max and then starts again
# at 0 (RAPL energy_uj and max_energy_range_uj): at most one wrap.
function ab_wrap(before, after, max,   d) {
	d = after - before
	if (d < 0 && max > 0)
		d += max + 1
	return d
}
# Seconds "S.FFFFFF" in microseconds, every digit kept: the seconds and
# their fraction apart, the fraction without the leading zeros that
# busybox awk would read as octal.
function ab_us(t,   f) {
	f = substr(t, index(t ".", ".") + 1) "000000"
	f = substr(f, 1, 6)
	sub(/^0+/, "", f)
	return substr(t, 1, index(t ".", ".") - 1) * 1000000 + f
}
# A figure with three or four significant digits, for the tables.
function ab_fmt(x,   a) {
	a = x < 0 ? -x : x
	if (a >= 1000)
		return sprintf("%.0f", x)
	if (a >= 100)
		return sprintf("%.1f", x)
	if (a >= 10)
		return sprintf("%.2f", x)
	return sprintf("%.3f", x)
}
'

# ab_wrap_delta BEFORE AFTER MAX: the growth of a wrapping counter.
ab_wrap_delta() {
	awk -v b="$1" -v a="$2" -v m="$3" "$AB_AWK"'
	BEGIN { printf "%.0f\n", ab_wrap(b, a, m) }'
}

# ab_schedule ROUNDS GOVERNOR...: "ROUND GOVERNOR" lines, the governors in
# the order given, round after round (A B C A B C ...), so that a slow
# drift of the machine weighs on every governor alike.
ab_schedule() {
	_rounds=$1
	shift
	_r=1
	while [ "$_r" -le "$_rounds" ]; do
		for _g in "$@"; do
			echo "$_r $_g"
		done
		_r=$((_r + 1))
	done
}

# ab_cpu_list CPULIST: the CPUs of a list such as "0-3,8", one line.
ab_cpu_list() {
	echo "$1" | awk -F, '{
		for (i = 1; i <= NF; i++) {
			lo = $i; hi = $i
			if (index($i, "-")) {
				lo = substr($i, 1, index($i, "-") - 1)
				hi = substr($i, index($i, "-") + 1)
			}
			for (c = lo + 0; c <= hi + 0; c++)
				out = out (n++ ? " " : "") c
		}
		print out
	}'
}

# ab_percentiles P... : the nearest-rank percentiles P of the numbers read
# on stdin, one per line, printed on one line ("-" with no input).
ab_percentiles() {
	sort -n | awk -v ps="$*" '
	{ v[++n] = $1 }
	END {
		k = split(ps, p, " ")
		for (i = 1; i <= k; i++) {
			if (!n) {
				out = out (i > 1 ? " " : "") "-"
				continue
			}
			r = int(p[i] * n / 100)
			if (r < p[i] * n / 100)
				r++
			if (r < 1)
				r = 1
			out = out (i > 1 ? " " : "") v[r]
		}
		print out
	}'
}

# ab_stats: from "KEY VALUE" lines, "KEY N MEAN SPREAD" per key in the order
# first seen; the spread is the sample standard deviation (0 for one value).
ab_stats() {
	awk "$AB_AWK"'
	{
		if (!($1 in n))
			order[++keys] = $1
		# Welford: no cancellation in the sum of squares.
		k = $1; x = $2 + 0
		n[k]++
		d = x - mean[k]
		mean[k] += d / n[k]
		m2[k] += d * (x - mean[k])
	}
	END {
		for (i = 1; i <= keys; i++) {
			k = order[i]
			sd = n[k] > 1 ? ab_sqrt(m2[k] / (n[k] - 1)) : 0
			printf "%s %d %.6f %.6f\n", k, n[k], mean[k], sd
		}
	}'
}

# ab_now: the wall clock in seconds, with microseconds where the shell or
# date(1) gives them, else /proc/uptime (hundredths).
ab_now() {
	# shellcheck disable=SC3028 # bash and busybox ash have it, dash not
	if [ -n "${EPOCHREALTIME:-}" ]; then
		echo "$EPOCHREALTIME"
		return
	fi
	_t=$(date +%s.%N 2>/dev/null)
	case "$_t" in
	*[!0-9.]* | "") awk '{ print $1 }' /proc/uptime ;;
	*) echo "$_t" ;;
	esac
}

# ab_state_names: "stateN NAME" for CPU 0's states, blanks in the name
# turned into "_".
ab_state_names() {
	for _d in "$AB_CPU"/cpu0/cpuidle/state[0-9]*; do
		[ -r "$_d/name" ] || continue
		echo "${_d##*/} $(tr ' \t' '__' <"$_d/name")"
	done
}

# ab_rapl_zones: the RAPL zone directories whose energy can be read.
ab_rapl_zones() {
	for _z in "$AB_POWERCAP"/*rapl*:*; do
		[ -r "$_z/energy_uj" ] && cat "$_z/energy_uj" >/dev/null 2>&1 &&
			echo "$_z"
	done
}

# ab_snapshot FILE: the counters now, one per line:
#   time SECONDS
#   idle STATE COUNTER SUM        usage, time, above, below over all CPUs
#   rapl ZONE ENERGY_UJ MAX_UJ    ZONE: package-N or package-N/core, ...
#   loc SUM                       the LOC line of /proc/interrupts
# With AB_RAPL=0 or AB_LOC=0 the RAPL or LOC lines are left out.
ab_snapshot() {
	_out=$1
	{
		echo "time $(ab_now)"
		set -- "$AB_CPU"/cpu[0-9]*/cpuidle/state[0-9]*/usage
		if [ -r "$1" ]; then
			for _f in time above below; do
				set -- "$@" "$AB_CPU"/cpu[0-9]*/cpuidle/state[0-9]*/$_f
			done
			awk 'FNR == 1 {
				k = split(FILENAME, p, "/")
				key = p[k - 1] " " p[k]
				if (!(key in sum))
					order[++n] = key
				sum[key] += $1
			}
			END {
				for (i = 1; i <= n; i++)
					printf "idle %s %.0f\n", order[i], sum[order[i]]
			}' "$@" 2>/dev/null
		fi
		if [ "${AB_RAPL:-1}" = 1 ]; then
			for _z in $(ab_rapl_zones); do
				_name=$(cat "$_z/name" 2>/dev/null)
				case "${_z##*/}" in
				*:*:*)
					_name=$(cat "${_z%:*}/name" 2>/dev/null)/$_name ;;
				esac
				echo "rapl $_name $(cat "$_z/energy_uj")" \
					"$(cat "$_z/max_energy_range_uj" 2>/dev/null || echo 0)"
			done | awk '!seen[$2]++'
		fi
		[ "${AB_LOC:-1}" != 1 ] || awk '$1 == "LOC:" {
			for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++)
				s += $i
			printf "loc %.0f\n", s
		}' "$AB_INTERRUPTS" 2>/dev/null
	} >"$_out"
}

# ab_delta BEFORE AFTER NCPUS: "METRIC VALUE" lines for one run between two
# snapshots:
#   secs                                 wall time
#   s.STATE.usage .time_us .above .below raw growth, summed over CPUs
#   s.STATE.usage_per_s .time_pct .above_per_s .below_per_s
#   entries_per_s miss_pct               all states; miss: (above+below)/usage
#   pkg_J core_J pkg_W core_W            RAPL packages and their cores
#   loc_per_s                            local timer interrupts
ab_delta() {
	awk -v ncpus="$3" "$AB_AWK"'
	FNR == 1 { f++ }
	$1 == "time" { t[f] = $2; next }
	$1 == "idle" {
		k = $2 " " $3
		if (f == 1) {
			idle[k] = $4
		} else if (k in idle) {
			d[k] = $4 - idle[k]
			if (!($2 in seen)) {
				seen[$2] = 1
				states[++ns] = $2
			}
		}
		next
	}
	$1 == "rapl" {
		if (f == 1) {
			rapl[$2] = $3
		} else if ($2 in rapl) {
			j = ab_wrap(rapl[$2], $3, $4) / 1e6
			if ($2 ~ /^package-[0-9]+$/) { pkg += j; havepkg = 1 }
			if ($2 ~ /^package-[0-9]+\/core$/) { core += j; havecore = 1 }
		}
		next
	}
	$1 == "loc" {
		if (f == 1)
			loc = $2
		else
			dloc = $2 - loc
		next
	}
	END {
		secs = (ab_us(t[2]) - ab_us(t[1])) / 1e6
		printf "secs %.6f\n", secs
		if (secs <= 0)
			secs = 1e-6
		for (i = 1; i <= ns; i++) {
			s = states[i]
			u = d[s " usage"]; tm = d[s " time"]
			a = d[s " above"]; b = d[s " below"]
			printf "s.%s.usage %.0f\ns.%s.time_us %.0f\n", s, u, s, tm
			printf "s.%s.above %.0f\ns.%s.below %.0f\n", s, a, s, b
			printf "s.%s.usage_per_s %.6f\n", s, u / secs
			printf "s.%s.time_pct %.6f\n", s, 100 * tm / (secs * 1e6 * ncpus)
			printf "s.%s.above_per_s %.6f\n", s, a / secs
			printf "s.%s.below_per_s %.6f\n", s, b / secs
			usage += u; miss += a + b
		}
		if (ns) {
			printf "entries_per_s %.6f\n", usage / secs
			printf "miss_pct %.6f\n", usage ? 100 * miss / usage : 0
		}
		if (havepkg)
			printf "pkg_J %.6f\npkg_W %.6f\n", pkg, pkg / secs
		if (havecore)
			printf "core_J %.6f\ncore_W %.6f\n", core, core / secs
		if (dloc != "")
			printf "loc_per_s %.6f\n", dloc / secs
	}' "$1" "$2"
}

# ab_net_stats EVENT: from a trace (trace clock "mono") on stdin,
# "ARMED FIRED": safety nets armed (EVENT, "system:name"), and those that
# fired, that is, the tick's handler ran at or after the net's expiry
# (field "expires", ns of CLOCK_MONOTONIC) before the CPU left its idle
# state. As in the kselftest cpuidle_safety_net.sh, per CPU.
ab_net_stats() {
	awk -v ev="${1#*:}" '
	function val(key,   i) {
		for (i = 1; i <= NF; i++)
			if (index($i, key "=") == 1)
				return substr($i, length(key) + 2) + 0
		return -1
	}
	function stamp(   i) {
		for (i = 1; i < NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/)
				return substr($i, 1, length($i) - 1) * 1e9
		return -1
	}
	{
		cpu = -1
		for (i = 1; i <= NF; i++)
			if ($i ~ /^\[[0-9]+\]$/) {
				cpu = substr($i, 2, length($i) - 2) + 0
				break
			}
	}
	index($0, " " ev ": ") {
		armed++
		net[cpu] = val("expires")
		next
	}
	/ local_timer_entry: / {
		if (net[cpu] > 0 && stamp() >= net[cpu] - 1000) {
			fired++
			net[cpu] = 0
		}
		next
	}
	/ hrtimer_expire_entry: .*function=tick_nohz_handler/ {
		if (net[cpu] > 0 && val("now") >= net[cpu])
			fired++
		net[cpu] = 0
		next
	}
	/ cpu_idle: / {
		if (val("state") == 4294967295)
			net[cpu] = 0
	}
	END { printf "%.0f %.0f\n", armed, fired }'
}

# ab_rtt_us: from "T0 T1" lines of $EPOCHREALTIME stamps (seconds with
# six decimals), the microseconds between them, one per line.
ab_rtt_us() {
	awk "$AB_AWK"'{ printf "%.0f\n", ab_us($2) - ab_us($1) }'
}

# ab_rtt_pong FIFO_IN FIFO_OUT: echo every line back until "q".
# ab_rtt_ping FIFO_OUT FIFO_IN FIFO_IDLE COUNT GAP_S: COUNT round trips,
# GAP_S seconds apart (a read timing out on an idle FIFO), each printed as
# "T0 T1". Both run under a shell with $EPOCHREALTIME and fractional
# read -t (bash, busybox ash): see ab_rtt_shell.
ab_rtt_pong() {
	exec 3<"$1" 4>"$2"
	while read -r _x <&3; do
		[ "$_x" != q ] || break
		echo "$_x" >&4
	done
}

ab_rtt_ping() {
	exec 3>"$1" 4<"$2" 5<>"$3"
	_i=0
	while [ "$_i" -lt "$4" ]; do
		# shellcheck disable=SC3045 # bash and busybox ash have read -t
		read -r -t "$5" _x <&5
		# shellcheck disable=SC3028
		_t0=$EPOCHREALTIME
		echo p >&3
		read -r _x <&4
		# shellcheck disable=SC3028
		_t1=$EPOCHREALTIME
		echo "$_t0 $_t1"
		_i=$((_i + 1))
	done
	echo q >&3
}

# ab_rtt_shell: a shell command that runs ab_rtt_ping (has $EPOCHREALTIME),
# or nothing.
ab_rtt_shell() {
	for _sh in sh bash "busybox sh"; do
		# shellcheck disable=SC2016,SC2086
		if [ -n "$($_sh -c 'echo "${EPOCHREALTIME:-}"' 2>/dev/null)" ]; then
			echo "$_sh"
			return
		fi
	done
}

# ab_report DATA NAMES GOVERNOR...: the table of DATA ("ROUND GOVERNOR
# METRIC VALUE" lines) per governor, mean (spread) over the rounds, with
# the state names of NAMES ("stateN NAME" lines).
ab_report() {
	_data=$1 _names=$2
	shift 2
	awk '{ print $2 "|" $3, $4 }' "$_data" | ab_stats |
	awk -v govs="$*" -v names="$_names" "$AB_AWK"'
	function cell(g, m) {
		if (!((g "|" m) in mean))
			return "n/a"
		return ab_fmt(mean[g "|" m]) " (" ab_fmt(sd[g "|" m]) ")"
	}
	# A row of the table; per-state rows only where a governor has them.
	function row(label, m,   i, any) {
		for (i = 1; i <= ng; i++)
			if ((g[i] "|" m) in mean)
				any = 1
		if (!any && m ~ /^(s\.|pkg_pc)/)
			return
		rows++
		lab[rows] = label
		for (i = 1; i <= ng; i++)
			c[rows, i] = cell(g[i], m)
		if (length(label) > w)
			w = length(label)
	}
	BEGIN {
		ng = split(govs, g, " ")
		while ((getline l < names) > 0) {
			split(l, p, " ")
			sname[++nst] = p[1]
			label[p[1]] = p[2]
		}
	}
	{ mean[$1] = $3; sd[$1] = $4; if ($2 > rounds) rounds = $2 }
	END {
		row("package power W", "pkg_W")
		row("core power W", "core_W")
		split("2 3 6 7 8 9 10", pcs, " ")
		for (i = 1; i <= 7; i++)
			row("package C" pcs[i] " %", "pkg_pc" pcs[i] "_pct")
		row("local timer irqs/s", "loc_per_s")
		row("idle entries/s", "entries_per_s")
		row("idle misses %", "miss_pct")
		row("nets armed/s", "nets_armed_per_s")
		row("nets fired/s", "nets_fired_per_s")
		row("wakeup rtt p50 us", "rtt_p50_us")
		row("wakeup rtt p90 us", "rtt_p90_us")
		row("wakeup rtt p99 us", "rtt_p99_us")
		row("seconds", "secs")
		for (i = 1; i <= nst; i++) {
			s = sname[i]
			l = s " " label[s]
			row(l " entries/s", "s." s ".usage_per_s")
			row(l " time %", "s." s ".time_pct")
			row(l " above/s", "s." s ".above_per_s")
			row(l " below/s", "s." s ".below_per_s")
		}
		printf "Per governor: mean (spread) over %d round%s;", rounds,
			rounds == 1 ? "" : "s"
		print " spread: sample standard deviation\n"
		cw = 0
		for (i = 1; i <= ng; i++)
			if (length(g[i]) > cw)
				cw = length(g[i])
		for (r = 1; r <= rows; r++)
			for (i = 1; i <= ng; i++)
				if (length(c[r, i]) > cw)
					cw = length(c[r, i])
		line = sprintf("%-" w "s", "")
		for (i = 1; i <= ng; i++)
			line = line sprintf("  %-" cw "s", g[i])
		sub(/ +$/, "", line)
		print line
		for (r = 1; r <= rows; r++) {
			line = sprintf("%-" w "s", lab[r])
			for (i = 1; i <= ng; i++)
				line = line sprintf("  %-" cw "s", c[r, i])
			sub(/ +$/, "", line)
			print line
		}
	}'
}

# ab_csv DATA DIR: DIR/rounds.csv (round,governor,metric,value) and
# DIR/summary.csv (governor,metric,rounds,mean,spread).
ab_csv() {
	{
		echo "round,governor,metric,value"
		awk '{ print $1 "," $2 "," $3 "," $4 }' "$1"
	} >"$2/rounds.csv"
	{
		echo "governor,metric,rounds,mean,spread"
		awk '{ print $2 "|" $3, $4 }' "$1" | ab_stats |
			awk '{ sub(/\|/, ","); print $1 "," $2 "," $3 "," $4 }'
	} >"$2/summary.csv"
}

# ab_plot DIR GOVERNOR...: DIR/cpuidle-ab.png, the main figures of each
# governor relative to the first one's, with the spread as error bars.
# Prints one line saying what it did.
ab_plot() {
	_dir=$1
	shift
	if ! command -v gnuplot >/dev/null 2>&1; then
		echo "plot: skipped (no gnuplot)"
		return 0
	fi
	awk -F, -v govs="$*" '
	NR > 1 { mean[$1 "|" $2] = $4; sd[$1 "|" $2] = $5 }
	END {
		ng = split(govs, g, " ")
		nm = split("pkg_W core_W loc_per_s entries_per_s miss_pct " \
			   "nets_armed_per_s rtt_p50_us rtt_p99_us", m, " ")
		for (i = 1; i <= nm; i++) {
			base = mean[g[1] "|" m[i]]
			if (base == "" || base + 0 == 0)
				continue
			line = m[i]
			for (j = 1; j <= ng; j++) {
				k = g[j] "|" m[i]
				if (!(k in mean))
					break
				line = line sprintf(" %.4f %.4f", mean[k] / base, sd[k] / base)
			}
			if (j > ng)
				print line
		}
	}' "$_dir/summary.csv" >"$_dir/plot.dat"
	if [ ! -s "$_dir/plot.dat" ]; then
		echo "plot: skipped (no figure to plot)"
		return 0
	fi
	{
		echo 'set terminal pngcairo size 1000,450 noenhanced'
		echo "set output \"$_dir/cpuidle-ab.png\""
		echo 'set style data histogram'
		echo 'set style histogram errorbars gap 2 lw 1'
		echo 'set style fill solid 0.8'
		echo 'set xtics rotate by -30'
		echo "set title \"relative to $1 (mean over rounds, bars: spread)\""
		echo 'set key top left'
		printf 'plot '
		_i=2
		for _g in "$@"; do
			[ "$_i" = 2 ] || printf ', '
			printf '"%s" using %d:%d:xtic(1) title "%s"' \
				"$_dir/plot.dat" "$_i" $((_i + 1)) "$_g"
			_i=$((_i + 2))
		done
		echo
	} >"$_dir/plot.gp"
	if gnuplot "$_dir/plot.gp" 2>"$_dir/plot.err"; then
		rm -f "$_dir/plot.err"
		echo "plot: $_dir/cpuidle-ab.png"
	else
		echo "plot: gnuplot failed ($(head -n1 "$_dir/plot.err"))"
	fi
}

# ab_param_path NAME:PARAM=VALUE: the sysfs file of the module parameter.
ab_param_path() {
	_p=${1#*:}
	echo "${SYSROOT:-}/sys/module/${1%%:*}/parameters/${_p%%=*}"
}

# ab_put_params: write back every parameter of $ab_params ("FILE=VALUE"
# words) that differs from its value; fails if one cannot be.
ab_put_params() {
	_rc=0
	# shellcheck disable=SC2154 # set by cpuidle-ab.sh
	for _pv in $ab_params; do
		[ "$(cat "${_pv%=*}" 2>/dev/null)" = "${_pv##*=}" ] && continue
		echo "${_pv##*=}" 2>/dev/null >"${_pv%=*}" || _rc=1
	done
	return $_rc
}

# ab_pkg_parse: from the output of "turbostat --quiet --Summary --show
# idle" on stdin, "pkg_pcN_pct VALUE" for each package C-state column
# (Pkg%pcN, Pk%pcN) of the last summary row.
ab_pkg_parse() {
	awk -F'\t' '
	{
		pk = 0
		for (i = 1; i <= NF; i++)
			if ($i ~ /^Pk(g)?%pc[0-9]+$/)
				pk = 1
		if (pk) {
			n = NF
			for (i = 1; i <= NF; i++)
				name[i] = $i
			head = NR
			next
		}
		if (head && NR == head + 1 && $1 ~ /^[0-9. ]+$/)
			for (i = 1; i <= n; i++)
				val[i] = $i
	}
	END {
		for (i = 1; i <= n; i++)
			if (name[i] ~ /^Pk(g)?%pc[0-9]+$/ && val[i] ~ /^ *[0-9.]+ *$/) {
				k = name[i]
				sub(/^Pk(g)?%pc/, "", k)
				printf "pkg_pc%s_pct %.6f\n", k, val[i]
			}
	}'
}

# ab_pkg_perf_events: the perf events that give package C-state
# residency without turbostat: each cN-residency event of the cstate_pkg
# PMU and msr/tsc/ to divide by, comma-separated; nothing if the kernel
# has either PMU missing (no intel_cstate, not x86, a VM).
ab_pkg_perf_events() {
	[ -r "$AB_PMU/msr/events/tsc" ] || return 0
	_ev=
	for _e in "$AB_PMU"/cstate_pkg/events/c*-residency; do
		[ -r "$_e" ] || continue
		_ev="$_ev${_ev:+,}cstate_pkg/${_e##*/}/"
	done
	[ -z "$_ev" ] || echo "$_ev,msr/tsc/"
}

# ab_pkg_perf_cpus: one CPU a package, where cstate_pkg counts.
ab_pkg_perf_cpus() {
	cat "$AB_PMU/cstate_pkg/cpumask" 2>/dev/null
}

# ab_pkg_perf_parse: from the output of "perf stat -x, -C CPUS -e EVENTS"
# (EVENTS from ab_pkg_perf_events) on stdin, "pkg_pcN_pct VALUE" for each
# package C-state: its residency over the TSC cycles of the same CPUs,
# one a package, so that several packages average. Events perf could not
# count are left out; without a TSC count, nothing.
ab_pkg_perf_parse() {
	awk -F, '
	$3 ~ /^cstate_pkg\/c[0-9]+-residency\/?$/ && $1 ~ /^[0-9]+$/ {
		k = $3
		sub(/^cstate_pkg\/c/, "", k)
		sub(/-residency\/?$/, "", k)
		res[k] = $1
		order[++n] = k
	}
	$3 ~ /^msr\/tsc\/?$/ && $1 ~ /^[0-9]+$/ { tsc = $1 + 0 }
	END {
		if (tsc <= 0)
			exit
		for (i = 1; i <= n; i++)
			printf "pkg_pc%s_pct %.6f\n", order[i], 100 * res[order[i]] / tsc
	}'
}

# ab_json_str STRING: STRING as a JSON string, quotes included; control
# characters become blanks.
ab_json_str() {
	printf '%s' "$1" | tr '\n\t\r' '   ' | tr -d '\000-\037' |
		awk 'BEGIN { ORS = "" } {
			gsub(/\\/, "\\\\"); gsub(/"/, "\\\"")
			print (NR > 1 ? " " : "") $0
		} END { ORS = "\n" }' | { printf '"'; cat; printf '"'; }
}

# ab_meta: the machine as a JSON object: CPU model, kernel and command
# line, cpuidle driver and governor, CPU 0's state table, cpufreq
# governor, and $AB_DESCRIBE (the tool's version) and $AB_ARGS.
ab_meta() {
	_model=$(awk -F': *' '/^model name|^Hardware|^cpu model/ { print $2; exit }' \
		"${SYSROOT:-}/proc/cpuinfo" 2>/dev/null)
	_freq=$(cat "$AB_CPU/cpu0/cpufreq/scaling_governor" 2>/dev/null)
	printf '{\n  "tool": "cpuidle-ab",\n'
	printf '  "version": %s,\n' "$(ab_json_str "${AB_DESCRIBE:-unknown}")"
	printf '  "date": %s,\n' "$(ab_json_str "$(date -u +%Y-%m-%dT%H:%M:%SZ)")"
	printf '  "arguments": %s,\n' "$(ab_json_str "${AB_ARGS:-}")"
	printf '  "cpu_model": %s,\n' "$(ab_json_str "${_model:-unknown}")"
	printf '  "cpus_online": %s,\n' "$(ab_json_str "$(cat "$AB_CPU/online" 2>/dev/null)")"
	printf '  "kernel": %s,\n' "$(ab_json_str "$(uname -sr)")"
	printf '  "cmdline": %s,\n' \
		"$(ab_json_str "$(cat "${SYSROOT:-}/proc/cmdline" 2>/dev/null)")"
	printf '  "cpuidle_driver": %s,\n' \
		"$(ab_json_str "$(cat "$AB_CPUIDLE/current_driver" 2>/dev/null)")"
	printf '  "cpuidle_governor": %s,\n' \
		"$(ab_json_str "$(cat "$AB_CPUIDLE/current_governor" 2>/dev/null)")"
	printf '  "cpufreq_governor": %s,\n' "$(ab_json_str "${_freq:-none}")"
	printf '  "states": ['
	_sep=''
	for _d in "$AB_CPU"/cpu0/cpuidle/state[0-9]*; do
		[ -r "$_d/name" ] || continue
		printf '%s\n    {"state": %s, "name": %s, "latency_us": %s,' "$_sep" \
			"$(ab_json_str "${_d##*/}")" "$(ab_json_str "$(cat "$_d/name")")" \
			"$(ab_json_num "$(cat "$_d/latency" 2>/dev/null)")"
		printf ' "residency_us": %s, "disabled": %s}' \
			"$(ab_json_num "$(cat "$_d/residency" 2>/dev/null)")" \
			"$(ab_json_num "$(cat "$_d/disable" 2>/dev/null)")"
		_sep=,
	done
	printf '\n  ]\n}\n'
}

# ab_json_num VALUE: VALUE if it is a number, else null.
ab_json_num() {
	case "$1" in
	"" | *[!0-9.-]*) echo null ;;
	*) echo "$1" ;;
	esac
}

# ab_summary_json SUMMARY_CSV META_JSON: {"meta": ..., "governors":
# {GOVERNOR: {METRIC: {"rounds": N, "mean": X, "spread": S}}}}.
ab_summary_json() {
	printf '{\n"meta": '
	cat "$2"
	printf ',\n"governors": '
	ab_govs_json "$1" ""
	printf '\n}\n'
}

# ab_govs_json SUMMARY_CSV PAD: {GOVERNOR: {METRIC: {"rounds": N, "mean":
# X, "spread": S}}}, its lines after the first indented by PAD.
ab_govs_json() {
	printf '{'
	awk -F, -v pad="$2" 'NR > 1 {
		if ($1 != g) {
			printf "%s\n%s  \"%s\": {", (g == "" ? "" : "\n" pad "  },"), pad, $1
			g = $1
			sep = ""
		}
		printf "%s\n%s    \"%s\": {\"rounds\": %d, \"mean\": %s, \"spread\": %s}",
			sep, pad, $2, $3, $4, $5
		sep = ","
	}
	END { if (g != "") printf "\n%s  }", pad }' "$1"
	printf '\n%s}' "$2"
}

# ab_state_table: CPU 0's states, one line each: "stateN NAME: exit
# latency L us, target residency R us[, disabled]".
ab_state_table() {
	for _d in "$AB_CPU"/cpu0/cpuidle/state[0-9]*; do
		[ -r "$_d/name" ] || continue
		printf '%s %s: exit latency %s us, target residency %s us%s\n' \
			"${_d##*/}" "$(cat "$_d/name")" "$(cat "$_d/latency" 2>/dev/null)" \
			"$(cat "$_d/residency" 2>/dev/null)" \
			"$([ "$(cat "$_d/disable" 2>/dev/null)" != 1 ] || echo ', disabled')"
	done
}

# ab_report_file TABLE DIR: DIR/report.txt, what to post: the machine
# (from DIR/meta.json and DIR/state-table.txt), the summary rows of
# TABLE (as ab_report prints it), its per-state rows, and the plot's name.
ab_report_file() {
	_t=$1 _dir=$2
	{
		echo "cpuidle-ab report"
		echo
		ab_meta_lines "$_dir/meta.json"
		echo
		echo "Idle states of CPU 0"
		echo
		cat "$_dir/state-table.txt"
		echo
		echo "Summary"
		echo
		awk 'NR <= 3 || $1 !~ /^state[0-9]/' "$_t"
		echo
		echo "Per state"
		echo
		awk 'NR == 3 || $1 ~ /^state[0-9]/' "$_t"
		if [ -s "$_dir/cpuidle-ab.png" ]; then
			echo
			echo "plot: cpuidle-ab.png"
		fi
	} >"$_dir/report.txt"
}

# The ready set of workloads of the suite, in the order run; blockio only
# where a file or device is given.
AB_SUITE="idle pingpong-50us pingpong-500us pingpong-3ms timer-73hz timer-151hz \
timer-401hz burst blockio"

# ab_us_of TIME MAX: the microseconds of TIME ("Nus" or "Nms", N digits),
# if they are at most MAX; fails otherwise.
ab_us_of() {
	_v=${1%[um]s}
	case "$_v" in
	"" | *[!0-9]*) return 1 ;;
	esac
	[ ${#_v} -le 8 ] || return 1
	_v=$(echo "${1%[um]s}" | sed 's/^0*\(.\)/\1/')
	case "$1" in
	*ms) _v=$((_v * 1000)) ;;
	*us) ;;
	*) return 1 ;;
	esac
	[ "$_v" -le "$2" ] && echo "$_v"
}

# ab_workload_kind WORKLOAD: what runs it: "idle", "cmd", "load" (a
# cpuidle_load mode) or "blockio"; fails, printing nothing, for a name
# that is none of them:
#   idle, cmd, mix, burst
#   pingpong-Nus, pingpong-Nms   ping-pong between two CPUs, N apart
#   timer-Nhz                    periodic timer wakeups, N per second
#   blockio, blockio-Nus, -Nms   direct 4 KiB reads and synced writes of
#                                a file or device, N apart (1 ms)
ab_workload_kind() {
	case "$1" in
	idle | cmd) echo "$1" ;;
	mix | burst) echo load ;;
	pingpong-*)
		_us=$(ab_us_of "${1#pingpong-}" 10000000) && [ "$_us" -ge 1 ] &&
			echo load ;;
	timer-*hz)
		_hz=${1#timer-}
		_hz=${_hz%hz}
		case "$_hz" in
		"" | 0* | *[!0-9]*) return 1 ;;
		esac
		[ ${#_hz} -le 6 ] && [ "$_hz" -le 100000 ] && echo load ;;
	blockio) echo blockio ;;
	blockio-*) ab_us_of "${1#blockio-}" 10000000 >/dev/null && echo blockio ;;
	*) return 1 ;;
	esac
}

# ab_load_args WORKLOAD MSECS: the arguments of cpuidle_load that run the
# "load" WORKLOAD for MSECS milliseconds; a timer's period is the nearest
# whole microsecond.
ab_load_args() {
	case "$1" in
	mix | burst) echo "$1 $2" ;;
	pingpong-*) echo "pingpong $2 $(ab_us_of "${1#pingpong-}" 10000000)" ;;
	timer-*hz)
		_hz=${1#timer-}
		_hz=${_hz%hz}
		echo "timer $(((2000000 + _hz) / (2 * _hz))) $2" ;;
	*) return 1 ;;
	esac
}

# ab_blockio_think_us WORKLOAD: the microseconds between two I/O pairs of
# a blockio WORKLOAD.
ab_blockio_think_us() {
	case "$1" in
	blockio) echo 1000 ;;
	*) ab_us_of "${1#blockio-}" 10000000 ;;
	esac
}

# ab_dev_names DEV SYSDIR: the kernel names of block device DEV and of its
# partitions (the subdirectories of SYSDIR, its /sys/dev/block entry,
# that have a "partition" file), one line each.
ab_dev_names() {
	_r=$(readlink -f "$1" 2>/dev/null)
	echo "${_r##*/}"
	_r=$(readlink -f "$2" 2>/dev/null)
	[ -z "$_r" ] || echo "${_r##*/}"
	for _p in "$2"/*/partition; do
		[ -e "$_p" ] || continue
		_p=${_p%/partition}
		echo "${_p##*/}"
	done
}

# ab_blockdev_busy DEV: why block device DEV must not be written to, or
# nothing: it or one of its partitions is mounted (by device number or by
# name in /proc/self/mountinfo), is a swap area, or is held by another
# device (device mapper, md, a loop device on it).
ab_blockdev_busy() {
	_mm=$(stat -L -c '%t %T' "$1" 2>/dev/null)
	[ -n "$_mm" ] || { echo "cannot stat it"; return; }
	_mm=$(printf '%d:%d' "0x${_mm% *}" "0x${_mm#* }")
	_sysd=${SYSROOT:-}/sys/dev/block/$_mm
	_mms=" $_mm "
	for _p in "$_sysd"/*/partition; do
		[ ! -r "${_p%/partition}/dev" ] ||
			_mms="$_mms$(cat "${_p%/partition}/dev") "
	done
	_names=" $(ab_dev_names "$1" "$_sysd" | sort -u | tr '\n' ' ')"
	_mi=${SYSROOT:-}/proc/self/mountinfo
	if [ ! -r "$_mi" ]; then
		echo "cannot read $_mi to tell whether it is mounted"
		return
	fi
	while read -r _l; do
		set -f
		# shellcheck disable=SC2086
		set -- $_l
		set +f
		_dev=$3 _at=$5
		while [ $# -gt 0 ] && [ "$1" != - ]; do
			shift
		done
		_src=${3:-}
		case "$_src" in
		/dev/*) _src=$(readlink -f "$_src" 2>/dev/null || echo "$_src") ;;
		esac
		case "$_mms" in
		*" $_dev "*) echo "mounted on $_at (device $_dev)"; return ;;
		esac
		case "$_names" in
		*" ${_src##*/} "*)
			[ "${_src#/dev/}" = "$_src" ] ||
				{ echo "mounted on $_at ($_src)"; return; } ;;
		esac
	done <"$_mi"
	while read -r _s _rest; do
		[ "${_s#/dev/}" != "$_s" ] || continue
		_s=$(readlink -f "$_s" 2>/dev/null || echo "$_s")
		case "$_names" in
		*" ${_s##*/} "*) echo "a swap area ($_s)"; return ;;
		esac
	done <"${SYSROOT:-}/proc/swaps" 2>/dev/null
	for _h in "$_sysd"/holders/* "$_sysd"/*/holders/*; do
		[ ! -e "$_h" ] || { echo "held by ${_h##*/}"; return; }
	done
}

# ab_which PROGRAM: the first PROGRAM on PATH, by its path (so that a
# shell that prefers its own applets, as busybox sh may, runs that one),
# or PROGRAM itself.
ab_which() {
	_ifs=$IFS
	IFS=:
	for _d in $PATH; do
		if [ -n "$_d" ] && [ -f "$_d/$1" ] && [ -x "$_d/$1" ]; then
			IFS=$_ifs
			echo "$_d/$1"
			return
		fi
	done
	IFS=$_ifs
	echo "$1"
}

# ab_blockio PATH BLOCKS THINK_US STOP COUNT: until the file STOP exists,
# read a 4 KiB block at a pseudo-random place among the first BLOCKS of
# PATH with direct I/O, write it back in place, direct and synced (the
# contents stay as they were), and wait THINK_US; then write the number
# of I/Os made to COUNT. Fails at the first I/O that fails. dd is
# $AB_DD, the one on PATH by default.
ab_blockio() {
	_k=1 _n=0 _rc=0 _dd=${AB_DD:-$(ab_which dd)}
	_think=$(awk -v u="$3" 'BEGIN { printf "%.6f", u / 1e6 }')
	while [ ! -e "$4" ]; do
		_k=$(((_k * 1103515245 + 12345) % 2147483648))
		_b=$((_k % $2))
		if ! "$_dd" if="$1" of="$4.blk" bs=4096 count=1 skip="$_b" iflag=direct \
			2>"$4.err" ||
		   ! "$_dd" if="$4.blk" of="$1" bs=4096 count=1 seek="$_b" oflag=direct \
			conv=notrunc,fsync 2>"$4.err"; then
			echo "blockio: block $_b of $1: $(tail -n 1 "$4.err")"
			_rc=1
			break
		fi
		_n=$((_n + 2))
		[ "$3" = 0 ] || sleep "$_think"
	done
	echo "$_n" >"$5"
	return $_rc
}

# ab_meta_lines META_JSON: the string fields of META_JSON (as ab_meta
# writes it), "KEY VALUE" in two columns.
ab_meta_lines() {
	sed -n 's/^  "\([a-z_]*\)": "\(.*\)",\{0,1\}$/\1: \2/p' "$1" |
		sed 's/\\\(["\\]\)/\1/g' | awk '{
			k = $1; sub(/^[^ ]* /, "")
			printf "%-18s %s\n", k, $0
		}'
}

# The suite's figures: awk that reads DIR/WORKLOAD/summary.csv of every
# workload of wls into mean[WORKLOAD, GOVERNOR, METRIC] and sd[...], and
# finds the governor of fewest idle misses.
AB_SUITE_AWK='
function ab_suite_read(dir, wls,   i, f, l, p) {
	nw = split(wls, w, " ")
	for (i = 1; i <= nw; i++) {
		f = dir "/" w[i] "/summary.csv"
		while ((getline l < f) > 0) {
			split(l, p, ",")
			if (p[1] == "governor")
				continue
			mean[w[i], p[1], p[2]] = p[4]
			sd[w[i], p[1], p[2]] = p[5]
		}
		close(f)
	}
}
# The governor of the lowest mean idle-miss ratio of workload wl (the
# first given of those tied), "" if none has one; within is set to 1 if
# the next lowest mean is within the larger of their spreads.
function ab_fewest(wl,   i, best, next1, s) {
	best = ""; next1 = ""; within = 0
	for (i = 1; i <= ng; i++) {
		if (!((wl, g[i], "miss_pct") in mean))
			continue
		if (best == "" || mean[wl, g[i], "miss_pct"] < mean[wl, best, "miss_pct"]) {
			next1 = best
			best = g[i]
		} else if (next1 == "" ||
			   mean[wl, g[i], "miss_pct"] < mean[wl, next1, "miss_pct"]) {
			next1 = g[i]
		}
	}
	if (next1 != "") {
		s = sd[wl, best, "miss_pct"]
		if (sd[wl, next1, "miss_pct"] > s)
			s = sd[wl, next1, "miss_pct"]
		within = mean[wl, next1, "miss_pct"] - mean[wl, best, "miss_pct"] <= s
	}
	return best
}
'

# ab_suite_table DIR ROUNDS WORKLOADS GOVERNOR...: the suite's combined
# table: per workload (DIR/WORKLOAD/summary.csv), the governor of fewest
# idle misses, and per governor the mean (spread) of the idle misses,
# the package power (RAPL) and the wakeup latency's 99th percentile,
# and, for blockio, the I/O rate.
ab_suite_table() {
	_dir=$1 _rounds=$2 _wls=$3
	shift 3
	awk -v dir="$_dir" -v wls="$_wls" -v govs="$*" -v rounds="$_rounds" \
		"$AB_AWK$AB_SUITE_AWK"'
	function cell(wl, gv, m) {
		if (!((wl, gv, m) in mean))
			return "n/a"
		return ab_fmt(mean[wl, gv, m]) " (" ab_fmt(sd[wl, gv, m]) ")"
	}
	function row(a, b, label, m,   i, any) {
		for (i = 1; i <= ng; i++)
			if ((wl, g[i], m) in mean)
				any = 1
		if (!any && m == "io_per_s")
			return
		rows++
		c[rows, -1] = a; c[rows, 0] = b; c[rows, 1] = label
		for (i = 1; i <= ng; i++)
			c[rows, i + 1] = cell(wl, g[i], m)
	}
	BEGIN {
		ng = split(govs, g, " ")
		ab_suite_read(dir, wls)
		rows = 1
		c[1, -1] = "workload"; c[1, 0] = "fewest misses"; c[1, 1] = "figure"
		for (i = 1; i <= ng; i++)
			c[1, i + 1] = g[i]
		for (j = 1; j <= nw; j++) {
			wl = w[j]
			best = ab_fewest(wl)
			if (best == "")
				best = "n/a"
			else if (within)
				best = best "*"
			row(wl, best, "idle misses %", "miss_pct")
			row("", "", "package power W", "pkg_W")
			row("", "", "wakeup rtt p99 us", "rtt_p99_us")
			row("", "", "block I/O per s", "io_per_s")
		}
		printf "Suite: per workload and governor, mean (spread) over %d round%s\n",
			rounds, rounds == 1 ? "" : "s"
		print "*: the next fewest misses are within the spread\n"
		for (k = -1; k <= ng + 1; k++)
			for (r = 1; r <= rows; r++)
				if (length(c[r, k]) > cw[k])
					cw[k] = length(c[r, k])
		for (r = 1; r <= rows; r++) {
			line = ""
			for (k = -1; k <= ng + 1; k++)
				line = line sprintf("%-" cw[k] "s  ", c[r, k])
			sub(/ +$/, "", line)
			print line
		}
	}'
}

# ab_suite_json DIR WORKLOADS GOVERNOR...: the suite's summary as JSON:
# {"meta": DIR/meta.json, "workloads": {WORKLOAD: {"fewest_misses": G,
# "next_within_spread": B, "governors": as in summary.json}}}.
ab_suite_json() {
	_dir=$1 _wls=$2
	shift 2
	printf '{\n"meta": '
	cat "$_dir/meta.json"
	printf ',\n"workloads": {'
	_sep=''
	for _w in $_wls; do
		awk -v dir="$_dir" -v wls="$_w" -v govs="$*" -v sep="$_sep" \
			"$AB_SUITE_AWK"'
		BEGIN {
			ng = split(govs, g, " ")
			ab_suite_read(dir, wls)
			best = ab_fewest(wls)
			printf "%s\n  \"%s\": {\n    \"fewest_misses\": %s,\n", sep, wls,
				best == "" ? "null" : "\"" best "\""
			printf "    \"next_within_spread\": %s,\n",
				within ? "true" : "false"
			printf "    \"governors\": "
		}'
		ab_govs_json "$_dir/$_w/summary.csv" "    "
		printf '\n  }'
		_sep=,
	done
	printf '\n}\n}\n'
}

# ab_suite_report DIR WORKLOADS: DIR/report.txt, what to post of a suite:
# the machine, CPU 0's idle states, the combined summary
# (DIR/suite-summary.txt), and where each workload's own report is.
ab_suite_report() {
	{
		echo "cpuidle-ab suite report"
		echo
		ab_meta_lines "$1/meta.json"
		echo
		echo "Idle states of CPU 0"
		echo
		cat "$1/state-table.txt"
		echo
		cat "$1/suite-summary.txt"
		echo
		echo "Per workload: the full table and the per-state table in"
		for _w in $2; do
			echo "  $_w/report.txt"
		done
	} >"$1/report.txt"
}
