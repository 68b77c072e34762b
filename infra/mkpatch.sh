#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Save edits made to upstream files in the prepared tree back into the repo,
# as PATH.patch beside the repo's mirror of PATH (the rule prepare.sh reads).
# Usage: infra/mkpatch.sh PATH...   (paths relative to the kernel root)
set -euo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"
[ $# -gt 0 ] || { echo "usage: $0 PATH..." >&2; exit 2; }
for f in "$@"; do
	git -C "$src" cat-file -e "base:$f" 2>/dev/null ||
		{ echo "mkpatch: $f is not an upstream file" >&2; exit 1; }
	mkdir -p "$repo/$(dirname "$f")"
	if git -C "$src" diff --quiet base -- "$f"; then
		rm -f "$repo/$f.patch"
		echo "mkpatch: $f unchanged, no patch"
	else
		git -C "$src" diff --no-color --no-ext-diff base -- "$f" |
			sed '/^index /d' >"$repo/$f.patch"
		echo "mkpatch: wrote $f.patch"
	fi
done
