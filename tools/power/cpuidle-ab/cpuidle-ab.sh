#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cpuidle-ab: compare cpuidle governors on this machine. Runs a workload
# under each governor in turn, round after round (A B C A B C ...), and
# reports per governor the mean and spread over the rounds of: RAPL
# package and core power, package C-state residency (turbostat, or perf's
# cstate_pkg counters), local timer interrupts, idle entries and misses
# per state, safety nets armed and fired, and the round-trip time of a
# pipe ping-pong between two CPUs.
# Writes a CSV, a JSON record of the machine and of the summary, and a
# plot with gnuplot.
# The governor found at the start is restored at the end, also on Ctrl-C.
#
# Run as root; POSIX sh, so that it also runs under busybox. See
# README.rst, or the -h option.

LC_ALL=C
export LC_ALL
AB_LIB=$(cd "$(dirname "$0")" && pwd)/cpuidle-ab-lib.sh
# shellcheck source-path=SCRIPTDIR source=cpuidle-ab-lib.sh
. "$AB_LIB"

NET_EVENT=${CPUIDLE_AB_NET_EVENT:-timer:tick_idle_net}

usage() {
	cat <<EOF
usage: ${0##*/} [-g GOVERNORS] [-r ROUNDS] [-w WORKLOAD] [-t SECONDS]
                     [-D PATH] [-L CPUIDLE_LOAD] [-n ROUND_TRIPS]
                     [-G MICROSECONDS] [-s SECONDS] [-o DIR] [--suite]
                     [--json] [--report] [-- COMMAND [ARG...]]
  -g  governors to compare, comma-separated (default horizon,menu,teo);
      NAME:PARAM=VALUE is governor NAME with its module parameter PARAM
      (/sys/module/NAME/parameters/PARAM) set to VALUE for its runs, as in
      horizon:safety_net=N; the parameter is put back after them
  -r  rounds; each runs the workload once under every governor (default 3)
  -w  workload: idle (nothing runs), mix (cpuidle_load mix: periodic
      timers, pipe ping-pong between CPUs, bursts of short sleeps),
      pingpong-Nus or -Nms (cpuidle_load pingpong, N think time between
      round trips), timer-Nhz (cpuidle_load timer, N wakeups per second),
      burst (cpuidle_load burst), blockio or blockio-Nus/-Nms (direct
      4 KiB reads of PATH, each written back in place, synced, N apart;
      1 ms by default; needs -D), cmd (COMMAND, the default when one is
      given), or suite (as --suite)
  --suite   run the ready set in turn, each in a subdirectory of -o:
$(echo "$AB_SUITE" | fold -s -w 64 | sed 's/ *$//; s/^/            /')
            (blockio where -D is given); then a combined summary
  -t  seconds of each run but a command's (default 10)
  -D  the file or block device of blockio, read and written back in
      place; a file that does not exist is made (16 MiB) and removed at
      the end; a block device must be neither mounted nor in use
  -L  the cpuidle_load program of tools/testing/selftests/cpuidle
      (default: \$CPUIDLE_LOAD, the one built in this kernel tree, or PATH)
  -n  pipe ping-pong round trips after each run, for the wakeup latency
      (default 500; 0: none)
  -G  microseconds between two round trips (default 2000)
  -s  seconds to let a governor settle before each run (default 1)
  -o  directory for the CSV files and the plot (default ./cpuidle-ab-DATE)
  --json    print the summary as JSON (also written to summary.json)
  --report  write report.txt: the machine, the summary table, the
            per-state table and the plot, what to post with a result
  -h  this help (also --help)
Environment: CPUIDLE_AB_NET_EVENT (default timer:tick_idle_net),
CPUIDLE_LOAD, SYSROOT (a fake root of /sys and /proc, for tests).
EOF
}

die() {
	echo "cpuidle-ab: error: $*" >&2
	exit 1
}

# Bad options: say so and exit before anything is changed.
bad() {
	echo "cpuidle-ab: $*" >&2
	echo "cpuidle-ab: run '${0##*/} -h' for the options" >&2
	exit 2
}

is_uint() {
	case "$1" in
	"" | *[!0-9]*) return 1 ;;
	esac
	[ ${#1} -le 9 ]
}

# A number of seconds: digits, at most one point, a digit on each side.
is_secs() {
	case "$1" in
	"" | *[!0-9.]* | .* | *. | *.*.*) return 1 ;;
	esac
	[ ${#1} -le 12 ]
}

# getopts knows no long option: look for --help where getopts looks for
# options, that is, up to "--" or the first operand, past option values.
# --json and --report are taken out of the arguments here, the rest
# left in order for getopts.
optstring=g:r:w:t:D:L:n:G:s:o:h
AB_ARGS="$*"
value=0 opts=1 json=0 report=0 suite=0 nargs=$#
while [ "$nargs" -gt 0 ]; do
	a=$1
	shift
	nargs=$((nargs - 1))
	if [ "$opts" = 1 ] && [ "$value" = 1 ]; then
		value=0
	elif [ "$opts" = 1 ]; then
		case "$a" in
		--help) usage; exit 0 ;;
		--json) json=1; continue ;;
		--report) report=1; continue ;;
		--suite) suite=1; continue ;;
		- | --) opts=0 ;;
		--*) bad "unknown option $a" ;;
		-?)
			case "$optstring" in
			*"${a#-}:"*) value=1 ;;
			esac ;;
		-*) ;;
		*) opts=0 ;;
		esac
	fi
	set -- "$@" "$a"
