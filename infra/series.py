#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the project into git format-patch series on the pinned base.

Usage: series.py SRC OUTDIR
       series.py --placeholders FILE...
       series.py --signoffs FILE...

SRC is the prepared tree (tag "base", .git/horizon-applied holding the tree
of base plus the project). Each directory infra/series/N-NAME/ is one
series, applied in the order of N, each on top of the one before; it holds
cover.msg (subject, blank line, cover letter) and one NN-*.msg per patch:

    Files: PATH...          repo paths (new files, PATH.patch, or folders)
    Strip: FILE REGEX       optional: at this step, drop from FILE the
                            paragraph starting at the line matching REGEX
                            (with the blank line before it); a later step
                            naming the file again restores it whole
    Drop: FILE REGEX        optional: likewise, drop the lines matching
    Sub: FILE |REGEX|TEXT|  optional: likewise, replace every match of
                            REGEX (multi-line) by TEXT (\\n is a newline);
                            the character after FILE delimits both

    Subject line

    Body.

Each step lays its files over the previous step in a worktree of SRC and
is committed with its message; every project file must belong to a step,
and the last step should give exactly the tree of the prepared project
(a warning if not: check-series.sh fails on it).

Identity: From: and Signed-off-by: are SIGNOFF="Name <mail>" if set, else
git config user.name and user.email. Without either, or when the git
config names a placeholder (a reserved domain, localhost, ...), the series
is written without Signed-off-by, its From: says "No identity set" and
one line on stderr says so. MAINTAINERS entries the project adds get their
M: line from the same identity, none without it.

Lines of the form {{NAME ARGS}} in cover letters and messages are
replaced by text generated from the result files of the project's tools
(the replay benchmark, the guest kselftests, KUnit), never typed by hand.
Every patch and cover letter gets To: and Cc: from scripts/get_maintainer.pl.

Writes OUTDIR/N-NAME/0000-cover-letter.patch ... per series and
OUTDIR/trees ("N-NAME TREE" per series: the tree after its last patch),
and prints the file names.

