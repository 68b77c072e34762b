#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the boot kernel in QEMU (TCG) with a busybox initramfs and run one
# guest job: "test" (the cpuidle kselftests), "run" (the governor
# comparison of `make run`), "record" (an ftrace recording of the idle
# loop for the replay benchmark), "soak" (the debug kernel's soak, for
# SOAK_S seconds) or "compare" (the comparison kernel's governor
# comparison of `make guest-bench`). The console goes to stdout and to
# $cache/results/guest-JOB.log; the job's own output is cut out between the
# HORIZON-BEGIN/END markers into $cache/results/JOB.out.
#
# Environment: HORIZON_PRESET (_CST preset, default client), HORIZON_SMP
# (vCPUs, default 4), HORIZON_GOVERNOR (cpuidle.governor=, default horizon),
# HORIZON_TIMEOUT (seconds, default 600), HORIZON_APPEND (extra cmdline).
set -euo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

job=${1:?usage: qemu.sh test|run|record|soak|compare|shell}
results=$cache/results
log=$results/guest-$job.log
out=$results/$job.out
mkdir -p "$results"
# Gone before anything can fail: no earlier run's output may be counted.
rm -f "$out"
preset=${HORIZON_PRESET:-client}
smp=${HORIZON_SMP:-4}
governor=${HORIZON_GOVERNOR:-horizon}
timeout=${HORIZON_TIMEOUT:-600}
kernel=$cache/boot/arch/x86/boot/bzImage
mem=512
if [ "$job" = soak ]; then
	soak_s=${SOAK_S:-300}
	case "$soak_s" in
	'' | *[!0-9]*) die "SOAK_S must be a number of seconds, not '$soak_s'" ;;
	esac
	# The debug kernel, with room for KASAN's shadow; the guest is slow.
	kernel=$cache/boot-debug/arch/x86/boot/bzImage
	mem=1024
	timeout=${HORIZON_TIMEOUT:-$((soak_s + 900))}
fi
if [ "$job" = compare ]; then
	kernel=$cache/compare/boot/arch/x86/boot/bzImage
	timeout=${HORIZON_TIMEOUT:-2400}
fi
[ -f "$kernel" ] || die "no boot kernel at $kernel (run make kernel, or make soak)"
case "$smp" in
[1-8]) ;;
*) die "HORIZON_SMP must be 1 to 8 (the boot kernel's NR_CPUS), not '$smp'" ;;
esac

phase "building the cpuidle selftests and the initramfs"
ks=$cache/kselftest
rm -rf "$ks/install"
mkdir -p "$ks/build"
make -s -C "$src/tools/testing/selftests/cpuidle" OUTPUT="$ks/build" \
	LDFLAGS=-static install INSTALL_PATH="$ks/install" >/dev/null ||
	die "building the cpuidle selftests failed"

root=$cache/initramfs
rm -rf "$root"
mkdir -p "$root/bin" "$root/horizon" "$root/kselftest"
cp /bin/busybox "$root/bin/busybox"
cp "$infra/guest/init" "$root/init"
cp "$infra/guest/run-job.sh" "$infra/guest/record-job.sh" \
	"$infra/guest/soak-job.sh" "$infra/guest/compare-job.sh" "$root/horizon/"
cp "$repo/tools/power/cpuidle-ab/cpuidle-ab.sh" \
	"$repo/tools/power/cpuidle-ab/cpuidle-ab-lib.sh" "$root/horizon/"
cp -a "$ks/install" "$root/kselftest/cpuidle"
(cd "$root" && find . | cpio -o -H newc --quiet) >"$cache/initramfs.cpio"

ssdt=$("$infra/acpi/gen-ssdt.sh" "$preset" "$smp" "$cache/acpi")

append="console=ttyS0 loglevel=1 panic=-1 cpuidle.governor=$governor"
append="$append horizon.job=$job net_test.enable=1"
# The selftests check that no safety net is armed on a nohz_full CPU; the
# safety-net checks use the last CPU, so this one is the one before it.
if [ "$job" = test ] && [ "$smp" -ge 3 ]; then
	append="$append nohz_full=$((smp - 2))"
fi
# Every report counted, none fatal; short lockup and stall detection.
if [ "$job" = soak ]; then
	append="$append panic_on_warn=0 watchdog_thresh=5 SOAK_S=$soak_s"
fi
append="$append ${HORIZON_APPEND:-}"
# -accel tcg: QEMU emulates the CPU in software. On the machine this was
# developed on, /dev/kvm opens but KVM guests crawl or stop with an
# emulation failure, so TCG is used everywhere: slower, but the same on
# every machine. Under TCG every idle state is entered with HLT, so the
# guest shows the governors' decisions, never power.
qemu=(qemu-system-x86_64 -accel tcg -m "$mem" -smp "$smp" -kernel "$kernel"
	-initrd "$cache/initramfs.cpio" -append "$append"
	-acpitable file="$ssdt" -display none -no-reboot)
phase "booting: -smp $smp, _CST preset $preset, $append"
[ "$job" != shell ] || exec "${qemu[@]}" -serial mon:stdio
set +e
timeout -k 10 "$timeout" "${qemu[@]}" -monitor none -serial stdio \
	</dev/null 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
if [ "$status" = 124 ] || [ "$status" = 137 ]; then
	die "the guest did not finish within ${timeout}s (console log: $log)"
fi
sed -n '/^HORIZON-BEGIN/,/^HORIZON-END/p' "$log" | tr -d '\r' >"$out"
grep -q '^HORIZON-END' "$out" ||
	die "the guest never reported the end of job '$job' (console log: $log)"
phase "guest finished: $(tail -n1 "$out")"
problems=$(guest_tally "$out") ||
	die "job '$job' failed (output: $out):"$'\n'"$problems"
