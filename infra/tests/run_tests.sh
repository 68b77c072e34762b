#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the infra's own verdicts, on fake inputs: guest_tally, which
# decides whether a guest job passed (used by every make target that boots
# the guest), count, which adds a suite's counts to `make test`'s line, and
# qemu.sh's removal of an earlier run's output before anything can fail,
# and -h and --help of every script a user runs.
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
	count_bad_exit count_garbage qemu_removes_stale help)
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

# tally_is NAME STATUS COUNTS TEXT LINE...: one check of tally on a fake
# output of LINE... (TEXT empty: any output).
tally_is() {
	local name=$1 st=$2 counts=$3 text=$4 d
	shift 4
	out "$@"
	d=$(tally "$st" "$counts" "$text")
	check "guest_tally: $name" $? "$d"
}

test_tally_pass() {
	tally_is "all held" 0 "2 0 1" "" "TAP version 13" "1..2" "ok 1 a" \
		"ok 2 b # SKIP no b" "${LOG_OK[@]}" "HORIZON-END rc=0"
}

test_tally_failed_test() {
	tally_is "a failed test fails, named last" 1 "3 1 0" \
		"failed: net_idle_accounting$" "TAP version 13" "1..3" "ok 1 a" \
		"not ok 2 net_idle_accounting" "ok 3 c" "${LOG_OK[@]}" "HORIZON-END rc=1"
}

test_tally_bad_exit() {
	tally_is "a job that exits non-zero fails" 1 "2 1 0" "exited 2" \
		"TAP version 13" "1..1" "ok 1 a" "${LOG_OK[@]}" "HORIZON-END rc=2"
}

test_tally_no_end() {
	tally_is "a job that never ended fails" 1 "1 1 0" "never reported" \
		"TAP version 13" "1..1" "ok 1 a"
}

test_tally_missing() {
	tally_is "results missing from a plan fail" 1 "2 2 0" "2 results missing" \
		"TAP version 13" "1..3" "ok 1 a" "${LOG_OK[@]}" "HORIZON-END rc=0"
}

test_tally_kernel_log() {
	tally_is "a splat in the kernel log fails" 1 "1 1 0" "failed: kernel_log_clean$" \
		"TAP version 13" "1..1" "ok 1 a" "TAP version 13" "1..1" \
		"# WARNING: CPU: 3 PID: 0 at kernel/time/tick-sched.c:1 x" \
		"not ok 1 kernel_log_clean" "HORIZON-END rc=1"
}

test_tally_skip_all() {
	tally_is "a program skipped whole is a skip" 0 "1 0 1" "" \
		"TAP version 13" "1..0 # SKIP no driver" "${LOG_OK[@]}" "HORIZON-END rc=0"
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

# count_is NAME FILE-CONTENT STATUS WANT: one check that count makes
# "passed failed" WANT of FILE-CONTENT and STATUS.
count_is() {
	local d
	d=$(counted "$2" "$3")
	[ "$d" = "$4" ]
	check "count: $1" $? "$d"
}

test_count_good() { count_is "counts are added" "5 1" 1 "5 1"; }
test_count_empty() { count_is "a suite that ran no test fails" "0 0" 0 "0 1"; }
test_count_no_file() { count_is "a suite that wrote no counts fails" none 0 "0 1"; }
test_count_bad_exit() {
	count_is "a suite that exits non-zero with no failure fails" "7 0" 1 "7 1"
}
test_count_garbage() { count_is "counts that are no numbers fail" "seven 0" 0 "0 1"; }

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

# Every script a user runs, the make targets' included, answers -h and
# --help on stdout with status 0 and does nothing else: run against an
# empty cache, with a time limit, so that one taking the option for
# something else fails rather than builds.
test_help() {
	local f o bad=""
	for f in "$infra"/*.sh "$repo"/tools/power/cpuidle-replay/*.sh \
		 "$repo"/tools/power/cpuidle-replay/*.py \
		 "$repo"/tools/power/cpuidle-ab/cpuidle-ab.sh; do
		[ "${f##*/}" != common.sh ] || continue
		for o in -h --help; do
			case "$f" in
			*.py) set -- python3 "$f" ;;
			*) set -- "$f" ;;
			esac
			HORIZON_CACHE=$tmp/help timeout 20 "$@" "$o" >"$tmp/help.out" 2>/dev/null </dev/null
			if [ $? != 0 ] || [ ! -s "$tmp/help.out" ] || [ -e "$tmp/help" ]; then
				bad="$bad ${f#"$repo"/} $o;"
				rm -rf "$tmp/help"
			fi
		done
	done
	[ -z "$bad" ]
	check "every script answers -h and --help" $? "failed:$bad"
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
