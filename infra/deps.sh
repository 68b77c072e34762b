#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make sure the Debian packages the project needs are installed: install the
# missing ones when run as root, otherwise print the exact apt-get line and
# fail. Usage: deps.sh [PACKAGE...]: the packages every target needs, plus
# those a target adds (check-series: the LLVM toolchain).
set -euo pipefail
pkgs="linux-source-6.12 qemu-system-x86 busybox-static acpica-tools bc bison
flex libelf-dev libssl-dev cpio ccache python3 python3-ply python3-git gcc
make libc6-dev perl git
xz-utils rsync patch kmod valgrind gnuplot-nox sparse python3-docutils $*"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
line="apt-get install -y$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing Debian packages; as root, run:" >&2
	echo "  $line" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq $missing >/dev/null
