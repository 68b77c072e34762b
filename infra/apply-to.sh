#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Apply the project to a Linux 6.12 tree of one's own: copy the new files
# and apply every *.patch with patch -p1. Every patch is dry-run first, so a
# tree that does not take them all is left untouched.
# Usage: apply-to.sh /path/to/linux
set -euo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

tree=${1:-}
[ -n "$tree" ] && [ -f "$tree/Makefile" ] && [ -d "$tree/kernel" ] ||
	die "usage: apply-to.sh /path/to/linux (a kernel source tree)"
cd "$repo"
mapfile -t patches < <(find . -name '*.patch' -not -path './.git/*' | sed 's|^\./||' | sort)
mapfile -t files < <(find Documentation drivers include kernel tools -type f \
	-not -name '*.patch' 2>/dev/null | sort)
for f in "${files[@]}"; do
	[ ! -e "$tree/$f" ] || die "$tree/$f exists already: is the project applied?"
done
for p in "${patches[@]}"; do
	patch -d "$tree" -p1 --dry-run --forward -s <"$p" >/dev/null ||
		die "$p does not apply to $tree"
done
for p in "${patches[@]}"; do
	patch -d "$tree" -p1 --forward -s <"$p"
done
for f in "${files[@]}"; do
	install -D -m "$(stat -c %a "$f")" "$f" "$tree/$f"
done
echo "apply-to: applied ${#patches[@]} patches and ${#files[@]} new files to $tree"
