#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cpuidle governor selftests: registration, run-time switching, rejection of
# bad names, state usage under the horizon governor, and a clean kernel log.
# The governor in use when the test starts is restored when it ends.

DIR=$(dirname "$0")
. "$DIR/cpuidle_lib.sh"
LOAD=$DIR/cpuidle_load

TESTS="test_available test_boot_param test_switch_horizon test_switch_all
test_reject_unknown test_reject_empty test_reject_long test_horizon_usage
test_dmesg_clean"

test_available() {
	if grep -qw horizon "$CPUIDLE_SYSFS/available_governors"; then
		ktap_result OK "horizon_available"
	else
		ktap_result FAIL "horizon_available" \
			"available: $(cat "$CPUIDLE_SYSFS/available_governors")"
	fi
}

# cpuidle.governor= on the command line must have selected that governor.
test_boot_param() {
	want=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^cpuidle\.governor=//p')
	if [ -z "$want" ]; then
		ktap_skip boot_param "no cpuidle.governor= on the command line"
	elif [ "$initial" = "$want" ]; then
		ktap_result OK "boot_param"
	else
		ktap_result FAIL "boot_param" "asked $want, booted with $initial"
	fi
}

test_switch_horizon() {
	if cpuidle_set_governor horizon && [ "$(cpuidle_governor)" = horizon ] &&
	   cpuidle_set_governor "$initial" &&
	   [ "$(cpuidle_governor)" = "$initial" ]; then
		ktap_result OK "switch_horizon_and_back"
	else
		ktap_result FAIL "switch_horizon_and_back" \
			"governor now $(cpuidle_governor)"
	fi
}

test_switch_all() {
	bad=
	for gov in $(cat "$CPUIDLE_SYSFS/available_governors") $initial; do
		cpuidle_set_governor "$gov" && [ "$(cpuidle_governor)" = "$gov" ] ||
			bad="$bad $gov"
	done
	if [ -z "$bad" ]; then
		ktap_result OK "switch_every_governor"
	else
		ktap_result FAIL "switch_every_governor" "failed:$bad"
	fi
}

# check_rejected NAME LABEL: writing NAME must fail and change nothing.
check_rejected() {
	before=$(cpuidle_governor)
	if cpuidle_set_governor "$1"; then
		ktap_result FAIL "$2" "write of '$1' succeeded"
	elif [ "$(cpuidle_governor)" != "$before" ]; then
		ktap_result FAIL "$2" "governor changed to $(cpuidle_governor)"
	else
		ktap_result OK "$2"
	fi
}

test_reject_unknown() {
	check_rejected nosuchgovernor reject_unknown_name
}

test_reject_empty() {
	check_rejected "" reject_empty_name
}

test_reject_long() {
	check_rejected horizonhorizonhorizonhorizon reject_overlong_name
}

sum_usage() {
	cpuidle_counters | awk '{ s += $3 } END { print s + 0 }'
}

test_horizon_usage() {
	cpuidle_set_governor horizon
	before=$(sum_usage)
	"$LOAD" mix 600 >/dev/null
	after=$(sum_usage)
	cpuidle_set_governor "$initial"
	if [ "$after" -gt "$before" ]; then
		ktap_result OK "horizon_enters_states"
	else
		ktap_result FAIL "horizon_enters_states" \
			"usage $before -> $after"
	fi
}

test_dmesg_clean() {
	bad=$(dmesg | grep -E 'WARNING:|BUG:|INFO: |Oops|Call Trace|KASAN' | head -5)
	if [ -z "$bad" ]; then
		ktap_result OK "dmesg_clean"
	else
		ktap_result FAIL "dmesg_clean" "$bad"
	fi
}

[ "$(id -u)" -eq 0 ] || ktap_skip_all "must be run as root"
[ -r "$CPUIDLE_SYSFS/current_governor" ] ||
	ktap_skip_all "no cpuidle sysfs (CONFIG_CPU_IDLE off?)"
driver=$(cat "$CPUIDLE_SYSFS/current_driver")
[ "$driver" != none ] || ktap_skip_all "no cpuidle driver registered"
[ -x "$LOAD" ] || ktap_skip_all "$LOAD not built"

initial=$(cpuidle_governor)
trap 'cpuidle_set_governor "$initial"' EXIT

set -- $TESTS
ktap_header $#
echo "# driver $driver, governor $initial"
for t in $TESTS; do
	$t
done
ktap_finished