done

governors="horizon menu teo" rounds=3 workload='' secs=10
load=${CPUIDLE_LOAD:-} pings=500 gap_us=2000 settle=1 outdir="" dev=""
while getopts ":$optstring" opt; do
	case "$opt" in
	g) governors=$(echo "$OPTARG" | tr ',' ' ') ;;
	r) rounds=$OPTARG ;;
	w) workload=$OPTARG ;;
	t) secs=$OPTARG ;;
	D) dev=$OPTARG ;;
	L) load=$OPTARG ;;
	n) pings=$OPTARG ;;
	G) gap_us=$OPTARG ;;
	s) settle=$OPTARG ;;
	o) outdir=$OPTARG ;;
	h) usage; exit 0 ;;
	:) bad "-$OPTARG needs a value" ;;
	*) bad "unknown option -$OPTARG" ;;
	esac
done
shift $((OPTIND - 1))

if ! { is_uint "$rounds" && [ "$rounds" -ge 1 ] && [ "$rounds" -le 1000 ]; }; then
	bad "-r: rounds must be 1 to 1000, not '$rounds'"
fi
if ! { is_secs "$secs" && awk -v s="$secs" 'BEGIN { exit !(s > 0) }'; }; then
	bad "-t: seconds must be a number above 0, not '$secs'"
fi
is_secs "$settle" || bad "-s: seconds must be a number, not '$settle'"
if ! { is_uint "$pings" && [ "$pings" -le 1000000 ]; }; then
	bad "-n: round trips must be 0 to 1000000, not '$pings'"
fi
if ! { is_uint "$gap_us" && [ "$gap_us" -ge 1 ] && [ "$gap_us" -le 10000000 ]; }; then
	bad "-G: microseconds must be 1 to 10000000, not '$gap_us'"
fi
[ -n "$(echo "$governors" | tr -d ' \t')" ] || bad "-g: no governor"
seen=" "
for g in $governors; do
	name=${g%%:*}
	case "$name" in
	"" | *[!A-Za-z0-9_-]*) bad "-g: bad governor name '$name'" ;;
	esac
	[ ${#name} -le 15 ] || bad "-g: governor name '$name' is too long"
	if [ "$name" != "$g" ]; then
		case "${g#*:}" in
		[A-Za-z0-9_]*=[A-Za-z0-9_]*) ;;
		*) bad "-g: '$g': NAME:PARAM=VALUE expected" ;;
		esac
		case "${g#*:}" in
		*[!A-Za-z0-9_=]* | *=*=*) bad "-g: '$g': NAME:PARAM=VALUE expected" ;;
		esac
	fi
	case "$seen" in
	*" $g "*) bad "-g: governor '$g' given twice" ;;
	esac
	seen="$seen$g "
done
if [ "$suite" = 1 ]; then
	case "$workload" in
	"" | suite) workload=suite ;;
	*) bad "--suite runs its own workloads: no -w $workload with it" ;;
	esac
