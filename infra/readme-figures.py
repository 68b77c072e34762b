#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# `make readme`: write every figure block of README.md and HACKING.md from
# the results files, so that no figure in them is typed by hand.
# Usage: readme-figures.py [--check] [-h | --help]
#   (none)   first keep the latest results of the cache with the project:
#            $HORIZON_CACHE/results/run.txt (make run) as bench/run.txt and
#            the counts of the last make test as bench/tests.txt, each with
#            a provenance line; record the provenance (date, commit,
#            machine) of bench/bench.txt and bench/guest.txt in
#            bench/provenance.txt when their content changed; then rewrite
#            every block between "<!-- figure NAME -->" and
#            "<!-- /figure NAME -->" in README.md and HACKING.md.
#   --check  write nothing; exit 1, naming them, if a block differs from
#            what the results files give, a results file changed since
#            its provenance was recorded, or a line of README's bench
#            block (written by make bench) is not in bench/bench.txt.
# Each block ends with one provenance line per results file it reads.
# A results file that is missing makes its blocks say so, not fail.
import hashlib
import math
import os
import platform
import re
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ('README.md', 'HACKING.md')
BEGIN = re.compile(r'^<!-- figure ([a-z0-9-]+) -->\n', re.M)
PROVENANCE = 'bench/provenance.txt'
# Suites of make test in the order infra/test.sh runs them, with the
# command that runs each alone.
# Every suite infra/test.sh counts, in its order (the infra tests check
# that the two lists agree).
SUITES = ('checkpatch', 'series', 'replay', 'cpuidle-ab', 'infra', 'ukunit',
          'kunit', 'selftests', 'soak')


class Missing(Exception):
    """A results file that is not there, or has not the expected form."""


def path(rel):
    return os.path.join(REPO, rel)


def read(rel):
    try:
        with open(path(rel), encoding='utf-8') as f:
            return f.read()
    except OSError:
        raise Missing('%s is missing' % rel) from None


