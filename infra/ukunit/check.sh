#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build and run the user-space KUnit suites (horizon, horizon_safety_net,
# tick-sched-net) at HZ=250 and HZ=1000, every case in its own process.
# KTAP in OUTPUT/ukunit-hzN.ktap; prints the failures and one count line
# per HZ, then "ukunit: P passed, F failed". Exits non-zero if a case
# failed or skipped, or the build failed or warned.
#
# Usage: check.sh [-h] [OUTPUT_DIR [COUNT_FILE]]
#   OUTPUT_DIR  build directory (default $HORIZON_CACHE/ukunit)
#   COUNT_FILE  gets "PASSED FAILED" (skips count as failed)
# TREE=DIR takes horizon.c and its tests from a prepared tree instead of
# the repository.
set -u
case "${1:-}" in -h|--help) sed -n '3,14s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
dir=$(cd "$(dirname "$0")" && pwd)
out=${1:-${HORIZON_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/horizon}/ukunit}
count=${2:-}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
start=$(date +%s)
# A warning fails the build as it fails the bots' builds of check-series.
if ! make -s -C "$dir" OUTPUT="$out" ${TREE:+TREE="$TREE"} all >"$out/build.log" 2>&1 ||
   grep -q 'warning:' "$out/build.log"; then
	cat "$out/build.log"
	echo "ukunit: the build failed or warned"
	[ -n "$count" ] && echo "0 1" >"$count"
	exit 1
fi
total_p=0 total_f=0 rc=0
for hz in 250 1000; do
	"$out/ukunit-hz$hz" >"$out/ukunit-hz$hz.ktap" 2>&1 || rc=1
	line=$(grep '^# ukunit: [0-9]' "$out/ukunit-hz$hz.ktap")
	if [ -z "$line" ]; then
		tail -20 "$out/ukunit-hz$hz.ktap"
		echo "HZ=$hz: no result (the runner did not finish)"
		total_f=$((total_f + 1)) rc=1
		continue
	fi
	# shellcheck disable=SC2086 # "# ukunit: P passed, F failed, S skipped"
	set -- $line
	p=$3 f=${5} s=${7}
	sed -n "s/^ *# ukunit-failed: /  HZ=$hz: failed: /p" "$out/ukunit-hz$hz.ktap"
	echo "HZ=$hz: $p passed, $f failed, $s skipped"
	total_p=$((total_p + p)) total_f=$((total_f + f + s))
done
[ -n "$count" ] && echo "$total_p $total_f" >"$count"
echo "ukunit: $total_p passed, $total_f failed ($(($(date +%s) - start)) s; KTAP in $out)"
[ "$rc" = 0 ] && [ "$total_f" = 0 ] && [ "$total_p" -gt 0 ]
