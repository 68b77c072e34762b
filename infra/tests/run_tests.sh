#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the infra's own verdicts, on fake inputs: guest_tally, which
# decides whether a guest job passed (used by every make target that boots
# the guest), count, which adds a suite's counts to `make test`'s line, and
# qemu.sh's removal of an earlier run's output before anything can fail,
# -h and --help of every script a user runs, the figures of README.md and
# HACKING.md against the results files (readme-figures.py), the names of
# the cpuidle kselftests' catalogue, guest-bench.sh's peer variable and
# run.sh's report.
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
	count_bad_exit count_garbage qemu_removes_stale help readme_figures_current
	readme_figures_drift readme_figures_regenerate readme_tests_snapshot
	selftest_catalogue guest_bench_peers run_report tests_table_suites
	guest_plot)
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
	for f in "$infra"/*.sh "$infra"/*.py "$infra"/ukunit/*.sh "$infra"/ukunit/*.py \
		 "$repo"/tools/power/cpuidle-replay/*.sh \
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

# The README and HACKING figures are those of the results files.
test_readme_figures_current() {
	local d
	d=$(python3 "$infra/readme-figures.py" --check 2>&1)
	check "readme-figures: README.md and HACKING.md match bench/" $? "$d"
}

# figrepo: a copy of what readme-figures.py reads, in $tmp/repo.
figrepo() {
	rm -rf "$tmp/repo"
	mkdir -p "$tmp/repo/infra" "$tmp/repo/bench"
	cp "$infra/readme-figures.py" "$tmp/repo/infra/"
	cp "$repo/README.md" "$repo/HACKING.md" "$tmp/repo/"
	cp "$repo"/bench/*.txt "$repo/bench/bench.csv" "$tmp/repo/bench/"
	# Its own figures, so that the tests do not depend on the state of
	# the work tree's results.
	HORIZON_CACHE=$tmp/nocache python3 "$tmp/repo/infra/readme-figures.py" >/dev/null 2>&1
}

# A figure edited by hand, or a results file rewritten without make
# readme, is found, and named.
test_readme_figures_drift() {
	local d st bad=""
	figrepo
	python3 "$tmp/repo/infra/readme-figures.py" --check >/dev/null 2>&1 ||
		bad="$bad the copy does not pass;"
	sed -i '/<!-- figure headline -->/,/<!-- \/figure headline -->/s/| all | [0-9.]*/| all | 0.999/' \
		"$tmp/repo/README.md"
	d=$(python3 "$tmp/repo/infra/readme-figures.py" --check 2>&1)
	st=$?
	[ "$st" = 1 ] && grep -q 'README.md: figures differ .*headline' <<<"$d" ||
		bad="$bad an edited figure passed: $d;"
	figrepo
	echo >>"$tmp/repo/bench/bench.txt"
	d=$(python3 "$tmp/repo/infra/readme-figures.py" --check 2>&1)
	st=$?
	[ "$st" = 1 ] && grep -q 'bench/bench.txt changed since its provenance' <<<"$d" ||
		bad="$bad a changed bench.txt passed: $d;"
	[ -z "$bad" ]
	check "readme-figures --check: a typed figure or a new results file fails" $? "$bad"
}

# make readme takes a new figure from bench.txt, records its provenance,
# and then --check passes; the cache's results are not needed.
test_readme_figures_regenerate() {
	local d bad=""
	figrepo
	# host-vm-compile, model A: horizon as without nets.
	awk '/^E\/O model A per trace family/ { a = 1 }
	     a && $1 == "host-vm-compile" { $2 = $3; a = 0 } { print }' \
		"$repo/bench/bench.txt" >"$tmp/repo/bench/bench.txt"
	HORIZON_CACHE=$tmp/nocache python3 "$tmp/repo/infra/readme-figures.py" >/dev/null 2>&1 ||
		bad="$bad make readme failed;"
	grep -q '^| host-vm-compile | +0\.0% | ' "$tmp/repo/README.md" || bad="$bad no new figure;"
	grep -q '^bench/bench.txt sha256:.* Provenance: make bench, ' \
		"$tmp/repo/bench/provenance.txt" || bad="$bad no provenance;"
	d=$(python3 "$tmp/repo/infra/readme-figures.py" --check 2>&1) || bad="$bad $d"
	[ ! -e "$tmp/nocache" ] || bad="$bad wrote into the cache;"
	[ -z "$bad" ]
	check "readme-figures: make readme regenerates the figures" $? "$bad"
}

