#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make record`: boot the guest, trace its idle loop while real programs
# run, and convert the recording into the replay trace
# bench/traces/qemu-mix.trace (committed, so that the benchmark does not
# need a boot; it is the project's data, in no patch).
set -euo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

out=$repo/bench/traces/qemu-mix.trace
"$infra/build-kernel.sh"
phase "recording the idle loop in the guest (menu governor)"
HORIZON_GOVERNOR=menu "$infra/qemu.sh" record >/dev/null
raw=$cache/results/record.ftrace
sed -n '/^HORIZON-TRACE-BEGIN/,/^HORIZON-TRACE-END/p' "$cache/results/record.out" |
	sed '1d;$d' >"$raw"
[ -s "$raw" ] || die "the guest recorded nothing (see $cache/results/guest-record.log)"
mkdir -p "$(dirname "$out")"
{
	echo "# cpuidle-replay trace v1: recorded by 'make record' in the QEMU guest"
	echo "# (TCG, $(nproc) host cores, ${HORIZON_SMP:-4} vCPUs, _CST preset" \
		"${HORIZON_PRESET:-client}) running cpuidle_load mix and timer;"
	echo "# converted from ftrace by ftrace2trace.py on $(date -u +%Y-%m-%d)."
	python3 "$src/tools/power/cpuidle-replay/ftrace2trace.py" "$raw"
} >"$out.tmp"
mv "$out.tmp" "$out"
phase "wrote $out ($(grep -c '^idle' "$out") idle periods from $(wc -l <"$raw") events)"
