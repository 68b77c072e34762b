#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tree of the comparison kernel: the prepared tree, plus the menu and
# teo governors of a peer kernel tree compiled in next to ours as
# comparison-only governors, registered as menuNN and teoNN (NN: the peer's
# version without the dot, 71 for 7.1). Their files are copied from the peer
# tree at build time and renamed there (the governor name, and gov.h as
# govNN.h); nothing of them is in this project's sources or in the series.
# Usage: compare-tree.sh OUT_TREE
# Environment: PEER (a kernel tree or a directory holding
# drivers/cpuidle/governors/; default ../shared/peers/linux-7.1 beside the
# repo), PEER_NAME (its version, when the tree cannot tell it).
# Prints the suffix of the peer governors' names.
set -euo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

out=${1:?usage: compare-tree.sh OUT_TREE}
peer=${PEER:-$repo/../shared/peers/linux-7.1}
[ -d "$peer/drivers/cpuidle/governors" ] ||
	die "no peer tree at $peer (set PEER= to a kernel tree with drivers/cpuidle/governors/)"
origin=$(python3 "$src/tools/power/cpuidle-replay/bench.py" --origin "$peer" \
	${PEER_NAME:+--peers-name "$PEER_NAME"}) || exit 1
suffix=${origin//./}
case "$suffix" in
'' | *[!0-9]*) die "peer version '$origin': digits and one dot expected (set PEER_NAME=)" ;;
esac

mkdir -p "$out"
# The prepared tree, as it is now; the peer files are added below.
rsync -a --delete --exclude=/.git \
	--exclude="/drivers/cpuidle/governors/*$suffix.[ch]" "$src/" "$out/"

gov=$out/drivers/cpuidle/governors
# put FILE: move the new FILE.new in place only if it differs, so that an
# unchanged file is not rebuilt.
put() {
	if cmp -s "$1.new" "$1"; then
		rm -f "$1.new"
	else
		mv "$1.new" "$1"
	fi
}
added=()
for g in menu teo; do
	f=$peer/drivers/cpuidle/governors/$g.c
	[ -f "$f" ] || continue
	grep -q "^[[:space:]]*\.name[[:space:]]*=[[:space:]]*\"$g\"," "$f" ||
		die "$f: no '.name = \"$g\",' line to rename"
	sed -e "s/^\([[:space:]]*\.name[[:space:]]*=[[:space:]]*\)\"$g\",/\1\"$g$suffix\",/" \
		-e "s/^#include \"gov\.h\"/#include \"gov$suffix.h\"/" "$f" >"$gov/$g$suffix.c.new"
	put "$gov/$g$suffix.c"
	added+=("$g$suffix.o")
done
[ "${#added[@]}" -gt 0 ] || die "$peer: no menu.c or teo.c"
if [ -f "$peer/drivers/cpuidle/governors/gov.h" ]; then
	cp "$peer/drivers/cpuidle/governors/gov.h" "$gov/gov$suffix.h.new"
else
	cp "$gov/gov.h" "$gov/gov$suffix.h.new"
fi
put "$gov/gov$suffix.h"
# rsync restored the prepared Makefile: add the peers after ours, so that
# at equal ratings ours stay the default.
echo "obj-y += ${added[*]}" >>"$gov/Makefile"
echo "$suffix"
