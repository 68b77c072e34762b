#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run`: prepare the tree, build the boot kernel, boot it with horizon
# selected, run the same idle/wakeup workload under horizon, menu and teo in
# one boot with cpuidle-ab (tools/power/cpuidle-ab; the guest prints its
# table), and print the counters summed over its rounds side by side, and
# draw them (with gnuplot) in $HORIZON_CACHE/results/run.png. The summary
# table is kept in $HORIZON_CACHE/results/run.txt (make readme shows it).
# Usage: run.sh [report]
#   report  only the table and the plot, from the guest output of the last
#           run ($HORIZON_CACHE/results/run.out): nothing is built or booted
set -euo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

case "${1:-}" in
'' | report) ;;
*) die "usage: run.sh [report]" ;;
esac
status=0
if [ -z "${1:-}" ]; then
	phase "checking Debian packages"
	"$infra/deps.sh"
	phase "preparing the kernel tree"
	"$infra/prepare.sh"
	"$infra/build-kernel.sh"
	# A failed job still shows its table; the status is checked at the end.
	"$infra/qemu.sh" run | grep -v '^HZ-ROW' || status=$?
fi

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
	line = sprintf("%-8s %9s %8s %8s %11s", "governor", "usage", "above", "below",
		"idle-miss%")
	printf "\n%s\n", line
	print line >sum
	for (i = 1; i <= n; i++) {
		g = order[i]
		line = sprintf("%-8s %9d %8d %8d %10.2f%%", g, usage[g], above[g],
			below[g], usage[g] ? 100 * (above[g] + below[g]) / usage[g] : 0)
		print line
		print line >sum
	}
}' sum="$cache/results/run.txt" "$out"
[ "$status" = 0 ] || die "the guest job failed: $(guest_tally "$out" | tr '\n' ';')"

# The same counters drawn: per governor, the share of idle time in each
# state, and the idle-miss ratio.
png=$cache/results/run.png
if ! command -v gnuplot >/dev/null; then
	echo "plot: skipped (no gnuplot)"
	exit 0
fi
awk '/^HZ-ROW/ {
	if (!($2 in seen)) { seen[$2] = 1; govs[++ng] = $2 }
	if (!($3 in sseen)) { sseen[$3] = 1; sts[++ns] = $3; name[$3] = $4 }
	t[$2, $3] = $6; tot[$2] += $6
	u[$2] += $5; m[$2] += $7 + $8
}
END {
	printf "governor"
	for (j = 1; j <= ns; j++)
		printf " %s", name[sts[j]]
	print " misses"
	for (i = 1; i <= ng; i++) {
		g = govs[i]
		printf "%s", g
		for (j = 1; j <= ns; j++)
			printf " %.2f", tot[g] ? 100 * t[g, sts[j]] / tot[g] : 0
		printf " %.2f\n", u[g] ? 100 * m[g] / u[g] : 0
	}
}' "$out" >"$cache/results/run.dat"
ncol=$(head -1 "$cache/results/run.dat" | wc -w)
ngov=$(($(wc -l <"$cache/results/run.dat") - 1))
gnuplot <<PLOT || die "gnuplot failed on $cache/results/run.dat"
set terminal pngcairo size 1000,420 noenhanced
set output "$png"
set multiplot layout 1,2 title "make run: QEMU TCG guest, mix workload \
(every state is HLT: decisions, not power)"
set style data histogram
set style histogram rowstacked
set style fill solid 0.85
set key outside right
set ylabel "share of idle time, %"
set yrange [0:100]
set title "state residency"
plot for [c=2:$((ncol - 1))] "$cache/results/run.dat" using c:xtic(1) title columnheader(c)
# One box per governor over the panel's whole width, each with its figure.
set style data boxes
set boxwidth 0.6
set offsets 0, 0, graph 0.12, 0
set xrange [-0.5:$((ngov - 1)).5]
set yrange [0:*]
set ylabel "idle misses, % of entries"
set title "idle misses ((above + below) / usage)"
unset key
plot "$cache/results/run.dat" skip 1 using 0:$ncol:xtic(1), \
	"" skip 1 using 0:$ncol:(sprintf("%.1f%%", column($ncol))) with labels offset 0,0.7
unset multiplot
PLOT
echo "plot: $png"