--placeholders prints the lines of FILE... naming a placeholder identity;
--signoffs checks that every patch is signed off by its From: author (exit
1 if not, 2 if the series was written without an identity).
"""

import csv
import email.header
import email.utils
import json
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERIES = os.path.join(REPO, 'infra', 'series')
# What infra/prepare.sh lays into the tree: every file under these, and the
# patches of top-level kernel files (MAINTAINERS.patch).
KERNEL_DIRS = ('Documentation', 'drivers', 'include', 'kernel', 'tools')
# The author of a series written without an identity: no person, no address.
NO_IDENTITY = ('No identity set', '')
# Identities no person holds: reserved and local domains, our old default.
PLACEHOLDER = re.compile(
    r'localhost|localdomain|horizon developers|placeholder|your name|john doe|'
    r'\bexample\.(com|net|org)\b|@[\w.-]*\.(example|invalid|test|local)\b', re.I)


def die(msg):
    sys.exit('series: error: ' + msg)


def run(cwd, args, env=None, inp=None, check=True):
    res = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env,
                         input=inp)
    if check and res.returncode:
        die('%s: %s' % (' '.join(args), res.stderr.strip()))
    return res


def git(cwd, *args, env=None, inp=None):
    return run(cwd, ['git'] + list(args), env=env, inp=inp).stdout


def identity():
    """(name, email, why, detail): the identity, or None, why not and details.

    why goes into the cover letters, so it never quotes a placeholder;
    detail goes to stderr only.
    """
    val = os.environ.get('SIGNOFF', '').strip()
    if val:
        m = re.fullmatch(r'([^<>]*[^<>\s])\s*<([^<>\s@]+@[^<>\s]+)>', val)
        if not m:
            die('SIGNOFF must be "Name <mail>", not "%s"' % val)
        if PLACEHOLDER.search(val):
            print('series: warning: SIGNOFF "%s" is a placeholder: the checks will '
                  'fail' % val, file=sys.stderr)
        return m.group(1), m.group(2), None, None
    name, mail = (run(REPO, ['git', 'config', key], check=False).stdout.strip()
                  for key in ('user.name', 'user.email'))
    if not name or not mail:
        return None, None, 'no SIGNOFF and no git config user.name and user.email', ''
    if PLACEHOLDER.search('%s <%s>' % (name, mail)):
        return (None, None, 'the git config identity is not a usable address',
                ' (%s <%s>)' % (name, mail))
    return name, mail, None, None


def project_files():
    """Repo files that go into the kernel tree, as infra/prepare.sh lays them."""
    out = []
    for d in KERNEL_DIRS:
        for root, _, names in os.walk(os.path.join(REPO, d)):
            out += [os.path.relpath(os.path.join(root, n), REPO) for n in names]
    out += [f for f in os.listdir(REPO) if f.endswith('.patch')]
    return sorted(out)


def parse_msg(path):
    with open(path) as f:
        text = f.read()
    head, _, body = text.partition('\n\n')
    files, edits = [], []
    for line in head.splitlines():
        key, _, val = line.partition(':')
        val = val.strip()
        if key == 'Files':
            files += val.split()
        elif key in ('Strip', 'Drop'):
            fname, _, regex = val.partition(' ')
            edits.append((key, fname, re.compile(regex), None))
        elif key == 'Sub':
            fname, _, rest = val.partition(' ')
            parts = rest[1:].split(rest[:1]) if rest else []
            if len(parts) != 3 or parts[2]:
                die('%s: "Sub: FILE |REGEX|TEXT|" expected, not "%s"' % (path, line))
            edits.append((key, fname, re.compile(parts[0], re.M), parts[1]))
        else:
            die('%s: unknown header line "%s"' % (path, line))
    if not files or not body.strip():
        die('%s: needs a Files: line and a message' % path)
    return files, edits, body.strip() + '\n'


def expand(entries, allfiles, msg):
    out = []
    for e in entries:
        hit = [f for f in allfiles if f == e or (e.endswith('/') and f.startswith(e))]
        if not hit:
            die('%s: "%s" names no project file' % (msg, e))
        out += hit
    return out


def lay(work, f):
    """Write the final version of repo file f into the worktree."""
    if f.endswith('.patch'):
        target = f[:-len('.patch')]
        git(work, 'checkout', 'base', '--', target)
        res = run(work, ['git', 'apply', '--whitespace=nowarn', os.path.join(REPO, f)],
                  check=False)
        if res.returncode:
            die('%s does not apply to base: %s' % (f, res.stderr.strip()))
        return target
    dst = os.path.join(work, f)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copy2(os.path.join(REPO, f), dst)
    return f


def edit(work, kind, fname, regex, text, msg):
    path = os.path.join(work, fname)
    with open(path) as f:
        content = f.read()
    if kind == 'Sub':
        new, n = regex.subn(text, content)
        if not n:
            die('%s: Sub: nothing of %s matches %s' % (msg, fname, regex.pattern))
        with open(path, 'w') as f:
            f.write(new)
        return
    lines = content.split('\n')
    start = next((i for i, l in enumerate(lines) if regex.search(l)), None)
    if start is None:
        die('%s: %s: no line of %s matches' % (msg, kind, fname))
    if kind == 'Drop':
        lines = [l for l in lines if not regex.search(l)]
    else:
        end = start
        while end < len(lines) and lines[end].strip():
            end += 1
        if start and not lines[start - 1].strip():
            start -= 1
        del lines[start:end]
    with open(path, 'w') as f:
        f.write('\n'.join(lines))


def sections(lines):
    """(title index, end index) of every section of a MAINTAINERS file."""
    for i, l in enumerate(lines):
        if (l.strip() and (i == 0 or not lines[i - 1].strip()) and i + 1 < len(lines)
                and re.match(r'[A-Z]:\t', lines[i + 1])):
            end = i + 1
            while end < len(lines) and lines[end].strip():
                end += 1
            yield i, end


def fill_maintainers(text, base_titles, ident):
    """MAINTAINERS text with "M: ident" in every new section that has no M:."""
    if not ident:
        return text
    lines = text.split('\n')
    for i, end in reversed(list(sections(lines))):
        if lines[i] not in base_titles and not any(
                l.startswith('M:\t') for l in lines[i + 1:end]):
            lines.insert(i + 1, 'M:\t' + ident)
    return '\n'.join(lines)


def tree_with(src, tree, path, text):
    """The tree id of tree with the file at path replaced by text."""
    tmp = tempfile.mkdtemp()
    try:
        env = dict(os.environ, GIT_INDEX_FILE=os.path.join(tmp, 'index'))
        git(src, 'read-tree', tree, env=env)
        blob = git(src, 'hash-object', '-w', '--stdin', inp=text).strip()
        git(src, 'update-index', '--cacheinfo', '100644,%s,%s' % (blob, path), env=env)
        return git(src, 'write-tree', env=env).strip()
    finally:
        shutil.rmtree(tmp)


# Generated text for the {{NAME ARGS}} lines.

def when(path):
    """When path was written: its commit date if it is an unchanged repo file."""
    stamp = os.path.getmtime(path)
    if path.startswith(REPO + os.sep):
        rel = os.path.relpath(path, REPO)
        if not run(REPO, ['git', 'diff', '--quiet', 'HEAD', '--', rel], check=False).returncode:
            out = git(REPO, 'log', '-1', '--format=%ct', '--', rel).strip()
            stamp = int(out) if out else stamp
    return time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(stamp))


def wrap(text, **kw):
    return textwrap.wrap(text, 72, break_on_hyphens=False, **kw)


def table_lines(path, start, stop):
    """The lines of path from the one matching start to the one before stop."""
    with open(path) as f:
        lines = f.read().splitlines()
    i = next(n for n, l in enumerate(lines) if re.match(start, l))
    j = next((n for n in range(i + 1, len(lines)) if re.match(stop, lines[n])), len(lines))
    return lines[i:j]


def bench_file(ctx):
    for path in (os.path.join(ctx['cache'], 'bench', 'bench.txt'),
                 os.path.join(REPO, 'bench', 'bench.txt')):
        if os.path.exists(path):
            return path
    return None


def bench_matrix(path):
    """'N trace families x M state tables (...) x HZ ...' from bench.csv."""
    csvpath = os.path.join(os.path.dirname(path), 'bench.csv')
    if not os.path.exists(csvpath):
        return 'the whole trace matrix'
    with open(csvpath) as f:
        rows = list(csv.DictReader(f))
    traces = sorted({r['trace'] for r in rows})
    tables = sorted({r['table'] for r in rows})
    hzs = sorted({r['hz'] for r in rows}, key=int)
    return '%d trace families x %d state tables (%s) x HZ %s' % (
        len(traces), len(tables), ', '.join(tables), ' and '.join(hzs))


def bench_rows(path):
    """{governor: [set, governor, E/O_A, E/O_B, E/O_C, E/O_D, miss, above]}
    of the headline table's 'all' rows."""
    rows = {}
    for line in table_lines(path, r'set +governor ', r'^$')[1:]:
        f = line.split()
        if len(f) >= 8 and f[0] == 'all':
            rows[f[1]] = f
    return rows


