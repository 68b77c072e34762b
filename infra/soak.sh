#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make soak`: build the debug flavour of the boot kernel (KASAN, UBSAN,
# lockdep, atomic-sleep, timer-object, preempt, lockup and stall checks)
# and soak the governors, the safety net and the idle-loop change in it for
# SOAK_S seconds (default 300) on each _CST preset in turn, or on the one
# HORIZON_PRESET names. Prints each preset's soak line; writes
# "PASSED FAILED" to $cache/results/soak.count; fails on any splat.
set -uo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

results=$cache/results
mkdir -p "$results"
rm -f "$results/soak.count"
export SOAK_S=${SOAK_S:-300}
case "$SOAK_S" in
'' | *[!0-9]*) die "SOAK_S must be a number of seconds, not '$SOAK_S'" ;;
esac
if [ -n "${HORIZON_PRESET:-}" ]; then
	presets=$HORIZON_PRESET
else
	presets=$(cd "$infra/acpi" && ls cst-*.asl | sed 's/^cst-//; s/\.asl$//')
fi

pass=0 fail=0 summary=
if ! "$infra/build-kernel.sh" debug; then
	echo "0 1" >"$results/soak.count"
	exit 1
fi
for preset in $presets; do
	phase "soak: $SOAK_S s on the $preset preset (4 vCPUs, debug kernel)"
	HORIZON_PRESET=$preset HORIZON_SMP=4 "$infra/qemu.sh" soak |
		grep --line-buffered -E '^(\[ *[0-9]+s\]|soak: |(not )?ok )'
	status=${PIPESTATUS[0]}
	out=$results/soak.out
	cp "$out" "$results/soak-$preset.out" 2>/dev/null
	line=$(grep '^soak: .* splats$' "$out" 2>/dev/null | tail -1)
	# qemu.sh fails unless the job ended with rc=0 and a clean kernel log.
	if [ "$status" = 0 ] && [ -n "$line" ]; then
		pass=$((pass + 1))
		echo "  ok soak $preset: ${line#soak: }"
	else
		fail=$((fail + 1))
		echo "  not ok soak $preset: ${line:-no soak line}"
		grep -v '^HORIZON-' "$out" 2>/dev/null | tail -60 | sed 's/^/    /'
	fi
	summary="$summary$(printf '%-8s %s' "$preset" "${line:-failed}")"$'\n'
done
echo "$pass $fail" >"$results/soak.count"
echo
echo "soak per _CST preset (debug kernel, SOAK_S=$SOAK_S):"
printf '%s' "$summary"
[ "$fail" = 0 ]
