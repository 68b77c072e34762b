#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make selftests-all`: run the cpuidle kselftests in QEMU once per shipped
# _CST preset (infra/acpi/cst-*.asl), and once more with the client preset
# and highres=off; print one line per run.
set -uo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

"$infra/build-kernel.sh" || exit 1
summary=
rc=0
# run NAME PRESET [KERNEL-ARGS]: the kselftests once, kept as test-NAME.out;
# the names of failed tests come last on the run's line.
run() {
	local line problems out=$cache/results/test.out
	HORIZON_PRESET=$2 HORIZON_APPEND=${3:-} "$infra/qemu.sh" test || rc=1
	if [ -f "$out" ]; then
		# One Totals line per test program: add them up.
		line=$(awk -F'[: ]+' '/^# Totals/ { p += $4; f += $6; s += $8 }
			END { printf "# Totals: pass:%d fail:%d skip:%d", p, f, s }' "$out")
		problems=$(guest_tally "$out" | tr '\n' ';') || rc=1
		cp "$out" "$cache/results/test-$1.out"
	else
		line="guest failed"
	fi
	summary="$summary$(printf '%-14s %s %s' "$1" "$line" "${problems:-}")"$'\n'
}
for asl in "$infra"/acpi/cst-*.asl; do
	preset=${asl##*/cst-}
	preset=${preset%.asl}
	run "$preset" "$preset"
done
# The tick in low-resolution mode: the safety net is programmed on the
# clock event directly there.
run client-lowres client highres=off
echo
echo "cpuidle kselftests per _CST preset (and the client one with highres=off):"
printf '%s' "$summary"
exit $rc
