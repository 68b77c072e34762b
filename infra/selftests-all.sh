#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make selftests-all`: run the cpuidle kselftests in QEMU once per shipped
# _CST preset (infra/acpi/cst-*.asl) and print one line per preset.
set -uo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

"$infra/build-kernel.sh" || exit 1
summary=
rc=0
for asl in "$infra"/acpi/cst-*.asl; do
	preset=${asl##*/cst-}
	preset=${preset%.asl}
	if HORIZON_PRESET=$preset "$infra/qemu.sh" test; then
		# One Totals line per test program: add them up.
		line=$(awk -F'[: ]+' '/^# Totals/ { p += $4; f += $6; s += $8 }
			END { printf "# Totals: pass:%d fail:%d skip:%d", p, f, s }' \
			"$cache/results/test.out")
	else
		line="guest failed"
	fi
	grep -q '^HORIZON-END rc=0' "$cache/results/test.out" 2>/dev/null || rc=1
	cp "$cache/results/test.out" "$cache/results/test-$preset.out" 2>/dev/null
	summary="$summary$(printf '%-8s %s' "$preset" "$line")"$'\n'
done
echo
echo "cpuidle kselftests per _CST preset:"
printf '%s' "$summary"
exit $rc
