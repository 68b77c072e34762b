#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the QEMU boot kernel: tinyconfig plus infra/config/boot.config, in
# $cache/boot, with ccache. With the argument "debug", the debug flavour
# for the soak: boot.config plus infra/config/debug.config (KASAN, UBSAN,
# lockdep, ...), in $cache/boot-debug, so that neither rebuilds the other.
# With "compare", the comparison kernel: the boot configuration built from
# the tree infra/compare-tree.sh makes (the prepared tree plus a peer
# tree's menu and teo as comparison-only governors), in $cache/compare.
# The configuration is regenerated only when a fragment or a Kconfig patch
# changed; every option of the fragments is checked to have stuck.
set -euo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

tree=$src
case "${1:-}" in
"")
	what="boot kernel" out=$cache/boot
	frags=("$infra/config/boot.config")
	;;
debug)
	what="debug boot kernel" out=$cache/boot-debug
	frags=("$infra/config/boot.config" "$infra/config/debug.config")
	;;
compare)
	what="comparison kernel" out=$cache/compare/boot tree=$cache/compare/linux
	frags=("$infra/config/boot.config")
	phase "comparison tree: the prepared tree and the peer governors, in $tree"
	suffix=$("$infra/compare-tree.sh" "$tree")
	phase "comparison governors: menu$suffix, teo$suffix"
	# The tree and its build directory sit side by side as $src and
	# $cache/boot do: paths relative to $cache/compare hash alike from
	# one build to the next.
	export CCACHE_BASEDIR=$cache/compare
	;;
*)
	die "usage: build-kernel.sh [debug | compare]"
	;;
esac
mkdir -p "$out"
stamp=$( (cat "${frags[@]}"; find "$repo" -name 'Kconfig*.patch' -print0 |
	sort -z | xargs -0r cat) | sha256sum | cut -d' ' -f1)

if [ ! -f "$out/.config" ] || [ "$(cat "$out/.horizon-config" 2>/dev/null)" != "$stamp" ]; then
	phase "configuring the $what (tinyconfig + ${frags[*]##*/})"
	make -s -C "$tree" O="$out" tinyconfig >/dev/null
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"${frags[@]}" >/dev/null
	make -s -C "$tree" O="$out" olddefconfig
	bad=0
	while read -r line; do
		grep -qx "$line" "$out/.config" && continue
		echo "config: $line did not stick" >&2
		bad=1
	done < <(cat "${frags[@]}" | grep '^CONFIG_')
	[ "$bad" = 0 ] || die "the $what configuration is not what the fragments ask for"
	echo "$stamp" >"$out/.horizon-config"
fi

phase "building the $what (make -j$jobs bzImage, log in $out/build.log)"
if ! with_progress "$what" "$out" make -s -C "$tree" O="$out" -j"$jobs" \
	CC="ccache gcc" bzImage >"$out/build.log" 2>&1; then
	tail -40 "$out/build.log" >&2
	die "$what build failed (full log: $out/build.log)"
fi
grep -E 'warning:|error:' "$out/build.log" | head -20 || true
phase "$what ready: $out/arch/x86/boot/bzImage"
