#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make run`: show the cpuidle setup, then run the same
# idle/wakeup workload under each governor and print the counter deltas as
# "HZ-ROW governor state name usage time_us above below" lines.
. /kselftest/cpuidle/cpuidle_lib.sh
LOAD=/kselftest/cpuidle/cpuidle_load
MSECS=${HORIZON_LOAD_MSECS:-3000}

echo "driver:    $(cat $CPUIDLE_SYSFS/current_driver)"
echo "governor:  $(cpuidle_governor) (booted)"
echo "available: $(cat $CPUIDLE_SYSFS/available_governors)"
echo "states of cpu0 (latency and residency in us):"
for d in $(cpuidle_states); do
	printf '  %-7s %-8s latency %5s residency %5s disabled %s  %s\n' \
		"${d##*/}" "$(cat "$d/name")" "$(cat "$d/latency")" \
		"$(cat "$d/residency")" "$(cat "$d/disable")" "$(cat "$d/desc")"
done

rc=0
for gov in horizon menu teo; do
	if ! cpuidle_set_governor "$gov"; then
		echo "cannot select governor $gov"
		rc=1
		continue
	fi
	echo "workload: mix for $MSECS ms under $gov"
	cpuidle_counters >/tmp/before
	$LOAD mix "$MSECS" || rc=1
	cpuidle_counters >/tmp/after
	cpuidle_delta /tmp/before /tmp/after | sed "s/^/HZ-ROW $gov /"
done
exit $rc
