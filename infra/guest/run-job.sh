#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make run`: show the cpuidle setup, then compare horizon,
# menu and teo with cpuidle-ab (tools/power/cpuidle-ab), the tool users run
# on their own machines, on the selftests' idle/wakeup workload, rounds
# interleaved. After its table, print the counter deltas summed over the
# rounds as "HZ-ROW governor state name usage time_us above below" lines.
# shellcheck disable=SC1091 # the selftests' library, in the initramfs
. /kselftest/cpuidle/cpuidle_lib.sh
LOAD=/kselftest/cpuidle/cpuidle_load
# Milliseconds of workload per governor, split over the rounds.
MSECS=${HORIZON_LOAD_MSECS:-3000}
ROUNDS=3
OUT=/tmp/cpuidle-ab

echo "driver:    $(cat "$CPUIDLE_SYSFS/current_driver")"
echo "governor:  $(cpuidle_governor) (booted)"
echo "available: $(cat "$CPUIDLE_SYSFS/available_governors")"
echo "states of cpu0 (latency and residency in us):"
for d in $(cpuidle_states); do
	printf '  %-7s %-8s latency %5s residency %5s disabled %s  %s\n' \
		"${d##*/}" "$(cat "$d/name")" "$(cat "$d/latency")" \
		"$(cat "$d/residency")" "$(cat "$d/disable")" "$(cat "$d/desc")"
done
echo

secs=$(awk -v m="$MSECS" -v r=$ROUNDS 'BEGIN { printf "%g", m / r / 1000 }')
/horizon/cpuidle-ab.sh -g horizon,menu,teo -r $ROUNDS -w mix -L $LOAD \
	-t "$secs" -s 0.5 -n 200 -o $OUT
rc=$?

awk -F, 'NR == FNR { split($0, p, " "); name[p[1]] = p[2]; next }
$3 ~ /^s\.state[0-9]+\.(usage|time_us|above|below)$/ {
	split($3, m, ".")
	k = $2 " " m[2]
	if (!(k in v)) {
		order[++n] = k
		v[k] = 1
	}
	sum[k, m[3]] += $4
}
END {
	for (i = 1; i <= n; i++) {
		k = order[i]
		split(k, p, " ")
		printf "HZ-ROW %s %s %s %.0f %.0f %.0f %.0f\n", p[1], p[2],
			name[p[2]], sum[k, "usage"], sum[k, "time_us"],
			sum[k, "above"], sum[k, "below"]
	}
}' $OUT/states.txt $OUT/rounds.csv
exit $rc