def best_peer(rows):
    """The peer with the lowest E/O under model A."""
    peers = [g for g in rows if g.split('-')[0] in ('menu', 'teo')]
    if not peers:
        return None
    return min(peers, key=lambda g: float(rows[g][2]))


def gen_bench(ctx, args):
    path = bench_file(ctx)
    if not path:
        die('no replay benchmark results: run make bench')
    text = open(path).read().splitlines()
    # All runs, the recorded traces, and the families left out of tuning.
    rows = [l for l in table_lines(path, r'set +governor ', r'^$')
            if l.split()[0] in ('set', 'all', 'recorded', 'hardware', 'held-out')]
    # horizon's lead over the best peer, also with any one family left out:
    # the smallest of those is the figure to quote.
    lofo = [l for l in table_lines(path, r'set +model +lead ', r'^$')
            if l.split()[0] in ('set', 'all', 'recorded', 'hardware', 'held-out')
            and (l.split()[1] in ('model', 'A', 'B'))]
    worst = table_lines(path, r'Worst single run', r'^$') \
        if any(l.startswith('Worst single run') for l in text) else []
    return wrap('Replay benchmark (tools/power/cpuidle-replay/bench.py, %s) over '
                '%s:' % (when(path), bench_matrix(path))) + [''] + [
            ('  ' + l).rstrip() for l in rows + [''] + worst] + (
        [''] + wrap('horizon\'s lead over the best peer, 1 - E/O horizon / E/O best '
                    'peer, and the smallest lead left when any one trace family is '
                    'removed (the best peer chosen again without it), with that '
                    'family:') + [''] + ['  ' + l.rstrip() for l in lofo]
        if lofo else []) + [
        ''] + wrap(
        'E/O: geometric mean over runs of energy / oracle energy, under four '
        'power models: A, the target residency is the break-even time; B, '
        'each visit also pays its exit latency at active power; C, it pays '
        'it twice (on entry and exit); D, the break-even lies at twice the '
        'target residency. miss: arithmetic mean of (above + below) / '
        'entries; above: of above / entries. menu-X and teo-X are the '
        'governors of kernel X compiled unchanged, as is horizon; '
        'horizon-nonet is horizon with safety_net=0. The held-out families '
        '(marked in the per-family tables of bench.py) were left out when '
        'horizon\'s '
        'constants were chosen.')