# The counts of a make test run in the cache become bench/tests.txt and
# the table of HACKING.md; an incomplete run is not taken.
test_readme_tests_snapshot() {
	local s bad="" res=$tmp/tcache/results
	figrepo
	rm -f "$tmp/repo/bench/tests.txt"
	mkdir -p "$res"
	for s in checkpatch series replay cpuidle-ab infra ukunit kunit selftests; do
		echo "10 0" >"$res/$s.count"
	done
	echo 1 >"$res/series.count.skip"
	HORIZON_CACHE=$tmp/tcache python3 "$tmp/repo/infra/readme-figures.py" >/dev/null 2>&1
	[ ! -e "$tmp/repo/bench/tests.txt" ] || bad="$bad a run without soak was taken;"
	echo "3 1" >"$res/soak.count"
	HORIZON_CACHE=$tmp/tcache python3 "$tmp/repo/infra/readme-figures.py" >/dev/null 2>&1
	grep -q '^soak  *3  *1  *0$' "$tmp/repo/bench/tests.txt" 2>/dev/null ||
		bad="$bad no soak row in tests.txt;"
	# shellcheck disable=SC2016 # backquotes of markdown
	grep -q '^Closing line: `83 passed, 1 failed, 1 skipped`\.$' "$tmp/repo/HACKING.md" ||
		bad="$bad HACKING.md: $(grep '^Closing line' "$tmp/repo/HACKING.md");"
	grep -q '^bench/tests.txt: make test, ' "$tmp/repo/HACKING.md" || bad="$bad no provenance;"
	[ -z "$bad" ]
	check "readme-figures: make test counts become bench/tests.txt and HACKING.md" $? "$bad"
}

# Every result the cpuidle kselftests print is in their catalogue under
# the name they print, and the catalogue names no other.
test_selftest_catalogue() {
	local st=$repo/tools/testing/selftests/cpuidle printed listed d
	printed=$(sed -n -e 's/.*ktap_result \(OK\|FAIL\) "\{0,1\}\([a-z0-9_]*\).*/\2/p' \
		-e 's/^[[:space:]]*check_rejected .* \([a-z0-9_]*\)$/\1/p' \
		"$st"/cpuidle_*.sh | grep . | sort -u)
	# shellcheck disable=SC2016 # double backquotes of rst
	listed=$(grep '^``' "$st/README.rst" | tr ',' '\n' |
		sed -n 's/^ *``\([a-z0-9_]*\)``.*/\1/p' | grep -v '^cpuidle_' | sort -u)
	d=$(diff <(echo "$printed") <(echo "$listed"))
	[ -n "$printed" ] && [ -z "$d" ]
	check "selftests: README.rst names every result as the scripts print it" $? \
		"< printed only, > catalogue only: $d"
}

# make guest-bench takes PEERS as make bench does; PEER still works, with
# a warning; a bad tree is refused before anything is built.
test_guest_bench_peers() {
	local d st bad=""
	d=$(PEER=$tmp/nopeer HORIZON_CACHE=$tmp/gb "$infra/guest-bench.sh" 2>&1)
	st=$?
	{ [ "$st" != 0 ] && grep -q 'PEER is deprecated, use PEERS' <<<"$d" &&
	  grep -q "no peer tree at $tmp/nopeer" <<<"$d"; } || bad="$bad PEER: $d;"
	d=$(PEERS="$tmp/a $tmp/b" HORIZON_CACHE=$tmp/gb "$infra/guest-bench.sh" 2>&1)
	st=$?
	{ [ "$st" != 0 ] && grep -q 'PEERS: one kernel tree' <<<"$d"; } || bad="$bad two trees: $d;"
	d=$(PEERS=$tmp/nopeer PEER=$repo HORIZON_CACHE=$tmp/gb "$infra/guest-bench.sh" 2>&1)
	grep -q "no peer tree at $tmp/nopeer" <<<"$d" || bad="$bad PEERS not first: $d;"
	[ ! -e "$tmp/gb" ] || bad="$bad the cache was written;"
	[ -z "$bad" ]
	check "guest-bench.sh: PEERS, PEER deprecated, bad trees refused first" $? "$bad"
}

