#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the infra's own verdicts, on fake inputs: guest_tally, which
# decides whether a guest job passed (used by every make target that boots
# the guest), count, which adds a suite's counts to `make test`'s line, and
# qemu.sh's removal of an earlier run's output before anything can fail.
# Usage: run_tests.sh [COUNTFILE]; prints TAP, writes "PASSED FAILED" to
# COUNTFILE.
set -uo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/../common.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 pass=0 fail=0
TESTS=(tally_pass tally_failed_test tally_bad_exit tally_no_end tally_missing
	tally_kernel_log tally_skip_all count_good count_empty count_no_file
	count_bad_exit count_garbage qemu_removes_stale)
echo "1..${#TESTS[@]}"

# check NAME CONDITION-STATUS [DIAGNOSTIC]: one TAP result.
check() {
	n=$((n + 1))
	if [ "$2" = 0 ]; then
		pass=$((pass + 1))
		echo "ok $n $1"
	else
		fail=$((fail + 1))
		echo "not ok $n $1"
		[ -z "${3:-}" ] || printf '%s\n' "$3" | sed 's/^/# /'
	fi
}

# out LINES...: a fake guest output in $tmp/out, one argument a line.
out() {
	printf '%s\n' "HORIZON-BEGIN job=test cpus=4" "$@" >"$tmp/out"
}

LOG_OK=("TAP version 13" "1..1" "ok 1 kernel_log_clean")

# tally EXPECTED-STATUS EXPECTED-COUNTS [EXPECTED-TEXT]: run guest_tally on
# $tmp/out; whether its status, counts and output are the expected ones.
tally() {
	local text st counts
	text=$(guest_tally "$tmp/out" "$tmp/count")
	st=$?
	counts="$(cat "$tmp/count" 2>/dev/null) $(cat "$tmp/count.skip" 2>/dev/null)"
	if { [ "$1" = 0 ] && [ "$st" != 0 ]; } || { [ "$1" != 0 ] && [ "$st" = 0 ]; } ||
	   [ "$counts" != "$2" ] ||
	   { [ -n "${3:-}" ] && ! printf '%s\n' "$text" | tail -n1 | grep -q -- "$3"; }; then
		echo "status $st, counts '$counts', output: $text"
		return 1
	fi
}

test_tally_pass() {
	out "TAP version 13" "1..2" "ok 1 a" "ok 2 b # SKIP no b" "${LOG_OK[@]}" \
		"HORIZON-END rc=0"
	d=$(tally 0 "2 0 1")
	check "guest_tally: all held" $? "$d"
}

test_tally_failed_test() {
	out "TAP version 13" "1..3" "ok 1 a" "not ok 2 net_idle_accounting" "ok 3 c" \
		"${LOG_OK[@]}" "HORIZON-END rc=1"
	d=$(tally 1 "3 1 0" "failed: net_idle_accounting$")
	check "guest_tally: a failed test fails, named last" $? "$d"
}

test_tally_bad_exit() {
	out "TAP version 13" "1..1" "ok 1 a" "${LOG_OK[@]}" "HORIZON-END rc=2"
	d=$(tally 1 "2 1 0" "exited 2")
	check "guest_tally: a job that exits non-zero fails" $? "$d"
}

test_tally_no_end() {
	out "TAP version 13" "1..1" "ok 1 a"
	d=$(tally 1 "1 1 0" "never reported")
	check "guest_tally: a job that never ended fails" $? "$d"
}

test_tally_missing() {
	out "TAP version 13" "1..3" "ok 1 a" "${LOG_OK[@]}" "HORIZON-END rc=0"
	d=$(tally 1 "2 2 0" "2 results missing")
	check "guest_tally: results missing from a plan fail" $? "$d"
}

test_tally_kernel_log() {
	out "TAP version 13" "1..1" "ok 1 a" "TAP version 13" "1..1" \
		"# WARNING: CPU: 3 PID: 0 at kernel/time/tick-sched.c:1 x" \
		"not ok 1 kernel_log_clean" "HORIZON-END rc=1"
	d=$(tally 1 "1 1 0" "failed: kernel_log_clean$")
	check "guest_tally: a splat in the kernel log fails" $? "$d"
}

test_tally_skip_all() {
	out "TAP version 13" "1..0 # SKIP no driver" "${LOG_OK[@]}" "HORIZON-END rc=0"
	d=$(tally 0 "1 0 1")
	check "guest_tally: a program skipped whole is a skip" $? "$d"
}

# counted FILE-CONTENT STATUS: "passed failed" after count on it.
counted() {
	local passed=0 failed=0
	if [ "$1" = none ]; then
		rm -f "$tmp/c"
	else
		printf '%s\n' "$1" >"$tmp/c"
	fi
	count suite "$tmp/c" "$2" 2>/dev/null
	echo "$passed $failed"
}

test_count_good() {
	d=$(counted "5 1" 1)
	[ "$d" = "5 1" ]
	check "count: counts are added" $? "$d"
}

test_count_empty() {
	d=$(counted "0 0" 0)
	[ "$d" = "0 1" ]
	check "count: a suite that ran no test fails" $? "$d"
}

test_count_no_file() {
	d=$(counted none 0)
	[ "$d" = "0 1" ]
	check "count: a suite that wrote no counts fails" $? "$d"
}

test_count_bad_exit() {
	d=$(counted "7 0" 1)
	[ "$d" = "7 1" ]
	check "count: a suite that exits non-zero with no failure fails" $? "$d"
}

test_count_garbage() {
	d=$(counted "seven 0" 0)
	[ "$d" = "0 1" ]
	check "count: counts that are no numbers fail" $? "$d"
}

# qemu.sh, with no kernel to boot, must fail having removed the output of
# an earlier run.
test_qemu_removes_stale() {
	mkdir -p "$tmp/cache/results"
	printf '%s\n' "HORIZON-BEGIN" "HORIZON-END rc=0" >"$tmp/cache/results/test.out"
	HORIZON_CACHE=$tmp/cache "$infra/qemu.sh" test >/dev/null 2>&1
	st=$?
	[ "$st" != 0 ] && [ ! -e "$tmp/cache/results/test.out" ]
	check "qemu.sh: an earlier run's output is gone when it fails" $? "status $st"
}

for t in "${TESTS[@]}"; do
	"test_$t"
done
[ $((pass + fail)) -eq ${#TESTS[@]} ] || {
	echo "# $(( ${#TESTS[@]} - pass - fail )) results missing"
	fail=$((fail + ${#TESTS[@]} - pass - fail))
}
echo "# infra: $pass passed, $fail failed"
[ -z "${1:-}" ] || echo "$pass $fail" >"$1"
[ "$fail" = 0 ]
