#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the project into a git format-patch series on the pinned base.

Usage: series.py SRC OUTDIR

SRC is the prepared tree (tag "base", .git/horizon-applied holding the tree
of base plus the project). The patches are described by infra/series/NN-*.msg:

    Files: PATH...          repo paths (new files, PATH.patch, or folders)
    Strip: FILE REGEX       optional: at this step, drop from FILE the
                            paragraph starting at the line matching REGEX
                            (with the blank line before it); a later step
                            naming the file again restores it whole
    Drop: FILE REGEX        optional: likewise, drop the lines matching

    Subject line

    Body.

Each step lays its files over the previous step in a worktree of SRC and
is committed with its message; the last step must give exactly the tree
of the prepared project, and every project file must belong to a step.
The cover letter (infra/series/cover.msg) gets the latest replay benchmark
and guest tables, generated from their result files, never typed by hand.
Writes OUTDIR/0000-cover-letter.patch ... and prints the file names.
"""

import glob
import os
import re
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERIES = os.path.join(REPO, 'infra', 'series')
AUTHOR = os.environ.get('HORIZON_SERIES_AUTHOR', 'horizon developers <horizon@localhost>')
# Not part of the kernel series: the tooling and the benchmark results.
NOT_KERNEL = ('infra/', 'bench/', '.ci/')


def die(msg):
    sys.exit('series: error: ' + msg)


def git(cwd, *args, env=None, inp=None):
    res = subprocess.run(['git', '-C', cwd] + list(args), capture_output=True, text=True,
                         env=env, input=inp)
    if res.returncode:
        die('git %s: %s' % (' '.join(args), res.stderr.strip()))
    return res.stdout


def project_files():
    """Repo files that go into the kernel tree, as the prepare step lays them."""
    out = git(REPO, 'ls-files')
    # Top-level files are the project's own (README.md, Makefile), except
    # patches of top-level kernel files (MAINTAINERS.patch).
    return sorted(f for f in out.splitlines()
                  if not f.startswith(NOT_KERNEL) and ('/' in f or f.endswith('.patch')))


def parse_msg(path):
    with open(path) as f:
        text = f.read()
    head, _, body = text.partition('\n\n')
    files, strips = [], []
    for line in head.splitlines():
        key, _, val = line.partition(':')
        if key == 'Files':
            files += val.split()
        elif key in ('Strip', 'Drop'):
            fname, _, regex = val.strip().partition(' ')
            strips.append((key, fname, re.compile(regex)))
        else:
            die('%s: unknown header line "%s"' % (path, line))
    if not files or not body.strip():
        die('%s: needs a Files: line and a message' % path)
    return files, strips, body.strip() + '\n'


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
        res = subprocess.run(['git', '-C', work, 'apply', '--whitespace=nowarn',
                              os.path.join(REPO, f)], capture_output=True, text=True)
        if res.returncode:
            die('%s does not apply to base: %s' % (f, res.stderr.strip()))
        return target
    dst = os.path.join(work, f)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copy2(os.path.join(REPO, f), dst)
    return f


def strip(work, kind, fname, regex, msg):
    path = os.path.join(work, fname)
    with open(path) as f:
        lines = f.read().split('\n')
    start = next((i for i, l in enumerate(lines) if regex.search(l)), None)
    if start is None:
        die('%s: %s: no line of %s matches' % (msg, kind, fname))
    if kind == 'Drop':
        lines = [l for l in lines if not regex.search(l)]
        with open(path, 'w') as f:
            f.write('\n'.join(lines))
        return
    end = start
    while end < len(lines) and lines[end].strip():
        end += 1
    if start and not lines[start - 1].strip():
        start -= 1
    del lines[start:end]
    with open(path, 'w') as f:
        f.write('\n'.join(lines))


def table_lines(path, start, stop):
    """The lines of path from the one matching start to the one before stop."""
    with open(path) as f:
        lines = f.read().splitlines()
    i = next(n for n, l in enumerate(lines) if re.match(start, l))
    j = next((n for n in range(i + 1, len(lines)) if re.match(stop, lines[n])), len(lines))
    return lines[i:j]


def bench_section(cache):
    path = os.path.join(cache, 'bench', 'bench.txt')
    if not os.path.exists(path):
        path = os.path.join(REPO, 'bench', 'bench.txt')
    if not os.path.exists(path):
        die('no replay benchmark results: run make bench')
    rows = table_lines(path, r'governor ', r'^$')
    worst = [l for l in open(path).read().splitlines() if l.startswith('horizon against')]
    return ['Replay benchmark (make bench, %s):' % os.path.relpath(path, cache)
            if path.startswith(cache) else 'Replay benchmark (make bench, bench/bench.txt):',
            ''] + ['  ' + l for l in rows + [''] + worst] + [
        '',
        'excess: geometric mean over 17 trace families x 5 state tables x HZ 250',
        'and 1000 of energy / oracle - 1 (two power models, A and B); mean_A:',
        'arithmetic mean; miss: (above + below) / entries; exitlat_us: exit',
        'latency paid on non-timer wakeups; nets/s: safety-net wakeups per',
        'second idle; horizon-nonet: horizon with safety_net=0.']


def guest_section(cache):
    outs = sorted(glob.glob(os.path.join(cache, 'results', 'test-*.out')))
    if not outs:
        print('series: warning: no guest results in the cover letter: run make '
              'selftests-all, then make series', file=sys.stderr)
        return ['Guest: no results yet (make selftests-all writes them).']
    lines = ['Guest (QEMU TCG, acpi_idle with our _CST presets, and client with',
             'highres=off; make selftests-all):',
             '', '  run            horizon     menu      teo   (idle-miss %, 1 ms timer on one CPU)']
    extra = []
    for out in outs:
        preset = os.path.basename(out)[len('test-'):-len('.out')]
        text = open(out).read()
        miss = dict(re.findall(r'^#\s+(horizon|menu|teo) ([0-9.]+) ', text, re.M))
        if len(miss) == 3:
            lines.append('  %-13s %8s%% %7s%% %7s%%' % (preset, miss['horizon'], miss['menu'],
                                                   miss['teo']))
        for pat, what in ((r'# (armed \d+, fired \d+, deeper after \d+)', 'safety nets'),
                          (r'# (in \d+ s idle: horizon \d+, menu \d+)',
                           'local timer interrupts')):
            m = re.search(pat, text)
            if m:
                extra.append('  %-13s %s: %s' % (preset, what, m.group(1)))
    return lines + [''] + extra


def main():
    if len(sys.argv) != 3:
        die('usage: series.py SRC OUTDIR')
    src, outdir = sys.argv[1:]
    cache = os.path.dirname(src)
    want = open(os.path.join(src, '.git', 'horizon-applied')).read().strip()
    msgs = sorted(glob.glob(os.path.join(SERIES, '[0-9][0-9]-*.msg')))
    if not msgs:
        die('no patch descriptions in ' + SERIES)
    allfiles = project_files()

    # A worktree of SRC, kept between runs: resetting it is quicker than
    # checking out the whole tree again.
    work = os.path.join(cache, 'series-work')
    if not os.path.exists(os.path.join(work, '.git')):
        git(src, 'worktree', 'prune')
        git(src, 'worktree', 'add', '--detach', work, 'base')
    git(work, 'checkout', '-q', '-f', '--detach', 'base')
    git(work, 'clean', '-q', '-f', '-d', '-x')

    env = dict(os.environ)
    name, email = re.match(r'(.*) <(.*)>', AUTHOR).groups()
    date = git(REPO, 'log', '-1', '--format=%cI').strip()
    env.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=name,
               GIT_COMMITTER_EMAIL=email, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    covered = set()
    for path in msgs:
        label = os.path.basename(path)
        files, strips, body = parse_msg(path)
        for f in expand(files, allfiles, label):
            covered.add(f)
            lay(work, f)
        for kind, fname, regex in strips:
            strip(work, kind, fname, regex, label)
        # Debian's top-level .gitignore ignores everything: force.
        git(work, 'add', '-A', '-f')
        git(work, 'commit', '-q', '-F', '-', env=env,
            inp=body + '\nSigned-off-by: %s\n' % AUTHOR)

    missing = sorted(set(allfiles) - covered)
    if missing:
        die('project files in no patch: ' + ' '.join(missing))
    got = git(work, 'rev-parse', 'HEAD^{tree}').strip()
    if got != want:
        diff = git(src, 'diff', '--stat', want, got)
        die('the series does not give the prepared tree:\n' + diff)

    if os.path.isdir(outdir):
        for old in glob.glob(os.path.join(outdir, '*.patch')):
            os.remove(old)
    os.makedirs(outdir, exist_ok=True)
    git(work, 'format-patch', '-q', '--cover-letter', '--thread=shallow', '-o',
        os.path.abspath(outdir), 'base..HEAD', env=env)
    cover = sorted(glob.glob(os.path.join(outdir, '0000-*.patch')))[0]
    subject, _, blurb = open(os.path.join(SERIES, 'cover.msg')).read().partition('\n\n')
    blurb = blurb.rstrip('\n') + '\n\n' + '\n'.join(
        bench_section(cache) + [''] + guest_section(cache)) + '\n'
    text = open(cover).read()
    text = text.replace('*** SUBJECT HERE ***', subject.strip())
    text = text.replace('*** BLURB HERE ***', blurb.rstrip('\n'))
    with open(cover, 'w') as f:
        f.write(text)
    for p in sorted(glob.glob(os.path.join(outdir, '*.patch'))):
        print(p)


if __name__ == '__main__':
    main()
