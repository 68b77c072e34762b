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

rm -f "$results"/*.count "$results"/*.skip
mkdir -p "$results"

phase "checking Debian packages"
"$infra/deps.sh" || { failed=$((failed + 1)); finish; }
phase "preparing the kernel tree"
"$infra/prepare.sh" || { failed=$((failed + 1)); finish; }

"$infra/checkpatch.sh"
count checkpatch "$results/checkpatch.count" $?

"$infra/check-series.sh" fast
count series "$results/series.count" $?
skips "$results/series.count.skip"

"$infra/replay.sh" test
count replay "$results/replay.count" $?

phase "cpuidle-ab: tests"
"$repo/tools/power/cpuidle-ab/tests/run_tests.sh" "$results/cpuidle-ab.count"
count cpuidle-ab "$results/cpuidle-ab.count" $?
skips "$results/cpuidle-ab.count.skip"

phase "infra: tests"
"$infra/tests/run_tests.sh" "$results/infra.count"
count infra "$results/infra.count" $?

# The same KUnit suites in user space at HZ=250 and HZ=1000 (seconds); the
# QEMU run below is the one that builds them as the kernel does.
phase "KUnit in user space (HZ 250 and 1000)"
"$infra/ukunit/check.sh" "$cache/ukunit" "$results/ukunit.count"
count ukunit "$results/ukunit.count" $?

"$infra/kunit.sh"
count kunit "$results/kunit.count" $?

# qemu.sh fails when a test failed; the counts come from the job's output,
# which qemu.sh removes before it starts.
status=1
if "$infra/build-kernel.sh"; then
	"$infra/qemu.sh" test
	status=$?
	[ ! -f "$results/test.out" ] ||
		guest_tally "$results/test.out" "$results/selftests.count" >/dev/null
fi
count selftests "$results/selftests.count" $status
skips "$results/selftests.count.skip"

# A short soak of the debug kernel on one preset; `make soak` is the long
# one (README: the soak).
SOAK_S=${HORIZON_TEST_SOAK_S:-60} HORIZON_PRESET=${HORIZON_PRESET:-client} \
	"$infra/soak.sh"
count soak "$results/soak.count" $?

finish
