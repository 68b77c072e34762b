#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Record the idle behaviour of the machine this runs on (a laptop, a
# server, a VM; not the QEMU guest of `make record`) as a cpuidle-replay
# trace. Run as root:
#
#   record-host.sh [-t SECONDS] [-b KB] [-o OUT] [-l LABEL] [-r RAW]
#                  [-- COMMAND [ARG]...]
#
#   -t  record for SECONDS (1 to 600, default 10), or until COMMAND ends
#   -b  ring buffer per CPU in KiB (64 to 262144, default 8192); a CPU
#       whose buffer fills stops recording there, and this is said
#   -o  the replay trace to write (default host.trace)
#   -l  a label for the workload in the trace's header (default "idle",
#       or "command" with a COMMAND; the command line is never written)
#   -r  keep the raw ftrace text in RAW (it holds task names and pids;
#       by default it is deleted)
#
# Without COMMAND the machine is recorded as it is, for SECONDS. With it,
# COMMAND runs as the workload while recording, and is sent SIGTERM at
# SECONDS if still running.
#
# It traces every CPU with power:cpu_idle, sched:sched_switch,
# timer:hrtimer_expire_entry and timer:timer_expire_entry, in a tracefs
# instance of its own (so any other tracing goes on undisturbed), mounts
# tracefs if needed, and on exit (also on Ctrl-C) removes the instance and
# unmounts what it mounted. ftrace2trace.py, beside this script, converts
# the recording.
set -u

here=$(cd "$(dirname "$0")" && pwd)
secs=10 buf_kb=8192 out=host.trace label='' raw=''
inst='' mounted='' tmp='' workload=''

die() {
	echo "record-host: error: $*" >&2
	exit 1
}

usage() {
	sed -n '/^#   record-host.sh/,/^# SECONDS if still running/p' "$0" | sed 's/^# \{0,1\}//'
}

# -h and --help: the usage on stdout; a bad option: on stderr, status 2.
case "${1:-}" in
-h | --help)
	usage
	exit 0
	;;
esac

is_uint() {
	case $1 in '' | *[!0-9]*) return 1 ;; esac
	[ ${#1} -le 9 ]
}

while getopts t:b:o:l:r:h opt; do
	case $opt in
	t) secs=$OPTARG ;;
	b) buf_kb=$OPTARG ;;
	o) out=$OPTARG ;;
	l) label=$OPTARG ;;
	r) raw=$OPTARG ;;
	*)
		usage >&2
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
is_uint "$secs" && [ "$secs" -ge 1 ] && [ "$secs" -le 600 ] ||
	die "-t: seconds must be 1 to 600, not '$secs'"
is_uint "$buf_kb" && [ "$buf_kb" -ge 64 ] && [ "$buf_kb" -le 262144 ] ||
	die "-b: KiB per CPU must be 64 to 262144, not '$buf_kb'"
case $label in *[!A-Za-z0-9._,+-]*) die "-l: letters, digits and . _ , + - only" ;; esac
[ -n "$label" ] || { [ $# -gt 0 ] && label='command' || label='idle'; }
[ -f "$here/ftrace2trace.py" ] || die "no ftrace2trace.py beside $0"
command -v python3 >/dev/null || die "python3 is needed to convert the recording"
[ -d "$(dirname "$out")" ] && [ -w "$(dirname "$out")" ] || die "$out: cannot write there"
[ "$(id -u)" = 0 ] || die "run as root (tracefs)"

cleanup() {
	[ -n "$workload" ] && kill "$workload" 2>/dev/null
	if [ -n "$inst" ] && [ -d "$inst" ]; then
		echo 0 >"$inst/tracing_on"
		rmdir "$inst" || echo "record-host: could not remove $inst" >&2
	fi
	if [ -n "$mounted" ] && ! umount "$mounted"; then
		echo "record-host: could not unmount $mounted" >&2
	fi
	[ -n "$tmp" ] && rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# tracefs: where it is mounted, or mount it at /sys/kernel/tracing.
T=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -d "$d/instances" ] && { T=$d; break; }
done
if [ -z "$T" ]; then
	[ -d /sys/kernel/tracing ] || die "no /sys/kernel/tracing: a kernel without tracefs"
	mount -t tracefs nodev /sys/kernel/tracing || die "cannot mount tracefs"
	mounted=/sys/kernel/tracing T=$mounted
	[ -d "$T/instances" ] || die "tracefs has no instances"
fi
for e in power/cpu_idle sched/sched_switch timer/hrtimer_expire_entry timer/timer_expire_entry; do
	[ -d "$T/events/$e" ] || die "no trace event $e (CONFIG_CPU_IDLE, tracepoints)"
done

tmp=$(mktemp -d) || die "mktemp failed"
inst=$T/instances/cpuidle-replay-$$
mkdir "$inst" || die "cannot create the tracefs instance $inst"
echo "$buf_kb" >"$inst/buffer_size_kb" || die "cannot size the buffer to $buf_kb KiB"
# A full buffer keeps what it has rather than overwriting its start.
echo 0 >"$inst/options/overwrite"
for e in power/cpu_idle sched/sched_switch timer/hrtimer_expire_entry timer/timer_expire_entry; do
	echo 1 >"$inst/events/$e/enable" || die "cannot enable $e"
done

ncpu=$(grep -c '^processor' /proc/cpuinfo)
drv=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)
gov=$(cat /sys/devices/system/cpu/cpuidle/current_governor 2>/dev/null ||
	cat /sys/devices/system/cpu/cpuidle/current_governor_ro 2>/dev/null || echo none)
echo "record-host: $ncpu CPUs, cpuidle driver $drv, governor $gov; $label for up to $secs s"

echo 1 >"$inst/tracing_on"
t0=$(date +%s)
if [ $# -gt 0 ]; then
	"$@" &
	workload=$!
	while kill -0 "$workload" 2>/dev/null && [ $(($(date +%s) - t0)) -lt "$secs" ]; do
		sleep 1
	done
	kill "$workload" 2>/dev/null && echo "record-host: workload stopped at $secs s"
	wait "$workload" 2>/dev/null
	workload=
else
	sleep "$secs"
fi
echo 0 >"$inst/tracing_on"
elapsed=$(($(date +%s) - t0))

for s in "$inst"/per_cpu/cpu*/stats; do
	n=$(awk '/^dropped events:/ { print $3 }' "$s")
	[ "${n:-0}" = 0 ] ||
		echo "record-host: $(basename "$(dirname "$s")"): buffer full," \
			"$n events dropped (raise -b)"
done
cat "$inst/trace" >"$tmp/raw" || die "cannot read the trace"
[ -z "$raw" ] || cp "$tmp/raw" "$raw" || die "$raw: cannot write"
{
	echo "# cpuidle-replay trace v1: recorded by record-host.sh on $(date -u +%Y-%m-%d)"
	echo "# kernel $(uname -r), $ncpu CPUs, cpuidle driver $drv, governor $gov;"
	echo "# workload $label, $elapsed s; converted by ftrace2trace.py."
	python3 "$here/ftrace2trace.py" "$tmp/raw"
} >"$tmp/trace" || die "converting the recording failed"
mv "$tmp/trace" "$out" || die "$out: cannot write"
echo "record-host: wrote $out: $(grep -c '^idle' "$out") idle periods from" \
	"$(grep -vc '^#' "$tmp/raw") events"
