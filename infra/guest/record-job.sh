#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make record`: trace the idle loop while real programs run
# (the selftests' workload, then a quiet spell), and print the ftrace text
# for the host to convert with ftrace2trace.py.
T=/sys/kernel/tracing
LOAD=/kselftest/cpuidle/cpuidle_load
[ -d $T/events/power/cpu_idle ] || { echo "no tracefs events"; exit 1; }
echo 8192 >$T/buffer_size_kb
for e in power/cpu_idle sched/sched_switch timer/hrtimer_expire_entry; do
	echo 1 >"$T/events/$e/enable" || exit 1
done
echo 1 >$T/tracing_on
$LOAD mix 1500 || exit 1
$LOAD timer 2000 300 || exit 1
sleep 1
echo 0 >$T/tracing_on
echo HORIZON-TRACE-BEGIN
cat $T/trace
echo HORIZON-TRACE-END
