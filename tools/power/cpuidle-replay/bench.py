#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run the cpuidle-replay matrix and summarise it.

Usage: bench.py [--tree DIR] [--peers DIR]... [--peers-name NAME]
                [--traces DIR]... BINDIR TRACEDIR OUTDIR
       bench.py --origin DIR [--peers-name NAME]
       bench.py --summary CSV

BINDIR holds replay-hz250 and replay-hz1000, built from the kernel tree
--tree (by default the tree this tool sits in), TRACEDIR the *.trace files;
--traces adds the *.trace files of another directory (recorded traces).
Each --peers DIR is another kernel tree (or a directory holding
drivers/cpuidle/governors/) whose menu.c and teo.c are compiled unchanged
into BINDIR/replay-ORIGIN-hzN ("make peer") and replayed next to ours.
Every governor is named by the origin of its tree (menu-6.12, teo-7.1):
the VERSION and PATCHLEVEL of the tree's Makefile, else a linux-X.Y
directory name, else --peers-name (which, given, names the peer tree).

Writes OUTDIR/bench.csv (one row per trace, table, HZ and governor),
OUTDIR/cost.csv (instructions per call, with valgrind), OUTDIR/bench.txt
(the summary tables) and, when gnuplot is installed, OUTDIR/energy.png and
OUTDIR/misses.png. --origin prints the origin of a tree; --summary prints
the summary of a bench.csv again (with the cost.csv beside it, if any).
"""

import argparse
import csv
import glob
import hashlib
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HZS = (250, 1000)
# Our rows, and the runs they come from: name -> (governor, replay options).
OURS = {'horizon': ('horizon', []), 'horizon-nonet': ('horizon', ['-p', 'safety_net=0'])}
PEER_GOVERNORS = ('menu', 'teo')
COST_TRACE = 'phases'
COST_PERIODS = 3000
# The power models of the replay (see replay.c): A, break-even at the
# target residency; B, B's powers and a visit pays active power over its
# exit latency; C, latency-literal (active power over twice the exit
# latency a visit); D, break-even at twice the target residency.
MODELS = ('a', 'b', 'c', 'd')
# The families held out from tuning, fixed before any tuning against the
# four models: those whose name's SHA-256 starts with an odd byte (a rule
# no one picks families by), and those added with the power-model sweep,
# written to resemble workloads no family here resembled. A trace of
# another name (TRACES=) is held out by the same hash rule.
HELD_OUT_NEW = ('poisson-3k', 'io-lognormal', 'compile', 'frame-pacing')
# The recordings of real hardware converted by hw2trace.py --dir: evaluation
# data, held out whatever their hash.
HARDWARE_PREFIX = 'hw-'

# Families whose wakeups are random (Poisson-like interrupts, heavy-tailed
# completions, compile-like phases): where a governor that goes too deep
# shows it in above misses.
RANDOM_FAMILIES = ('network-1k', 'network-10k', 'softirq-net', 'desktop', 'phases',
                   'poisson-3k', 'io-lognormal', 'compile')
# The targets, horizon against the best peer of each figure.
EXCESS_A_SHARE = 0.5     # E/O - 1 under model A at most half the best peer's
MISS_SHARE = 0.75        # misses at most 0.75 of the best peer's
FAMILY_SLACK = 0.01      # no family more than 1% worse under model A
CELL_SLACK = 0.01        # no (model, table) cell more than 1% worse
COST_PEER = 'teo-7.1'    # instructions per select()+reflect() at most its
NONET_SLACK = 0.05       # horizon-nonet within 5% of COST_PEER per family
# Instructions of one clock event programming (a tick stop, a tick restart,
# or arming, moving or dropping a safety net): assumed, not measured, as
# the replay runs no kernel code. An hrtimer start or cancel with its
# timerqueue update, a clock read and the clock event write is some
# hundreds of instructions; the figure is taken high so as to err against
# the safety net, which adds programmings.
PROGRAM_INSTR = 1000


class BenchError(Exception):
    pass


def origin(tree, name=None):
    """The origin a tree's governors are named by: NAME if given, else
    VERSION.PATCHLEVEL of the tree's Makefile, else X.Y of a linux-X.Y
    directory name."""
    if not os.path.isdir(tree):
        raise BenchError('%s: no such directory' % tree)
    if not os.path.isdir(os.path.join(tree, 'drivers', 'cpuidle', 'governors')):
        raise BenchError('%s: not a kernel tree (no drivers/cpuidle/governors/)' % tree)
    if name:
        if not re.fullmatch(r'[A-Za-z0-9][A-Za-z0-9._-]*', name):
            raise BenchError("bad name '%s': letters, digits, '.', '_' and '-' only" % name)
        return name
    mk = os.path.join(tree, 'Makefile')
    if os.path.isfile(mk):
        with open(mk, errors='replace') as f:
            head = f.read(4096)
        v = re.search(r'^VERSION\s*=\s*(\d+)\s*$', head, re.M)
        p = re.search(r'^PATCHLEVEL\s*=\s*(\d+)\s*$', head, re.M)
        if v and p:
            return '%s.%s' % (v[1], p[1])
    m = re.fullmatch(r'linux-(\d+\.\d+)(\.\d+)?(-rc\d+)?',
                     os.path.basename(os.path.normpath(os.path.abspath(tree))))
    if m:
        return m[1]
    raise BenchError('%s: cannot tell its version (no Makefile with VERSION and '
                     'PATCHLEVEL, no linux-X.Y name): name it with PEERS_NAME=' % tree)


def peer_governors(tree):
    d = os.path.join(tree, 'drivers', 'cpuidle', 'governors')
    return [g for g in PEER_GOVERNORS if os.path.isfile(os.path.join(d, g + '.c'))]


def build_peer(tree, name, bindir):
    if not peer_governors(tree):
        raise BenchError('%s: no menu.c or teo.c in drivers/cpuidle/governors/' % tree)
    res = subprocess.run(['make', '-s', '-C', HERE, 'peer', 'PEER=' + name,
                          'PEER_TREE=' + os.path.abspath(tree),
                          'OUTPUT=' + os.path.abspath(bindir)],
                         capture_output=True, text=True)
    if res.returncode:
        raise BenchError('building the governors of %s failed:\n%s' % (tree, res.stderr))


def held_out(name):
    """Whether the trace family NAME is held out from tuning: the recordings
    of real hardware (hw-*) always are."""
    return (name in HELD_OUT_NEW or name.startswith(HARDWARE_PREFIX) or
            hashlib.sha256(name.encode()).digest()[0] % 2 == 1)


def trace_set(path):
    """synthetic (gen_traces.py), hardware (hw2trace.py) or recorded."""
    with open(path) as f:
        head = f.readline() + f.readline()
    if 'generated by gen_traces.py' in head:
        return 'synthetic'
    return 'hardware' if 'converted by hw2trace.py' in head else 'recorded'


def list_traces(tracedirs):
    traces = {}
    for d in tracedirs:
        if not os.path.isdir(d):
            raise BenchError('%s: no such directory' % d)
        found = sorted(glob.glob(os.path.join(d, '*.trace')))
        if not found:
            raise BenchError('no traces in %s' % d)
        for tr in found:
            name = os.path.basename(tr)[:-len('.trace')]
            if name in traces:
                raise BenchError('two traces named %s: %s and %s' % (name, traces[name], tr))
            traces[name] = tr
    return traces


def runs_of(base, peers):
    """(binary name, replay options, {governor printed: row name}) per run."""
    runs = [('replay', [], {'menu': 'menu-' + base, 'teo': 'teo-' + base,
                            'horizon': 'horizon', 'oracle': 'oracle'})]
    for name, (gov, opts) in OURS.items():
        if opts:
            runs.append(('replay', ['-g', gov] + opts, {gov: name}))
    for o, govs in peers:
        runs.append(('replay-' + o, [], {g: '%s-%s' % (g, o) for g in govs}))
    return runs


def run_matrix(bindir, traces, base, peers):
    rows = []
    sets = {name: trace_set(tr) for name, tr in traces.items()}
    tables = sorted(glob.glob(os.path.join(HERE, 'tables', '*.tbl')))
    total, done = len(HZS) * len(tables) * len(traces), 0
    for hz in HZS:
        for tb in tables:
            # Progress on stderr, one line per table: the matrix takes minutes.
            print('bench: HZ %d, %s: runs %d-%d of %d' % (
                hz, os.path.basename(tb), done + 1, done + len(traces), total),
                file=sys.stderr, flush=True)
            done += len(traces)
            for name in sorted(traces):
                tr = traces[name]
                oracle = None
                for exe, opts, rename in runs_of(base, peers):
                    out = subprocess.run(
                        [os.path.join(bindir, '%s-hz%d' % (exe, hz))] + opts + [tb, tr],
                        check=True, capture_output=True, text=True).stdout
                    for r in csv.DictReader(out.splitlines()):
                        if r['governor'] == 'oracle':
                            energies = tuple(r['energy_%s_nj' % m] for m in MODELS)
                            if oracle is None:
                                oracle = energies
                            elif oracle != energies:
                                raise BenchError('%s: another oracle on %s %s' % (exe, tb, tr))
                        if r['governor'] not in rename:
                            continue
                        r['governor'] = rename[r['governor']]
                        if r['governor'] == 'oracle' and exe != 'replay':
                            continue
                        r['trace'] = name
                        r['table'] = os.path.basename(tb)[:-len('.tbl')]
                        r['set'] = sets[name]
                        rows.append(r)
    return rows


def instructions(bindir, traces, base, peers):
    """Instructions per select()+reflect() pair, and per idle period of the
    trace, counted by callgrind over the first COST_PERIODS periods of the
    cost trace, for every row."""
    if not shutil.which('valgrind'):
        print('bench: valgrind is not installed: no instruction counts',
              file=sys.stderr)
        return {}
    if COST_TRACE not in traces:
        return {}
    cost = {}
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, 'cost.trace')
        with open(traces[COST_TRACE]) as f, open(trace, 'w') as o:
            n = 0
            for line in f:
                n += line.startswith('idle')
                if n > COST_PERIODS:
                    break
                o.write(line)
        table = os.path.join(HERE, 'tables', 'intel-client.tbl')
        for exe, opts, rename in runs_of(base, peers):
            for gov, name in rename.items():
                if name == 'oracle':
                    continue
                gopts = opts if '-g' in opts else ['-g', gov] + opts
                out = os.path.join(tmp, 'cg.' + name)
                res = subprocess.run(
                    ['valgrind', '--tool=callgrind', '--callgrind-out-file=' + out,
                     '--collect-atstart=no', '--toggle-collect=replay_select*',
                     '--toggle-collect=replay_reflect*',
                     os.path.join(bindir, exe + '-hz250')] + gopts + [table, trace],
                    check=True, capture_output=True, text=True)
                entries = next(int(r['entries']) for r in csv.DictReader(res.stdout.splitlines())
                               if r['governor'] == gov)
                with open(out) as f:
                    total = next(int(l.split()[1]) for l in f
                                 if l.startswith(('summary:', 'totals:')))
                cost[name] = (total / entries, total / COST_PERIODS)
    return cost


def geomean(xs):
    xs = [max(x, 1e-9) for x in xs]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float('nan')


def mean(xs):
    return sum(xs) / len(xs) if xs else float('nan')


def order(govs):
    """Ours first, then the peers by origin and name."""
    def key(g):
        o = g.rsplit('-', 1)[-1]
        return ([int(x) if x.isdigit() else x for x in re.split(r'(\d+)', o)], g)

    ours = [g for g in OURS if g in govs]
    return ours + sorted((g for g in govs if g not in OURS), key=key)


def eo(rs, m):
    return geomean([float(r['ratio_' + m]) for r in rs])


def miss(rs):
    return mean([float(r['miss_ratio']) for r in rs])


def above(rs):
    """Above misses (a state too deep for the idle period) over entries."""
    return mean([int(r['above']) / int(r['entries']) if int(r['entries']) else 0
                 for r in rs])


def best(values, peers):
    """(value, peer) of the lowest value among the peers."""
    return min((values[p], p) for p in peers)


def run_key(r):
    return (r['trace'], r['table'], r['hz'])


def set_keys(runs):
    """The sets of runs figures are given on, as (name, set of run keys),
    leaving out the empty ones."""
    sets = [('all', runs)] + [(s, [r for r in runs if r.get('set') == s])
                              for s in ('synthetic', 'recorded', 'hardware')]
    sets += [('tuning', [r for r in runs if not held_out(r['trace'])]),
             ('held-out', [r for r in runs if held_out(r['trace'])])]
    return [(s, {run_key(r) for r in rs}) for s, rs in sets if rs]


def log_sum(rs, m):
    return sum(math.log(max(float(r['ratio_' + m]), 1e-9)) for r in rs)


def lofo(by, peers, keys, m):
    """Leave one family out, under model M on the runs of KEYS. The lead of
    horizon over the best peer is 1 - E/O(horizon) / E/O(best peer), the
    best peer being the one of lowest E/O on the runs considered. Returns
    (lead, best peer) on all the runs; (lead, family, best peer) with each
    family removed in turn, smallest lead first (the best peer is chosen
    again without the family); and each family's share of the lead: its
    part of ln(E/O(best peer) / E/O(horizon)), the best peer of all the
    runs, which adds up to 1 over the families."""
    sel = {g: [r for r in by[g] if run_key(r) in keys] for g in peers + ['horizon']}
    fams = sorted({r['trace'] for r in sel['horizon']})

    def lead(drop):
        v = {g: eo([r for r in rs if r['trace'] != drop], m) for g, rs in sel.items()}
        b, bp = best(v, peers)
        return 1 - v['horizon'] / b, bp

    full = lead(None)
    drops = sorted((l, f, bp) for f in fams for l, bp in [lead(f)]) if len(fams) > 1 else []
    total = log_sum(sel[full[1]], m) - log_sum(sel['horizon'], m)
    shares = {}
    for f in fams:
        part = (log_sum([r for r in sel[full[1]] if r['trace'] == f], m) -
                log_sum([r for r in sel['horizon'] if r['trace'] == f], m))
        shares[f] = part / total if total else float('nan')
    return full, drops, shares


def lofo_lines(by, peers, runs):
    """The leave-one-family-out block of the summary."""
    lines = ['', 'Leave one family out: horizon\'s lead over the best peer, 1 - E/O horizon / '
             'E/O best peer, on each', 'set, and with each family removed in turn (the best '
             'peer chosen again without it): the', 'smallest, and the family whose removal '
             'leaves it.', '',
             '%-10s %-5s %8s %-12s %9s  %s' % ('set', 'model', 'lead', ' (best peer)',
                                              'smallest', 'without (best peer then)')]
    shares = {}
    for s, keys in set_keys(runs):
        for m in MODELS:
            (l, bp), drops, sh = lofo(by, peers, keys, m)
            if s == 'all':
                shares[m] = sh
            if drops:
                dl, df, dbp = drops[0]
                tail = '%8.2f%%  %s (%s)' % (100 * dl, df, dbp)
            else:
                tail = '%9s  %s' % ('n/a', 'a single family')
            lines.append('%-10s %-5s %7.2f%% %-12s %s' % (s, m.upper(), 100 * l,
                                                          '(%s)' % bp, tail))
    lines += ['', "Each family's share of horizon's lead over the best peer on all runs: its "
              'part of', 'ln(E/O best peer / E/O horizon), which adds up to 100% over the '
              'families (negative: the', 'family takes from the lead).', '']
    fams = sorted(shares['a'])
    fw = max([16] + [len(f) + 2 for f in fams])
    lines.append('%-*s' % (fw, 'family') + ''.join('%10s' % ('share_' + m.upper())
                                                   for m in MODELS))
    for f in sorted(fams, key=lambda f: -shares['a'][f]):
        lines.append('%-*s' % (fw, f) + ''.join('%9.1f%%' % (100 * shares[m][f])
                                                for m in MODELS))
    return lines


def table_order(govs):
    """Ours first, then the peers by origin, newest first, teo before menu."""
    def key(g):
        o = g.rsplit('-', 1)[-1]
        return ([-int(x) if x.isdigit() else x for x in re.split(r'(\d+)', o)],
                [-ord(c) for c in g])

    return [g for g in OURS if g in govs] + sorted((g for g in govs if g not in OURS),
                                                    key=key)


def one_table(by, govs, peers, runs, tables):
    """The headline: per set, E/O per model and idle misses of every row;
    horizon's lead over the best peer, the smallest lead with one family
    left out, and the (model, table) cell where horizon does worst against
    the best peer of that cell."""
    cols = table_order(govs)
    fw = max([10] + [len(SHORT.get(g, g)) + 1 for g in cols])
    lines = ['One table: E/O per power model (geometric mean over runs) and idle misses '
             '(mean over runs),', 'per set. lead: 1 - horizon / best peer (misses: best '
             'peer - horizon); LOFO: the smallest', 'lead with one family left out, and that '
             'family; worst cell: the state table where horizon', 'is furthest behind the '
             'best peer of the cell under that model (horizon / best - 1).',
             '%-10s %-6s' % ('set', 'row') + ''.join('%*s' % (fw, SHORT.get(g, g)) for g in cols) +
             '%9s  %-32s %s' % ('lead', 'LOFO lead (family)', 'worst cell')]
    for s, keys in set_keys(runs):
        sel = {g: [r for r in by[g] if run_key(r) in keys] for g in govs}
        for m in MODELS + (None,):
            if m:
                val = {g: eo(sel[g], m) for g in govs}
                cells = ''.join('%*.4f' % (fw, val[g]) for g in cols)
            else:
                val = {g: miss(sel[g]) for g in govs}
                cells = ''.join('%*.2f%%' % (fw - 1, 100 * val[g]) for g in cols)
            tail = ''
            if 'horizon' in govs and peers:
                b, bp = best(val, peers)
                if m is None:
                    tail = '%8.2f%%' % (100 * (b - val['horizon']))
                else:
                    (l, _), drops, _ = lofo(by, peers, keys, m)
                    lofo_txt = ('%6.2f%% (%s)' % (100 * drops[0][0], drops[0][1]) if drops
                                else 'n/a')
                    worst = None
                    for tb in tables:
                        v = {g: eo([r for r in sel[g] if r['table'] == tb], m)
                             for g in peers + ['horizon']}
                        d = v['horizon'] / best(v, peers)[0] - 1
                        if worst is None or d > worst[0]:
                            worst = (d, tb)
                    tail = '%8.2f%%  %-32s %s %+.2f%%' % (100 * l, lofo_txt, worst[1],
                                                        100 * worst[0])
            lines.append('%-10s %-6s' % (s, 'E/O ' + m.upper() if m else 'miss') + cells + tail)
    return lines


def net_lines(by, peers):
    """Per family, what horizon's safety nets cost (horizon against
    horizon-nonet) per model and HZ, and horizon-nonet against teo-7.1."""
    if 'horizon-nonet' not in by or 'horizon' not in by:
        return []
    ref = COST_PEER if COST_PEER in by else None
    fams = sorted({r['trace'] for r in by['horizon']})
    hzs = sorted({r['hz'] for r in by['horizon']}, key=int)
    fw = max([16] + [len(f) + 2 for f in fams])
    cols = [(m, hz) for m in ('a', 'b') for hz in hzs]
    lines = ['', 'Safety nets per family: E/O horizon / E/O horizon-nonet - 1 under models A '
             'and B at each HZ', '(positive: the nets cost energy), worst: the largest of the '
             'four models at either HZ;', 'then horizon-nonet / %s - 1 under models A and B '
             '(* held out).' % (ref or COST_PEER), '',
             '%-*s' % (fw, 'family') + ''.join('%10s' % ('%s@%s' % (m.upper(), hz))
                                               for m, hz in cols) +
             '%9s %-14s' % ('worst', '') + ''.join('%16s' % ('nonet/%s %s' % (ref, m))
                                                   for m in ('A', 'B') if ref)]
    worst_all = None
    behind = []
    for f in fams:
        rs = {g: [r for r in by[g] if r['trace'] == f] for g in by}
        cost = {}
        for m in MODELS:
            for hz in hzs:
                h = eo([r for r in rs['horizon'] if r['hz'] == hz], m)
                n = eo([r for r in rs['horizon-nonet'] if r['hz'] == hz], m)
                cost[m, hz] = h / n - 1
        wk = max(cost, key=cost.get)
        if worst_all is None or cost[wk] > worst_all[0]:
            worst_all = (cost[wk], f, wk)
        line = '%-*s' % (fw, f + ('*' if held_out(f) else '')) + ''.join(
            '%+9.2f%%' % (100 * cost[c]) for c in cols) + '%+8.2f%% %-14s' % (
                100 * cost[wk], '(%s, HZ %s)' % (wk[0].upper(), wk[1]))
        if ref:
            vs = [eo(rs['horizon-nonet'], m) / eo(rs[ref], m) - 1 for m in ('a', 'b')]
            line += ''.join('%+15.2f%%' % (100 * v) for v in vs)
            if max(vs) > NONET_SLACK:
                behind.append(f)
        lines.append(line)
    lines.append('')
    lines.append('Largest cost of the nets: %+.2f%% on %s (model %s, HZ %s).' % (
        100 * worst_all[0], worst_all[1], worst_all[2][0].upper(), worst_all[2][1]))
    if ref:
        lines.append('Families where horizon-nonet is more than %d%% behind %s under model '
                     'A or B: %d of %d%s' % (100 * NONET_SLACK, ref, len(behind), len(fams),
                                            (' (%s).' % ', '.join(behind)) if behind else '.'))
    return lines


def target_lines(by, cost, peers, tables):
    """The targets on the runs of BY: (holds, text) each."""
    out = []
    for m in MODELS:
        v = {g: eo(by[g], m) for g in peers + ['horizon']}
        b, bp = best(v, peers)
        out.append((v['horizon'] < b, 'model %s: E/O %.4f below the best peer\'s, %.4f (%s)'
                    % (m.upper(), v['horizon'], b, bp)))
    ex = {g: eo(by[g], 'a') - 1 for g in peers + ['horizon']}
    b, bp = best(ex, peers)
    out.append((ex['horizon'] <= EXCESS_A_SHARE * b,
                'model A: excess at most half the best peer\'s: %.2f%% against %.2f%% '
                '(%s), limit %.2f%%' % (100 * ex['horizon'], 100 * b, bp,
                                       100 * EXCESS_A_SHARE * b)))
    ms = {g: miss(by[g]) for g in peers + ['horizon']}
    b, bp = best(ms, peers)
    out.append((ms['horizon'] <= MISS_SHARE * b,
                'idle misses at most 0.75 of the best peer\'s: %.2f%% against %.2f%% (%s), '
                'limit %.2f%%' % (100 * ms['horizon'], 100 * b, bp, 100 * MISS_SHARE * b)))
    worst = None
    for m in MODELS:
        for tb in tables:
            v = {g: eo([r for r in by[g] if r['table'] == tb], m) for g in peers + ['horizon']}
            b, bp = best(v, peers)
            d = v['horizon'] / b - 1
            if worst is None or d > worst[0]:
                worst = (d, m, tb, bp)
    out.append((worst[0] <= CELL_SLACK,
                'no (model, table) cell more than 1%% worse than the best peer: worst '
                'model %s %s %+.2f%% (against %s)' % (worst[1].upper(), worst[2],
                                                     100 * worst[0], worst[3])))
    fams = sorted({r['trace'] for r in by['horizon']})
    worst = None
    for t in fams:
        v = {g: eo([r for r in by[g] if r['trace'] == t], 'a') for g in peers + ['horizon']}
        b, bp = best(v, peers)
        if worst is None or v['horizon'] / b - 1 > worst[0]:
            worst = (v['horizon'] / b - 1, t, bp)
    out.append((worst[0] <= FAMILY_SLACK,
                'model A: no family more than 1%% worse than the best peer: worst %s '
                '%+.2f%% (against %s)' % (worst[1], 100 * worst[0], worst[2])))
    rnd = {g: [r for r in by[g] if r['trace'] in RANDOM_FAMILIES] for g in peers + ['horizon']}
    if rnd['horizon']:
        v = {g: above(rs) for g, rs in rnd.items()}
        b, bp = best(v, peers)
        out.append((v['horizon'] <= b, 'above misses on random-wakeup families no more '
                    'than the best peer\'s: %.2f%% against %.2f%% (%s)'
                    % (100 * v['horizon'], 100 * b, bp)))
    if 'horizon' in cost and COST_PEER in cost:
        out.append((cost['horizon'][0] <= cost[COST_PEER][0],
                    'instructions per select()+reflect() no more than %s\'s: %.0f against '
                    '%.0f' % (COST_PEER, cost['horizon'][0], cost[COST_PEER][0])))
    else:
        out.append((None, 'instructions per select()+reflect() no more than %s\'s: not '
                    'measured (needs valgrind and a %s peer)' % (COST_PEER, COST_PEER)))
    return out


def programming(by, govs, cost):
    """The price of clock event programmings, nets included, per idle entry
    over the whole matrix, in programmings and in instructions."""
    lines = ['', 'Clock event programmings per 1000 idle entries over the matrix: tick '
             'stops, tick', 'restarts and those a safety net causes; instr+clk/sel: '
             'instr/sel plus %d' % PROGRAM_INSTR,
             'instructions per programming (assumed: the replay runs no kernel code).',
             '', '%-14s %9s %9s %9s %9s %10s %13s' % (
                 'governor', 'stops', 'restarts', 'nets', 'all', 'instr/sel',
                 'instr+clk/sel')]
    for g in govs:
        rs = by[g]
        ent = sum(int(r['entries']) for r in rs)
        n = [sum(int(r[k]) for r in rs) * 1000 / ent if ent else 0
             for k in ('tick_stops', 'tick_restarts', 'net_programs')]
        clk = sum(n)
        lines.append('%-14s %9.1f %9.1f %9.1f %9.1f %10s %13s' % (
            g, n[0], n[1], n[2], clk,
            '%.0f' % cost[g][0] if g in cost else 'n/a',
            '%.0f' % (cost[g][0] + PROGRAM_INSTR * clk / 1000) if g in cost else 'n/a'))
    return lines


SHORT = {'horizon-nonet': 'nonet'}


def sweep(by, govs, peers, tables, what):
    """E/O per (model, table) cell and per model over all tables."""
    vs = 'horizon' in govs and peers
    lines = ['', 'E/O per power model and state table, %s (geometric mean over '
             'families and HZ)' % what, '',
             '%-20s' % 'model table' + ''.join('%10s' % SHORT.get(g, g) for g in govs) +
             ('%10s' % 'vs_best' if vs else '')]
    for m in MODELS:
        for tb in tables + [None]:
            val = {g: eo([r for r in by[g] if tb is None or r['table'] == tb], m)
                   for g in govs}
            cells = ''.join('%10.4f' % val[g] for g in govs)
            if vs:
                cells += '%+9.2f%%' % (100 * (val['horizon'] / min(val[p] for p in peers) - 1))
            lines.append('%-20s' % ('%s %s' % (m.upper(), tb or 'all')) + cells)
    return lines


def summarise(rows, cost):
    lines = []
    govs = order({r['governor'] for r in rows if r['governor'] != 'oracle'})
    peers = [g for g in govs if g not in OURS]
    by = {g: [r for r in rows if r['governor'] == g] for g in govs}
    runs = by[govs[0]] if govs else []
    traces = sorted({r['trace'] for r in rows})
    tables = sorted({r['table'] for r in rows})
    held = [t for t in traces if held_out(t)]
    # The runs of each governor on the held-out families, when they are
    # a part of the families and not all of them.
    hby = None
    if held and len(held) < len(traces):
        hby = {g: [r for r in rs if held_out(r['trace'])] for g, rs in by.items()}

    lines.append("Energy over the oracle's (E/O: geometric mean over runs of the per-run "
                 'ratio) under the')
    lines.append('four power models, idle misses and above misses (arithmetic means over '
                 'runs of (above +')
    lines.append('below) / entries and above / entries); a run is one trace, state table '
                 'and HZ: %d runs' % len(runs))
    lines.append('(%d traces, %d tables, HZ 250 and 1000). Models: A, break-even at the '
                 'target residency;' % (len(traces), len(tables)))
    lines.append('B, a visit also pays active power over its exit latency (B\'s powers); '
                 'C, latency-literal:')
    lines.append('active power over twice the exit latency a visit; D, break-even at '
                 'twice the target residency.')
    lines.append('Held out from tuning (%d of %d families): %s.' % (
        len(held), len(traces), ', '.join(held)))
    if not any(r.get('set') == 'hardware' for r in runs):
        lines.append('No recording of real hardware was replayed: the set "hardware" is '
                     'absent.')
    lines.append('')
    lines.extend(one_table(by, govs, peers, runs, tables))
    lines.append('')
    lines.append('%-10s %-14s %8s %8s %8s %8s %8s %8s' % (
        'set', 'governor', 'E/O_A', 'E/O_B', 'E/O_C', 'E/O_D', 'miss', 'above'))
    for s, keys in set_keys(runs):
        for g in govs:
            rs = [r for r in by[g] if run_key(r) in keys]
            lines.append('%-10s %-14s' % (s, g) +
                         ''.join(' %8.4f' % eo(rs, m) for m in MODELS) +
                         ' %7.2f%% %7.2f%%' % (100 * miss(rs), 100 * above(rs)))
    if 'horizon' in govs and peers:
        lines.extend(lofo_lines(by, peers, runs))
    lines.extend(net_lines(by, peers))
    lines.append('')
    lines.append('%-14s %11s %10s %7s %8s %9s %10s %11s' % (
        'governor', 'exitlat_us', 'tick_stops', 'nets/s', 'nprog/s', 'query/sel',
        'instr/sel', 'instr/idle'))
    for g in govs:
        rs = by[g]
        ent = sum(int(r['entries']) for r in rs)
        irq = sum(int(r['irq_wakeups']) for r in rs)
        lat = sum(float(r['exit_latency_mean_ns']) * int(r['irq_wakeups']) for r in rs)
        idle_s = sum(int(r['idle_ns']) for r in rs) / 1e9
        lines.append('%-14s %11.1f %10d %7.1f %8.1f %9.2f %10s %11s' % (
            g, lat / irq / 1000 if irq else 0, sum(int(r['tick_stops']) for r in rs),
            sum(int(r['net_wakeups']) for r in rs) / idle_s if idle_s else 0,
            sum(int(r['net_programs']) for r in rs) / idle_s if idle_s else 0,
            sum(int(r['queries']) for r in rs) / ent if ent else 0,
            '%.0f' % cost[g][0] if g in cost else 'n/a',
            '%.0f' % cost[g][1] if g in cost else 'n/a'))
    lines.append('')
    lines.append('exitlat_us: mean exit latency of the state left on non-timer wakeups;')
    lines.append('tick_stops: over the whole matrix; nets/s: safety-net wakeups per second')
    lines.append('of idle time; nprog/s: clock event programmings caused by nets per second')
    lines.append('of idle time (each costs the energy of a tick stop in the model, and the')
    lines.append('instructions assumed below); query/sel: sleep-length queries per')
    lines.append('select(); instr/sel: instructions per select() + reflect() (callgrind,')
    lines.append('%s, first %d periods); instr/idle: the same per idle period of the trace.'
                 % (COST_TRACE, COST_PERIODS))
    lines.extend(programming(by, govs, cost))

    lines.extend(sweep(by, govs, peers, tables, 'all families'))
    if hby:
        lines.extend(sweep(hby, govs, peers, tables, 'held-out families'))

    if 'horizon' in govs and peers:
        lines.append('')
        lines.append('Targets, horizon against the best peer of each figure, on all families '
                     '| on the held-out ones:')
        res = target_lines(by, cost, peers, tables)
        hres = target_lines(hby, cost, peers, tables) if hby else res
        word = {True: 'holds', False: 'FAILS', None: 'n/a'}
        for (ok, text), (hok, htext) in zip(res, hres):
            lines.append('  [%s | %s] %s' % (word[ok], word[hok], text))
            if htext != text:
                lines.append('  %17s held out: %s' % ('', htext.split(': ', 1)[-1]))
        lines.append('  %d of %d targets hold on all families, %d of %d on the held-out ones.'
                     % (sum(ok is True for ok, _ in res), len(res),
                        sum(ok is True for ok, _ in hres), len(hres)))
        lines.append('')
        lines.append('Worst single run of horizon against the best peer in it '
                     '(family, table, HZ):')
        cells = {}
        for g in ['horizon'] + peers:
            for r in by[g]:
                cells.setdefault((r['trace'], r['table'], r['hz']), {})[g] = r
        for m in MODELS:
            worst = None
            for key, c in cells.items():
                if 'horizon' not in c or not all(p in c for p in peers):
                    continue
                bv, bp = min((float(c[p]['ratio_' + m]), p) for p in peers)
                v = float(c['horizon']['ratio_' + m]) / bv - 1
                if worst is None or v > worst[0]:
                    worst = (v, key, bp, bv, float(c['horizon']['ratio_' + m]))
            if worst:
                v, (t, tb, hz), bp, bv, hv = worst
                lines.append('  model %s: %+.2f%% on %s, %s, HZ=%s (horizon %.4f, %s %.4f)'
                             % (m.upper(), 100 * v, t, tb, hz, hv, bp, bv))

    fw = max([16] + [len(t) + 2 for t in traces])
    head = '%-*s' % (fw, 'family') + ''.join('%10s' % SHORT.get(g, g) for g in govs)
    vs = 'horizon' in govs and peers
    for m, what in [(m, 'E/O model ' + m.upper()) for m in MODELS] + [
            (None, 'Idle misses'), ('above', 'Above misses')]:
        lines.append('')
        lines.append('%s per trace family (%s over tables and HZ; * held out)' % (
            what, 'geometric mean' if m in MODELS else 'arithmetic mean'))
        lines.append('')
        lines.append(head + ('%10s' % 'vs_best' if vs else ''))
        for t in traces:
            rs = {g: [r for r in by[g] if r['trace'] == t] for g in govs}
            if m in MODELS:
                val = {g: eo(rs[g], m) for g in govs}
                cells = ''.join('%10.4f' % val[g] for g in govs)
            else:
                val = {g: (above if m else miss)(rs[g]) for g in govs}
                cells = ''.join('%9.1f%%' % (100 * val[g]) for g in govs)
            if vs:
                b = min(val[p] for p in peers)
                cells += ('%+9.2f%%' % (100 * (val['horizon'] / b - 1)) if m in MODELS else
                          '%+9.1f%%' % (100 * (val['horizon'] - b)))
            lines.append('%-*s' % (fw, t + ('*' if held_out(t) else '')) + cells)
    if vs:
        lines.append('')
        lines.append('vs_best: horizon against the best peer of the family (E/O: ratio - 1; '
                     'misses: difference).')
    return '\n'.join(lines) + '\n'


def plot(rows, outdir):
    if not shutil.which('gnuplot'):
        return
    govs = order({r['governor'] for r in rows})
    traces = sorted({r['trace'] for r in rows})
    for metric, fname, title in (('a', 'energy', 'energy / oracle (model A)'),
                                 ('b', 'energy-b', 'energy / oracle (model B)'),
                                 (None, 'misses', 'idle-miss ratio')):
        dat = os.path.join(outdir, fname + '.dat')
        with open(dat, 'w') as f:
            for t in traces:
                vals = []
                for g in govs:
                    rs = [r for r in rows if r['trace'] == t and r['governor'] == g]
                    vals.append(eo(rs, metric) if metric else miss(rs))
                f.write('%s %s\n' % (t, ' '.join('%.4f' % v for v in vals)))
        # E/O on a log axis, so that a few families far above the oracle
        # do not flatten the rest; the legend outside, clear of the bars.
        axis = ('set logscale y 2\nset ylabel "E/O, log scale"\n' if metric else
                'set yrange [0:*]\nset ylabel "idle misses / entries"\n')
        script = ('set terminal pngcairo size 1500,500\nset output "%s"\n'
                  'set style data histogram\n'
                  'set style histogram clustered\nset style fill solid 0.8\n'
                  'set xtics rotate by -40\nset title "%s"\n'
                  'set key outside right top vertical\n%s'
                  'plot ' % (os.path.join(outdir, fname + '.png'), title, axis) +
                  ', '.join('"%s" using %d:xtic(1) title "%s"' % (dat, i + 2, g)
                            for i, g in enumerate(govs)) + '\n')
        subprocess.run(['gnuplot'], input=script, text=True, check=True)


def read_cost(path):
    cost = {}
    if os.path.isfile(path):
        with open(path) as f:
            for r in csv.DictReader(f):
                cost[r['governor']] = (float(r['instr_sel']), float(r['instr_idle']))
    return cost


def main():
    ap = argparse.ArgumentParser(
        usage='%(prog)s [--tree DIR] [--peers DIR]... [--peers-name NAME] '
              '[--traces DIR]... BINDIR TRACEDIR OUTDIR\n'
              '       %(prog)s --origin DIR [--peers-name NAME]\n'
              '       %(prog)s --summary CSV')
    ap.add_argument('--tree', default=os.path.normpath(os.path.join(HERE, '..', '..', '..')))
    ap.add_argument('--peers', action='append', default=[])
    ap.add_argument('--peers-name')
    ap.add_argument('--traces', action='append', default=[])
    ap.add_argument('--origin')
    ap.add_argument('--summary')
    ap.add_argument('dirs', nargs='*')
    a = ap.parse_args()
    try:
        if a.origin:
            print(origin(a.origin, a.peers_name))
            return
        if a.summary:
            with open(a.summary) as f:
                rows = list(csv.DictReader(f))
            if not rows:
                raise BenchError('%s: no rows' % a.summary)
            cost = read_cost(os.path.join(os.path.dirname(a.summary), 'cost.csv'))
            sys.stdout.write(summarise([r for r in rows if r['governor'] != 'oracle'],
                                       cost))
            return
        if len(a.dirs) != 3:
            ap.error('BINDIR TRACEDIR OUTDIR needed')
        bindir, tracedir, outdir = a.dirs
        if a.peers_name and len(a.peers) != 1:
            raise BenchError('--peers-name names one --peers tree')
        base = origin(a.tree)
        peers, seen = [], {base: a.tree}
        for p in a.peers:
            o = origin(p, a.peers_name)
            if o in seen:
                raise BenchError('%s and %s both have origin %s: name one with '
                                 'PEERS_NAME=' % (seen[o], p, o))
            seen[o] = p
            govs = peer_governors(p)
            if not govs:
                raise BenchError('%s: no menu.c or teo.c in drivers/cpuidle/governors/' % p)
            peers.append((o, govs))
        traces = list_traces([tracedir] + a.traces)
        for (o, _), p in zip(peers, a.peers):
            build_peer(p, o, bindir)
        rows = run_matrix(bindir, traces, base, peers)
        os.makedirs(outdir, exist_ok=True)
        fields = ['trace', 'table', 'set'] + [k for k in rows[0]
                                              if k not in ('trace', 'table', 'set')]
        with open(os.path.join(outdir, 'bench.csv'), 'w', newline='') as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(rows)
        cost = instructions(bindir, traces, base, peers)
        with open(os.path.join(outdir, 'cost.csv'), 'w') as f:
            f.write('governor,instr_sel,instr_idle\n')
            for g, (s, i) in sorted(cost.items()):
                f.write('%s,%.1f,%.1f\n' % (g, s, i))
        text = summarise([r for r in rows if r['governor'] != 'oracle'], cost)
        with open(os.path.join(outdir, 'bench.txt'), 'w') as f:
            f.write(text)
        plot([r for r in rows if r['governor'] != 'oracle'], outdir)
        sys.stdout.write(text)
    except BenchError as e:
        sys.exit('bench: %s' % e)


if __name__ == '__main__':
    main()