def gen_bench_summary(ctx, args):
    """One sentence for a commit message: horizon against the best peer."""
    path = bench_file(ctx)
    if not path:
        die('no replay benchmark results: run make bench')
    rows = bench_rows(path)
    peer = best_peer(rows)
    if 'horizon' not in rows or not peer:
        die('%s: no horizon, teo or menu row' % path)
    h, p = rows['horizon'], rows[peer]
    text = ('Replayed with tools/power/cpuidle-replay (posted as a series of '
            'its own) over %s, horizon spends %s (model A) and %s (model B) of '
            'the energy of an oracle that knows the future (geometric means '
            'of per-run ratios), against %s and %s for %s, the best of the '
            'peers compiled unchanged; %s and %s against %s and %s where '
            'each visit pays twice its exit latency at active power '
            '(model C) or the break-even lies at twice the target residency '
            '(model D); '
            'with idle misses of %s against %s.' % (
                bench_matrix(path), h[2], h[3], p[2], p[3], peer, h[4], h[5],
                p[4], p[5], h[6], p[6]))
    lofo = {l.split()[1]: l.split() for l in table_lines(path, r'set +model +lead ', r'^$')
            if l.split()[0] == 'all'}
    if 'A' in lofo and 'B' in lofo:
        text += (' With any one trace family left out, the lead over the best '
                 'peer is at least %s (model A, without %s) and %s (model B, '
                 'without %s).' % (lofo['A'][4], lofo['A'][5], lofo['B'][4],
                                   lofo['B'][5]))
    return wrap(text + ' These are replay figures, not hardware measurements.')


def gen_bench_nets(ctx, args):
    """What the safety net does in the replay: per recorded trace and over
    all runs, nets fired per second of idle time and E/O with and without
    them, from bench.csv."""
    # E/O as bench.py's own tables compute it.
    sys.path.insert(0, os.path.join(REPO, 'tools', 'power', 'cpuidle-replay'))
    from bench import eo

    path = bench_file(ctx)
    if not path:
        die('no replay benchmark results: run make bench')
    with open(os.path.join(os.path.dirname(path), 'bench.csv')) as f:
        rows = list(csv.DictReader(f))
    models = [m for m in 'abcd' if 'ratio_' + m in rows[0]]

    recorded = sorted({r['trace'] for r in rows if r.get('set') == 'recorded'})
    nw = max([12] + [len(t) + 1 for t in recorded])

    def line(name, keep):
        h = [r for r in rows if r['governor'] == 'horizon' and keep(r)]
        n = [r for r in rows if r['governor'] == 'horizon-nonet' and keep(r)]
        if not h or not n:
            return None
        idle = sum(int(r['idle_ns']) for r in h) / 1e9
        nets = sum(int(r['net_wakeups']) for r in h)
        return '  %-*s%6.1f' % (nw, name, nets / idle if idle else 0) + ''.join(
            '  %5.3f/%5.3f' % (eo(h, m), eo(n, m))
            for m in models)

    out = ['  %-*s%6s' % (nw, 'trace', 'nets/s') + ''.join(
        '  %11s' % ('model %s' % m.upper()) for m in models)]
    for t in recorded:
        out.append(line(t, lambda r, t=t: r['trace'] == t))
    out.append(line('all runs', lambda r: True))
    return wrap('Safety nets in the replay (bench.py, %s): nets fired per second '
                'of idle time, and E/O with nets / without them '
                '(horizon.safety_net=N), on each recorded trace and over all runs:'
                % when(path)) + [''] + [l for l in out if l]


