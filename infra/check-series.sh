#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make series` and `make check-series`.
# Usage: check-series.sh series | fast | full | bots
#   series  write the patch series (infra/series.py) to $cache/series, one
#           directory per series
#   fast    series, then: no placeholder identity (localhost, reserved
#           domains, ...) anywhere in them, every patch signed off by its
#           From: author (a skip, never a pass, when they were written
#           without an identity), and a self-test: a series written with
#           a placeholder SIGNOFF fails that check. Then each series in
#           order, on a pristine worktree of the base: git am (on top of
#           the series before it), the tree series.py made (the last one
#           the prepared tree), checkpatch.pl --strict on every patch
#           (nothing reported), a MAINTAINERS entry for every file it adds,
#           scripts/kernel-doc on every changed C file, an rst syntax check
#           of every changed .rst file (no new message against the series
#           before) and sh -n on every changed shell script. Lists the
#           builds that full adds.
#   full    fast, then: build the base and every step of every series with
#           the boot config; sparse (make C=2) on the changed C files of
#           each series (no new warning against the series before); the
#           last step of the last series, and of each that changes include/
#           or kernel/, also built with CONFIG_CPU_IDLE off, of each that
#           adds horizon also with horizon off; and the builds the
#           maintainers' bots make, of the last step of the last series:
#           i386 tinyconfig (-Os) with horizon and net_test, the KUnit
#           suites of the series as modules (modpost clean), ARCH=arm
#           LLVM=1 with horizon; x86_64 with HZ_PERIODIC and high-res
#           timers, NO_HZ_IDLE without them, NO_HZ_FULL, without SMP;
#           i386 and arm LLVM with the KUnit suites built in and as
#           modules; and randconfigs of the options the series touches
#           from fixed seeds. Every 32-bit object the series builds is
#           checked for libgcc division helpers (nm -u).
#   bots    fast, then only the builds of the maintainers' bots (BOTS=ERE:
#           only those whose name matches)
# Prints a KTAP-like line per check and writes "PASSED FAILED" to
# $cache/results/series.count, the number of skips to series.count.skip.
set -uo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

mode=${1:-}
case "$mode" in
series | fast | full | bots) ;;
*) die "usage: $0 series | fast | full | bots" ;;
esac

results=$cache/results
out=$cache/series
wt=$cache/check/linux
build=$cache/check/boot
mkdir -p "$results" "$cache/check"
rm -f "$results/series.count" "$results/series.count.skip"
pass=0 fail=0 skipped=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

finish() {
	echo "$pass $fail" >"$results/series.count"
	echo "$skipped" >"$results/series.count.skip"
	phase "series: $pass passed, $fail failed, $skipped skipped"
	[ "$fail" = 0 ]
	exit
}

# skip NAME REASON: a check that could not be made, counted apart.
skip() {
	skipped=$((skipped + 1))
	echo "  ok $1 # SKIP $2"
}

phase "series: writing the patch series to $out"
if ! python3 "$infra/series.py" "$src" "$out" >"$results/series.list" 2>"$results/series.err"; then
	report "series written" "$(cat "$results/series.err")"
	finish
fi
report "series written" ""
sed 's/^/    /' "$results/series.err" "$results/series.list"
[ "$mode" != series ] || finish

mapfile -t all < <(grep '\.patch$' "$results/series.list")

phase "series: identity"
report "no placeholder identity in the series" \
	"$(python3 "$infra/series.py" --placeholders "${all[@]}")"
ignore=FILE_PATH_CHANGES
o=$(python3 "$infra/series.py" --signoffs "${all[@]}")
case $? in
0) report "every patch signed off by its author" "" ;;
2)
	skip "every patch signed off by its author" "$o"
	ignore=$ignore,MISSING_SIGN_OFF,NO_AUTHOR_SIGN_OFF
	;;