# run.sh report: the table of a guest output, kept in results/run.txt.
test_run_report() {
	local d st bad="" c=$tmp/rcache/results
	mkdir -p "$c"
	printf '%s\n' HORIZON-BEGIN "HZ-ROW horizon state0 POLL 10 5000 1 2" \
		"HZ-ROW horizon state1 C1 30 9000 3 4" "HZ-ROW menu state0 POLL 40 1000 0 0" \
		"HZ-ROW menu state1 C1 60 2000 10 0" "HORIZON-END rc=0" >"$c/run.out"
	d=$(HORIZON_CACHE=$tmp/rcache PATH=/usr/bin:/bin "$infra/run.sh" report 2>&1) ||
		bad="$bad status $?: $d;"
	grep -q '^horizon  *40  *4  *6  *25.00%$' "$c/run.txt" 2>/dev/null ||
		bad="$bad horizon row: $(cat "$c/run.txt" 2>&1);"
	grep -q '^menu  *100  *10  *0  *10.00%$' "$c/run.txt" 2>/dev/null || bad="$bad menu row;"
	if command -v gnuplot >/dev/null; then
		[ -s "$c/run.png" ] || bad="$bad no plot;"
	fi
	d=$(HORIZON_CACHE=$tmp/rcache "$infra/run.sh" bogus 2>&1)
	st=$?
	{ [ "$st" != 0 ] && grep -q usage <<<"$d"; } || bad="$bad bad argument: $d;"
	[ -z "$bad" ]
	check "run.sh report: the summary table and the plot from a guest output" $? "$bad"
}

# The test counts table of HACKING.md lists every suite make test counts.
test_tests_table_suites() {
	local counted listed
	counted=$(sed -n 's/^count \([a-z-]*\) .*/\1/p' "$infra/test.sh" | tr '\n' ' ')
	listed=$(python3 -c 'import importlib.util, sys
s = importlib.util.spec_from_file_location("f", sys.argv[1])
m = importlib.util.module_from_spec(s); s.loader.exec_module(m)
print(" ".join(m.SUITES), end=" ")' "$infra/readme-figures.py")
	[ -n "$counted" ] && [ "$counted" = "$listed" ]
	check "readme-figures: the tests table has every suite of make test" $? \
		"test.sh counts: $counted; readme-figures.py lists: $listed"
}

# guest-plot.py: a PNG of guest.txt's tables; nothing written, and an
# error, for a file without any.
test_guest_plot() {
	local bad="" d
	printf '%s\n' "no tables here" >"$tmp/g-none.txt"
	d=$(python3 "$infra/guest-plot.py" "$tmp/g-none.txt" "$tmp/g-none.png" 2>&1) &&
		bad="$bad accepted a file without tables;"
	grep -q "no table in" <<<"$d" || bad="$bad no message: $d;"
	[ ! -e "$tmp/g-none.png" ] || bad="$bad wrote a PNG without tables;"
	printf '%s\n' "Guest comparison" "" "== high-resolution timers on" \
		"   driver:    acpi_idle" "" \
		"pingpong-50us miss% LOC/s entries/s nets/s p50_us p90_us p99_us" \
		"horizon 30.35 1293 2946 2.4 2592 5533 11972" \
		"teo71 41.12 678 1398 0.0 5432 7863 21195" "" "== highres=off" "" \
		"idle miss% LOC/s entries/s nets/s p50_us p90_us p99_us" \
		"horizon 11.90 30 40 0.0 3000 4000 4200" >"$tmp/g.txt"
	if command -v gnuplot >/dev/null; then
		d=$(python3 "$infra/guest-plot.py" "$tmp/g.txt" "$tmp/g.png" 2>&1) ||
			bad="$bad failed: $d;"
		[ "$(head -c 4 "$tmp/g.png" 2>/dev/null | tail -c 3)" = PNG ] ||
			bad="$bad no PNG written;"
	else
		d=$(python3 "$infra/guest-plot.py" "$tmp/g.txt" "$tmp/g.png" 2>&1) &&
			bad="$bad no error without gnuplot;"
		grep -q "gnuplot is missing" <<<"$d" || bad="$bad no message: $d;"
	fi
	[ -z "$bad" ]
	check "guest-plot.py: a PNG of the tables, an error without any" $? "$bad"
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
