#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the horizon and tick-sched-net KUnit suites on x86_64 under QEMU
# (UML cannot build cpuidle), with nohz_full=1 so that the tick-sched
# suite sees a nohz_full CPU; build dir in $cache/kunit. Writes "PASSED FAILED" to
# $cache/results/kunit.count. No keyboard or mouse is probed: their late
# console messages could land inside the KTAP output and break its parsing.
set -euo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

results=$cache/results
mkdir -p "$results" "$cache/kunit"
rm -f "$results/kunit.count" "$results/kunit.json"
phase "KUnit: building and running (x86_64, QEMU TCG; log in $results/kunit.log)"
cd "$src"
status=0
with_progress "KUnit kernel" "$cache/kunit" \
	python3 tools/testing/kunit/kunit.py run --arch=x86_64 \
	--build_dir="$cache/kunit" --jobs="$jobs" \
	--kunitconfig=drivers/cpuidle/governors/tests/.kunitconfig \
	--make_options "CC=ccache gcc" --qemu_args="-smp 2" --timeout=600 \
	--kernel_args=i8042.nokbd --kernel_args=i8042.noaux \
	--kernel_args=nohz_full=1 \
	--json="$results/kunit.json" >"$results/kunit.log" 2>&1 || status=$?
grep -E '^\[..:..:..\] (=|\[|Testing|Ran|Elapsed)' "$results/kunit.log" |
	sed 's/^\[..:..:..\] /  /' || true
[ -s "$results/kunit.json" ] || { tail -30 "$results/kunit.log"; die "KUnit produced no results"; }
python3 - "$results/kunit.json" >"$results/kunit.count" <<'PY'
import json, sys

def leaves(group):
    for case in group.get("test_cases", []):
        yield case
    for sub in group.get("sub_groups", []):
        yield from leaves(sub)

data = json.load(open(sys.argv[1]))
# A skipped case did not run: every case of these suites can run with the
# .kunitconfig and command line above, so a skip counts as a failure.
cases = list(leaves(data))
passed = sum(1 for c in cases if c.get("status") == "PASS")
print(passed, len(cases) - passed)
PY
read -r p f <"$results/kunit.count"
phase "KUnit: $p passed, $f failed"
[ "$status" = 0 ] && [ "$f" = 0 ] && [ "$p" -gt 0 ]
