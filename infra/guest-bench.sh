#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make guest-bench`: build the comparison kernel (the prepared tree plus
# a peer tree's menu and teo as the comparison-only governors menu71 and
# teo71, see compare-tree.sh), boot it in QEMU twice, with high-resolution
# timers on and with highres=off, and compare in each boot, rounds
# interleaved with cpuidle-ab: horizon with and without safety nets,
# teo71, menu71, teo and menu (infra/guest/compare-job.sh). Writes the
# table to bench/guest.txt, and its plot to bench/guest.png (with gnuplot).
# Measured under TCG: no power figure, only counters and wakeup latencies.
# Environment: PEERS (the peer kernel tree, one, absolute or relative to
# the repo, as for make bench; default ../shared/peers/linux-7.1 beside the
# repo), PEERS_NAME (its version, when the tree cannot tell it; see
# compare-tree.sh), HORIZON_ROUNDS (rounds per workload, default 3),
# HORIZON_SECS (seconds per run, default 1.5). PEER and PEER_NAME, the old
# names, still work, with a warning.
set -euo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

[ $# = 0 ] || die "usage: guest-bench.sh [-h | --help]"
rounds=${HORIZON_ROUNDS:-3}
secs=${HORIZON_SECS:-1.5}
case "$rounds" in
'' | *[!0-9]* | 0) die "HORIZON_ROUNDS must be a number of rounds, not '$rounds'" ;;
esac
case "$secs" in
'' | *[!0-9.]* | .* | *. | *.*.*) die "HORIZON_SECS must be a number of seconds, not '$secs'" ;;
esac

# One variable names the peers for make bench and make guest-bench: PEERS.
if [ -n "${PEER+set}" ]; then
	echo "guest-bench.sh: warning: PEER is deprecated, use PEERS" >&2
	PEERS=${PEERS-$PEER}
fi
if [ -n "${PEER_NAME+set}" ]; then
	echo "guest-bench.sh: warning: PEER_NAME is deprecated, use PEERS_NAME" >&2
	PEERS_NAME=${PEERS_NAME-$PEER_NAME}
fi
if [ -n "${PEERS+set}" ]; then
	read -r -a trees <<<"$PEERS"
	[ "${#trees[@]}" = 1 ] ||
		die "PEERS: one kernel tree for the guest kernel, not '$PEERS'"
	case ${trees[0]} in /*) PEER=${trees[0]} ;; *) PEER=$repo/${trees[0]} ;; esac
else
	PEER=$repo/../shared/peers/linux-7.1
fi
[ -d "$PEER/drivers/cpuidle/governors" ] ||
	die "no peer tree at $PEER (set PEERS= to a kernel tree with drivers/cpuidle/governors/)"
export PEER
if [ -n "${PEERS_NAME:-}" ]; then
	export PEER_NAME=$PEERS_NAME
else
	unset PEER_NAME
fi

"$infra/build-kernel.sh" compare
results=$cache/results
status=0
for mode in highres=on highres=off; do
	append="HORIZON_ROUNDS=$rounds HORIZON_SECS=$secs"
	[ "$mode" = highres=on ] || append="$append highres=off"
	phase "guest comparison, $mode"
	HORIZON_APPEND="$append ${HORIZON_APPEND:-}" "$infra/qemu.sh" compare |
		grep -v '^GUEST-ROW' || status=1
	[ -f "$results/compare.out" ] || die "the guest job did not run ($mode)"
	mv "$results/compare.out" "$results/compare-$mode.out"
done

mkdir -p "$repo/bench"
python3 - "$results/compare-highres=on.out" "$results/compare-highres=off.out" \
	"$rounds" "$secs" >"$repo/bench/guest.txt" <<'PY'
import math
import re
import sys
import time

on, off, rounds, secs = sys.argv[1:5]
COLS = (('miss_pct', 'miss%', '%.2f'), ('loc_per_s', 'LOC/s', '%.0f'),
        ('entries_per_s', 'entries/s', '%.0f'), ('nets_fired_per_s', 'nets/s', '%.1f'),
        ('rtt_p50_us', 'p50_us', '%.0f'), ('rtt_p90_us', 'p90_us', '%.0f'),
        ('rtt_p99_us', 'p99_us', '%.0f'))


def read(path):
    rows, order, govs, info = {}, [], [], []
    for line in open(path, errors='replace'):
        w = line.split()
        if line.startswith(('driver:', 'available:', 'highres:')):
            info.append(line.strip())
        if line.startswith('# deep share of idle time'):
            info.append('stuck shallow test: ' + line[2:].strip())
        m = re.match(r'(not ok|ok) \d+ net_unsticks_shallow_state$', line.strip())
        if m:
            info.append('net_unsticks_shallow_state: ' + m[1])
        if len(w) != 6 or w[0] != 'GUEST-ROW':
            continue
        _, wl, gov, metric, mean, _ = w
        if wl not in order:
            order.append(wl)
        if gov not in govs:
            govs.append(gov)
        rows[wl, gov, metric] = float(mean)
    return rows, order, govs, info


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float('nan')


print('Guest comparison (make guest-bench, %s): QEMU TCG, 4 vCPUs, the _CST client'
      % time.strftime('%Y-%m-%d'))
print('preset (POLL and states entered with HLT); %s rounds per workload, interleaved,'
      % rounds)
print('%s s per run. Means over the rounds of cpuidle-ab\'s figures: idle misses, local'
      % secs)
print('timer interrupts, idle entries and safety nets fired per second, and the pipe')
print('ping-pong round trip percentiles (100 round trips after each run, spaced by')
print('the workload\'s think time). No power is measured: TCG has none. Then the')
print('kselftest net_unsticks_shallow_state: the share of idle time in states with a')
print('target residency beyond 100 us after bursts of interrupts that wake no task.')
for path, mode in ((on, 'high-resolution timers on'), (off, 'highres=off')):
    rows, order, govs, info = read(path)
    print()
    print('== %s' % mode)
    for i in info:
        print('   ' + i)
    if not rows:
        print('   no results')
        continue
    for wl in order:
        print()
        print('%-24s' % wl + ''.join('%10s' % c[1] for c in COLS))
        for g in govs:
            print('%-24s' % g + ''.join(
                '%10s' % (c[2] % rows[wl, g, c[0]] if (wl, g, c[0]) in rows else '-')
                for c in COLS))
    print()
    print('Over the workloads: idle misses (mean), and LOC/s and p99 (geometric mean');
    print('of the ratio to teo71):')
    print('%-24s%10s%10s%10s' % ('', 'miss%', 'LOC', 'p99'))
    for g in govs:
        miss = [rows[wl, g, 'miss_pct'] for wl in order if (wl, g, 'miss_pct') in rows]
        rel = {}
        for m in ('loc_per_s', 'rtt_p99_us'):
            rel[m] = geomean([rows[wl, g, m] / rows[wl, 'teo71', m] for wl in order
                              if (wl, g, m) in rows and rows.get((wl, 'teo71', m))])
        print('%-24s%10.2f%10.3f%10.3f' % (g, sum(miss) / len(miss) if miss else
                                          float('nan'), rel['loc_per_s'],
                                          rel['rtt_p99_us']))
PY
phase "guest comparison: bench/guest.txt"
# The plot beside it, where gnuplot is installed.
python3 "$infra/guest-plot.py" "$repo/bench/guest.txt" "$repo/bench/guest.png" ||
	echo "guest-bench.sh: no plot of bench/guest.txt (see above)"
[ "$status" = 0 ] || die "a guest job failed (see $results/guest-compare.log)"
