#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make guest-bench`, in the comparison kernel: horizon with
# and without safety nets, the comparison-only menu and teo of the peer
# tree (menu71, teo71) and the menu and teo of this tree, compared with
# cpuidle-ab on workloads modelled on what cpuidle testers run: pipe
# ping-pong over a sweep of think times, periodic timers at 73 to 401 Hz,
# bursts of short sleeps, and an idle system. Rounds interleaved per
# workload. Prints for each workload, governor and figure a line
# "GUEST-ROW WORKLOAD GOVERNOR METRIC MEAN SPREAD" (cpuidle-ab's
# summary.csv), and a KTAP line per workload: ok if cpuidle-ab ran every
# governor to the end. Then the kselftest net_unsticks_shallow_state.
# shellcheck disable=SC1091 # the selftests' library, in the initramfs
. /kselftest/cpuidle/cpuidle_lib.sh
LOAD=/kselftest/cpuidle/cpuidle_load
ROUNDS=${HORIZON_ROUNDS:-3}
SECS=${HORIZON_SECS:-1.5}
MSECS=$(awk -v s="$SECS" 'BEGIN { printf "%.0f", s * 1000 }')
GOVS=horizon,horizon:safety_net=N,teo71,menu71,teo,menu

# name:think_us:command (the think time also spaces the latency probe).
WORKLOADS="pingpong-50us:50:$LOAD pingpong $MSECS 50
pingpong-500us:500:$LOAD pingpong $MSECS 500
pingpong-3ms:3000:$LOAD pingpong $MSECS 3000
timer-73hz:2000:$LOAD timer 13699 $MSECS
timer-151hz:2000:$LOAD timer 6623 $MSECS
timer-401hz:2000:$LOAD timer 2494 $MSECS
burst:2000:$LOAD burst $MSECS
idle:2000:"

echo "driver:    $(cat "$CPUIDLE_SYSFS/current_driver")"
echo "available: $(cat "$CPUIDLE_SYSFS/available_governors")"
echo "cmdline:   $(cat /proc/cmdline)"
echo "highres:   $(grep -c 'hres_active *: *1' /proc/timer_list) CPUs in high resolution mode"

n=$(echo "$WORKLOADS" | wc -l)
echo "TAP version 13"
echo "1..$n"
i=0
echo "$WORKLOADS" | while IFS=: read -r name think cmd; do
	i=$((i + 1))
	out=/tmp/cmp-$name
	if [ -n "$cmd" ]; then
		# shellcheck disable=SC2086 # the command's words
		/horizon/cpuidle-ab.sh -g "$GOVS" -r "$ROUNDS" -s 0.5 -n 100 \
			-G "$think" -o "$out" -- $cmd >"$out.log" 2>&1
	else
		/horizon/cpuidle-ab.sh -g "$GOVS" -r "$ROUNDS" -s 0.5 -n 100 \
			-G "$think" -w idle -t "$SECS" -o "$out" >"$out.log" 2>&1
	fi
	rc=$?
	ran=$(awk -F, 'NR > 1 && !($2 in g) { g[$2] = 1; n++ } END { print n + 0 }' \
		"$out/rounds.csv" 2>/dev/null)
	awk -F, -v w="$name" 'NR > 1 {
		printf "GUEST-ROW %s %s %s %s %s\n", w, $1, $2, $4, $5
	}' "$out/summary.csv" 2>/dev/null
	if [ "$rc" = 0 ] && [ "${ran:-0}" = 6 ]; then
		echo "ok $i $name"
	else
		sed 's/^/# /' "$out.log" | tail -n 20
		echo "not ok $i $name (cpuidle-ab status $rc, ${ran:-0} of 6 governors)"
		: >/tmp/cmp-failed
	fi
done
# The failure the safety net exists for, with every governor of this
# kernel shown in the kselftest's diagnostics (teo71 and menu71 too).
CPUIDLE_NET_TESTS=test_stuck_shallow /kselftest/cpuidle/cpuidle_safety_net.sh ||
	: >/tmp/cmp-failed
[ ! -e /tmp/cmp-failed ]
