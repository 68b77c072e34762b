#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make series` and `make check-series`.
# Usage: check-series.sh series | fast | full
#   series  write the patch series (infra/series.py) to $cache/series
#   fast    series, then: git am onto a pristine worktree of the base, the
#           result equal to the prepared tree, checkpatch.pl --strict on
#           every patch (nothing reported), scripts/kernel-doc on every
#           changed C file (no new warning), and an rst syntax check of
#           every changed .rst file (no new message)
#   full    fast, then: build the base and every step with the boot config,
#           the last step also with horizon off and with CONFIG_CPU_IDLE
#           off, and sparse (make C=2) on the changed C files (no new
#           warning)
# Prints a KTAP-like line per check and writes "PASSED FAILED" to
# $cache/results/series.count.
set -uo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

mode=${1:-}
case "$mode" in
series | fast | full) ;;
*) die "usage: $0 series | fast | full" ;;
esac

results=$cache/results
out=$cache/series
wt=$cache/check/linux
build=$cache/check/boot
mkdir -p "$results" "$cache/check"
rm -f "$results/series.count"
pass=0 fail=0

finish() {
	echo "$pass $fail" >"$results/series.count"
	phase "series: $pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
}

phase "series: writing the patch series to $out"
if ! python3 "$infra/series.py" "$src" "$out" >"$results/series.list" 2>"$results/series.err"; then
	report "series written" "$(cat "$results/series.err")"
	finish
fi
report "series written" ""
sed 's/^/    /' "$results/series.list"
[ "$mode" != series ] || finish

patches=$(grep -v '/0000-' "$results/series.list")
n=$(echo "$patches" | wc -l)

# A pristine worktree of the base; kept between runs so that builds stay
# incremental where the sources did not change.
phase "series: git am of $n patches onto a pristine worktree of the base"
if [ ! -e "$wt/.git" ]; then
	git -C "$src" worktree prune
	git -C "$src" worktree add -q --detach "$wt" base || die "cannot add a worktree at $wt"
fi
git -C "$wt" am --abort >/dev/null 2>&1
git -C "$wt" checkout -q -f --detach base && git -C "$wt" clean -qfdx ||
	die "cannot reset $wt to the base"
# shellcheck disable=SC2086
msg=$(git -C "$wt" am -q $patches 2>&1) || msg="${msg:-git am failed}"
report "series applies with git am" "$msg"
[ -z "$msg" ] || finish
want=$(cat "$src/.git/horizon-applied")
report "series gives the prepared tree" \
	"$(git -C "$src" diff --stat "$want" "$(git -C "$wt" rev-parse 'HEAD^{tree}')")"
mapfile -t steps < <(git -C "$wt" rev-list --reverse base..HEAD)

cd "$wt" || die "no worktree at $wt"
export PATH=/usr/bin:$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

phase "series: checkpatch.pl --strict on every patch"
for p in $patches; do
	o=$(scripts/checkpatch.pl --strict --quiet --show-types "$p" 2>&1) ||
		[ -n "$o" ] || o="checkpatch.pl failed"
	report "checkpatch ${p##*/}" "$o"
done

# new_msgs FILE CMD...: the messages CMD prints about the final FILE that
# it does not print about the base version of FILE (line numbers ignored).
new_msgs() {
	local f=$1 ext=${1##*.}
	shift
	"$@" "$f" "$f" | sed 's/:[0-9]*:/:/' | sort -u >"$tmp/new"
	if git cat-file -e "base:$f" 2>/dev/null; then
		git show "base:$f" >"$tmp/base.$ext"
		"$@" "$tmp/base.$ext" "$f" | sed 's/:[0-9]*:/:/' | sort -u >"$tmp/old"
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

phase "series: kernel-doc and rst checks of the changed files"
for f in $(git diff --name-only base HEAD -- '*.c' '*.h'); do
	report "kernel-doc $f" "$(new_msgs "$f" kdoc)"
done
for f in $(git diff --name-only base HEAD -- '*.rst'); do
	report "rst syntax $f" "$(new_msgs "$f" rst)"
done
[ "$mode" = full ] || finish

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
	if make -s O="$build" -j"$jobs" CC="ccache gcc" bzImage >"$log" 2>&1; then
		report "$1" "$(grep -E 'warning:|error:' "$log" | head -20)"
	else
		report "$1" "$(tail -20 "$log")"
	fi
}
# sparse_of OBJ...: sparse warnings in building OBJ..., line numbers dropped.
sparse_of() {
	[ $# -gt 0 ] || return 0
	make -s O="$build" -j"$jobs" CC="ccache gcc" C=2 "$@" 2>&1 |
		grep -E 'warning:|error:' | sed 's/:[0-9]*:[0-9]*:/:/' | sort -u
}

export CCACHE_BASEDIR=$wt
git checkout -q --detach base
configure || die "cannot configure the boot kernel"
build_step "base builds"
i=0
for c in "${steps[@]}"; do
	i=$((i + 1))
	git checkout -q --detach "$c"
	configure || die "cannot configure the boot kernel"
	build_step "step $i/$n builds: $(git log -1 --format=%s "$c")"
done

# sparse on the changed C files this configuration builds, at the last
# step and at the base (the files that exist there).
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
objs=() base_objs=()
for f in $(git diff --name-only base HEAD -- '*.c'); do
	o=$(object_of "$f")
	[ -n "$o" ] || continue
	objs+=("$o")
	git cat-file -e "base:$f" 2>/dev/null && base_objs+=("$o")
done
phase "series: sparse on ${objs[*]}"
sparse_of "${objs[@]}" >"$tmp/sparse.new"
git checkout -q --detach base
sparse_of "${base_objs[@]}" >"$tmp/sparse.base"
git checkout -q --detach "${steps[-1]}"
report "sparse: no new warnings" "$(comm -23 "$tmp/sparse.new" "$tmp/sparse.base")"

# build_without NAME OPTION...: build the last step with OPTION... off.
build_without() {
	local name=$1 o
	shift
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
build_without "last step builds without horizon" CPU_IDLE_GOV_HORIZON
# ACPI_PROCESSOR selects CPU_IDLE on x86, the P-state drivers select it, and
# SCHED_MC_PRIO selects those: they all go.
build_without "last step builds without CONFIG_CPU_IDLE" SCHED_MC_PRIO X86_INTEL_PSTATE \
	X86_AMD_PSTATE ACPI_PROCESSOR CPU_IDLE
finish