def guest_outputs(ctx):
    """[(label, path)] of the latest guest kselftest outputs."""
    res = os.path.join(ctx['cache'], 'results')
    outs = sorted(glob.glob(os.path.join(res, 'test-*.out')))
    found = [(os.path.basename(o)[len('test-'):-len('.out')],
              'make selftests-all', o) for o in outs]
    single = os.path.join(res, 'test.out')
    # selftests-all copies test.out after each run: a newer one is a later
    # make test or make selftests.
    if os.path.exists(single) and (not outs or os.path.getmtime(single) >
                                   max(os.path.getmtime(o) for o in outs) + 60):
        found.append(('latest', 'make test or make selftests', single))
    return found


def gen_guest(ctx, args):
    outs = guest_outputs(ctx)
    if not outs:
        print('series: warning: no guest results in the cover letters: run make '
              'selftests-all, then make series', file=sys.stderr)
        return ['[Guest figures: none yet. make selftests-all writes them.]']
    lines = ['Guest kselftests (QEMU TCG, 4 vCPUs, acpi_idle on emulated _CST',
             'tables whose states are all HLT: decisions, not power):', '',
             '  run            horizon     menu      teo   (idle-miss %, 1 ms timer on one CPU)']
    extra, srcs = [], []
    for label, cmd, out in outs:
        text = open(out).read()
        srcs.append('  %s: %s, $HORIZON_CACHE/results/%s, %s' % (
            label, cmd, os.path.basename(out), when(out)))
        miss = dict(re.findall(r'^#\s+(horizon|menu|teo) ([0-9.]+) ', text, re.M))
        if len(miss) == 3:
            lines.append('  %-13s %8s%% %7s%% %7s%%' % (label, miss['horizon'],
                                                   miss['menu'], miss['teo']))
        for pat, what in ((r'# (armed \d+, fired \d+, deeper after \d+)', 'safety nets'),
                          (r'# (in \d+ s idle: horizon \d+, menu \d+)',
                           'local timer interrupts')):
            m = re.search(pat, text)
            if m:
                extra.append('  %-13s %s: %s' % (label, what, m.group(1)))
    return lines + [''] + extra + ['', 'Sources:'] + srcs


def ktap_results(text, names):
    """{name: (status, [diagnostics])} of the named KTAP results in text."""
    found, diag = {}, []
    for line in text.splitlines():
        m = re.match(r'(not ok|ok) \d+ (\S+)(?: # SKIP (.*))?$', line)
        if m:
            if m.group(2) in names:
                status = 'skip' if m.group(3) is not None else m.group(1)
                found[m.group(2)] = (status, diag + ([m.group(3)] if m.group(3) else []))
            diag = []
        elif line.startswith('# ') and not line.startswith('# Totals'):
            diag.append(line[2:].strip())
        else:
            diag = []
    return found


