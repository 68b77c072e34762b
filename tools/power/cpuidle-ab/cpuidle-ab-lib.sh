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
	printf ',\n"governors": {'
	awk -F, 'NR > 1 {
		if ($1 != g) {
			printf "%s\n  \"%s\": {", (g == "" ? "" : "\n  },"), $1
			g = $1
			sep = ""
		}
		printf "%s\n    \"%s\": {\"rounds\": %d, \"mean\": %s, \"spread\": %s}",
			sep, $2, $3, $4, $5
		sep = ","
	}
	END { if (g != "") printf "\n  }" }' "$1"
	printf '\n}\n}\n'
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
		sed -n 's/^  "\([a-z_]*\)": "\(.*\)",\{0,1\}$/\1: \2/p' "$_dir/meta.json" |
			sed 's/\\\(["\\]\)/\1/g' | awk '{
				k = $1; sub(/^[^ ]* /, "")
				printf "%-18s %s\n", k, $0
			}'
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