fi
if [ -z "$workload" ]; then
	workload=idle
	[ $# -eq 0 ] || workload=cmd
fi
# The workloads to run: one, or the suite's.
case "$workload" in
cmd)
	[ $# -gt 0 ] || bad "-w cmd needs a command after --"
	wls=cmd ;;
suite)
	[ $# -eq 0 ] || bad "the suite takes no command"
	wls=$AB_SUITE
	[ -n "$dev" ] || wls=$(echo "$wls" | sed 's/ blockio$//') ;;
*)
	ab_workload_kind "$workload" >/dev/null ||
		bad "-w: unknown workload '$workload' (idle, mix, burst," \
		    "pingpong-Nus, pingpong-Nms, timer-Nhz, blockio[-Nus|-Nms], cmd" \
		    "or suite)"
	[ $# -eq 0 ] || bad "-w $workload takes no command (use -w cmd)"
	wls=$workload ;;
esac
need_load=0 need_dev=0
for w in $wls; do
	case "$(ab_workload_kind "$w")" in
	load) need_load=1 ;;
	blockio) need_dev=1 ;;
	esac
done
if [ "$need_load" = 1 ]; then
	if [ -z "$load" ]; then
		top=$(cd "$(dirname "$0")/../../.." && pwd)
		for l in "$top/tools/testing/selftests/cpuidle/cpuidle_load" \
			 /kselftest/cpuidle/cpuidle_load \
			 "$(command -v cpuidle_load 2>/dev/null)"; do
			if [ -n "$l" ] && [ -x "$l" ]; then
				load=$l
				break
			fi
		done
	fi
	if [ -z "$load" ]; then
		bad "-w $workload needs cpuidle_load: build it with" \
		    "'make -C tools/testing/selftests/cpuidle' and give -L PATH"
	fi
	[ -x "$load" ] || bad "-L: '$load' is not an executable program"
fi
msecs=$(awk -v s="$secs" 'BEGIN { printf "%.0f", s * 1000 }')
[ "$workload" = cmd ] || [ "$msecs" -ge 1 ] || bad "-t: a run lasts at least 1 ms"
# blockio's file or device: named by the user, never guessed; a block
# device in use is refused. Nothing is written before the run.
dev_new=0 dev_blocks=0
if [ "$need_dev" = 0 ]; then
	[ -z "$dev" ] || bad "-D is for -w blockio and the suite only"
elif [ -z "$dev" ]; then
	bad "-w $workload needs -D PATH: a file, or a block device that is not" \
	    "mounted, which it reads and writes back in place"
elif [ -b "$dev" ]; then
	why=$(ab_blockdev_busy "$dev")
	[ -z "$why" ] || bad "-D: will not write to $dev: $why"
	{ [ -r "$dev" ] && [ -w "$dev" ]; } ||
		bad "-D: $dev cannot be read and written (not root?)"
	mm=$(stat -L -c '%t %T' "$dev")
	mm=$(printf '%d:%d' "0x${mm% *}" "0x${mm#* }")
	dev_blocks=$(($(cat "${SYSROOT:-}/sys/dev/block/$mm/size" 2>/dev/null || echo 0) / 8))
elif [ -f "$dev" ]; then
	{ [ -r "$dev" ] && [ -w "$dev" ]; } || bad "-D: $dev cannot be read and written"
	dev_blocks=$(($(wc -c <"$dev") / 4096))
elif [ -e "$dev" ] || [ -L "$dev" ]; then
	bad "-D: $dev is neither a regular file nor a block device"
elif [ ! -d "$(dirname "$dev")" ] || [ ! -w "$(dirname "$dev")" ]; then
	bad "-D: $dev does not exist, and cannot be made in $(dirname "$dev")"
else
	dev_new=1 dev_blocks=4096
fi
if [ "$need_dev" = 1 ]; then
	[ "$dev_blocks" -ge 1 ] || bad "-D: $dev holds less than one 4 KiB block"
	[ "$dev_blocks" -le 262144 ] || dev_blocks=262144
	AB_DD=$(ab_which dd)
	if [ "$dev_new" = 0 ] && ! "$AB_DD" if="$dev" of=/dev/null bs=4096 count=1 \
		iflag=direct 2>/dev/null; then
		bad "-D: $dev cannot be read with direct I/O (O_DIRECT)"
	fi
fi

