#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run`: prepare the tree, build the boot kernel, boot it with horizon
# selected, run the same idle/wakeup workload under horizon, menu and teo in
# one boot with cpuidle-ab (tools/power/cpuidle-ab; the guest prints its
# table), and print the counters summed over its rounds side by side.
set -euo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

phase "checking Debian packages"
"$infra/deps.sh"
phase "preparing the kernel tree"
"$infra/prepare.sh"
"$infra/build-kernel.sh"
# A failed job still shows its table; the status is checked at the end.
status=0
"$infra/qemu.sh" run | grep -v '^HZ-ROW' || status=$?

out=$cache/results/run.out
[ -f "$out" ] || die "the guest job did not run"
grep -q '^HZ-ROW' "$out" || die "the guest reported no counters (see $out)"
echo
echo "Per governor and state: counter deltas over the workload, summed over CPUs and"
echo "cpuidle-ab's rounds (time in ms; above/below: idle shorter/longer than the state suited)."
awk '/^HZ-ROW/ {
	if ($2 != last) {
		printf "\n%-8s %-7s %-8s %9s %9s %8s %8s\n", "governor", "state",
			"name", "usage", "time_ms", "above", "below"
		last = $2
		order[++n] = $2
	}
	printf "%-8s %-7s %-8s %9d %9d %8d %8d\n", $2, $3, $4, $5, $6 / 1000, $7, $8
	usage[$2] += $5; above[$2] += $7; below[$2] += $8
}
END {
	printf "\n%-8s %9s %8s %8s %11s\n", "governor", "usage", "above", "below",
		"idle-miss%"
	for (i = 1; i <= n; i++) {
		g = order[i]
		printf "%-8s %9d %8d %8d %10.2f%%\n", g, usage[g], above[g], below[g],
			usage[g] ? 100 * (above[g] + below[g]) / usage[g] : 0
	}
}' "$out"
[ "$status" = 0 ] || die "the guest job failed: $(guest_tally "$out" | tr '\n' ';')"