def digest(rel):
    with open(path(rel), 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def machine():
    model = ''
    try:
        with open('/proc/cpuinfo', encoding='utf-8') as f:
            for line in f:
                if line.startswith('model name'):
                    model = ', ' + line.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    return '%s, %d CPUs%s' % (platform.machine(), os.cpu_count() or 0, model)


def describe():
    try:
        return subprocess.run(['git', '-C', REPO, 'describe', '--always', '--dirty'],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return 'unknown commit'


def stamp(what, when):
    """The provenance line of a results file written now from WHAT."""
    return 'Provenance: %s, %s, at %s, on %s' % (
        what, time.strftime('%Y-%m-%d', time.localtime(when)), describe(), machine())


# --- provenance of the files other scripts write -----------------------

RECORDED = {'bench/bench.txt': 'make bench', 'bench/guest.txt': 'make guest-bench'}


def manifest():
    """{file: (digest, line)} from bench/provenance.txt."""
    out = {}
    try:
        text = read(PROVENANCE)
    except Missing:
        return out
    for line in text.splitlines():
        m = re.match(r'(\S+) sha256:([0-9a-f]+) (Provenance: .*)$', line)
        if m:
            out[m[1]] = (m[2], m[3])
    return out


def record_provenance():
    """Record a line for each file of RECORDED whose content changed."""
    old = manifest()
    new = dict(old)
    for rel, what in RECORDED.items():
        if not os.path.exists(path(rel)):
            continue
        d = digest(rel)
        if rel not in old or old[rel][0] != d:
            new[rel] = (d, stamp(what, os.path.getmtime(path(rel))))
    if new != old:
        write(PROVENANCE, ''.join('%s sha256:%s %s\n' % (r, d, line)
                                  for r, (d, line) in sorted(new.items())))


def provenance(rel):
    """The provenance line of results file REL."""
    if rel in RECORDED:
        entry = manifest().get(rel)
        return '%s: %s' % (rel, entry[1][len('Provenance: '):] if entry
                           else 'no provenance recorded (run make readme)')
    for line in read(rel).splitlines():
        if line.startswith('Provenance: '):
            return '%s: %s' % (rel, line[len('Provenance: '):])
    return '%s: no provenance line' % rel


# --- snapshots of the cache's results ----------------------------------

def cache():
    return os.environ.get('HORIZON_CACHE') or os.path.join(
        os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'), 'horizon')


def write(rel, text):
    tmp = path(rel) + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write(text)
    os.replace(tmp, path(rel))


def snapshot(rel, text, when, what):
    """Write results file REL with TEXT and a provenance line, unless it
    holds TEXT already (so that an old run keeps its provenance)."""
    try:
        body = [l for l in read(rel).splitlines(True) if not l.startswith('Provenance: ')]
        if ''.join(body) == text:
            return
    except Missing:
        pass
    write(rel, text + stamp(what, when) + '\n')


def snapshot_run():
    src = os.path.join(cache(), 'results', 'run.txt')
    if os.path.exists(src):
        with open(src, encoding='utf-8') as f:
            snapshot('bench/run.txt', f.read(), os.path.getmtime(src), 'make run')


def snapshot_tests():
    """bench/tests.txt from the counts of a complete make test run: every
    suite's COUNT file, newer than the run's start (checkpatch.count is
    the first written)."""
    res = os.path.join(cache(), 'results')
    rows = []
    for s in SUITES:
        f = os.path.join(res, s + '.count')
        if not os.path.exists(f):
            return
        try:
            with open(f, encoding='utf-8') as fh:
                p, n = (int(x) for x in fh.read().split())
        except ValueError:
            return
        try:
            with open(f + '.skip', encoding='utf-8') as fh:
                k = int(fh.read().split()[0])
        except (OSError, ValueError, IndexError):
            k = 0
        rows.append((s, p, n, k))
    when = max(os.path.getmtime(os.path.join(res, s + '.count')) for s in SUITES)
    text = '%-12s %7s %7s %7s\n' % ('suite', 'passed', 'failed', 'skipped')
    text += ''.join('%-12s %7d %7d %7d\n' % r for r in rows)
    snapshot('bench/tests.txt', text, when, 'make test')


# --- the results files, parsed -----------------------------------------

def table_after(text, head_re):
    """Rows (lists of words) of the table whose header line matches
    HEAD_RE, up to the next blank line; and the header's words."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(head_re, line):
            rows = []
            for l in lines[i + 1:]:
                if not l.strip():
                    break
                rows.append(l.split())
            return line.split(), rows
    raise Missing('no table "%s"' % head_re)


def bench():
    text = read('bench/bench.txt')
    head, rows = table_after(text, r'set +governor +E/O_A')
    cols = head[2:]
    sets = {}
    for r in rows:
        sets.setdefault(r[0], {})[r[1]] = dict(zip(cols, r[2:]))
    m = re.search(r'(\d+) runs\s*\((.*?)\)', text.replace('\n', ' '))
    runs = '%s runs (%s)' % (m[1], m[2]) if m else 'every run'
    fam, held = {}, set()
    for m in re.finditer(r'^E/O model ([A-Z]) per trace family', text, re.M):
        h, rs = table_after(text[m.end():], r'family +horizon ')
        fam[m[1]] = {r[0].rstrip('*'): dict(zip(h[1:], r[1:])) for r in rs}
        held |= {r[0].rstrip('*') for r in rs if r[0].endswith('*')}
    targets = [l.strip() for l in text.splitlines() if re.match(r'\s*\d+ of \d+ targets', l)]
    return {'sets': sets, 'runs': runs, 'fam': fam, 'held': held,
            'targets': targets[0] if targets else None}


def recorded_families():
    fams = set()
    try:
        for line in read('bench/bench.csv').splitlines()[1:]:
            w = line.split(',')
            if len(w) > 2 and w[2] == 'recorded':
                fams.add(w[0])
    except Missing:
        pass
    return fams


PEER_EXCLUDE = ('horizon', 'horizon-nonet', 'horizon:safety_net=N', 'oracle')


def best_peer(values, lower=True):
    """(name, value) of the peer with the lowest value."""
    peers = [(v, g) for g, v in values.items() if g not in PEER_EXCLUDE]
    if not peers:
        raise Missing('no peer in the results')
    v, g = min(peers) if lower else max(peers)
    return g, v


def num(s):
    return float(s.rstrip('%'))


def guest():
    text = read('bench/guest.txt')
    modes = {}
    for part in re.split(r'^== ', text, flags=re.M)[1:]:
        title = part.splitlines()[0].strip()
        mode = {'title': title, 'workloads': {}, 'order': [], 'over': {}, 'stuck': None}
        m = re.search(r'stuck shallow test: (.*)', part)
        if m:
            mode['stuck'] = m[1]
        for b in part.split('\n\n'):
            lines = b.strip('\n').splitlines()
            if not lines:
                continue
            w = lines[0].split()
            if len(w) == 8 and w[1] == 'miss%':
                mode['order'].append(w[0])
                mode['workloads'][w[0]] = {r.split()[0]: dict(zip(w[1:], r.split()[1:]))
                                           for r in lines[1:]}
            if lines[0].startswith('Over the workloads'):
                h = lines[2].split()
                mode['over'] = {r.split()[0]: dict(zip(h, r.split()[1:])) for r in lines[3:]}
        modes[title] = mode
    if not modes:
        raise Missing('bench/guest.txt has no "== MODE" section')
    return modes


# --- the blocks --------------------------------------------------------

def fmt_pct(x):
    return '%.1f%%' % x


def fig_headline():
    b = bench()
    sets = b['sets']
    models = [c for c in next(iter(next(iter(sets.values())).values())) if c.startswith('E/O_')]
    out = ['Replay, %s; lower is better; each cell is horizon against the best peer '
           'of that cell:' % b['runs'], '']
    out.append('| set | ' + ' | '.join('E/O model %s' % c[4:] for c in models) +
               ' | idle misses |')
    out.append('| --- |' + ' --- |' * (len(models) + 1))
    for s in ('all', 'held-out', 'recorded', 'hardware'):
        if s not in sets or 'horizon' not in sets[s]:
            continue
        cells = []
        for c in models + ['miss']:
            g, v = best_peer({k: num(r[c]) for k, r in sets[s].items()})
            h = num(sets[s]['horizon'][c])
            if c == 'miss':
                cells.append('%s vs %s (%s)' % (fmt_pct(h), fmt_pct(v), g))
            else:
                cells.append('%.3f vs %.3f (%s)' % (h, v, g))
        out.append('| %s | %s |' % (s, ' | '.join(cells)))
    lofo = lofo_leads()
    if lofo:
        out += ['', 'horizon\'s lead over the best peer (1 - horizon / best peer), '
                'and the smallest lead left when any one trace family is left out '
                '(and the family left out then); a negative lead '
                'is a loss:', '']
        models_l = sorted({m for (_, m) in lofo})
        out.append('| set | ' + ' | '.join('model %s' % m for m in models_l) + ' |')
        out.append('| --- |' + ' --- |' * len(models_l))
        for s in ('all', 'held-out', 'recorded', 'hardware'):
            if not any((s, m) in lofo for m in models_l):
                continue
            out.append('| %s | %s |' % (s, ' | '.join(
                '%s, %s without %s' % lofo[(s, m)] if (s, m) in lofo else ''
                for m in models_l)))
    if b['targets']:
        out += ['', 'Targets (`make bench`): %s' % b['targets']]
    out += ['', provenance('bench/bench.txt')]
    return out


def lofo_leads():
    """{(set, model): (lead, smallest lead, family)} from the one table."""
    text = read('bench/bench.txt')
    out = {}
    for m in re.finditer(r'^(\S+) +E/O ([A-Z]) .* (-?[\d.]+%) +(-?[\d.]+%) '
                         r'\(([^)]+)\)', text, re.M):
        out[(m[1], m[2])] = (m[3], m[4], m[5])
    return out


def fig_guest():
    modes = guest()
    out = ['QEMU guest, means over %d workloads; idle misses (lower is better) '
           'and the 99th-percentile wakeup latency relative to teo71 (1.000):'
           % len(next(iter(modes.values()))['order']), '']
    out.append('| timers | horizon misses | best peer | horizon p99 | '
               'horizon misses above the best peer on |')
    out.append('| --- | --- | --- | --- | --- |')
    for title, m in modes.items():
        if 'horizon' not in m['over']:
            continue
        g, v = best_peer({k: num(r['miss%']) for k, r in m['over'].items()})
        worse = []
        for wl in m['order']:
            rows = m['workloads'][wl]
            if 'horizon' not in rows:
                continue
            pg, pv = best_peer({k: num(r['miss%']) for k, r in rows.items()})
            if num(rows['horizon']['miss%']) > pv:
                worse.append('%s (%s vs %s %s)' % (wl, fmt_pct(num(rows['horizon']['miss%'])),
                                                   pg, fmt_pct(pv)))
        out.append('| %s | %s | %s %s | %s | %s |' % (
            title, fmt_pct(num(m['over']['horizon']['miss%'])), g, fmt_pct(v),
            m['over']['horizon']['p99'], ', '.join(worse) or 'none'))
    out += ['', provenance('bench/guest.txt')]
    return out


def fig_nets():
    b = bench()
    rec = recorded_families()
    out = ['What the safety net changes on each recorded workload: horizon\'s E/O '
           'with nets over its E/O without them, minus one (negative: nets save '
           'energy), per power model:', '']
    models = sorted(b['fam'])
    out.append('| recording | ' + ' | '.join('model %s' % m for m in models) + ' |')
    out.append('| --- |' + ' --- |' * len(models))
    costs = []
    for f in sorted(rec):
        cells = []
        for m in models:
            r = b['fam'][m].get(f)
            if not r:
                cells.append('-')
                continue
            d = 100 * (num(r['horizon']) / num(r['nonet']) - 1)
            costs.append(d)
            cells.append('%+.1f%%' % d)
        out.append('| %s | %s |' % (f, ' | '.join(cells)))
    if not costs:
        raise Missing('no recorded family in bench/bench.txt and bench/bench.csv')
    out += ['', 'From %+.1f%% to %+.1f%%.' % (min(costs), max(costs)), '',
            provenance('bench/bench.txt')]
    return out


def fig_behind():
    b = bench()
    rec = recorded_families()
    out = []
    for m in sorted(b['fam']):
        worse = [(num(r['vs_best']), f) for f, r in b['fam'][m].items()
                 if num(r['vs_best']) > 1]
        worse.sort(reverse=True)
        out.append('- model %s: %s' % (m, ', '.join(
            '%s%s%s %+.1f%%' % (f, '*' if f in b['held'] else '',
                                ' (recorded)' if f in rec else '', v)
            for v, f in worse) or 'none'))
    return ['Families where horizon is more than 1% behind the best peer, by '
            'power model (* held out from tuning):', ''] + out + [
                '', provenance('bench/bench.txt')]


def fig_run():
    text = read('bench/run.txt')
    body = [l for l in text.splitlines() if not l.startswith('Provenance: ')]
    return ['```'] + body + ['```', '', provenance('bench/run.txt')]


def fig_tests():
    text = read('bench/tests.txt')
    head, rows = table_after(text, r'suite +passed')
    rows = [r for r in rows if r[0] != 'Provenance:']
    p = sum(int(r[1]) for r in rows)
    f = sum(int(r[2]) for r in rows)
    k = sum(int(r[3]) for r in rows)
    out = ['| suite | passed | failed | skipped |', '| --- | --- | --- | --- |']
    out += ['| %s | %s | %s | %s |' % tuple(r[:4]) for r in rows]
    out += ['', 'Closing line: `%d passed, %d failed%s`.' % (
        p, f, ', %d skipped' % k if k else ''), '', provenance('bench/tests.txt')]
    return out


FIGURES = {'headline': fig_headline, 'guest': fig_guest, 'nets': fig_nets,
           'behind': fig_behind, 'run': fig_run, 'tests': fig_tests}
HOW = {'run': 'make run, then make readme', 'tests': 'make test, then make readme'}


def figure(name):
    if name not in FIGURES:
        raise KeyError(name)
    try:
        lines = FIGURES[name]()
    except Missing as e:
        lines = ['(No figure: %s; %s.)' % (e, HOW.get(name, 'see HACKING.md'))]
    return '\n'.join(lines) + '\n'


def render(text, doc):
    """TEXT with every figure block rewritten; errors for bad markers."""
    out, pos, errors = [], 0, []
    for m in BEGIN.finditer(text):
        if m.start() < pos:
            continue
        name = m[1]
        end = '<!-- /figure %s -->' % name
        e = text.find(end, m.end())
        if e < 0:
            errors.append('%s: figure %s has no end marker' % (doc, name))
            continue
        try:
            body = figure(name)
        except KeyError:
            errors.append('%s: unknown figure %s' % (doc, name))
            continue
        out.append(text[pos:m.end()] + body)
        pos = e
    out.append(text[pos:])
    return ''.join(out), errors


def check_bench_block(text):
    """Lines of README's bench block that are not in bench/bench.txt."""
    m = re.search(r'<!-- bench:begin -->\n(.*?)<!-- bench:end -->', text, re.S)
    if not m:
        return ['README.md: no bench:begin/bench:end block']
    try:
        have = set(read('bench/bench.txt').splitlines())
    except Missing as e:
        return ['README.md: %s' % e]
    block = m[1].split('```')
    inside = block[1].strip('\n').splitlines() if len(block) > 2 else []
    return ['README.md: bench block line not in bench/bench.txt: %s' % l
            for l in inside if l and l not in have]


def main(argv):
    if argv[:1] in (['-h'], ['--help']):
        with open(__file__, encoding='utf-8') as f:
            for line in f.read().splitlines()[2:]:
                if not line.startswith('#'):
                    break
                print(line[2:])
        return 0
    if argv not in ([], ['--check']):
        print('usage: readme-figures.py [--check] [-h | --help]', file=sys.stderr)
        return 2
    check = argv == ['--check']
    if not check:
        snapshot_run()
        snapshot_tests()
        record_provenance()
    problems = []
    for rel, what in RECORDED.items():
        if os.path.exists(path(rel)) and manifest().get(rel, ('',))[0] != digest(rel):
            problems.append('%s changed since its provenance was recorded' % rel)
    for doc in DOCS:
        try:
            text = read(doc)
        except Missing as e:
            problems.append(str(e))
            continue
        new, errors = render(text, doc)
        problems += errors
        if doc == 'README.md':
            problems += check_bench_block(text)
        if new == text:
            continue
        if check:
            names = sorted({m[1] for m in BEGIN.finditer(text)
                            if figure(m[1]) not in text})
            problems.append('%s: figures differ from the results files: %s'
                            % (doc, ', '.join(names) or 'layout'))
        else:
            write(doc, new)
            print('readme-figures: rewrote the figures of %s' % doc)
    for p in problems:
        print('readme-figures: %s' % p, file=sys.stderr)
    if problems:
        print('readme-figures: run make readme (after make bench, make guest-bench, '
              'make run or make test)', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