# What this machine has.
[ -r "$AB_CPUIDLE/current_governor" ] ||
	die "no cpuidle governor here ($AB_CPUIDLE/current_governor missing)"
driver=$(cat "$AB_CPUIDLE/current_driver" 2>/dev/null)
[ "$driver" != none ] || die "no cpuidle driver (current_driver: none)"
orig=$(cat "$AB_CPUIDLE/current_governor")
[ -n "$orig" ] || die "cannot read the current governor"
avail=$(cat "$AB_CPUIDLE/available_governors" 2>/dev/null)
cpus=$(ab_cpu_list "$(cat "$AB_CPU/online" 2>/dev/null || echo 0)")
ncpus=$(echo "$cpus" | wc -w)

echo "cpuidle-ab: $(uname -sr), $ncpus CPUs online," \
	"cpuidle driver ${driver:-unknown}, governor $orig"
[ "$(id -u)" = 0 ] ||
	echo "not root: the governor cannot be switched, nor RAPL energy read"
govs=
for g in $governors; do
	case " $avail " in
	*" ${g%%:*} "*) ;;
	*)
		echo "governor ${g%%:*}: not available (available: $avail); left out"
		continue
		;;
	esac
	if [ "${g%%:*}" != "$g" ]; then
		prm=$(ab_param_path "$g")
		if [ ! -r "$prm" ]; then
			echo "$g: no parameter $prm; left out"
			continue
		fi
	fi
	govs="$govs $g"
done
set -f
# shellcheck disable=SC2086
set -- $govs -- "$@"
set +f
[ "$1" != -- ] || die "none of the governors ($governors) is available"
govs=
while [ "$1" != -- ]; do
	govs="$govs${govs:+ }$1"
	shift
done
shift
# The parameters the variants set, each with its value now, to put back.
ab_params=
for g in $govs; do
	[ "$g" = "$orig" ] || [ -w "$AB_CPUIDLE/current_governor" ] ||
		die "cannot select governor ${g%%:*}:" \
		    "$AB_CPUIDLE/current_governor is not writable (not root?)"
	[ "${g%%:*}" != "$g" ] || continue
	prm=$(ab_param_path "$g")
	[ -w "$prm" ] || die "cannot set $prm: not writable (not root?)"
	case " $ab_params " in
	*" $prm="*) ;;
	*) ab_params="$ab_params $prm=$(cat "$prm")" ;;
	esac
done
[ ! -r "${SYSROOT:-}/sys/module/horizon/parameters/safety_net" ] ||
	echo "horizon safety_net: $(cat "${SYSROOT:-}/sys/module/horizon/parameters/safety_net")"

