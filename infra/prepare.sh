#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prepare the kernel tree: extract Debian's linux-source-6.12 into the cache
# once, commit it there as a pristine git baseline (tag "base"), then lay the
# project on top of it.
#
# The project is applied by building the wanted tree in a private git index
# (pristine base + new files + *.patch); only files whose content differs
# from it are written, including files edited by hand in the prepared tree.
# Re-running after an edit therefore touches exactly the edited files, which
# keeps incremental kernel builds incremental.
#
# Rule for upstream files: a repo file "path/F.patch" is a unified diff
# (a/ and b/ prefixes, relative to the kernel root) against upstream
# "path/F". Every other file under the kernel directories listed in
# KERNEL_DIRS is a new file copied whole to the same path.
set -euo pipefail

# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"
tarball=${HORIZON_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
KERNEL_DIRS="Documentation drivers include kernel tools"

g() { git -C "$src" "$@"; }

[ -r "$tarball" ] || die "$tarball not found (apt-get install linux-source-6.12)"
base_id="$(stat -c '%s %Y' "$tarball") $(basename "$tarball")"

if [ ! -f "$src/.git/horizon-base" ] ||
   [ "$(cat "$src/.git/horizon-base")" != "$base_id" ]; then
	echo "prepare: extracting $tarball into $src"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	echo "prepare: committing the pristine baseline"
	git -C "$src.tmp" init -q -b pristine
	git -C "$src.tmp" config user.name horizon
	git -C "$src.tmp" config user.email horizon@localhost
	git -C "$src.tmp" config core.autocrlf false
	git -C "$src.tmp" config gc.auto 0
	git -C "$src.tmp" add -A -f .
	git -C "$src.tmp" commit -q -m "Debian linux-source-6.12 (pristine)"
	git -C "$src.tmp" tag base
	git -C "$src.tmp" rev-parse 'base^{tree}' >"$src.tmp/.git/horizon-applied"
	echo "$base_id" >"$src.tmp/.git/horizon-base"
	mv "$src.tmp" "$src"
fi

# Build the wanted tree in a private index: base + new files + patches.
export GIT_INDEX_FILE="$src/.git/horizon-index"
rm -f "$GIT_INDEX_FILE"
g read-tree base

cd "$repo"
patches=()
while IFS= read -r -d '' f; do
	f=${f#./}
	case "$f" in
	*.patch)
		patches+=("$f")
		continue
		;;
	esac
	mode=100644
	[ -x "$f" ] && mode=100755
	blob=$(g hash-object -w --path="$f" "$repo/$f")
	if g cat-file -e "base:$f" 2>/dev/null; then
		die "$f is an upstream file: keep changes to it as $f.patch"
	fi
	g update-index --add --cacheinfo "$mode,$blob,$f"
done < <(
	for d in $KERNEL_DIRS; do
		[ ! -d "$d" ] || find "$d" -type f -print0
	done
	find . -maxdepth 1 -name '*.patch' -print0
)

for p in "${patches[@]}"; do
	up=${p%.patch}
	g cat-file -e "base:$up" 2>/dev/null ||
		die "$p: upstream file $up does not exist in the base tree"
	grep -q "^+++ b/$up\$" "$p" || die "$p must patch b/$up (and only it)"
	if [ "$(grep -c '^+++ ' "$p")" != 1 ]; then
		die "$p must patch exactly one file, $up"
	fi
	(cd "$src" && git apply --cached --whitespace=nowarn "$repo/$p") ||
		die "$p does not apply to the base tree"
done

want=$(g write-tree)
have=$(cat "$src/.git/horizon-applied")
# Candidates: what the project changes now, what it changed last time, and
# any hand edit of a tracked file. Each is rewritten only if its content
# differs from the wanted tree.
{
	g diff-tree -r --no-renames --name-only base "$want"
	g diff-tree -r --no-renames --name-only base "$have"
	env -u GIT_INDEX_FILE git -C "$src" diff --no-renames --name-only
} | sort -u | while IFS= read -r path; do
	if ! blob=$(g rev-parse -q --verify "$want:$path"); then
		rm -f "$src/$path"
		echo "prepare: removed $path"
	elif [ ! -f "$src/$path" ] || [ "$(g hash-object "$src/$path")" != "$blob" ]; then
		g checkout-index -f -- "$path"
		echo "prepare: wrote $path"
	fi
done
echo "$want" >"$src/.git/horizon-applied"
rm -f "$GIT_INDEX_FILE"
echo "prepare: tree ready at $src ($(make -s -C "$src" kernelversion))"
