#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the SSDT for a _CST preset and a vCPU count.
# Usage: gen-ssdt.sh PRESET NCPUS OUTDIR  ->  OUTDIR/cst-PRESET-NCPUS.aml
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
preset=$1 ncpus=$2 out=$3
src=$here/cst-$preset.asl
die() {
	echo "gen-ssdt: $*" >&2
	exit 1
}

if [ ! -f "$src" ]; then
	have=$(cd "$here" && ls cst-*.asl | sed 's/^cst-//; s/\.asl$//' | xargs)
	die "unknown preset '$preset' (have: $have)"
fi
case "$ncpus" in
''|*[!0-9]*|0) die "bad vCPU count '$ncpus'" ;;
esac
command -v iasl >/dev/null || die "iasl not found (apt-get install acpica-tools)"
mkdir -p "$out"
name=cst-$preset-$ncpus
{
	sed '/@CPU_SCOPES@/,$d' "$src"
	for ((i = 0; i < ncpus; i++)); do
		printf '    External (\\_SB.CPUS.C%03X, DeviceObj)\n' "$i"
		printf '    Scope (\\_SB.CPUS.C%03X)\n    {\n' "$i"
		printf '        Method (_CST, 0, NotSerialized) { Return (\\_SB.HCST) }\n    }\n'
	done
	sed '1,/@CPU_SCOPES@/d' "$src"
} >"$out/$name.asl"
iasl -p "$out/$name" "$out/$name.asl" >"$out/$name.log" 2>&1 ||
	{ cat "$out/$name.log" >&2; die "iasl failed on $out/$name.asl"; }
echo "$out/$name.aml"
