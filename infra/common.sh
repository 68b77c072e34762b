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

# -h or --help as the first argument of a script that sources this: print
# the script's header comment, and exit.
case "${1:-}" in
-h | --help)
	awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"
	exit 0
	;;
esac

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

# guest_tally OUT [COUNT]: the verdict on a guest job's output OUT (its
# lines between the HORIZON-BEGIN/END markers, one KTAP stream per test
# program; a program skipped whole counts as a skip). Fails if the job
# never ended, exited non-zero, printed a "not ok" line, or printed fewer
# results than its plans announce; prints what is wrong, the names of the
# failed tests last. With COUNT, writes "PASSED FAILED" to COUNT and the
# skips to COUNT.skip, a missing result or a bad exit counting as a failure.
guest_tally() {
	awk -v count="${2:-}" '
	/^1\.\.[0-9]+/ { plan += substr($1, 4) + 0 }
	/^1\.\.0 # SKIP/ { skip++ }
	/^(not )?ok [0-9]+ / {
		n++
		if ($0 ~ /# SKIP/) skip++
		else if ($1 == "ok") ok++
		else { bad++; sub(/^not ok [0-9]+ /, ""); names = names " " $0 }
	}
	/^HORIZON-END rc=/ { ended = 1; rc = substr($2, 4) }
	END {
		if (!ended) { print "the job never reported its end"; bad++ }
		else if (rc != 0 && !bad) { print "the job exited " rc; bad++ }
		if (n < plan) { print plan - n " results missing"; bad += plan - n }
		if (names != "") print "failed:" names
		if (count != "") {
			print ok + 0, bad + 0 > count
			print skip + 0 > count ".skip"
		}
		exit bad > 0
	}' "$1"
}

# count SUITE FILE [STATUS]: add the "PASSED FAILED" in FILE to $passed
# and $failed. A suite that wrote no counts, ran no test, or exited with
# STATUS non-zero without counting a failure, counts as one failure more.
count() {
	local p f
	if ! [ -s "$2" ] || ! read -r p f <"$2" || ! [ "$p" -ge 0 ] 2>/dev/null ||
	   ! [ "$f" -ge 0 ] 2>/dev/null; then
		echo "$1: no results" >&2
		failed=$((failed + 1))
		return
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	if [ $((p + f)) -eq 0 ]; then
		echo "$1: ran no test" >&2
		failed=$((failed + 1))
	elif [ "${3:-0}" != 0 ] && [ "$f" = 0 ]; then
		echo "$1: exited ${3:-0} with no failure counted" >&2
		failed=$((failed + 1))
	fi
}

# skips FILE: add the skips counted in FILE, if any, to $skipped.
skips() {
	skipped=$((skipped + $(cat "$1" 2>/dev/null || echo 0)))
}

# The script's own output, for progress lines of commands whose output is
# sent to a log.
exec 9>&1

# with_progress WHAT DIR CMD...: run CMD; every 30 s while it runs, print
# to the script's output the time elapsed and the objects built in DIR so
# far, of the total a complete build of DIR had last time (no silent
# minutes in a long build). Returns CMD's status.
with_progress() {
	local what=$1 dir=$2 start ticker rc=0 mark total
	shift 2
	start=$(date +%s)
	mark=$(mktemp)
	total=$(cat "$dir/.horizon-objects" 2>/dev/null || true)
	(
		while sleep 30; do
			n=$(find "$dir" -name '*.o' -newer "$mark" 2>/dev/null | wc -l)
			phase "$what: $n${total:+ of $total} objects built" \
				"in $(($(date +%s) - start)) s" >&9
		done
	) &
	ticker=$!
	"$@" || rc=$?
	kill "$ticker" 2>/dev/null
	wait "$ticker" 2>/dev/null
	rm -f "$mark"
	# The total for next time: every object of the complete build.
	[ "$rc" != 0 ] || [ ! -d "$dir" ] ||
		find "$dir" -name '*.o' 2>/dev/null | wc -l >"$dir/.horizon-objects"
	return "$rc"
}

# checkpatch_exceptions: filter checkpatch.pl --show-types output on stdin,
# dropping the reports that follow the conventions of the file they are in,
# where checkpatch's generic rule contradicts them:
# - AVOID_EXTERNS in include/linux/tick.h: every declaration there is
#   extern, and the timers maintainers asked to keep it so;
# - PARENTHESIS_ALIGNMENT and OPEN_ENDED_LINE in include/trace/events/:
#   the TRACE_EVENT() layout (blank line after the name, one macro per
#   paragraph) of every event in those headers.
# Prints nothing if no other report is left.
checkpatch_exceptions() {
	awk '
	function flush() {
		if (blk == "") return
		if (!(blk ~ /^[A-Z]+:AVOID_EXTERNS:/ && blk ~ /FILE: include\/linux\/tick\.h:/) &&
		    !(blk ~ /^[A-Z]+:(PARENTHESIS_ALIGNMENT|OPEN_ENDED_LINE):/ &&
		      blk ~ /FILE: include\/trace\/events\//)) {
			out = out blk "\n"
			kept++
		}
		blk = ""
	}
	/^total: / { flush(); total = $0; next }
	/^$/ { flush(); next }
	{ blk = blk $0 "\n" }
	END {
		flush()
		if (kept) printf "%s%s\n", out, total
	}'
}
