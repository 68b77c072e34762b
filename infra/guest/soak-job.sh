#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make soak`, on the debug kernel: for SOAK_S seconds
# (default 300), under a workload of periodic timers, IPI bursts, pipe
# ping-pong and sleeps, keep switching governors in random order, taking
# every secondary CPU offline and back, taking and releasing PM QoS limits,
# disabling and enabling idle states, turning the safety net off and on,
# holding the net_test governor for spells (nets must fire), and writing
# bad input to every writable cpuidle and governor knob (a
# refused write must change nothing, an accepted one must read back).
# Then count the splats in the kernel log. The last line is
#   soak: S s, N governor switches, N hotplug cycles, N nets fired,
#   N bad writes refused, N splats
# and the job fails on any splat or any knob that misbehaved.
. /kselftest/cpuidle/cpuidle_lib.sh
LOAD=/kselftest/cpuidle/cpuidle_load
TRACING=/sys/kernel/tracing
PARAM=/sys/module/horizon/parameters/safety_net
SOAK_S=${SOAK_S:-300}
NCPU=$(nproc)
LOG=/tmp/soak.log
: >"$LOG"

case "$SOAK_S" in
'' | *[!0-9]*) echo "soak: SOAK_S must be a number of seconds, not '$SOAK_S'"; exit 2 ;;
esac

# rnd N: a random number from 0 to N - 1.
rnd() {
	echo $(($(od -An -tu4 -N4 /dev/urandom) % $1))
}

problem() {
	echo "soak: $*" | tee -a "$LOG"
}

# Nets fired: a stream of the net and tick timer events through awk, which
# counts the tick handler runs at or after a pending net's expiry, per CPU.
handler=$(awk '$3 == "tick_nohz_handler" { print "0x" $1; exit }' /proc/kallsyms)
echo 0 >"$TRACING/tracing_on"
echo mono >"$TRACING/trace_clock"
echo 1 >"$TRACING/events/timer/tick_idle_net/enable"
if [ -n "$handler" ]; then
	echo "function == $handler" >"$TRACING/events/timer/hrtimer_expire_entry/filter"
	echo 1 >"$TRACING/events/timer/hrtimer_expire_entry/enable"
fi
echo 1 >"$TRACING/tracing_on"
awk "$CPUIDLE_AWK_VAL"'
{ cpu = $0; sub(/^.*\[/, "", cpu); sub(/\].*$/, "", cpu); cpu += 0 }
/ tick_idle_net: / { net[cpu] = val("expires"); next }
/ hrtimer_expire_entry: / {
	if (net[cpu] && val("now") >= net[cpu]) {
		# A line appended as it goes: the stream is killed, not ended,
		# and a file rewritten each time could be read empty.
		print "net" >> "/tmp/soak.fired"
		close("/tmp/soak.fired")
	}
	net[cpu] = 0
}' "$TRACING/trace_pipe" &
tracer=$!

# The workload, restarted until the end.
end=$(($(cut -d. -f1 /proc/uptime) + SOAK_S))
workload() {
	while [ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ]; do
		case $(rnd 4) in
		0) CPUIDLE_LOAD_CPU=$(rnd "$NCPU") "$LOAD" timer $((500 + $(rnd 3000))) 2000 ;;
		1) "$LOAD" ipiburst $((1 + $(rnd $((NCPU - 1))))) 2000 $(rnd 60) ;;
		2) "$LOAD" pingpong 2000 ;;
		3) "$LOAD" burst 2000 ;;
		esac >/dev/null 2>&1
	done
}
workload &
wl1=$!
workload &
wl2=$!

switches=0 hotplugs=0 refused=0
govs=$(cat "$CPUIDLE_SYSFS/available_governors")
# Whether the test governor net_test is built in (then nets must fire).
net_test=$(echo " $govs " | grep -c ' net_test ')
ngovs=$(echo $govs | wc -w)

switch_governor() {
	g=$(echo $govs | cut -d' ' -f$(($(rnd "$ngovs") + 1)))
	if cpuidle_set_governor "$g" && [ "$(cpuidle_governor)" = "$g" ]; then
		switches=$((switches + 1))
	else
		problem "could not switch to governor $g"
	fi
}

hotplug() {
	c=$((1 + $(rnd $((NCPU - 1)))))
	on=/sys/devices/system/cpu/cpu$c/online
	[ -w "$on" ] || return
	if echo 0 >"$on" && echo 1 >"$on"; then
		hotplugs=$((hotplugs + 1))
	else
		problem "hotplug of cpu$c failed"
		echo 1 >"$on" 2>/dev/null
	fi
}

# A PM QoS CPU latency limit (hexadecimal microseconds) held for a while.
qos() {
	exec 3>/dev/cpu_dma_latency
	printf '%x' $(rnd 200) >&3
	sleep 0.$(rnd 10)
	exec 3>&-
}

toggle_state() {
	d=$(ls -d /sys/devices/system/cpu/cpu*/cpuidle/state* 2>/dev/null |
		sed -n "$(($(rnd 20) + 1))p")
	[ -n "$d" ] && [ -w "$d/disable" ] || return
	echo 1 >"$d/disable" && sleep 0.1 && echo 0 >"$d/disable" ||
		problem "cannot disable and enable $d"
}

