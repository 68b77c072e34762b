#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Draw bench/guest.txt (make guest-bench) with gnuplot.

Usage: guest-plot.py [-h] GUEST_TXT PNG

One panel per boot (high-resolution timers on, highres=off): the idle-miss
ratio of each governor per workload, as clustered bars, and below it the
p99 ping-pong round trip on a log axis. Reads only the tables of
GUEST_TXT; exits 1 with a message if it has none, or if gnuplot is
missing, and writes nothing then.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile


def parse(text):
    """{boot: {workload: {governor: {column: value}}}}, boots in order."""
    boots = {}
    boot = cols = wl = None
    for line in text.splitlines():
        m = re.match(r'^== (.*)$', line)
        if m:
            boot = m.group(1).strip()
            boots[boot] = {}
            wl = None
            continue
        words = line.split()
        if boot is None or not words:
            wl = None
            continue
        if len(words) > 2 and words[1] == 'miss%':
            wl, cols = words[0], words[1:]
            boots[boot][wl] = {}
            continue
        if wl and len(words) == len(cols) + 1:
            try:
                boots[boot][wl][words[0]] = {c: float(v) for c, v in zip(cols, words[1:])}
            except ValueError:
                continue
    return {b: w for b, w in boots.items() if w}


def main(argv):
    if len(argv) > 1 and argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        return 0
    if len(argv) != 3:
        print('usage: guest-plot.py GUEST_TXT PNG', file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            boots = parse(f.read())
    except OSError as e:
        print(f'guest-plot.py: {e}', file=sys.stderr)
        return 1
    if not boots:
        print(f'guest-plot.py: no table in {argv[1]}', file=sys.stderr)
        return 1
    if not shutil.which('gnuplot'):
        print('guest-plot.py: gnuplot is missing (apt-get install gnuplot-nox)',
              file=sys.stderr)
        return 1
    govs = []
    for wls in boots.values():
        for rows in wls.values():
            govs += [g for g in rows if g not in govs]
    with tempfile.TemporaryDirectory() as tmp:
        script = ['set terminal pngcairo size 1500,%d noenhanced' % (420 * len(boots)),
                  'set output "%s.tmp"' % argv[2],
                  'set multiplot layout %d,2' % len(boots),
                  'set style data histogram', 'set style histogram clustered gap 1',
                  'set style fill solid 0.8', 'set xtics rotate by -30']
        for n, (boot, wls) in enumerate(boots.items()):
            for metric, label, log in (('miss%', 'idle misses, % of entries', False),
                                       ('p99_us', 'ping-pong p99 us, log scale', True)):
                dat = os.path.join(tmp, f'{n}-{metric[:4]}.dat')
                with open(dat, 'w') as f:
                    for wl, rows in wls.items():
                        f.write(wl + ' ' + ' '.join(
                            '%g' % rows[g][metric] if g in rows and metric in rows[g]
                            else '-' for g in govs) + '\n')
                # One legend a row, beside the right panel.
                script += ['set key outside right top vertical' if log else 'unset key',
                           'set title "%s: %s"' % (boot, label),
                           'set logscale y' if log else 'unset logscale y',
                           'set yrange [*:*]' if log else 'set yrange [0:*]',
                           'plot ' + ', '.join('"%s" using %d:xtic(1) title "%s"'
                                               % (dat, i + 2, g)
                                               for i, g in enumerate(govs))]
        script.append('unset multiplot')
        p = subprocess.run(['gnuplot'], input='\n'.join(script) + '\n', text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
        if p.returncode != 0 or not os.path.exists(argv[2] + '.tmp'):
            print(f'guest-plot.py: gnuplot failed:\n{p.stdout}', file=sys.stderr)
            return 1
        os.replace(argv[2] + '.tmp', argv[2])
    print(f'plot: {argv[2]}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
