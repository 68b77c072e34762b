#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the QEMU boot kernel: tinyconfig plus infra/config/boot.config, in
# $cache/boot, with ccache. The configuration is regenerated only when the
# fragment or a Kconfig patch changed; every option of the fragment is
# checked to have stuck.
set -euo pipefail
# shellcheck source=infra/common.sh
. "$(dirname "$0")/common.sh"

out=$cache/boot
frag=$infra/config/boot.config
mkdir -p "$out"
stamp=$( (cat "$frag"; find "$repo" -name 'Kconfig*.patch' -print0 |
	sort -z | xargs -0r cat) | sha256sum | cut -d' ' -f1)

if [ ! -f "$out/.config" ] || [ "$(cat "$out/.horizon-config" 2>/dev/null)" != "$stamp" ]; then
	phase "configuring the boot kernel (tinyconfig + boot.config)"
	make -s -C "$src" O="$out" tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" >/dev/null
	make -s -C "$src" O="$out" olddefconfig
	bad=0
	while read -r line; do
		grep -qx "$line" "$out/.config" && continue
		echo "config: $line did not stick" >&2
		bad=1
	done < <(grep '^CONFIG_' "$frag")
	[ "$bad" = 0 ] || die "the boot configuration is not what boot.config asks for"
	echo "$stamp" >"$out/.horizon-config"
fi

phase "building the boot kernel (make -j$jobs bzImage, log in $out/build.log)"
if ! with_progress "boot kernel" "$out" make -s -C "$src" O="$out" -j"$jobs" \
	CC="ccache gcc" bzImage >"$out/build.log" 2>&1; then
	tail -40 "$out/build.log" >&2
	die "boot kernel build failed (full log: $out/build.log)"
fi
grep -E 'warning:|error:' "$out/build.log" | head -20 || true
phase "boot kernel ready: $out/arch/x86/boot/bzImage"
