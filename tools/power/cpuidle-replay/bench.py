#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run the cpuidle-replay matrix and summarise it.

Usage: bench.py BINDIR TRACEDIR OUTDIR

BINDIR holds replay-hz250 and replay-hz1000, TRACEDIR the *.trace files.
Writes OUTDIR/bench.csv (one row per trace, table, HZ and governor),
OUTDIR/bench.txt (the summary tables) and, when gnuplot is installed,
OUTDIR/energy.png and OUTDIR/misses.png.
"""

import csv
import glob
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HZS = (250, 1000)
GOVERNORS = ('menu', 'teo', 'horizon', 'horizon-nonet')
# Rows run with module parameters set: name -> (governor, replay options).
VARIANTS = {'horizon-nonet': ('horizon', ['-p', 'safety_net=0'])}
COST_TRACE = 'phases'
COST_PERIODS = 3000


def run_matrix(bindir, tracedir):
    rows = []
    tables = sorted(glob.glob(os.path.join(HERE, 'tables', '*.tbl')))
    traces = sorted(glob.glob(os.path.join(tracedir, '*.trace')))
    if not traces:
        sys.exit('bench: no traces in %s' % tracedir)
    for hz in HZS:
        exe = os.path.join(bindir, 'replay-hz%d' % hz)
        for tb in tables:
            for tr in traces:
                runs = [(None, [])] + [(name, ['-g', gov] + opts)
                                       for name, (gov, opts) in VARIANTS.items()]
                for name, opts in runs:
                    out = subprocess.run([exe] + opts + [tb, tr], check=True,
                                         capture_output=True, text=True).stdout
                    for r in csv.DictReader(out.splitlines()):
                        if name:
                            if r['governor'] == 'oracle':
                                continue
                            r['governor'] = name
                        r['trace'] = os.path.basename(tr)[:-len('.trace')]
                        r['table'] = os.path.basename(tb)[:-len('.tbl')]
                        rows.append(r)
    return rows


def instructions(bindir, tracedir):
    """Instructions per select()+reflect() pair, and per idle period of the
    trace, counted by callgrind over the first COST_PERIODS periods of the
    cost trace."""
    if not shutil.which('valgrind'):
        return {}
    cost = {}
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, 'cost.trace')
        with open(os.path.join(tracedir, COST_TRACE + '.trace')) as f, open(trace, 'w') as o:
            n = 0
            for line in f:
                n += line.startswith('idle')
                if n > COST_PERIODS:
                    break
                o.write(line)
        table = os.path.join(HERE, 'tables', 'intel-client.tbl')
        for name in GOVERNORS:
            gov, opts = VARIANTS.get(name, (name, []))
            out = os.path.join(tmp, 'cg.' + name)
            res = subprocess.run(
                ['valgrind', '--tool=callgrind', '--callgrind-out-file=' + out,
                 '--collect-atstart=no', '--toggle-collect=replay_select*',
                 '--toggle-collect=replay_reflect*',
                 os.path.join(bindir, 'replay-hz250'), '-g', gov] + opts + [table, trace],
                check=True, capture_output=True, text=True)
            entries = next(int(r['entries']) for r in csv.DictReader(res.stdout.splitlines())
                           if r['governor'] == gov)
            with open(out) as f:
                total = next(int(l.split()[1]) for l in f if l.startswith(('summary:', 'totals:')))
            cost[name] = (total / entries, total / COST_PERIODS)
    return cost


def geomean(xs):
    xs = [max(x, 1e-9) for x in xs]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float('nan')


def summarise(rows, cost):
    lines = []
    govs = [g for g in GOVERNORS if any(r['governor'] == g for r in rows)]
    by = {}
    for r in rows:
        by.setdefault(r['governor'], []).append(r)

    def excess(r, m):
        return float(r['ratio_' + m]) - 1.0

    lines.append('Energy above the oracle (geometric mean of ratio - 1 over every trace, '
                 'table and HZ), idle misses, exit latency paid on non-timer wakeups, cost')
    lines.append('')
    lines.append('%-13s %9s %9s %9s %9s %11s %10s %7s %8s %9s %10s %11s' % (
        'governor', 'excess_A', 'excess_B', 'mean_A', 'miss', 'exitlat_us', 'tick_stops',
        'nets/s', 'nprog/s', 'query/sel', 'instr/sel', 'instr/idle'))
    for g in govs:
        rs = by[g]
        ent = sum(int(r['entries']) for r in rs)
        miss = sum(int(r['above']) + int(r['below']) for r in rs) / ent
        irq = sum(int(r['irq_wakeups']) for r in rs)
        lat = sum(float(r['exit_latency_mean_ns']) * int(r['irq_wakeups']) for r in rs)
        stops = sum(int(r['tick_stops']) for r in rs)
        queries = sum(int(r['queries']) for r in rs)
        nets = sum(int(r['net_wakeups']) for r in rs)
        progs = sum(int(r['net_programs']) for r in rs)
        idle_s = sum(int(r['idle_ns']) for r in rs) / 1e9
        lines.append('%-13s %8.2f%% %8.2f%% %8.2f%% %8.2f%% %11.1f %10d %7.1f %8.1f %9.2f %10s %11s' % (
            g, 100 * geomean([excess(r, 'a') for r in rs]),
            100 * geomean([excess(r, 'b') for r in rs]),
            100 * sum(excess(r, 'a') for r in rs) / len(rs), 100 * miss,
            lat / irq / 1000 if irq else 0, stops, nets / idle_s if idle_s else 0,
            progs / idle_s if idle_s else 0,
            queries / ent, '%.0f' % cost[g][0] if g in cost else 'n/a',
            '%.0f' % cost[g][1] if g in cost else 'n/a'))
    lines.append('')
    lines.append('mean_A: arithmetic mean of ratio - 1 (model A), less swayed than the')
    lines.append('geometric mean by families where a governor is nearly optimal.')
    lines.append('miss: (above + below) / state entries; exitlat_us: mean exit latency of')
    lines.append('the state left on non-timer wakeups; tick_stops: over the whole matrix;')
    lines.append('nets/s: safety-net wakeups per second of idle time; nprog/s: clock event')
    lines.append('programmings caused by nets per second of idle time (each costs the')
    lines.append('energy of a tick stop in the model; the kernel code it runs is not replayed);')
    lines.append('query/sel: sleep-length queries per select(); instr/sel: instructions')
    lines.append('per select() + reflect() (callgrind); instr/idle: the same per idle')
    lines.append('period of the trace, which a governor entering states less often')
    lines.append('goes through with fewer calls.')
    lines.append('')
    lines.append('Energy / oracle (model A), geometric mean over tables and HZ, per trace family')
    lines.append('')
    traces = sorted({r['trace'] for r in rows})
    short = {'horizon-nonet': 'nonet'}
    lines.append('%-16s' % 'family' + ''.join('%10s' % short.get(g, g) for g in govs) +
                 ''.join('%10s' % ('miss_' + short.get(g, g)[:4]) for g in govs))
    for t in traces:
        cells = []
        for g in govs:
            cells.append('%10.4f' % geomean([float(r['ratio_a']) for r in by[g] if r['trace'] == t]))
        for g in govs:
            rs = [r for r in by[g] if r['trace'] == t]
            ent = sum(int(r['entries']) for r in rs)
            cells.append('%9.1f%%' % (100 * sum(int(r['above']) + int(r['below'])
                                                 for r in rs) / ent))
        lines.append('%-16s' % t + ''.join(cells))
    if {'horizon', 'menu', 'teo'} <= set(govs):
        worst = max(
            (geomean([float(r['ratio_a']) for r in by['horizon'] if r['trace'] == t]) /
             min(geomean([float(r['ratio_a']) for r in by[g] if r['trace'] == t])
                 for g in ('menu', 'teo')) - 1, t) for t in traces)
        lines.append('')
        lines.append('horizon against the better of menu and teo, worst family: %+.2f%% (%s)'
                     % (100 * worst[0], worst[1]))
    return '\n'.join(lines) + '\n'


def plot(rows, outdir):
    if not shutil.which('gnuplot'):
        return
    govs = [g for g in GOVERNORS if any(r['governor'] == g for r in rows)]
    traces = sorted({r['trace'] for r in rows})
    for metric, fname, title in (('ratio_a', 'energy', 'energy / oracle (model A)'),
                                 ('miss', 'misses', 'idle-miss ratio')):
        dat = os.path.join(outdir, fname + '.dat')
        with open(dat, 'w') as f:
            for t in traces:
                vals = []
                for g in govs:
                    rs = [r for r in rows if r['trace'] == t and r['governor'] == g]
                    if metric == 'miss':
                        ent = sum(int(r['entries']) for r in rs)
                        vals.append(sum(int(r['above']) + int(r['below']) for r in rs) / ent)
                    else:
                        vals.append(geomean([float(r[metric]) for r in rs]))
                f.write('%s %s\n' % (t, ' '.join('%.4f' % v for v in vals)))
        script = ('set terminal pngcairo size 1000,450\nset output "%s"\nset style data histogram\n'
                  'set style histogram clustered\nset style fill solid 0.8\n'
                  'set xtics rotate by -40\nset title "%s"\nset key top left\n'
                  'plot ' % (os.path.join(outdir, fname + '.png'), title) +
                  ', '.join('"%s" using %d:xtic(1) title "%s"' % (dat, i + 2, g)
                            for i, g in enumerate(govs)) + '\n')
        subprocess.run(['gnuplot'], input=script, text=True, check=True)


def main():
    if len(sys.argv) != 4:
        sys.exit('usage: bench.py BINDIR TRACEDIR OUTDIR')
    bindir, tracedir, outdir = sys.argv[1:]
    os.makedirs(outdir, exist_ok=True)
    rows = run_matrix(bindir, tracedir)
    fields = ['trace', 'table'] + [k for k in rows[0] if k not in ('trace', 'table')]
    with open(os.path.join(outdir, 'bench.csv'), 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    cost = instructions(bindir, tracedir)
    text = summarise([r for r in rows if r['governor'] != 'oracle'], cost)
    with open(os.path.join(outdir, 'bench.txt'), 'w') as f:
        f.write(text)
    plot([r for r in rows if r['governor'] != 'oracle'], outdir)
    sys.stdout.write(text)


if __name__ == '__main__':
    main()