*) report "every patch signed off by its author" "${o:-series.py --signoffs failed}" ;;
esac
# The check must catch an invented identity: write the series once more,
# signed by our old placeholder, and expect it to fail on the From: lines.
bad='horizon developers <horizon@localhost>'
if SIGNOFF=$bad python3 "$infra/series.py" "$src" "$tmp/bad" >"$tmp/bad.list" 2>&1; then
	# shellcheck disable=SC2046
	o=$(python3 "$infra/series.py" --placeholders $(grep '\.patch$' "$tmp/bad.list"))
	grep -q "From: $bad" <<<"$o" && o="" ||
		o="a series signed by $bad passed the check"
else
	o="cannot write it: $(cat "$tmp/bad.list")"
fi
report "a series signed by a placeholder fails the check (self-test)" "$o"

# A pristine worktree of the base; kept between runs so that builds stay
# incremental where the sources did not change.
if [ ! -e "$wt/.git" ]; then
	git -C "$src" worktree prune
	git -C "$src" worktree add -q --detach "$wt" base || die "cannot add a worktree at $wt"
fi
git -C "$wt" am --abort >/dev/null 2>&1
git -C "$wt" checkout -q -f --detach base && git -C "$wt" clean -qfdx ||
	die "cannot reset $wt to the base"
cd "$wt" || die "no worktree at $wt"
export PATH=/usr/bin:$PATH