def gen_ktap(ctx, names):
    outs = guest_outputs(ctx)
    if not outs:
        return wrap('[Guest figures (%s): none yet. make selftests-all '
                             'or make test writes them.]' % ', '.join(names))
    lines = []
    for label, cmd, out in outs:
        found = ktap_results(open(out).read(), names)
        lines.append('%s: %s, $HORIZON_CACHE/results/%s, %s:' % (
            label, cmd, os.path.basename(out), when(out)))
        for name in names:
            status, diag = found.get(name, ('not run', []))
            text = '%s: %s%s' % (name, status, ': ' + '; '.join(diag) if diag else '')
            lines += wrap(text, initial_indent='  ',
                                   subsequent_indent='      ')
        lines.append('')
    return lines[:-1]


def kunit_leaves(group):
    for case in group.get('test_cases', []):
        yield case
    for sub in group.get('sub_groups', []):
        yield from kunit_leaves(sub)


def gen_kunit(ctx, suites):
    path = os.path.join(ctx['cache'], 'results', 'kunit.json')
    if not os.path.exists(path):
        return wrap('[KUnit results (%s): none yet. make kunit writes '
                             'them.]' % ', '.join(suites))
    data = json.load(open(path))
    out = []
    for suite in suites:
        group = next((g for g in data.get('sub_groups', []) if g.get('name') == suite),
                     None)
        if group is None:
            out.append('  %s: not run' % suite)
            continue
        cases = list(kunit_leaves(group))
        ok = sum(1 for c in cases if c.get('status') == 'PASS')
        out.append('  %s: %d of %d cases passed' % (suite, ok, len(cases)))
    return ['KUnit (make kunit: x86_64 under QEMU TCG, $HORIZON_CACHE/results/'
            'kunit.json, %s):' % when(path)] + out


def gen_identity(ctx, args):
    """What the identity gave; "maintainers": also the MAINTAINERS M: lines."""
    entries = 'maintainers' in args
    if ctx['ident']:
        return wrap(
            'The MAINTAINERS entry this series adds names its sender, %s, in '
            'its M: line.' % ctx['ident']) if entries else []
    return wrap(
        'THIS IS A DRAFT THAT CANNOT BE POSTED: it was written without an '
        'identity (%s), so no patch carries a Signed-off-by%s. Set '
        'SIGNOFF="Name <mail>" or git config user.name and user.email, then '
        'run make series again.' % (
            ctx['why'], ' and the MAINTAINERS entry it adds has no M: line'
            if entries else ''))


def gen_base(ctx, args):
    mk = git(ctx['work'], 'show', 'base:Makefile')
    v = dict(re.findall(r'^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION) = ?(.*)$', mk, re.M))
    return ['Based on %s.%s.%s%s (Debian linux-source-6.12).' % (
        v.get('VERSION'), v.get('PATCHLEVEL'), v.get('SUBLEVEL'), v.get('EXTRAVERSION', ''))]


GENERATORS = {'bench': gen_bench, 'bench-summary': gen_bench_summary,
              'bench-nets': gen_bench_nets, 'guest': gen_guest,
              'ktap': gen_ktap, 'kunit': gen_kunit, 'identity': gen_identity,
              'base': gen_base}


def generate(text, ctx, where):
    out = []
    for line in text.split('\n'):
        m = re.fullmatch(r'\{\{([\w-]+)((?: [\w-]+)*)\}\}', line.strip())
        if not m:
            out.append(line)
        elif m.group(1) not in GENERATORS:
            die('%s: unknown generated text "%s"' % (where, line))
        else:
            out += GENERATORS[m.group(1)](ctx, m.group(2).split())
    # A generator with nothing to say leaves no double blank line.
    return re.sub(r'\n{3,}', '\n\n', '\n'.join(out))


# To: and Cc: from scripts/get_maintainer.pl.

def recipients(work, patch, me):
    """(to, cc) for patch: maintainers (and supporters) to, the rest cc."""
    res = run(work, ['perl', 'scripts/get_maintainer.pl', '--no-git',
                     '--no-git-fallback', '--rolestats', patch])
    to, cc = [], []
    for line in res.stdout.splitlines():
        m = re.match(r'(.*\S) \(([^:)]*)', line)
        if not m:
            continue
        addr, role = m.groups()
        if me and me.lower() in addr.lower():
            continue
        (to if role in ('maintainer', 'supporter', 'odd fixer') else cc).append(addr)
    return to, cc