AB_RAPL=1
if [ -z "$(ab_rapl_zones)" ]; then
	AB_RAPL=0
	why="no RAPL zone under $AB_POWERCAP"
	for z in "$AB_POWERCAP"/*rapl*:*; do
		[ ! -e "$z" ] || why="energy_uj cannot be read: not root?"
	done
	echo "RAPL: not available ($why)"
fi
AB_LOC=1
if ! grep -q '^ *LOC:' "$AB_INTERRUPTS" 2>/dev/null; then
	AB_LOC=0
	echo "local timer interrupts: not available (no LOC line in $AB_INTERRUPTS)"
fi

# Package C-states over each run: turbostat's summary where it works
# (AB_PKG=1), otherwise perf's cstate_pkg counters over the TSC (AB_PKG=2).
AB_PKG=0
if ! command -v turbostat >/dev/null 2>&1; then
	pkg_why="no turbostat"
elif [ -z "$(turbostat --quiet --Summary --show idle -- true 2>/dev/null |
	     ab_pkg_parse)" ]; then
	pkg_why="turbostat reports none: $(turbostat --quiet --Summary --show idle \
		-- true 2>&1 | head -n 1)"
else
	AB_PKG=1
fi
if [ "$AB_PKG" = 0 ]; then
	AB_PKG_EVENTS=$(ab_pkg_perf_events)
	AB_PKG_CPUS=$(ab_pkg_perf_cpus)
	if [ -z "$AB_PKG_EVENTS" ] || [ -z "$AB_PKG_CPUS" ]; then
		pkg_why="$pkg_why; no perf cstate_pkg PMU"
	elif ! command -v perf >/dev/null 2>&1; then
		pkg_why="$pkg_why; no perf for the cstate_pkg PMU"
	else
		# perf stat writes its counts to stderr; one trial run.
		pkg_out=$(perf stat -x, -C "$AB_PKG_CPUS" -e "$AB_PKG_EVENTS" -- true 2>&1)
		if [ -n "$(printf '%s\n' "$pkg_out" | ab_pkg_perf_parse)" ]; then
			AB_PKG=2
		else
			pkg_why="$pkg_why; perf counts none: $(printf '%s\n' "$pkg_out" |
				head -n 1)"
		fi
	fi
	if [ "$AB_PKG" = 2 ]; then
		echo "package C-states: perf cstate_pkg (no turbostat: $pkg_why)"
	else
		echo "package C-states: not available ($pkg_why)"
	fi
fi
AB_DESCRIBE=$(git -C "$(dirname "$0")" describe --always --dirty 2>/dev/null ||
	echo "not in a git tree")

ab_tmp=$(mktemp -d) || die "mktemp failed"
ab_inst='' ab_pids='' ab_changed=0 pkg_pid='' dev_made=0

# Restore what was found: the governor, tracefs; end what was started.
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	st=$?
	trap '' INT TERM HUP
	for p in $ab_pids ${pkg_pid:-}; do
		kill "$p" 2>/dev/null
	done
	if [ -n "$ab_inst" ]; then
		echo 0 >"$ab_inst/tracing_on"
		rmdir "$ab_inst"
	fi 2>/dev/null
	if ! ab_put_params; then
		echo "cpuidle-ab: error: could not put back$ab_params" >&2
		st=1
	fi
	if [ "$ab_changed" = 1 ]; then
		if [ "$(cat "$AB_CPUIDLE/current_governor")" = "$orig" ] ||
		   { echo "$orig" >"$AB_CPUIDLE/current_governor" &&
		     [ "$(cat "$AB_CPUIDLE/current_governor")" = "$orig" ]; }; then
			echo "governor restored: $orig"
		else
			echo "cpuidle-ab: error: could not restore governor $orig" >&2
			st=1
		fi
	fi 2>/dev/null
	[ "$dev_made" = 0 ] || rm -f "$dev"
	rm -rf "$ab_tmp"
	exit "$st"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# Safety nets: a tracefs instance of our own, so that the user's tracing
# is left alone; the trace clock is CLOCK_MONOTONIC, like the nets' expiry.
if [ -z "$AB_TRACEFS" ]; then
	echo "nets: not available (no tracefs at /sys/kernel/tracing: not" \
		"mounted, or not root)"
elif [ ! -d "$AB_TRACEFS/events/${NET_EVENT%%:*}/${NET_EVENT#*:}" ]; then
	echo "nets: not available (no tracefs event $NET_EVENT)"
elif ! mkdir "$AB_TRACEFS/instances/cpuidle-ab.$$" 2>/dev/null; then
	echo "nets: not available (cannot create a tracefs instance)"
else
	ab_inst=$AB_TRACEFS/instances/cpuidle-ab.$$
	{
		echo 0 >"$ab_inst/tracing_on"
		echo mono >"$ab_inst/trace_clock"
		echo 4096 >"$ab_inst/buffer_size_kb"
	} 2>/dev/null
	for e in "$NET_EVENT" timer:hrtimer_expire_entry power:cpu_idle \
		 irq_vectors:local_timer_entry; do
		d=$ab_inst/events/${e%%:*}/${e#*:}
		[ ! -d "$d" ] || echo 1 2>/dev/null >"$d/enable"
	done
	if [ ! -d "$ab_inst/events" ] ||
	   [ "$(cat "$ab_inst/events/${NET_EVENT%%:*}/${NET_EVENT#*:}/enable" \
		2>/dev/null)" != 1 ]; then
		echo "nets: not available (cannot enable $NET_EVENT)"
		rmdir "$ab_inst" 2>/dev/null
		ab_inst=
	fi
fi

# The wakeup latency: a pipe ping-pong between the first two CPUs, run by
# a shell that has $EPOCHREALTIME.
rtt_sh='' pin_ping='' pin_pong=''
if [ "$pings" -gt 0 ]; then
	rtt_sh=$(ab_rtt_shell)
	if [ "$ncpus" -lt 2 ]; then
		echo "wakeup latency: not available (one CPU online)"
		rtt_sh=
	elif [ -z "$rtt_sh" ]; then
		echo "wakeup latency: not available (needs bash or busybox sh)"
	elif ! mkfifo "$ab_tmp/ping" "$ab_tmp/pong" "$ab_tmp/idle"; then
		echo "wakeup latency: not available (mkfifo failed)"
		rtt_sh=
	elif command -v taskset >/dev/null 2>&1; then
		pin_ping="taskset -c $(echo "$cpus" | cut -d' ' -f1)"
		pin_pong="taskset -c $(echo "$cpus" | cut -d' ' -f2)"
	else
		echo "wakeup latency: CPUs not pinned (no taskset)"
	fi
fi

# blockio's file, made where it did not exist: 16 MiB, written through
# (not sparse), removed at the end.
if [ "$dev_new" = 1 ]; then
	dev_made=1
	"$AB_DD" if=/dev/zero of="$dev" bs=1048576 count=16 2>/dev/null ||
		die "cannot make $dev"
	"$AB_DD" if="$dev" of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null ||
		die "-D: $dev cannot be read with direct I/O (O_DIRECT)"
fi

# The output directory, once the options are known to be good; with the
# suite, a subdirectory for each workload.
[ -n "$outdir" ] || outdir=cpuidle-ab-$(date +%Y%m%d-%H%M%S)
mkdir -p "$outdir" || die "cannot create $outdir"
ab_meta >"$ab_tmp/meta.json"
for w in $wls; do
	d=$outdir
	[ "$workload" != suite ] || d=$outdir/$w
	mkdir -p "$d" || die "cannot create $d"
	[ "$w" = idle ] || : >"$d/command.log"
	cp "$ab_tmp/meta.json" "$d/meta.json"
	ab_state_table >"$d/state-table.txt"
done
if [ "$workload" = suite ]; then
	cp "$ab_tmp/meta.json" "$outdir/meta.json"
	ab_state_table >"$outdir/state-table.txt"
fi
# select_governor NAME[:PARAM=VALUE]: put back the parameters of the
# variants, write NAME and the variant's parameter, and check that they
# took.
select_governor() {
	ab_put_params || return 1
	if [ "${1%%:*}" != "$1" ]; then
		echo "${1#*=}" 2>/dev/null >"$(ab_param_path "$1")" || return 1
	fi
	[ "$(cat "$AB_CPUIDLE/current_governor")" != "${1%%:*}" ] || return 0
	ab_changed=1
	echo "${1%%:*}" 2>/dev/null >"$AB_CPUIDLE/current_governor" &&
		[ "$(cat "$AB_CPUIDLE/current_governor")" = "${1%%:*}" ]
}

# run_workload WORKLOAD DIR [COMMAND...]: in the background, so that a
# signal is taken at once; cleanup() ends it. Output to DIR/command.log.
run_workload() {
	_wl=$1 _log=$2/command.log
	shift 2
	case "$(ab_workload_kind "$_wl")" in
	idle) sleep "$secs" & ;;
	cmd) "$@" >>"$_log" 2>&1 & ;;
	load)
		# shellcheck disable=SC2046
		"$load" $(ab_load_args "$_wl" "$msecs") >>"$_log" 2>&1 & ;;
	blockio)
		rm -f "$ab_tmp/stop"
		ab_blockio "$dev" "$dev_blocks" "$(ab_blockio_think_us "$_wl")" \
			"$ab_tmp/stop" "$ab_tmp/ios" >>"$_log" 2>&1 &
		ab_pids=$!
		sleep "$secs" &
		ab_pids="$ab_pids $!"
		wait $!
		: >"$ab_tmp/stop"
		;;
	esac
	ab_pids=${ab_pids:-$!}
	wait "${ab_pids%% *}"
	wl_rc=$?
	ab_pids=
	return $wl_rc
}

# pkg_start, pkg_stop: turbostat's summary (or perf's counts) of the run
# in $ab_tmp/pkg;
# its command waits on a FIFO of its own, which pkg_stop writes to.
pkg_start() {
	[ "$AB_PKG" != 0 ] || return 0
	rm -f "$ab_tmp/pkgfifo" "$ab_tmp/pkg"
	mkfifo "$ab_tmp/pkgfifo" || return 0
	# shellcheck disable=SC2016
	if [ "$AB_PKG" = 1 ]; then
		turbostat --quiet --Summary --show idle -o "$ab_tmp/pkg" -- \
			sh -c 'read -r x <"$1"' sh "$ab_tmp/pkgfifo" 2>/dev/null &
	else
		perf stat -x, -o "$ab_tmp/pkg" -C "$AB_PKG_CPUS" -e "$AB_PKG_EVENTS" -- \
			sh -c 'read -r x <"$1"' sh "$ab_tmp/pkgfifo" 2>/dev/null &
	fi
	pkg_pid=$!
}

pkg_stop() {
	[ "$AB_PKG" != 0 ] || return 0
	# Opened read-write: never blocks, even if turbostat has gone.
	echo x 1<>"$ab_tmp/pkgfifo"
	wait "$pkg_pid"
	pkg_pid=
	[ -s "$ab_tmp/pkg" ] || : >"$ab_tmp/pkg"
}

# run_rtt: "rtt_p50_us VALUE" ... from the ping-pong.
run_rtt() {
	gap=$(awk -v u="$gap_us" 'BEGIN { printf "%.6f", u / 1e6 }')
	# shellcheck disable=SC2016,SC2086
	$pin_pong $rtt_sh -c '. "$1"; ab_rtt_pong "$2" "$3"' sh "$AB_LIB" \
		"$ab_tmp/ping" "$ab_tmp/pong" &
	ab_pids=$!
	# shellcheck disable=SC2016,SC2086
	$pin_ping $rtt_sh -c '. "$1"; ab_rtt_ping "$2" "$3" "$4" "$5" "$6"' \
		sh "$AB_LIB" "$ab_tmp/ping" "$ab_tmp/pong" "$ab_tmp/idle" \
		"$pings" "$gap" >"$ab_tmp/rtt" &
	ab_pids="$ab_pids $!"
	wait $!
	# shellcheck disable=SC2086
	kill $ab_pids 2>/dev/null
	ab_pids=
	ab_rtt_us <"$ab_tmp/rtt" | ab_percentiles 50 90 99 |
		awk '$1 != "-" {
			print "rtt_p50_us", $1; print "rtt_p90_us", $2
			print "rtt_p99_us", $3
		}'
}

# run_set WORKLOAD DIR [COMMAND...]: the rounds of WORKLOAD under every
# governor, and their table, CSV, plot and JSON in DIR.
run_set() {
	wl=$1 dir=$2
	shift 2
	case "$(ab_workload_kind "$wl")" in
	idle) what="idle for $secs s" ;;
	load) what="$load $(ab_load_args "$wl" "$msecs")" ;;
	blockio) what="$wl on $dev for $secs s" ;;
	cmd) what="'$*'" ;;
	esac
	echo "governors $govs; rounds: $rounds, interleaved, each $what;" \
		"output in $dir"
	: >"$ab_tmp/data"
	while read -r round gov <&3; do
		run_round "$wl" "$dir" "$@"
	done 3<"$ab_tmp/schedule"
	echo
	# shellcheck disable=SC2086
	ab_report "$ab_tmp/data" "$ab_tmp/names" $govs | tee "$dir/table.txt"
	ab_csv "$ab_tmp/data" "$dir"
	cp "$ab_tmp/names" "$dir/states.txt"
	echo
	echo "CSV: $dir/rounds.csv (every round), $dir/summary.csv"
	# shellcheck disable=SC2086
	ab_plot "$dir" $govs
	ab_summary_json "$dir/summary.csv" "$dir/meta.json" >"$dir/summary.json"
	echo "machine: $dir/meta.json; summary as JSON: $dir/summary.json"
	if [ "$report" = 1 ]; then
		ab_report_file "$dir/table.txt" "$dir"
		echo "report: $dir/report.txt"
	fi
}

# run_round WORKLOAD DIR [COMMAND...]: one run of round $round under
# governor $gov, its figures added to $ab_tmp/data.
run_round() {
	select_governor "$gov" || die "cannot select governor $gov"
	sleep "$settle"
	if [ -n "$ab_inst" ]; then
		echo >"$ab_inst/trace"
		echo 1 >"$ab_inst/tracing_on"
	fi
	rm -f "$ab_tmp/ios"
	pkg_start
	ab_snapshot "$ab_tmp/before"
	run_workload "$@"
	wrc=$?
	ab_snapshot "$ab_tmp/after"
	pkg_stop
	if [ "$wrc" != 0 ]; then
		echo "round $round, $gov: the workload exited with status $wrc"
		rc=1
	fi
	ab_delta "$ab_tmp/before" "$ab_tmp/after" "$ncpus" >"$ab_tmp/m"
	case $AB_PKG in
	1) ab_pkg_parse <"$ab_tmp/pkg" >>"$ab_tmp/m" ;;
	2) ab_pkg_perf_parse <"$ab_tmp/pkg" >>"$ab_tmp/m" ;;
	esac
	s=$(awk '/^secs / { print $2 }' "$ab_tmp/m")
	[ ! -s "$ab_tmp/ios" ] || awk -v s="$s" '{
		printf "io_per_s %.6f\n", (s > 0 ? $1 / s : 0)
	}' "$ab_tmp/ios" >>"$ab_tmp/m"
	if [ -n "$ab_inst" ]; then
		echo 0 >"$ab_inst/tracing_on"
		ab_net_stats "$NET_EVENT" <"$ab_inst/trace" | awk -v s="$s" '{
			printf "nets_armed_per_s %.6f\n", (s > 0 ? $1 / s : 0)
			printf "nets_fired_per_s %.6f\n", (s > 0 ? $2 / s : 0)
		}' >>"$ab_tmp/m"
		if [ "$(cat "$ab_inst"/per_cpu/cpu*/stats 2>/dev/null |
			awk '/^overrun:/ { s += $2 } END { print s + 0 }')" != 0 ]; then
			echo "round $round, $gov: the trace buffer overran;" \
				"nets are counted short"
		fi
	fi
	[ -z "$rtt_sh" ] || run_rtt >>"$ab_tmp/m"
	sed "s/^/$round $gov /" "$ab_tmp/m" >>"$ab_tmp/data"
	awk -v r="$round" -v n="$rounds" -v g="$gov" "$AB_AWK"'
	{ v[$1] = $2 }
	END {
		line = sprintf("round %d/%d %-10s %6.2f s", r, n, g, v["secs"])
		if ("entries_per_s" in v)
			line = line sprintf(", %s entries/s, misses %s%%",
				ab_fmt(v["entries_per_s"]), ab_fmt(v["miss_pct"]))
		if ("pkg_W" in v)
			line = line sprintf(", package %s W", ab_fmt(v["pkg_W"]))
		if ("loc_per_s" in v)
			line = line sprintf(", LOC %s/s", ab_fmt(v["loc_per_s"]))
		if ("io_per_s" in v)
			line = line sprintf(", I/O %s/s", ab_fmt(v["io_per_s"]))
		if ("rtt_p50_us" in v)
			line = line sprintf(", rtt p50 %s us", ab_fmt(v["rtt_p50_us"]))
		print line
	}' "$ab_tmp/m"
}

