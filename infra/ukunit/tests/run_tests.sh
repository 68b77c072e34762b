#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the user-space KUnit shim: builds tests/shim_test.c with it and
# checks that each case is reported as it must be (passes pass; failed
# expectations, assertions, crashes and time-outs fail; a skip is a skip;
# each case runs in its own process). Prints TAP; exits non-zero on a
# failure. Usage: run_tests.sh [COUNT_FILE]  (writes "PASSED FAILED")
set -u
dir=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in -h|--help) sed -n '3,8s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 n=0
check() {	# check NAME: a grep -E pattern must match a line of the output
	n=$((n + 1))
	if grep -Eq -- "$2" "$tmp/out"; then
		pass=$((pass + 1)); echo "ok $n $1"
	else
		fail=$((fail + 1)); echo "not ok $n $1"
		echo "# no line matches: $2"
	fi
}
absent() {	# absent NAME PATTERN: no line may match
	n=$((n + 1))
	if grep -Eq -- "$2" "$tmp/out"; then
		fail=$((fail + 1)); echo "not ok $n $1"
	else
		pass=$((pass + 1)); echo "ok $n $1"
	fi
}
flags=$(make -s -C "$dir" flags HZ=250) || exit 1
# shellcheck disable=SC2086 # the flags are words
if ! cc $flags -o "$tmp/shim" "$dir/tests/shim_test.c" "$dir/ukunit.c" 2>"$tmp/cc"; then
	cat "$tmp/cc"; echo "not ok 1 build"; exit 1
fi
rc=0
"$tmp/shim" -t 1 >"$tmp/out" 2>&1 || rc=$?
echo "1..17"
check "a passing case passes" '^    ok 1 shim_pass$'
check "each case runs in its own process" '^    ok 2 shim_own_process$'
check "a failed expectation fails the case" '^    not ok 3 shim_expect_fails$'
check "both sides of a failed comparison are printed" '^        1 \+ 1 == 2 \(0x2\)$'
check "the message of a _MSG check is printed" '^    arithmetic 2$'
check "a failed expectation lets the case go on" 'after a failed expectation'
check "a failed assertion fails the case" '^    not ok 4 shim_assert_stops$'
absent "a failed assertion ends the case" 'after a failed assertion'
check "a crash fails the case" '^    not ok 5 shim_crash # CRASHED$'
check "a case over its time limit fails" '^    not ok 6 shim_hang # CRASHED$'
check "a skip is reported as one" '^    ok 7 shim_skip # SKIP not here$'
check "static stubs redirect and are put back" '^    ok 8 shim_stub$'
check "parameters run one by one, named" '^        ok 1 even 2$'
check "a failed parameter fails" '^        not ok 2 odd 3$'
check "a parameterised case with a failed parameter fails" '^    not ok 9 shim_param_even$'
check "the suite fails" '^not ok 1 ukunit-shim$'
n=$((n + 1))
if [ "$rc" = 1 ]; then pass=$((pass + 1)); echo "ok $n exit status 1 on failures"
else fail=$((fail + 1)); echo "not ok $n exit status 1 on failures (got $rc)"; fi
[ $# -ge 1 ] && echo "$pass $fail" >"$1"
[ "$fail" = 0 ]
