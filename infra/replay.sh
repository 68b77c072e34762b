#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the cpuidle-replay harness from the prepared tree (menu.c, teo.c and
# horizon.c compiled unchanged) into $cache/replay, and generate the trace
# families into $cache/traces, with the project's recordings of bench/traces
# beside them, when the generator or a recording changed.
# Usage: replay.sh build | test | bench
# bench also copies its results to bench/ and into README.md. It compares
# with the menu and teo of every kernel tree in PEERS (space-separated,
# absolute or relative to the repo; by default ../shared/peers/linux-7.1
# when that exists, none if PEERS is set empty), each named by its origin
# (PEERS_NAME= names a single one), and replays the *.trace files of the
# directories in TRACES next to the generated families. The recordings of
# real hardware in HW_TRACES (by default ../shared/hw-traces when that
# exists; none if HW_TRACES is set empty) are converted by hw2trace.py into
# $cache/hw-traces and replayed as the set "hardware": they are evaluation
# data, never copied into the repository.
set -euo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

tool=$src/tools/power/cpuidle-replay
bin=$cache/replay
traces=$cache/traces
results=$cache/results
mkdir -p "$bin" "$results"

build() {
	phase "cpuidle-replay: building from $src"
	make -s -C "$tool" TREE="$src" OUTPUT="$bin" ||
		die "building cpuidle-replay failed"
	local stamp recorded
	recorded=$(find "$repo/bench/traces" -name '*.trace' 2>/dev/null | sort || true)
	# shellcheck disable=SC2086
	stamp=$(cat "$tool/gen_traces.py" $recorded | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$traces/.stamp" 2>/dev/null)" != "$stamp" ]; then
		phase "cpuidle-replay: generating the trace families"
		rm -rf "$traces"
		python3 "$tool/gen_traces.py" "$traces" 10000 ||
			die "generating traces failed"
		# shellcheck disable=SC2086
		[ -z "$recorded" ] || cp $recorded "$traces/"
		echo "$stamp" >"$traces/.stamp"
	fi
}

case "${1:-}" in
build)
	build
	;;
test)
	build
	phase "cpuidle-replay: harness tests"
	# The counts are written whatever the tests' status: a result missing
	# against the plan, no plan, or a failing exit with no failed result
	# counts as a failure.
	rc=0
	"$tool/tests/run_tests.sh" "$bin" | tee "$results/replay.out" || rc=$?
	awk -v rc="$rc" '/^1\.\.[0-9]+$/ && !plan { plan = substr($1, 4) + 0 }
	     /^ok / { p++ } /^not ok / { f++ }
	     END { if (p + f < plan) f += plan - p - f; else if (!plan) f++
		   if (rc && !f) f++
		   print p + 0, f + 0 }' "$results/replay.out" >"$results/replay.count"
	[ "$rc" = 0 ] || die "cpuidle-replay: harness tests failed ($(cat "$results/replay.count"))"
	;;
bench)
	if [ -z "${PEERS+set}" ] && [ -d "$repo/../shared/peers/linux-7.1" ]; then
		PEERS=../shared/peers/linux-7.1
	fi
	args=()
	# Check every tree and directory before anything is built or written.
	for p in ${PEERS:-}; do
		case $p in /*) ;; *) p=$repo/$p ;; esac
		name=$(python3 "$tool/bench.py" --origin "$p" \
			${PEERS_NAME:+--peers-name "$PEERS_NAME"}) || exit 1
		phase "cpuidle-replay: peers from $p, named ${name}"
		args+=(--peers "$p")
	done
	[ -z "${PEERS_NAME:-}" ] || args+=(--peers-name "$PEERS_NAME")
	for d in ${TRACES:-}; do
		case $d in /*) ;; *) d=$repo/$d ;; esac
		ls "$d"/*.trace >/dev/null 2>&1 || die "TRACES: no *.trace files in $d"
		args+=(--traces "$d")
	done
	if [ -z "${HW_TRACES+set}" ]; then
		HW_TRACES=../shared/hw-traces
		[ -d "$repo/$HW_TRACES" ] || HW_TRACES=
		[ -n "$HW_TRACES" ] || phase "cpuidle-replay: no ../shared/hw-traces:" \
			"the hardware set is left out"
	fi
	if [ -n "$HW_TRACES" ]; then
		case $HW_TRACES in /*) hw=$HW_TRACES ;; *) hw=$repo/$HW_TRACES ;; esac
		[ -d "$hw" ] || die "HW_TRACES: no such directory: $hw"
		stamp=$( (cat "$tool/hw2trace.py" "$tool/ftrace2trace.py"
			  find "$hw" -type f -printf '%P %s %T@\n' | sort) | sha256sum)
		stamp=${stamp%% *}
		if [ "$(cat "$cache/hw-traces/.stamp" 2>/dev/null)" != "$stamp" ]; then
			phase "cpuidle-replay: converting the recordings of real hardware in $hw"
			rm -rf "$cache/hw-traces"
			python3 "$tool/hw2trace.py" --dir "$hw" "$cache/hw-traces" ||
				die "converting $hw failed; bench/ and README.md are unchanged"
			echo "$stamp" >"$cache/hw-traces/.stamp"
		else
			phase "cpuidle-replay: the recordings of real hardware in $hw," \
				"converted before"
		fi
		args+=(--traces "$cache/hw-traces")
	fi
	build
	phase "cpuidle-replay: running the benchmark matrix"
	python3 "$tool/bench.py" "${args[@]}" "$bin" "$traces" "$cache/bench" ||
		die "the benchmark failed; bench/ and README.md are unchanged"
	# Keep the latest figures with the project, and in README.md.
	mkdir -p "$repo/bench"
	cp "$cache/bench/bench.txt" "$cache/bench/bench.csv" "$cache/bench/cost.csv" \
		"$repo/bench/"
	cp "$cache/bench/"*.png "$repo/bench/" 2>/dev/null || true
	# README.md gets the headline: the one table (every set and model,
	# with the smallest lead left when any one family is removed) and the
	# targets; the rest is in bench/bench.txt.
	python3 - "$repo/README.md" "$cache/bench/bench.txt" <<'PY'
import sys
readme, table = sys.argv[1], open(sys.argv[2]).read()
blocks = table.split('\n\n')
head = [b for b in blocks if b.startswith(('Energy over', 'One table', 'Targets'))]
text = open(readme).read()
begin, end = '<!-- bench:begin -->\n', '<!-- bench:end -->'
a, b = text.index(begin) + len(begin), text.index(end)
open(readme, 'w').write(text[:a] + '```\n' + '\n\n'.join(head) + '\n```\n\n'
                        'Every table (per set and governor, leave one family out '
                        'and the share of each family, the cost of nets per family, '
                        'per model and state table, per family, costs): '
                        '[bench/bench.txt](bench/bench.txt).\n' + text[b:])
PY
	phase "cpuidle-replay: results in bench/ and README.md"
	;;
*)
	die "usage: replay.sh build|test|bench"
	;;
esac