# new_msgs FILE FROM CMD...: the messages CMD prints about FILE that it
# does not print about FILE at commit FROM (line numbers ignored).
new_msgs() {
	local f=$1 from=$2 ext=${1##*.}
	shift 2
	"$@" "$f" "$f" | sed 's/:[0-9]*:/:/' | sort -u >"$tmp/new"
	if git cat-file -e "$from:$f" 2>/dev/null; then
		git show "$from:$f" >"$tmp/old.$ext"
		"$@" "$tmp/old.$ext" "$f" | sed 's/:[0-9]*:/:/' | sort -u >"$tmp/old"
		comm -23 "$tmp/new" "$tmp/old"
	else
		cat "$tmp/new"
	fi
}
kdoc() {
	scripts/kernel-doc -none -Wall "$1" 2>&1 | sed "s|$1|$2|g"
}
rst() {
	/usr/bin/python3 "$infra/rstcheck.py" "$1" "$2"
}
shell_syntax() {
	local sh=sh
	head -n1 "$1" | grep -q bash && sh=bash
	$sh -n "$1" 2>&1
}
# The files FROM..HEAD adds that no MAINTAINERS section but THE REST covers
# (checkpatch's "does MAINTAINERS need updating?" guesses; this asks
# get_maintainer.pl).
unmaintained() {
	local f
	for f in $(git diff --name-only --diff-filter=A "$1" HEAD); do
		perl scripts/get_maintainer.pl --no-git --no-git-fallback -f "$f" 2>/dev/null |
			grep -v '(.*:THE REST)$' | grep -q '([a-z ]*:.*)$' || echo "$f"
	done
}

# The prepared tree, with the M: lines series.py fills in from the identity.
want=$(cat "$src/.git/horizon-applied")
prepared_diff() {
	git diff --stat "$want" "$1" -- . ':(exclude)MAINTAINERS'
	git diff -U0 "$want" "$1" -- MAINTAINERS | grep '^[-+]' |
		grep -v '^+++ \|^--- \|^+M:	'
}

mapfile -t trees <"$out/trees"
names=() starts=() ends=() steps=() labels=()
for line in "${trees[@]}"; do
	read -r name tree <<<"$line"
	mapfile -t patches < <(grep "/$name/00[0-9][0-9]-.*\.patch$" "$results/series.list" |
		grep -v '/0000-')
	start=$(git rev-parse HEAD)
	phase "series $name: git am of ${#patches[@]} patches"
	msg=$(git am -q "${patches[@]}" 2>&1) || msg="${msg:-git am failed}"
	report "$name: applies with git am" "$msg"
	[ -z "$msg" ] || finish
	report "$name: gives the tree series.py made" \
		"$([ "$(git rev-parse 'HEAD^{tree}')" = "$tree" ] || git diff --stat "$tree" HEAD)"
	names+=("$name") starts+=("$start") ends+=("$(git rev-parse HEAD)")
	i=0
	for c in $(git rev-list --reverse "$start..HEAD"); do
		i=$((i + 1))
		steps+=("$c")
		labels+=("$name step $i/${#patches[@]} builds: $(git log -1 --format=%s "$c")")
	done

	phase "series $name: checkpatch.pl --strict on every patch"
	for p in "${patches[@]}"; do
		o=$(scripts/checkpatch.pl --strict --quiet --show-types \
			--ignore "$ignore" "$p" 2>&1) ||
			[ -n "$o" ] || o="checkpatch.pl failed"
		report "checkpatch ${p##*/}" "$(echo "$o" | checkpatch_exceptions)"
	done
	report "$name: every new file has a MAINTAINERS entry" "$(unmaintained "$start")"

	phase "series $name: kernel-doc, rst and shell syntax of the changed files"
	for f in $(git diff --name-only --diff-filter=AM "$start" HEAD -- '*.c' '*.h'); do
		report "kernel-doc $f" "$(new_msgs "$f" "$start" kdoc)"
	done
	for f in $(git diff --name-only --diff-filter=AM "$start" HEAD -- '*.rst'); do
		report "rst syntax $f" "$(new_msgs "$f" "$start" rst)"
	done
	for f in $(git diff --name-only --diff-filter=AM "$start" HEAD -- '*.sh'); do
		report "shell syntax $f" "$(shell_syntax "$f")"
	done
done
report "the series give the prepared tree" "$(prepared_diff HEAD)"

# The builds of full: "base", every step, then per series "without
# OPTION..." at its last step where it applies.
# ACPI_PROCESSOR selects CPU_IDLE on x86, the P-state drivers select it, and
# SCHED_MC_PRIO selects those: they all go.
no_cpuidle="SCHED_MC_PRIO X86_INTEL_PSTATE X86_AMD_PSTATE ACPI_PROCESSOR CPU_IDLE"
withouts=()
for k in "${!names[@]}"; do
	s=${starts[$k]} e=${ends[$k]}
	if [ "$k" = $((${#names[@]} - 1)) ] ||
	   [ -n "$(git diff --name-only "$s" "$e" -- include kernel)" ]; then
		withouts+=("$e|${names[$k]}: last step builds without CONFIG_CPU_IDLE|$no_cpuidle")
	fi
	if git diff "$s" "$e" -- drivers/cpuidle/Kconfig |
		grep -q '^+config CPU_IDLE_GOV_HORIZON$'; then
		withouts+=("$e|${names[$k]}: last step builds without horizon|CPU_IDLE_GOV_HORIZON")
	fi
done
# The builds of the maintainers' bots (at the end of this script), by
# name; BOTS=ERE keeps those whose name matches.
bots=("build i386 tinyconfig with horizon" "build KUnit suites as modules"
      "build arm LLVM with horizon"
      "build x86_64 HZ_PERIODIC with HIGH_RES_TIMERS"
      "build x86_64 NO_HZ_IDLE without HIGH_RES_TIMERS"
      "build x86_64 NO_HZ_FULL" "build x86_64 without SMP"
      "build i386 KUnit suites built in, no libgcc division"
      "build i386 KUnit suites as modules, no libgcc division"
      "build arm LLVM KUnit suites built in, no libgcc division"
      "build arm LLVM KUnit suites as modules, no libgcc division")
randseeds="1 2 3 4 5 6"
for r in $randseeds; do
	bots+=("build randconfig seed $r of the series' options")
done
if [ -n "${BOTS:-}" ]; then
	mapfile -t bots < <(printf '%s\n' "${bots[@]}" | grep -E -- "$BOTS")
	[ ${#bots[@]} -gt 0 ] || die "BOTS=$BOTS matches no build"
fi
if [ "$mode" = fast ]; then
	echo "  # full mode adds: base builds"
	for l in "${labels[@]}"; do
		echo "  # full mode adds: $l"
	done
	for n in "${names[@]}"; do
		echo "  # full mode adds: $n: sparse: no new warnings"
	done
	for w in "${withouts[@]}"; do
		IFS='|' read -r _ what _ <<<"$w"
		echo "  # full mode adds: $what"
	done
	for b in "${bots[@]}"; do
		echo "  # full mode adds: $b"
	done
	finish
fi
"$infra/deps.sh" clang lld llvm || die "the LLVM toolchain is missing"

# configure FRAGMENT...: tinyconfig plus the boot fragment plus the rest.
configure() {
	make -s O="$build" tinyconfig >/dev/null &&
		scripts/kconfig/merge_config.sh -m -O "$build" "$build/.config" \
			"$infra/config/boot.config" "$@" >/dev/null &&
		make -s O="$build" olddefconfig
}
# build_step NAME: build bzImage in $build, reported as NAME.
build_step() {
	local log=$build/build.log
	phase "series: building $1"
	if with_progress "$1" "$build" make -s O="$build" -j"$jobs" \
		CC="ccache gcc" bzImage >"$log" 2>&1; then
		report "$1" "$(grep -E 'warning:|error:' "$log" | head -20)"
	else
		report "$1" "$(tail -20 "$log")"
	fi
}
# sparse_of OBJ...: sparse warnings and errors in building OBJ..., line
# numbers dropped; a build that fails adds its last lines and fails.
sparse_of() {
	local log=$tmp/sparse.log
	[ $# -gt 0 ] || return 0
	if ! make -s O="$build" -j"$jobs" CC="ccache gcc" C=2 "$@" >"$log" 2>&1; then
		tail -5 "$log"
		return 1
	fi
	# No match is a clean file, not a failure (pipefail would say so).
	{ grep -E 'warning:|error:|Error [0-9]+' "$log" || true; } |
		sed 's/:[0-9]*:[0-9]*:/:/' | sort -u
}

export CCACHE_BASEDIR=$wt
if [ "$mode" = full ]; then
	git checkout -q --detach base
	configure || die "cannot configure the boot kernel"
	build_step "base builds"
	for k in "${!steps[@]}"; do
		git checkout -q --detach "${steps[$k]}"
		configure || die "cannot configure the boot kernel"
		build_step "${labels[$k]}"
	done

	# sparse on the changed C files of each series this configuration builds,
	# at its last step and at the step before it (the files that exist there).
	# A file built as part of another (kernel/sched/idle.c is included by
	# build_policy.c) is checked through the object of the file including it.
	object_of() {
		local f=$1 u
		if [ -e "$build/${f%.c}.o" ]; then
			echo "${f%.c}.o"
			return
		fi
		for u in $(grep -l "^#include \"${f##*/}\"" "$(dirname "$f")"/*.c 2>/dev/null); do
			[ -e "$build/${u%.c}.o" ] && echo "${u%.c}.o" && return
		done
	}
	for k in "${!names[@]}"; do
		s=${starts[$k]} e=${ends[$k]}
		git checkout -q --detach "$e"
		objs=() old_objs=() unbuilt=()
		for f in $(git diff --name-only "$s" "$e" -- '*.c'); do
			o=$(object_of "$f")
			if [ -z "$o" ]; then
				unbuilt+=("$f")
				continue
			fi
			objs+=("$o")
			git cat-file -e "$s:$f" 2>/dev/null && old_objs+=("$o")
		done
		phase "series: sparse on ${objs[*]}"
		st=0
		sparse_of "${objs[@]}" >"$tmp/sparse.new" || st=1
		git checkout -q --detach "$s"
		sparse_of "${old_objs[@]}" >"$tmp/sparse.old" || st=1
		if [ "$st" = 0 ]; then
			report "${names[$k]}: sparse: no new warnings" \
				"$(comm -23 "$tmp/sparse.new" "$tmp/sparse.old")"
		else
			report "${names[$k]}: sparse: no new warnings" \
				"the sparse build failed: $(cat "$tmp"/sparse.{new,old})"
		fi
		# Files the boot configuration does not build (KUnit suites) are not
		# checked: say so, counted as a skip.
		[ ${#unbuilt[@]} -eq 0 ] ||
			skip "${names[$k]}: sparse: ${unbuilt[*]}" \
				"not built by the boot configuration"
	done

	# build_without COMMIT NAME OPTION...: build COMMIT with OPTION... off.
	build_without() {
		local commit=$1 name=$2 o
		shift 2
		git checkout -q --detach "$commit"
		for o in "$@"; do
			echo "# CONFIG_$o is not set"
		done >"$tmp/off.config"
		configure "$tmp/off.config" || die "cannot configure without $*"
		for o in "$@"; do
			if grep -q "^CONFIG_$o=" "$build/.config"; then
				report "$name" "CONFIG_$o stayed on"
				return
			fi
		done
		build_step "$name"
	}
	for w in "${withouts[@]}"; do
		IFS='|' read -r commit what opts <<<"$w"
		# shellcheck disable=SC2086
		build_without "$commit" "$what" $opts
	done
fi

# The builds the maintainers' bots make, of the last step of the last
# series, each in a build directory of its own.
git checkout -q --detach "${steps[$((${#steps[@]} - 1))]}"
# bot_configure DIR FRAGMENT MAKEARGS...: tinyconfig for MAKEARGS plus
# FRAGMENT; prints what went wrong and fails if an option did not stick
# (unless strict=0).
bot_configure() {
	local dir=$1 frag=$2 o
	shift 2
	mkdir -p "$dir"
	make -s O="$dir" "$@" tinyconfig >/dev/null &&
		scripts/kconfig/merge_config.sh -m -O "$dir" "$dir/.config" "$frag" >/dev/null &&
		make -s O="$dir" "$@" olddefconfig >/dev/null || return 1
	[ "${strict:-1}" = 1 ] || return 0
	for o in $(grep -o '^CONFIG_[A-Z0-9_]*=[ym]' "$frag"); do
		grep -qx "$o" "$dir/.config" || { echo "$o did not stick"; return 1; }
	done
}
# bot_build NAME DIR FRAGMENT TARGETS -- MAKEARGS...: configure and build
# TARGETS, reported as NAME with the compiler's and modpost's warnings and
# what the command in $check, run in DIR, prints.
bot_build() {
	local name=$1 dir=$2 frag=$3 targets=$4 log=$2/build.log why
	shift 5
	phase "series: building $name"
	if ! why=$(bot_configure "$dir" "$frag" "$@"); then
		report "$name" "cannot configure: ${why:-make failed}"
		return
	fi
	# shellcheck disable=SC2086
	if ! with_progress "$name" "$dir" make -s O="$dir" -j"$jobs" "$@" \
		$targets >"$log" 2>&1; then
		report "$name" "$(tail -20 "$log")"
		return
	fi
	report "$name" "$(grep -E 'warning:|error:|(WARNING|ERROR): modpost' "$log" |
		head -20; cd "$dir" && eval "$check")"
}

# wanted NAME: whether the bot build NAME is in the list (BOTS=).
wanted() {
	printf '%s\n' "${bots[@]}" | grep -qxF -- "$1"
}
# A 64-bit division the compiler does not inline is a libgcc call, which
# the kernel does not link: nodiv NM OBJ... names any such reference.
nodiv() {
	local nm=$1 o
	shift
	for o in "$@"; do
		[ -s "$o" ] || { echo "no object $o"; continue; }
		$nm -u "$o" | grep -E '__(u|)(div|mod)di3|__aeabi_[lu]*(div|divmod)' |
			sed "s|^|libgcc division in $o: |"
	done
}
objs_horizon='drivers/cpuidle/governors/horizon.o kernel/time/tick-sched.o'
objs_kunit='drivers/cpuidle/governors/tests/horizon_kunit.o kernel/time/tick-sched_test.o'
# The directories the series changes code in: building them compiles every
# changed C file the configuration selects (the link is left to the
# builds of vmlinux above and to the steps of full).
dirs='kernel/time/ kernel/sched/ drivers/cpuidle/'

cat >"$tmp/i386.config" <<'EOF'
CONFIG_CC_OPTIMIZE_FOR_SIZE=y
CONFIG_SMP=y
CONFIG_HIGH_RES_TIMERS=y
CONFIG_NO_HZ_IDLE=y
CONFIG_CPU_IDLE=y
CONFIG_CPU_IDLE_GOV_HORIZON=y
CONFIG_DEBUG_KERNEL=y
CONFIG_CPU_IDLE_GOV_NET_TEST=y
EOF
check='nodiv nm drivers/cpuidle/governors/{horizon,net_test}.o kernel/time/tick-sched.o'
! wanted "build i386 tinyconfig with horizon" ||
	bot_build "build i386 tinyconfig with horizon" "$cache/check/i386" \
		"$tmp/i386.config" vmlinux -- ARCH=i386 CC="ccache gcc"

cat "$infra/config/boot.config" - >"$tmp/kunit-m.config" <<'EOF'
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG_KUNIT=m
CONFIG_TICK_SCHED_KUNIT_TEST=m
CONFIG_CPU_IDLE_GOV_HORIZON_KUNIT_TEST=m
EOF
# Every KUnit suite of the series, as a module.
check='for k in kernel/time/tick-sched_test.ko drivers/cpuidle/governors/tests/horizon_kunit.ko; do
	[ -s "$k" ] || echo "no module $k"; done'
! wanted "build KUnit suites as modules" ||
	bot_build "build KUnit suites as modules" "$cache/check/kunit-m" \
		"$tmp/kunit-m.config" "bzImage modules" -- CC="ccache gcc"

cat >"$tmp/arm.config" <<'EOF'
CONFIG_MMU=y
CONFIG_ARCH_MULTI_V7=y
CONFIG_ARCH_VIRT=y
CONFIG_SMP=y
CONFIG_HIGH_RES_TIMERS=y
CONFIG_NO_HZ_IDLE=y
CONFIG_CPU_IDLE=y
CONFIG_CPU_IDLE_GOV_HORIZON=y
EOF
check='nodiv llvm-nm drivers/cpuidle/governors/horizon.o kernel/time/tick-sched.o'
! wanted "build arm LLVM with horizon" ||
	bot_build "build arm LLVM with horizon" "$cache/check/arm-llvm" \
		"$tmp/arm.config" vmlinux -- ARCH=arm LLVM=1

# x86_64 variants of the boot configuration: the tick modes and SMP.
# variant NAME DROP LINE...: the boot fragment less the options matching
# the ERE DROP, plus LINE..., in $tmp/NAME.config.
variant() {
	local name=$1 drop=$2
	shift 2
	{ grep -Ev -- "$drop" "$infra/config/boot.config"; printf '%s\n' "$@"; } \
		>"$tmp/$name.config"
}
nohz='^CONFIG_(NO_HZ_FULL|CPU_IDLE_GOV_NET_TEST)='
variant periodic "$nohz" CONFIG_HZ_PERIODIC=y CONFIG_HIGH_RES_TIMERS=y \
	'# CONFIG_NO_HZ_IDLE is not set' '# CONFIG_NO_HZ_FULL is not set'
variant lowres "$nohz|^CONFIG_HIGH_RES_TIMERS=" CONFIG_NO_HZ_IDLE=y \
	CONFIG_CPU_IDLE_GOV_NET_TEST=y '# CONFIG_HIGH_RES_TIMERS is not set'
variant full '^$' CONFIG_NO_HZ_FULL=y
variant up "$nohz|^CONFIG_(SMP|NR_CPUS|HOTPLUG_CPU)=" '# CONFIG_SMP is not set' \
	CONFIG_NO_HZ_IDLE=y CONFIG_CPU_IDLE_GOV_NET_TEST=y
check=
for v in "periodic|HZ_PERIODIC with HIGH_RES_TIMERS" \
	 "lowres|NO_HZ_IDLE without HIGH_RES_TIMERS" "full|NO_HZ_FULL" \
	 "up|without SMP"; do
	IFS='|' read -r dir what <<<"$v"
	! wanted "build x86_64 $what" ||
		bot_build "build x86_64 $what" "$cache/check/x86-$dir" \
			"$tmp/$dir.config" "$dirs" -- CC="ccache gcc"
done

# The KUnit suites on 32-bit, built in and as modules, each object free of
# libgcc division helpers.
# kunit_frag BASE KIND: BASE plus the KUnit suites of the series, =KIND.
kunit_frag() {
	cat "$1"
	[ "$2" = y ] || echo CONFIG_MODULES=y
	echo "CONFIG_KUNIT=$2"
	echo "CONFIG_TICK_SCHED_KUNIT_TEST=$2"
	echo "CONFIG_CPU_IDLE_GOV_HORIZON_KUNIT_TEST=$2"
}
for kind in y m; do
	what="built in"
	[ "$kind" = y ] || what="as modules"
	kunit_frag "$tmp/i386.config" "$kind" >"$tmp/i386-kunit-$kind.config"
	kunit_frag "$tmp/arm.config" "$kind" >"$tmp/arm-kunit-$kind.config"
	check="nodiv nm $objs_horizon $objs_kunit"
	! wanted "build i386 KUnit suites $what, no libgcc division" ||
		bot_build "build i386 KUnit suites $what, no libgcc division" \
			"$cache/check/i386-kunit-$kind" "$tmp/i386-kunit-$kind.config" \
			"$dirs" -- ARCH=i386 CC="ccache gcc"
	check="nodiv llvm-nm $objs_horizon $objs_kunit"
	! wanted "build arm LLVM KUnit suites $what, no libgcc division" ||
		bot_build "build arm LLVM KUnit suites $what, no libgcc division" \
			"$cache/check/arm-kunit-$kind" "$tmp/arm-kunit-$kind.config" \
			"$dirs" -- ARCH=arm LLVM=1
done

# A short randconfig loop over the options the series touches, from fixed
# seeds so that a failure can be reproduced: the boot fragment less those
# options, each of them drawn on or off and the tick mode drawn among the
# three. Options whose dependencies the draw left off are dropped by
# olddefconfig, so only the options drawn off are checked to stick. The
# configuration built is kept as $cache/results/randconfig-SEED.config.
randopts="CPU_IDLE CPU_IDLE_GOV_LADDER CPU_IDLE_GOV_MENU CPU_IDLE_GOV_TEO
CPU_IDLE_GOV_HORIZON CPU_IDLE_GOV_HORIZON_KUNIT_TEST CPU_IDLE_GOV_NET_TEST
HIGH_RES_TIMERS SMP KUNIT TICK_SCHED_KUNIT_TEST FTRACE ENABLE_DEFAULT_TRACERS
DEBUG_KERNEL"
drawn='^CONFIG_(SMP|NR_CPUS|HOTPLUG_CPU|NO_HZ_FULL|HZ_250|HIGH_RES_TIMERS'
drawn="$drawn|FTRACE|ENABLE_DEFAULT_TRACERS|EVENT_TRACING|DEBUG_[A-Z_]*"
drawn="$drawn|PROVE_LOCKING|CPU_IDLE[A-Z_]*|ACPI_PROCESSOR|KUNIT[A-Z_]*)="
for r in $randseeds; do
	name="build randconfig seed $r of the series' options"
	wanted "$name" || continue
	# The draw: Python's Mersenne Twister from the seed (bash's RANDOM
	# gives nearly the same first draws for small seeds).
	{
		grep -Ev -- "$drawn" "$infra/config/boot.config"
		python3 - "$r" $randopts <<-'PY'
		import random, sys
		rnd = random.Random(int(sys.argv[1]))
		for o in sys.argv[2:]:
		    print('CONFIG_%s=y' % o if rnd.random() < 0.5 else
		          '# CONFIG_%s is not set' % o)
		print('CONFIG_%s=y' % rnd.choice(('HZ_PERIODIC', 'NO_HZ_IDLE', 'NO_HZ_FULL')))
		PY
	} >"$tmp/rand-$r.config"
	check="cp .config $results/randconfig-$r.config"
	strict=0 bot_build "$name" "$cache/check/rand" "$tmp/rand-$r.config" \
		"$dirs" -- CC="ccache gcc"
done
finish
