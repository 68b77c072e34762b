#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the cpuidle selftests: KTAP output and cpuidle sysfs.
# POSIX sh, so that the tests also run under busybox.

CPUIDLE_SYSFS=/sys/devices/system/cpu/cpuidle
KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

ktap_count=0
ktap_fails=0
ktap_skips=0

ktap_header() {
	echo "TAP version 13"
	echo "1..$1"
}

# ktap_result OK|FAIL NAME [DIAGNOSTIC...]
ktap_result() {
	res=$1 name=$2
	shift 2
	ktap_count=$((ktap_count + 1))
	# Every line of every diagnostic as a KTAP comment.
	for line in "$@"; do
		printf '%s\n' "$line" | sed '/^$/d;s/^/# /'
	done
	if [ "$res" = OK ]; then
		echo "ok $ktap_count $name"
	else
		ktap_fails=$((ktap_fails + 1))
		echo "not ok $ktap_count $name"
	fi
}

# ktap_skip NAME REASON
ktap_skip() {
	ktap_count=$((ktap_count + 1))
	ktap_skips=$((ktap_skips + 1))
	echo "ok $ktap_count $1 # SKIP $2"
}

ktap_skip_all() {
	echo "TAP version 13"
	echo "1..0 # SKIP $1"
	exit $KSFT_SKIP
}

ktap_finished() {
	echo "# Totals: pass:$((ktap_count - ktap_fails - ktap_skips))" \
		"fail:$ktap_fails skip:$ktap_skips"
	[ "$ktap_fails" -eq 0 ] && exit $KSFT_PASS
	exit $KSFT_FAIL
}

# Print the current governor.
cpuidle_governor() {
	cat "$CPUIDLE_SYSFS/current_governor"
}

# cpuidle_set_governor NAME: write NAME; the write's status is returned.
cpuidle_set_governor() {
	echo "$1" 2>/dev/null >"$CPUIDLE_SYSFS/current_governor"
}

# cpuidle_states: the state directories of CPU 0's cpuidle device.
cpuidle_states() {
	ls -d /sys/devices/system/cpu/cpu0/cpuidle/state* 2>/dev/null
}

# cpuidle_counters [CPU]: "state name usage time above below" per state,
# each counter summed over every online CPU, or of CPU alone.
cpuidle_counters() {
	cpus=/sys/devices/system/cpu/cpu[0-9]*
	[ -z "${1:-}" ] || cpus=/sys/devices/system/cpu/cpu$1
	for sdir in $(cpuidle_states); do
		st=${sdir##*/}
		name=$(cat "$sdir/name")
		usage=0 time=0 above=0 below=0
		for cdir in $cpus; do
			d=$cdir/cpuidle/$st
			[ -r "$d/usage" ] || continue
			usage=$((usage + $(cat "$d/usage")))
			time=$((time + $(cat "$d/time")))
			above=$((above + $(cat "$d/above")))
			below=$((below + $(cat "$d/below")))
		done
		echo "$st $name $usage $time $above $below"
	done
}

# cpuidle_delta BEFORE AFTER: "state name usage time above below" per state,
# the growth of each counter between two cpuidle_counters outputs.
cpuidle_delta() {
	paste -d ' ' "$1" "$2" | awk '{
		printf "%s %s %d %d %d %d\n", $1, $2,
			$9 - $3, $10 - $4, $11 - $5, $12 - $6 }'
}

# CPUIDLE_SPLAT: an extended regular expression for the kernel log lines
# that report a defect: warnings, bugs, oopses, faults, lockdep, KASAN,
# UBSAN, RCU stalls, lockups and hung tasks.
CPUIDLE_SPLAT='WARNING:|BUG:|kernel BUG at|Oops|general protection fault'
CPUIDLE_SPLAT="$CPUIDLE_SPLAT|Call Trace|INFO: |possible (recursive|circular) locking"
CPUIDLE_SPLAT="$CPUIDLE_SPLAT|inconsistent lock state|KASAN:|UBSAN:|self-detected stall"
CPUIDLE_SPLAT="$CPUIDLE_SPLAT|soft lockup|hard LOCKUP|hung_task|blocked for more than"

# cpuidle_splats: the kernel log lines that match CPUIDLE_SPLAT.
cpuidle_splats() {
	dmesg | grep -E "$CPUIDLE_SPLAT"
}

# cpuidle_awk_val: an awk function for trace lines, to put before a
# program: val(KEY) is the number after "KEY=" on the line, or -1.
CPUIDLE_AWK_VAL='
function val(key,   i) {
	for (i = 1; i <= NF; i++)
		if (index($i, key "=") == 1)
			return substr($i, length(key) + 2) + 0
	return -1
}'
