#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make test`: every suite of the project, each reporting pass/fail counts,
# then one closing line "N passed, N failed[, N skipped]". A suite that
# cannot run or report counts as one failure. Exits non-zero on any failure.
set -uo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

results=$cache/results
passed=0 failed=0 skipped=0

# count SUITE FILE: add the "PASSED FAILED" in FILE, or one failure.
count() {
	local p f
	if [ -s "$2" ] && read -r p f <"$2"; then
		passed=$((passed + p))
		failed=$((failed + f))
	else
		echo "$1: no results" >&2
		failed=$((failed + 1))
	fi
}

finish() {
	echo
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" = 0 ]
	exit
}

# ktap_count OUT: count the top-level results of the guest's KTAP output
# (one stream per test program; a program skipped whole counts as a skip),
# checking them against the plans and the job's exit status.
ktap_count() {
	awk -v res="$results/selftests.count" '
	/^1\.\.[0-9]+/ { plan += substr($1, 4) + 0 }
	/^1\.\.0 # SKIP/ { skip++ }
	/^(not )?ok [0-9]+ / {
		n++
		if ($0 ~ /# SKIP/) skip++
		else if ($1 == "ok") ok++
		else bad++
	}
	/^HORIZON-END rc=/ { rc = substr($2, 4) }
	END {
		if (n < plan) { print "selftests: " plan - n " results missing"; bad += plan - n }
		if (rc != 0 && !bad) { print "selftests: job exited " rc; bad++ }
		print ok + 0, bad + 0 > res
		print skip + 0 > res ".skip"
	}' "$1"
}

rm -f "$results"/*.count "$results"/*.skip
mkdir -p "$results"

phase "checking Debian packages"
"$infra/deps.sh" || { failed=$((failed + 1)); finish; }
phase "preparing the kernel tree"
"$infra/prepare.sh" || { failed=$((failed + 1)); finish; }

"$infra/checkpatch.sh"
count checkpatch "$results/checkpatch.count"

"$infra/check-series.sh" fast
count series "$results/series.count"
skipped=$((skipped + $(cat "$results/series.count.skip" 2>/dev/null || echo 0)))

"$infra/replay.sh" test
count replay "$results/replay.count"

phase "cpuidle-ab: tests"
"$repo/tools/power/cpuidle-ab/tests/run_tests.sh" "$results/cpuidle-ab.count"
count cpuidle-ab "$results/cpuidle-ab.count"

"$infra/kunit.sh"
count kunit "$results/kunit.count"

if "$infra/build-kernel.sh" && "$infra/qemu.sh" test; then
	ktap_count "$results/test.out"
	skipped=$((skipped + $(cat "$results/selftests.count.skip")))
fi
count selftests "$results/selftests.count"

# A short soak of the debug kernel on one preset; `make soak` is the long
# one (README: the soak).
SOAK_S=${HORIZON_TEST_SOAK_S:-60} HORIZON_PRESET=${HORIZON_PRESET:-client} \
	"$infra/soak.sh"
count soak "$results/soak.count"

finish
