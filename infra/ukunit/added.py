#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the lines that a unified diff adds (its "+" lines, without the "+").

Usage: added.py PATCH

The user-space KUnit build makes the helpers that kernel/time/tick-internal.h.patch
adds into a header of their own with it: the rest of tick-internal.h is
not needed by the helpers' KUnit cases. Exits 1 with a message if PATCH
cannot be read or adds nothing.
"""

import re
import sys


def added_lines(text):
    """The added lines of a unified diff, each with its line number in TEXT
    (0-based), as (number, line without the '+') pairs. Hunks are read by
    their counts, so a removed line starting "--" is not taken for a header."""
    out = []
    old = new = 0
    for n, line in enumerate(text.splitlines()):
        if not old and not new:
            m = re.match(r'@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@', line)
            if m:
                old = int(m.group(1) or 1)
                new = int(m.group(2) or 1)
            continue
        if line.startswith('+'):
            new -= 1
            out.append((n, line[1:]))
        elif line.startswith('-'):
            old -= 1
        elif line.startswith('\\'):
            continue
        else:
            old -= 1
            new -= 1
    return out


def main(argv):
    if len(argv) != 2 or argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    try:
        with open(argv[1]) as f:
            lines = added_lines(f.read())
    except OSError as e:
        print(f'added.py: {e}', file=sys.stderr)
        return 1
    if not lines:
        print(f'added.py: {argv[1]} adds no line', file=sys.stderr)
        return 1
    sys.stdout.write(''.join(l + '\n' for _, l in lines))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
