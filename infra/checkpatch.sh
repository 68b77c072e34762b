#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict over the project: the whole kernel change as one
# patch (as a series reviewer sees it), then each kernel file's diff and
# each infra script on its own; and scripts/kernel-doc -Wall on every C
# file the project adds (no warning) or patches (no new warning). Prints
# a KTAP-like line per check and
# writes "PASSED FAILED" to $cache/results/checkpatch.count.
set -euo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

results=$cache/results
mkdir -p "$results"
cp=$src/scripts/checkpatch.pl
export PATH=/usr/bin:$PATH
applied=$(cat "$src/.git/horizon-applied")
pass=0 fail=0
phase "checkpatch --strict and kernel-doc"

# check NAME CHECKPATCH-ARGS...: run checkpatch on what the arguments name.
check() {
	local name=$1 out
	shift
	out=$("$cp" --strict --no-signoff --quiet --show-types "$@" 2>&1) ||
		[ -n "$out" ] || out="checkpatch.pl failed"
	report "$name" "$(echo "$out" | checkpatch_exceptions)"
}

cd "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A diffstat, as in a mail, tells checkpatch MAINTAINERS is updated.
git diff-tree --stat --no-renames base "$applied" >"$tmp/all.patch"
git diff-tree -p --no-renames base "$applied" >>"$tmp/all.patch"
check "whole kernel change" "$tmp/all.patch"
for f in $(git diff-tree -r --name-only base "$applied"); do
	git diff-tree -p --no-renames base "$applied" -- "$f" >"$tmp/one.patch"
	check "$f" --ignore FILE_PATH_CHANGES "$tmp/one.patch"
done
# kernel-doc: no warning in new files, no new warning in patched ones.
kdoc() {
	scripts/kernel-doc -none -Wall "$1" 2>&1 | sed 's/:[0-9]*: / /' | sort
}
for f in $(git diff-tree -r --name-only base "$applied" -- '*.c' '*.h'); do
	out=$(kdoc "$f")
	if git cat-file -e "base:$f" 2>/dev/null; then
		git show "base:$f" >"$tmp/base.${f##*.}"
		out=$(comm -23 <(echo "$out") <(kdoc "$tmp/base.${f##*.}" |
			sed "s|$tmp/base.${f##*.}|$f|"))
	fi
	report "kernel-doc $f" "$out"
done
for f in "$infra"/*.sh "$infra"/acpi/*.sh "$infra"/guest/*; do
	check "infra/${f#"$infra"/}" --no-tree -f "$f"
done
echo "$pass $fail" >"$results/checkpatch.count"
phase "checkpatch: $pass passed, $fail failed"
[ "$fail" = 0 ]