def add_headers(path, to, cc):
    with open(path) as f:
        head, sep, rest = f.read().partition('\n\n')
    for key, addrs in (('To', to), ('Cc', cc)):
        if addrs:
            head += '\n%s: %s' % (key, ',\n    '.join(addrs))
    with open(path, 'w') as f:
        f.write(head + sep + rest)


def union(lists, but=()):
    out = []
    for lst in lists:
        out += [a for a in lst if a not in out and a not in but]
    return out


def write_series(work, outdir, start, end, cover_msg, ctx, env):
    os.makedirs(outdir)
    git(work, 'format-patch', '-q', '--cover-letter', '-o', outdir,
        '%s..%s' % (start, end), env=env)
    files = sorted(glob.glob(os.path.join(outdir, '*.patch')))
    me = ctx['mail']
    rcpt = {p: recipients(work, p, me) for p in files[1:]}
    for p, (to, cc) in rcpt.items():
        add_headers(p, to, cc)
    cover = files[0]
    subject, _, blurb = open(cover_msg).read().partition('\n\n')
    blurb = generate(blurb.rstrip('\n'), ctx, cover_msg)
    text = open(cover).read()
    text = text.replace('*** SUBJECT HERE ***', subject.strip())
    text = text.replace('*** BLURB HERE ***', blurb)
    with open(cover, 'w') as f:
        f.write(text)
    to = union(t for t, _ in rcpt.values())
    add_headers(cover, to, union((c for _, c in rcpt.values()), to))
    return files


def write(src, outdir):
    cache = os.path.dirname(os.path.abspath(src))
    want = open(os.path.join(src, '.git', 'horizon-applied')).read().strip()
    stray = glob.glob(os.path.join(SERIES, '*.msg'))
    if stray:
        die('patch descriptions outside a series directory: %s' % ' '.join(stray))
    series = sorted(d for d in glob.glob(os.path.join(SERIES, '[0-9]-*')) if os.path.isdir(d))
    if not series:
        die('no series directories in ' + SERIES)
    allfiles = project_files()

    name, mail, why, detail = identity()
    ident = '%s <%s>' % (name, mail) if name else None
    if not ident:
        print('series: %s%s: written WITHOUT Signed-off-by and MAINTAINERS M: lines; '
              'set SIGNOFF="Name <mail>" or git config user.name and user.email'
              % (why, detail), file=sys.stderr)
        name, mail = NO_IDENTITY

    # A worktree of SRC, kept between runs: resetting it is quicker than
    # checking out the whole tree again.
    work = os.path.join(cache, 'series-work')
    if not os.path.exists(os.path.join(work, '.git')):
        git(src, 'worktree', 'prune')
        git(src, 'worktree', 'add', '--detach', work, 'base')
    git(work, 'checkout', '-q', '-f', '--detach', 'base')
    git(work, 'clean', '-q', '-f', '-d', '-x')
    ctx = {'cache': cache, 'work': work, 'ident': ident, 'mail': ident and mail,
           'why': why}

    env = dict(os.environ)
    date = git(REPO, 'log', '-1', '--format=%cI').strip()
    env.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=mail, GIT_COMMITTER_NAME=name,
               GIT_COMMITTER_EMAIL=mail, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    signoff = '\nSigned-off-by: %s\n' % ident if ident else ''
    base = git(src, 'show', 'base:MAINTAINERS').split('\n')
    base_titles = {base[i] for i, _ in sections(base)}
    covered, ends = set(), []
    for sdir in series:
        start = git(work, 'rev-parse', 'HEAD').strip()
        msgs = sorted(glob.glob(os.path.join(sdir, '[0-9][0-9]-*.msg')))
        if not msgs or not os.path.exists(os.path.join(sdir, 'cover.msg')):
            die('%s: needs cover.msg and NN-*.msg' % sdir)
        for path in msgs:
            label = os.path.relpath(path, SERIES)
            files, edits, body = parse_msg(path)
            names = expand(files, allfiles, label)
            covered.update(names)
            laid = [lay(work, f) for f in names]
            for kind, fname, regex, text in edits:
                edit(work, kind, fname, regex, text, label)
            if 'MAINTAINERS' in laid:
                mpath = os.path.join(work, 'MAINTAINERS')
                text = fill_maintainers(open(mpath).read(), base_titles, ident)
                with open(mpath, 'w') as f:
                    f.write(text)
            # Debian's top-level .gitignore ignores everything: force.
            git(work, 'add', '-A', '-f')
            git(work, 'commit', '-q', '-F', '-', env=env,
                inp=generate(body, ctx, label) + signoff)
        ends.append((os.path.basename(sdir), start, git(work, 'rev-parse', 'HEAD').strip()))

    missing = sorted(set(allfiles) - covered)
    if missing:
        die('project files in no patch: ' + ' '.join(missing))
    # The prepared tree, with the M: lines filled in as above.
    want = tree_with(src, want, 'MAINTAINERS', fill_maintainers(
        git(src, 'show', want + ':MAINTAINERS'), base_titles, ident))
    got = git(work, 'rev-parse', 'HEAD^{tree}').strip()
    if got != want:
        # Written all the same, for the other checks; check-series fails
        # on this.
        print('series: warning: the series does not give the prepared tree '
              '(make prepare lays the project again):\n' +
              git(src, 'diff', '--stat', want, got).rstrip(), file=sys.stderr)

    os.makedirs(outdir, exist_ok=True)
    for old in glob.glob(os.path.join(outdir, '*.patch')):
        os.remove(old)
    for old in glob.glob(os.path.join(outdir, '[0-9]-*')):
        shutil.rmtree(old)
    written, trees = [], []
    for sname, start, end in ends:
        written += write_series(work, os.path.join(os.path.abspath(outdir), sname),
                                start, end,
                                os.path.join(SERIES, sname, 'cover.msg'), ctx, env)
        trees.append('%s %s\n' % (sname, git(work, 'rev-parse', end + '^{tree}').strip()))
    with open(os.path.join(outdir, 'trees'), 'w') as f:
        f.writelines(trees)
    for p in written:
        print(p)