# A spell of net_test, whose nets fire many times a jiffy: the net path is
# exercised on every preset, whatever horizon decides there.
net_spell() {
	[ "$net_test" = 1 ] || return
	if cpuidle_set_governor net_test; then
		sleep 0.$((1 + $(rnd 9)))
	else
		problem "could not switch to governor net_test"
	fi
}

toggle_net() {
	echo N >"$PARAM" && sleep 0.$(rnd 10) && echo Y >"$PARAM" ||
		problem "cannot turn the safety net off and on"
}

# bad_value: one bad input on stdout: random bytes, over-long, embedded
# NULs and white space, negative and huge numbers.
bad_value() {
	case $(rnd 8) in
	0) head -c $((1 + $(rnd 40))) /dev/urandom ;;
	1) head -c 5000 /dev/zero | tr '\0' a ;;
	2) printf 'menu\000teo' ;;
	3) printf ' \t menu \n' ;;
	4) printf -- '-1' ;;
	5) printf '99999999999999999999999' ;;
	6) printf '\n' ;;
	7) printf '1junk' ;;
	esac
}

# accepted FILE VALUE-FILE: whether what FILE reads back is what writing
# VALUE-FILE should leave there.
accepted() {
	got=$(cat "$1")
	# sysfs hands the write over as a C string: up to the first NUL.
	want=$(tr '\000' '\n' <"$2" | head -n1 | tr -d ' \t')
	case "$1" in
	*/current_governor) [ "$got" = "$want" ] ;;
	*/disable) [ "$got" = 0 ] || [ "$got" = 1 ] ;;
	*)
		case "$got" in
		Y | N)
			# A bool reads back what kstrtobool() makes of the
			# first characters.
			case "$want" in
			[eEyYtT1]* | [oO][nN]*) [ "$got" = Y ] ;;
			[dDnNfF0]* | [oO][fF]*) [ "$got" = N ] ;;
			*) false ;;
			esac
			;;
		*)
			# A number, in any base the kernel parses.
			[ "$( (echo $((want))) 2>/dev/null)" = "$got" ]
			;;
		esac
		;;
	esac
}

fuzz() {
	f=$(ls "$CPUIDLE_SYSFS/current_governor" \
		/sys/devices/system/cpu/cpu*/cpuidle/state*/disable \
		/sys/module/*/parameters/* 2>/dev/null |
		grep -E 'current_governor|/disable$|/(horizon|menu|teo|ladder|haltpoll)/' |
		sed -n "$(($(rnd 40) + 1))p")
	[ -n "$f" ] && [ -w "$f" ] || return
	before=$(cat "$f")
	bad_value >/tmp/soak.bad
	if cat /tmp/soak.bad 2>/dev/null >"$f"; then
		accepted "$f" /tmp/soak.bad ||
			problem "$f: accepted '$(od -An -tx1 </tmp/soak.bad | head -c 60)'" \
				"(hex) but reads back '$(cat "$f")'"
		# Put back what was there.
		echo "$before" >"$f" 2>/dev/null
	elif [ "$(cat "$f")" != "$before" ]; then
		problem "$f: a refused write changed '$before' to '$(cat "$f")'"
	else
		refused=$((refused + 1))
	fi
}

echo "soak: ${SOAK_S} s on $NCPU CPUs, governors: $govs"
next_report=$(($(cut -d. -f1 /proc/uptime) + 30))
while [ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ]; do
	now=$(cut -d. -f1 /proc/uptime)
	if [ "$now" -ge "$next_report" ]; then
		echo "soak: $((SOAK_S - end + now)) s of $SOAK_S: $switches governor" \
			"switches, $hotplugs hotplug cycles, $refused bad writes refused"
		next_report=$((now + 30))
	fi
	switch_governor
	case $(rnd 6) in
	0) hotplug ;;
	1) qos ;;
	2) toggle_state ;;
	3) toggle_net ;;
	4) fuzz ;;
	5) net_spell ;;
	esac
	fuzz
done
wait "$wl1" "$wl2"
for c in $(seq 1 $((NCPU - 1))); do
	echo 1 >/sys/devices/system/cpu/cpu$c/online 2>/dev/null
done
echo 0 >"$TRACING/tracing_on"
kill "$tracer" 2>/dev/null
wait "$tracer" 2>/dev/null
fired=$(($(cat /tmp/soak.fired 2>/dev/null | wc -l)))
echo 0 >"$TRACING/events/enable"

# Splats: the kernel log lines of cpuidle_lib.sh's CPUIDLE_SPLAT.
dmesg >/tmp/soak.dmesg
splats=$(grep -cE "$CPUIDLE_SPLAT" /tmp/soak.dmesg)
if [ "$splats" -gt 0 ]; then
	echo "soak: kernel reports:"
	grep -E -A30 "$CPUIDLE_SPLAT" /tmp/soak.dmesg | head -200
fi
if [ "$net_test" = 1 ] && [ "$fired" -eq 0 ]; then
	problem "no net fired: the net path was not exercised"
fi
problems=$(wc -l <"$LOG")
[ "$problems" -eq 0 ] || { echo "soak: $problems problems:"; cat "$LOG"; }
echo "soak: $SOAK_S s, $switches governor switches, $hotplugs hotplug cycles," \
	"$fired nets fired, $refused bad writes refused, $splats splats"
[ "$splats" -eq 0 ] && [ "$problems" -eq 0 ]
