# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the infra scripts: where things live, and progress output.
# HORIZON_CACHE overrides the cache directory (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/horizon); HORIZON_JOBS the make -j count.

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
infra=$repo/infra
cache=${HORIZON_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/horizon}
src=$cache/linux
jobs=${HORIZON_JOBS:-$(nproc)}
export CCACHE_DIR=${CCACHE_DIR:-$cache/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
export CCACHE_BASEDIR=$src
# Hash paths relative to the base dir, not the build dir: builds of another
# worktree (make check-series) then share the cache.
export CCACHE_NOHASHDIR=1

die() {
	echo "${0##*/}: error: $*" >&2
	exit 1
}

# The clock of phase(): started by the first script, inherited by the rest.
export HORIZON_T0=${HORIZON_T0:-$(date +%s)}

# phase TEXT: print TEXT with the seconds elapsed since the top-level start.
phase() {
	printf '[%4ds] %s\n' "$(($(date +%s) - HORIZON_T0))" "$*"
}

# report NAME OUTPUT: one check, passed if OUTPUT is empty, else failed
# with OUTPUT shown (its first 60 lines); counts in $pass and $fail.
report() {
	if [ -z "$2" ]; then
		pass=$((pass + 1))
		echo "  ok $1"
	else
		fail=$((fail + 1))
		echo "  not ok $1"
		echo "$2" | sed '/^$/d; s/^/    /' | head -60
	fi
}