def headers(path):
    """The mail headers of a patch file, unfolded."""
    with open(path) as f:
        head = f.read().partition('\n\n')[0]
    return re.sub(r'\n[ \t]+', ' ', head).split('\n')


def decode(value):
    return str(email.header.make_header(email.header.decode_header(value)))


def check_placeholders(files):
    bad = 0
    for path in files:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if PLACEHOLDER.search(line):
                    print('%s:%d: %s' % (os.path.basename(path), n, line.rstrip()))
                    bad = 1
    return bad


def check_signoffs(files):
    """0: every patch signed off by its author; 2: no identity; 1: else."""
    bad, unsigned = [], 0
    for path in files:
        if os.path.basename(path).startswith('0000-'):
            continue
        author = next((decode(h[len('From: '):]) for h in headers(path)
                       if h.startswith('From: ')), '')
        with open(path) as f:
            body = f.read().partition('\n---\n')[0]
        sobs = re.findall(r'^Signed-off-by: (.*)$', body, re.M)
        if email.utils.parseaddr(author) == NO_IDENTITY and not sobs:
            unsigned += 1
        elif email.utils.parseaddr(author) not in map(email.utils.parseaddr, sobs):
            bad.append('%s: From: %s, Signed-off-by: %s' % (
                os.path.basename(path), author, ', '.join(sobs) or 'none'))
    if bad:
        print('\n'.join(bad))
        return 1
    if unsigned:
        print('%d patches written without an identity: no Signed-off-by '
              '(make series says why)' % unsigned)
        return 2
    return 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        sys.exit(0)
    if len(sys.argv) >= 2 and sys.argv[1] == '--placeholders':
        sys.exit(check_placeholders(sys.argv[2:]))
    if len(sys.argv) >= 2 and sys.argv[1] == '--signoffs':
        sys.exit(check_signoffs(sys.argv[2:]))
    if len(sys.argv) != 3:
        die('usage: series.py SRC OUTDIR')
    write(*sys.argv[1:])


if __name__ == '__main__':
    main()