ab_state_names >"$ab_tmp/names"
rc=0
# shellcheck disable=SC2086
ab_schedule "$rounds" $govs >"$ab_tmp/schedule"
if [ "$workload" != suite ]; then
	run_set "$workload" "$outdir" "$@"
	[ "$json" = 0 ] || cat "$outdir/summary.json"
	exit $rc
fi

nw=$(echo "$wls" | wc -w)
[ -n "$dev" ] || echo "suite: blockio left out (no -D PATH)"
echo "suite: $nw workloads ($wls), $rounds rounds each"
i=0
for w in $wls; do
	i=$((i + 1))
	echo
	echo "== workload $i/$nw: $w =="
	run_set "$w" "$outdir/$w"
done
echo
# shellcheck disable=SC2086
ab_suite_table "$outdir" "$rounds" "$wls" $govs | tee "$outdir/suite-summary.txt"
# shellcheck disable=SC2086
ab_suite_json "$outdir" "$wls" $govs >"$outdir/suite-summary.json"
echo
echo "suite summary: $outdir/suite-summary.txt, $outdir/suite-summary.json"
if [ "$report" = 1 ]; then
	ab_suite_report "$outdir" "$wls"
	echo "report: $outdir/report.txt"
fi
[ "$json" = 0 ] || cat "$outdir/suite-summary.json"
exit $rc
