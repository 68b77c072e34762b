#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""`make mutants-auto`: mutants derived from the source, not a hand list.

Derives small defects from the code itself: relational operator swaps
(< <=, > >=, == !=), logical, arithmetic and shift swaps (&& ||, + -, * /,
% /, << >>, += -=, ++ --, & |), integer constants off by one, negated
if/while conditions, statements replaced by an empty one (break and
continue too), and a return at the top of each function. Over
drivers/cpuidle/governors/horizon.c (function bodies and #defines) and the
lines that the series adds to tick-internal.h, tick-sched.c, idle.c,
cpuidle.c and sysfs.c (the "+" lines of their *.patch files).

Each mutant runs against the cheapest suite that could catch it: the
user-space KUnit build (infra/ukunit) at HZ=250 and, if it survives there,
HZ=1000, for horizon.c and the tick-internal.h helpers (their cases in
kernel/time/tick-sched_test.c). The others need the kernel: they run with
--kernel (`make mutants-kernel`), each written into the prepared tree, the
boot kernel rebuilt and booted in QEMU with the kselftests of its file
(cpuidle_safety_net.sh, the quick tests first; cpuidle_governor.sh for
sysfs.c), the tree put back afterwards. A mutant is killed when a case
that passes unmutated fails (or crashes, or times out); one that does not
compile is stillborn and does not count. The repository is never written:
the user-space build copies the sources into a work directory first, and
every mutant is compiled from a copy of its own.

Mutants marked by hand as equivalent (same behaviour as the code) in
infra/mutants-equivalent.txt, one "ID  reason" a line, do not count
either; one of them that is killed, or an ID that no longer exists, is
reported. Prints a score per file and per function (killed over killed
and survived) and every survivor; writes the results to
$HORIZON_CACHE/results/mutants-auto.{txt,json}.

Usage: mutants_auto.py [options]
  --list             print the mutants (ID, place, change) and exit
  --kernel           run the kernel-suite mutants instead (tick-sched.c,
                     idle.c, cpuidle.c, sysfs.c): each rebuilds the boot
                     kernel and boots it with the kselftests, minutes a
                     mutant; results in mutants-kernel.{txt,json}
  --no-baseline      with --kernel: do not first check that the suites
                     pass unmutated (when the same tree just passed)
  --rescore JSON     report a results .json again with the equivalents
                     marked since (rewrites it and its .txt)
  --sample N         a fixed sample of N mutants (seeded: the same code
                     gives the same sample; also MUTANTS_AUTO_SAMPLE)
  --seed S           seed of the sample (default 39)
  --file SUBSTR      only files whose path contains SUBSTR (repeatable)
  --function NAME    only mutants in function NAME (repeatable)
  --jobs N           mutants compiled and run at once (default: CPUs)
  --ids FILE         only the mutants whose IDs FILE lists (the first word
                     of each line, or a results .json: its survivors)
  --extra-test FILE  link KUnit cases of FILE.c into the user-space build
                     too (try proposed cases against the survivors)
  --min-score PCT    exit 1 if a file run scores below PCT
  -h, --help         this text
Exits 0 when the run completed (and met --min-score), 1 otherwise, 2 on
bad usage.
"""

import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import types
from concurrent.futures import ThreadPoolExecutor

INFRA = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(INFRA)
UKUNIT = os.path.join(INFRA, 'ukunit')
sys.dont_write_bytecode = True
sys.path.insert(0, UKUNIT)
from added import added_lines  # noqa: E402  pylint: disable=wrong-import-position

CACHE = os.environ.get('HORIZON_CACHE') or os.path.join(
    os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
    'horizon')
EQUIVALENTS = os.path.join(INFRA, 'mutants-equivalent.txt')
HZS = (250, 1000)
SEED = 39

# Path, kind ('file': the file itself; 'patch': the lines it adds), and the
# suite that can catch its mutants.
TARGETS = [
    ('drivers/cpuidle/governors/horizon.c', 'file', 'ukunit'),
    ('kernel/time/tick-internal.h.patch', 'patch', 'ukunit'),
    ('kernel/time/tick-sched.c.patch', 'patch',
     'kernel: selftests (cpuidle_safety_net.sh)'),
    ('kernel/sched/idle.c.patch', 'patch',
     'kernel: selftests (cpuidle_safety_net.sh)'),
    ('drivers/cpuidle/cpuidle.c.patch', 'patch',
     'kernel: selftests (cpuidle_safety_net.sh)'),
    ('drivers/cpuidle/sysfs.c.patch', 'patch',
     'kernel: selftests (cpuidle_governor.sh)'),
]
# What the user-space build compiles: copied into the work directory.
SNAPSHOT = [
    'drivers/cpuidle/governors/horizon.c',
    'drivers/cpuidle/governors/horizon.h',
    'drivers/cpuidle/governors/tests/horizon_kunit.c',
    'kernel/time/tick-sched_test.c',
    'kernel/time/tick-internal.h.patch',
    'tools/power/cpuidle-replay/include',
]

TOKEN = re.compile(r'0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|'
                   r'<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||->|\+\+|--|[-+*/%&|^]=|'
                   r'[-+*/%<>=!&|^~?:;,.(){}\[\]#]')
TYPES = {'void', 'bool', 'char', 'short', 'int', 'long', 'unsigned', 'signed',
         'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64', 'ktime_t',
         'size_t', 'ssize_t', 'struct', 'union', 'enum', 'const', 'static',
         'volatile', 'inline'}
KEYWORDS = TYPES | {'if', 'else', 'for', 'while', 'do', 'switch', 'case',
                    'default', 'return', 'goto', 'sizeof', 'typeof',
                    'break', 'continue'}
SWAPS = {
    'relop': {'<': '<=', '<=': '<', '>': '>=', '>=': '>', '==': '!=',
              '!=': '=='},
    'logic': {'&&': '||', '||': '&&'},
    'arith': {'+': '-', '-': '+', '*': '/', '/': '*', '%': '/', '+=': '-=',
              '-=': '+=', '++': '--', '--': '++', '&': '|', '|': '&'},
    'shift': {'<<': '>>', '>>': '<<', '<<=': '>>=', '>>=': '<<='},
}
# Functions KUnit replaces by static stubs, and boot-time code, never run
# by the suites: not mutated (listed in the report).
UNRUN = re.compile(r'KUNIT_STATIC_STUB_REDIRECT|\b__init\b')
# Lines that are scaffolding, not behaviour.
SCAFFOLD = re.compile(r'EXPORT_SYMBOL_IF_KUNIT|BUILD_BUG_ON|MODULE_|module_param')


def mask(text):
    """TEXT with comments and string and character literals blanked (same
    length, newlines kept), so that code tokens keep their offsets."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j += 1
        else:
            i += 1
            continue
        for k in range(i, min(j, n)):
            if out[k] != '\n':
                out[k] = ' '
        i = j
    return ''.join(out)


class Unit:
    """Lines to mutate: a whole file, or the new side of a patch's hunk.
    LINES are the text's lines; ELIGIBLE[i] says whether line i may be
    mutated; FUNC[i] names its function; PLACE[i] says where it is."""

    def __init__(self, path, lines, eligible, place, first_func=None):
        self.path = path
        self.lines = lines
        self.text = '\n'.join(lines) + '\n'
        self.masked = mask(self.text)
        self.eligible = eligible
        self.place = place
        self.starts = []
        pos = 0
        for line in lines:
            self.starts.append(pos)
            pos += len(line) + 1
        self.func = [None] * len(lines)
        self.bodies = []        # (name, return type, offset of '{', unrun)
        self._functions(first_func)

    def line_of(self, offset):
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def _functions(self, first_func):
        mlines = self.masked.split('\n')
        name, header, inside = first_func, '', first_func is not None
        for i, line in enumerate(self.lines):
            code = mlines[i]
            if not inside:
                if re.match(r'[A-Za-z_]', code) and '(' in code and \
                        not code.rstrip().endswith(';'):
                    header = code
                elif header and code.startswith((' ', '\t')):
                    header += ' ' + code.strip()
                elif code.startswith('{') and header:
                    m = re.search(r'(\w+)\s*\(', header)
                    name = m.group(1) if m else '?'
                    inside = True
                    end = self._end(i)
                    body = self.text[self.starts[i]:self.starts[end]]
                    unrun = bool(UNRUN.search(header) or UNRUN.search(body))
                    rtype = header[:m.start()] if m else ''
                    self.bodies.append((name, rtype, self.starts[i], unrun))
                else:
                    header = ''
                if code.startswith('#define'):
                    self.func[i] = '(file-scope)'
                    continue
            if inside:
                self.func[i] = name
                if code.startswith('}'):
                    inside, header = False, ''

    def _end(self, i):
        for j in range(i + 1, len(self.lines)):
            if self.masked.split('\n')[j].startswith('}'):
                return j
        return len(self.lines) - 1

    def unrun(self, func):
        return any(b[0] == func and b[3] for b in self.bodies)

    def may_mutate(self, start, end):
        first, last = self.line_of(start), self.line_of(max(start, end - 1))
        if self.func[first] is None or self.unrun(self.func[first]):
            return False
        return all(self.eligible[k] and not SCAFFOLD.search(self.lines[k])
                   for k in range(first, last + 1))


def matching(masked, i, open_c='(', close_c=')'):
    depth = 0
    for j in range(i, len(masked)):
        if masked[j] == open_c:
            depth += 1
        elif masked[j] == close_c:
            depth -= 1
            if not depth:
                return j
    return -1


def candidates(unit):
    """(operator, start, end, replacement) of every mutation of UNIT."""
    m = unit.masked
    toks = [(t.group(), t.start(), t.end()) for t in TOKEN.finditer(m)]
    out = []
    for k, (tok, s, e) in enumerate(toks):
        prev = toks[k - 1][0] if k else ''
        prev2 = toks[k - 2][0] if k > 1 else ''
        line = unit.masked[unit.starts[unit.line_of(s)]:].split('\n', 1)[0]
        if line.lstrip().startswith('#') and not line.lstrip().startswith('#define'):
            continue
        operand = re.match(r'\w', prev or ' ') and prev not in KEYWORDS \
            or prev in (')', ']')
        declared = prev in TYPES or prev2 in ('struct', 'union', 'enum')
        for op, table in SWAPS.items():
            if tok not in table:
                continue
            if op in ('arith', 'shift') and tok not in ('++', '--') and \
                    (not operand or declared and tok == '*'):
                continue
            out.append((op, s, e, table[tok]))
        lit = re.fullmatch(r'(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)', tok)
        if lit and not (prev == '[' and toks[k + 1][0] == ']'):
            digits, suffix = lit.groups()
            hexa = digits[:2] in ('0x', '0X')
            octal = not hexa and len(digits) > 1 and digits[0] == '0'
            v = int(digits, 16 if hexa else 8 if octal else 10)
            for w in (v + 1, v - 1):
                if w < 0:
                    continue
                text = (hex(w) if hexa else '0%o' % w if octal else str(w)) + suffix
                out.append(('const', s, e, text))
        if tok in ('if', 'while') and k + 1 < len(toks) and toks[k + 1][0] == '(':
            o = toks[k + 1][1]
            c = matching(m, o)
            if c > 0:
                out.append(('negate', o, c + 1,
                             '(!' + unit.text[o:c + 1] + ')'))
        if _statement_start(unit, toks, k):
            end = _statement_end(m, s)
            if end > 0:
                span = unit.text[s:end + 1]
                out.append(('delete', s, end + 1, ';' + '\n' * span.count('\n')))
    for name, rtype, brace, unrun in unit.bodies:
        if unrun:
            continue
        void = re.search(r'\bvoid\b', rtype) and '*' not in rtype
        values = [''] if void else ['0', '1'] if re.search(r'\bbool\b', rtype) else ['0']
        for v in values:
            out.append(('return', brace + 1, brace + 1,
                        ' return%s;' % (' ' + v if v else '')))
    return [c for c in out if unit.may_mutate(c[1], c[2])]


def _statement_start(unit, toks, k):
    """Whether token K starts a statement that can be replaced by an empty
    one: the first on its line, after a ; { } ) or else, and neither a
    declaration ("type name", "type *name") nor a keyword but break and
    continue."""
    tok, s = toks[k][0], toks[k][1]
    prev = toks[k - 1][0] if k else ';'
    nxt = toks[k + 1][0] if k + 1 < len(toks) else ''
    line_start = unit.starts[unit.line_of(s)]
    if unit.masked[line_start:s].strip() or prev not in (';', '{', '}', ')', 'else'):
        return False
    if tok in ('break', 'continue'):
        return True
    if tok == '*':
        return re.match(r'[A-Za-z_]', nxt) is not None
    if not re.match(r'[A-Za-z_]', tok) or tok in KEYWORDS:
        return False
    return not re.match(r'[A-Za-z_*]', nxt)


def _statement_end(masked, s):
    depth = 0
    for j in range(s, len(masked)):
        ch = masked[j]
        if ch in '([':
            depth += 1
        elif ch in ')]':
            depth -= 1
        elif ch == '{' and not depth:
            return -1
        elif ch == ';' and not depth:
            return j
    return -1


class Mutant:
    def __init__(self, target, unit, op, start, end, repl):
        self.target, self.unit, self.op = target, unit, op
        self.start, self.end, self.repl = start, end, repl
        self.text = unit.text[:start] + repl + unit.text[end:]
        first = unit.line_of(start)
        last = unit.line_of(max(start, end - 1))
        self.first, self.last = first, last
        self.func = unit.func[first]
        self.place = unit.place[first]
        self.before = ' '.join(l.strip() for l in unit.lines[first:last + 1])
        self.after = ' '.join(l.strip() for l in
                              self.text.split('\n')[first:last + 1])
        self.id = None
        self.status = None
        self.detail = ''


def units_of(path, kind, text):
    """The units of a target file: the file, or one per hunk of a patch."""
    lines = text.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    if kind == 'file':
        return [Unit(path, lines, [True] * len(lines),
                     [f'{os.path.basename(path)}:{i + 1}' for i in range(len(lines))])]
    units = []
    added = {n for n, _ in added_lines(text)}
    i = 0
    while i < len(lines):
        m = re.match(r'@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\s*(.*)', lines[i])
        if not m:
            i += 1
            continue
        old, new_line, new = int(m.group(1) or 1), int(m.group(2)), int(m.group(3) or 1)
        fm = re.search(r'(\w+)\s*\(', m.group(4))
        first_func = fm.group(1) if fm else None
        hunk, elig, place, prefix, numbers = [], [], [], [], []
        j = i + 1
        while j < len(lines) and (old > 0 or new > 0):
            line = lines[j]
            if line.startswith('-'):
                old -= 1
            elif not line.startswith('\\'):
                if not line.startswith('+'):
                    old -= 1
                new -= 1
                hunk.append(line[1:])
                elig.append(j in added)
                place.append(f'{os.path.basename(path)}:{j + 1} '
                             f'({os.path.basename(path)[:-6]}:{new_line})')
                prefix.append(j)
                numbers.append(new_line)
                new_line += 1
            j += 1
        unit = Unit(path, hunk, elig, place, first_func)
        # Where each line is in the patch, and in the patched file.
        unit.patch_lines = prefix
        unit.file_lines = numbers
        units.append(unit)
        i = j
    return units


def generate(snapshot, files=None, functions=None):
    mutants = []
    for path, kind, suite in TARGETS:
        if files and not any(f in path for f in files):
            continue
        with open(os.path.join(snapshot if suite == 'ukunit' else REPO, path)) as f:
            text = f.read()
        seen = {}
        for unit in units_of(path, kind, text):
            for op, s, e, repl in candidates(unit):
                mu = Mutant((path, kind, suite), unit, op, s, e, repl)
                if mu.text == unit.text or (functions and mu.func not in functions):
                    continue
                key = f'{path}|{mu.func}|{mu.before}|{mu.after}'
                seen[key] = seen.get(key, -1) + 1
                digest = hashlib.sha1(f'{key}|{seen[key]}'.encode()).hexdigest()[:8]
                mu.id = f'{os.path.basename(path)}:{mu.func}:{op}:{digest}'
                mutants.append(mu)
    return mutants


def mutated_file(mu, original):
    """The whole target file with MU applied."""
    path, kind, _ = mu.target
    if kind == 'file':
        return mu.text
    lines = original.split('\n')
    new = mu.text.split('\n')
    for k, pl in enumerate(mu.unit.patch_lines):
        if mu.unit.eligible[k] and new[k] != mu.unit.lines[k]:
            lines[pl] = '+' + new[k]
    return '\n'.join(lines)


def read_equivalents():
    eq = {}
    try:
        with open(EQUIVALENTS) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line or line.startswith('#'):
                    continue
                parts = line.split(None, 1)
                if len(parts) < 2:
                    sys.exit(f'mutants_auto.py: {EQUIVALENTS}:{n}: "ID reason" '
                             f'expected, the reason is missing')
                eq[parts[0]] = parts[1]
    except FileNotFoundError:
        pass
    return eq


def run(cmd, timeout, cwd=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=timeout, cwd=cwd, check=False)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors='replace') if isinstance(e.stdout, bytes) else (e.stdout or '')
        return None, out


class Ukunit:
    """The user-space KUnit build, made once from the snapshot; each mutant
    recompiles the one file it changes and links with the rest."""

    def __init__(self, work, snapshot, extra=None):
        self.work, self.snapshot = work, snapshot
        self.base = os.path.join(work, 'base')
        make = ['make', '-s', '-C', UKUNIT, f'OUTPUT={self.base}',
                f'TREE={snapshot}', f'TICK_DIR={snapshot}/kernel/time',
                f'REPLAY_INC={snapshot}/tools/power/cpuidle-replay/include']
        st, out = run(make + ['all'], 600)
        if st != 0:
            sys.exit(f'mutants_auto.py: the user-space KUnit build fails '
                     f'without a mutant:\n{out}')
        self.flags = {}
        self.known = {}
        self.extra = {}
        self.extra_src = extra
        for hz in HZS:
            st, out = run(make + ['flags', f'HZ={hz}'], 60)
            self.flags[hz] = out.split()
            binary = os.path.join(self.base, f'ukunit-hz{hz}')
            if extra:
                obj = os.path.join(self.base, f'hz{hz}', 'extra.o')
                objs = [os.path.join(self.base, f'hz{hz}', n + '.o') for n in
                        ('horizon', 'horizon_kunit', 'tick-sched_test', 'ukunit')]
                binary += '-extra'
                for cmd in (['gcc'] + self.flags[hz] + ['-c', '-o', obj, extra],
                            ['gcc'] + self.flags[hz] + ['-o', binary, obj] + objs):
                    st, out = run(cmd, 120)
                    if st != 0:
                        sys.exit(f'mutants_auto.py: {extra} does not build:\n{out}')
                self.extra[hz] = obj
            st, out = run([binary], 600)
            if not re.search(r'^# ukunit: \d+ passed', out, re.M):
                sys.exit(f'mutants_auto.py: HZ={hz}: the suites report no '
                         f'result without a mutant:\n{out[-2000:]}')
            self.known[hz] = re.findall(r'^\s*# ukunit-failed: (.*)$', out, re.M)

    def test(self, mu, mutated, d):
        """Run MU (its target file's text MUTATED) in directory D."""
        path = mu.target[0]
        for hz in HZS:
            objs = {n: os.path.join(self.base, f'hz{hz}', n + '.o')
                    for n in ('horizon', 'horizon_kunit', 'tick-sched_test', 'ukunit')}
            flags = self.flags[hz]
            if path.endswith('horizon.c'):
                src = os.path.join(d, 'horizon.c')
                name = 'horizon'
            else:
                gen = os.path.join(d, 'gen')
                os.makedirs(gen, exist_ok=True)
                with open(os.path.join(gen, 'tick-internal.h'), 'w') as f:
                    f.write('/* Mutated. */\n' + ''.join(
                        l + '\n' for _, l in added_lines(mutated)))
                flags = ['-iquote', gen] + flags
                src = os.path.join(self.snapshot, 'kernel/time/tick-sched_test.c')
                name = 'tick-sched_test'
            if hz == HZS[0] and path.endswith('horizon.c'):
                with open(src, 'w') as f:
                    f.write(mutated)
            obj = os.path.join(d, f'{name}-{hz}.o')
            st, out = run(['gcc'] + flags + ['-c', '-o', obj, src], 120)
            if st != 0:
                return 'stillborn', (out.strip().splitlines() or ['timeout'])[0][:200]
            objs[name] = obj
            binary = os.path.join(d, f'ukunit-hz{hz}')
            extra = [self.extra[hz]] if hz in self.extra else []
            if extra and name == 'tick-sched_test':
                # The extra cases may use the mutated header too.
                extra = [os.path.join(d, f'extra-{hz}.o')]
                st, out = run(['gcc'] + flags + ['-c', '-o', extra[0], self.extra_src], 120)
                if st != 0:
                    return 'stillborn', (out.strip().splitlines() or ['timeout'])[0][:200]
            st, out = run(['gcc'] + flags + ['-o', binary] + extra + list(objs.values()), 120)
            if st != 0:
                return 'stillborn', (out.strip().splitlines() or ['timeout'])[0][:200]
            cmd = [binary, '-x', '-t', '10']
            for k in self.known[hz]:
                cmd += ['-X', k]
            st, out = run(cmd, 900)
            failed = re.findall(r'^\s*# ukunit-failed: (.*)$', out, re.M)
            if failed:
                return 'killed', f'HZ={hz}: {failed[0]}'
            if st is None:
                return 'killed', f'HZ={hz}: the run timed out'
            if st != 0 or not re.search(r'^# ukunit: \d+ passed', out, re.M):
                return 'killed', f'HZ={hz}: the runner crashed (status {st})'
        return 'survived', ''


# Kernel suites: the boot kernel's kselftests, the cheap checks first so
# that most mutants are killed before the long ones run.
NET_FIRST = ('test_param test_net_fires test_net_time_base test_net_rearm '
             'test_net_nohz_full test_net_reprogram_cost')
NET_REST = ('test_param_rejects test_net_param_off test_net_menu '
            'test_local_timer_irqs test_net_idle_accounting '
            'test_stuck_shallow test_stuck_shallow_no_net')


class Kernel:
    """Kernel mutants: each is written into the prepared tree, the boot
    kernel is rebuilt (infra/build-kernel.sh, incremental) and booted in
    QEMU with the kselftest program that covers its file; the source is put
    back afterwards, whatever happens."""

    def __init__(self, patches):
        self.src = os.path.join(CACHE, 'linux')
        self.saved = {}
        for path in patches:
            rel = path[:-len('.patch')]
            with open(os.path.join(self.src, rel)) as f:
                self.saved[rel] = f.read()

    @staticmethod
    def stages(suite):
        if 'cpuidle_governor.sh' in suite:
            return [('cpuidle_governor.sh', '')]
        return [('cpuidle_safety_net.sh', NET_FIRST), ('cpuidle_safety_net.sh', NET_REST)]

    def restore(self):
        for rel, text in self.saved.items():
            with open(os.path.join(self.src, rel)) as f:
                if f.read() == text:
                    continue
            with open(os.path.join(self.src, rel), 'w') as f:
                f.write(text)

    def guest(self, program, tests):
        env = dict(os.environ)
        append = env.get('HORIZON_APPEND', '') + ' horizon.only=' + program
        if tests:
            append += ' horizon.tests=' + ','.join(tests.split())
        env['HORIZON_APPEND'] = append.strip()
        # A hung guest is a killed mutant: no need to wait qemu.sh's 600 s.
        env['HORIZON_TIMEOUT'] = env.get('MUTANTS_KERNEL_TIMEOUT', '360')
        try:
            p = subprocess.run([os.path.join(INFRA, 'qemu.sh'), 'test'], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=1200, check=False)
            st, out = p.returncode, p.stdout
        except subprocess.TimeoutExpired:
            return None, [], ''
        failed = re.findall(r'^not ok \d+ (\S+)', out, re.M)
        return st, failed, out

    def baseline(self, suites):
        st, out = run([os.path.join(INFRA, 'build-kernel.sh')], 3600)
        if st != 0:
            sys.exit(f'mutants_auto.py: the boot kernel does not build without '
                     f'a mutant:\n{out[-2000:]}')
        for suite in suites:
            for program, tests in self.stages(suite):
                st, failed, out = self.guest(program, tests)
                if st != 0 or failed:
                    sys.exit(f'mutants_auto.py: {program} fails without a mutant '
                             f'({", ".join(failed) or "no result"}):\n{out[-2000:]}')

    def test(self, mu):
        """Run MU, a mutant of a patch, on the file the patch makes."""
        rel = mu.target[0][:-len('.patch')]
        text = self.saved[rel].split('\n')
        new = mu.text.split('\n')
        for k, n in enumerate(mu.unit.file_lines):
            if new[k] == mu.unit.lines[k]:
                continue
            if text[n - 1] != mu.unit.lines[k]:
                return 'error', f'{rel}:{n} is not the line of the patch'
            text[n - 1] = new[k]
        try:
            with open(os.path.join(self.src, rel), 'w') as f:
                f.write('\n'.join(text))
            st, out = run([os.path.join(INFRA, 'build-kernel.sh')], 3600)
            if st != 0:
                err = [l for l in out.splitlines() if 'error' in l] or ['build failed']
                return 'stillborn', err[0][:200]
            for program, tests in self.stages(mu.target[2]):
                st, failed, out = self.guest(program, tests)
                if failed:
                    return 'killed', f'{program}: {", ".join(failed)}'
                if st is None:
                    return 'killed', f'{program}: the guest did not finish'
                if st != 0:
                    tail = (out.strip().splitlines() or ['?'])[-1][:160]
                    return 'killed', f'{program}: exit {st} ({tail})'
            return 'survived', ''
        finally:
            self.restore()


def score(k, s):
    return f'{100.0 * k / (k + s):5.1f}%' if k + s else '    -'


def report(mutants, unrun_funcs, eq, stale, elapsed, sample):
    out = []
    w = out.append
    w(f'mutants-auto: {len(mutants)} mutants'
      + (f' (a sample, seed {SEED})' if sample else '') + f', {elapsed:.0f} s')
    rows = {}
    for mu in mutants:
        for key in ((mu.target[0], ''), (mu.target[0], mu.func)):
            r = rows.setdefault(key, {'killed': 0, 'survived': 0, 'stillborn': 0,
                                      'equivalent': 0, 'not run': 0})
            st = mu.status
            r['not run' if st == 'not run' else st] += 1
    w('')
    w(f'{"file / function":58} {"killed":>6} {"surv.":>5} {"equiv":>5} '
      f'{"stillb":>6} {"notrun":>6} {"score":>6}')
    for (path, func), r in sorted(rows.items(), key=lambda kv: (
            [t[0] for t in TARGETS].index(kv[0][0]), kv[0][1])):
        name = path if not func else '  ' + func
        w(f'{name:58} {r["killed"]:6} {r["survived"]:5} {r["equivalent"]:5} '
          f'{r["stillborn"]:6} {r["not run"]:6} {score(r["killed"], r["survived"]):>6}')
    k = sum(1 for m in mutants if m.status == 'killed')
    s = sum(1 for m in mutants if m.status == 'survived')
    w(f'{"total (run)":58} {k:6} {s:5} {"":5} {"":6} {"":6} {score(k, s):>6}')
    if unrun_funcs:
        w('')
        w('not mutated (replaced by static stubs under KUnit, or boot-time): '
          + ', '.join(sorted(unrun_funcs)))
    surv = [m for m in mutants if m.status == 'survived']
    if surv:
        w('')
        w(f'survivors ({len(surv)}):')
        for m in sorted(surv, key=lambda m: (m.target[0], m.func, m.first)):
            w(f'  {m.id}  {m.place}  {m.op}')
            w(f'      - {m.before}')
            w(f'      + {m.after}')
    bad = [m for m in mutants if m.id in eq and m.status == 'killed']
    for m in bad:
        w(f'ERROR: {m.id} is marked equivalent but was killed ({m.detail}): '
          f'remove it from {os.path.basename(EQUIVALENTS)}')
    for s_id in stale:
        w(f'note: {s_id} in {os.path.basename(EQUIVALENTS)} matches no mutant '
          f'of the code (changed?)')
    notrun = sum(1 for m in mutants if m.status == 'not run')
    if notrun:
        w('')
        w(f'{notrun} mutants not run here: the kernel ones run with make '
          f'mutants-kernel; a sample or a stopped run leaves the rest.')
    return '\n'.join(out), bool(bad)


def write_results(stem, text, mutants, results=None):
    results = results or os.path.join(CACHE, 'results')
    os.makedirs(results, exist_ok=True)
    rows = [{'id': m.id, 'file': m.target[0], 'function': m.func,
             'operator': m.op, 'place': m.place, 'suite': m.target[2],
             'status': m.status, 'detail': m.detail,
             'before': m.before, 'after': m.after} for m in mutants]
    for ext, data in (('.json', json.dumps(rows, indent=1)), ('.txt', text)):
        tmp = os.path.join(results, stem + ext + '.tmp')
        with open(tmp, 'w') as f:
            f.write(data + '\n')
        os.replace(tmp, os.path.join(results, stem + ext))


def run_kernel(mutants, unrun, eq, stale, start, sample, opts):
    """--kernel: the mutants of the tick-sched, idle, cpuidle and sysfs
    patches, one boot kernel build and QEMU run each (minutes a mutant)."""
    patches = sorted({m.target[0] for m in mutants})
    kern = Kernel(patches)
    partial = opts['ids'] or opts['files'] or opts['functions']
    stem = 'mutants-kernel' + ('-partial' if partial else '-sample' if sample else '')
    for m in mutants:
        m.status, m.detail = 'not run', 'not reached'

    def save():
        text, bad = report(mutants, unrun, eq, stale, time.time() - start, sample)
        write_results(stem, text, mutants)
        return text, bad

    def stop(*_):
        kern.restore()
        save()
        sys.exit('mutants_auto.py: interrupted; the prepared tree is put back, '
                 'the results so far written')

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        if opts['baseline']:
            kern.baseline(sorted({m.target[2] for m in mutants}))
            print('mutants-auto: kernel baseline built and passing', flush=True)
        else:
            print('mutants-auto: kernel baseline not run (--no-baseline)', flush=True)
        for n, mu in enumerate(mutants, 1):
            t0 = time.time()
            st, detail = kern.test(mu)
            if st == 'error':
                print(f'mutants_auto.py: {mu.id}: {detail}', file=sys.stderr)
                return 1
            if st != 'stillborn' and mu.id in eq:
                st = 'killed' if st == 'killed' else 'equivalent'
                detail = detail or eq[mu.id]
            mu.status, mu.detail = st, detail
            print(f'[{n}/{len(mutants)}] {mu.id} {st.upper()} ({time.time() - t0:.0f} s)'
                  + (f' {detail}' if detail else ''), flush=True)
            save()
    finally:
        kern.restore()
        # Leave the boot kernel built from the unmutated tree.
        run([os.path.join(INFRA, 'build-kernel.sh')], 3600)
    text, bad = save()
    print(text)
    return 1 if bad else 0


def rescore(path):
    """--rescore: the report of a results .json again, with the mutants
    marked equivalent since it was written; rewrites its .txt and .json."""
    try:
        with open(path) as f:
            rows = json.load(f)
    except (OSError, ValueError) as e:
        print(f'mutants_auto.py: --rescore {path}: {e}', file=sys.stderr)
        return 2
    eq = read_equivalents()
    mutants = []
    for r in rows:
        m = types.SimpleNamespace(**r)
        m.target = (r['file'], None, r['suite'])
        m.func, m.first, m.op = r['function'], 0, r['operator']
        if m.status == 'survived' and m.id in eq:
            m.status, m.detail = 'equivalent', eq[m.id]
        elif m.status == 'equivalent' and m.id not in eq:
            m.status = 'survived'
        mutants.append(m)
    with open(path[:-len('.json')] + '.txt') as f:
        sample = ' (a sample' in f.readline()
    text, bad = report(mutants, [], eq, [], 0, sample)
    print(text)
    write_results(os.path.basename(path)[:-len('.json')], text, mutants,
                  os.path.dirname(os.path.abspath(path)))
    return 1 if bad else 0


def main(argv):
    args = argv[1:]
    opts = {'sample': os.environ.get('MUTANTS_AUTO_SAMPLE') or None,
            'seed': SEED, 'jobs': os.cpu_count() or 1, 'files': [],
            'functions': [], 'list': False, 'min': None, 'ids': None,
            'extra': None, 'kernel': False, 'baseline': True}
    while args:
        a = args.pop(0)
        try:
            if a in ('-h', '--help'):
                print(__doc__.strip())
                return 0
            if a == '--list':
                opts['list'] = True
            elif a == '--kernel':
                opts['kernel'] = True
            elif a == '--no-baseline':
                opts['baseline'] = False
            elif a == '--rescore':
                return rescore(args.pop(0))
            elif a == '--sample':
                opts['sample'] = args.pop(0)
            elif a == '--seed':
                opts['seed'] = int(args.pop(0))
            elif a == '--jobs':
                opts['jobs'] = int(args.pop(0))
            elif a == '--file':
                opts['files'].append(args.pop(0))
            elif a == '--function':
                opts['functions'].append(args.pop(0))
            elif a == '--ids':
                opts['ids'] = args.pop(0)
            elif a == '--extra-test':
                opts['extra'] = os.path.abspath(args.pop(0))
            elif a == '--min-score':
                opts['min'] = float(args.pop(0))
            else:
                raise ValueError(a)
        except (IndexError, ValueError):
            print(f'mutants_auto.py: bad argument {a!r}; see --help', file=sys.stderr)
            return 2
    try:
        sample = int(opts['sample']) if opts['sample'] not in (None, '', '0') else None
        if sample is not None and sample < 0 or opts['jobs'] < 1:
            raise ValueError
    except ValueError:
        print('mutants_auto.py: --sample/MUTANTS_AUTO_SAMPLE and --jobs take a '
              'positive number', file=sys.stderr)
        return 2

    start = time.time()
    work = tempfile.mkdtemp(prefix='mutants-auto-')
    try:
        snapshot = os.path.join(work, 'src')
        for rel in SNAPSHOT:
            src, dst = os.path.join(REPO, rel), os.path.join(snapshot, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            (shutil.copytree if os.path.isdir(src) else shutil.copy2)(src, dst)
        mutants = generate(snapshot, opts['files'], opts['functions'])
        if opts['kernel']:
            mutants = [m for m in mutants if m.target[2] != 'ukunit']
        if not mutants:
            print('mutants_auto.py: no mutant matches', file=sys.stderr)
            return 2
        unrun = sorted({b[0] for m in mutants for b in m.unit.bodies if b[3]})
        if opts['ids']:
            try:
                with open(opts['ids']) as f:
                    if opts['ids'].endswith('.json'):
                        wanted = {m['id'] for m in json.load(f) if m['status'] == 'survived'}
                    else:
                        wanted = {l.split()[0] for l in f if l.strip() and not l.startswith('#')}
            except (OSError, ValueError, KeyError) as e:
                print(f'mutants_auto.py: --ids {opts["ids"]}: {e}', file=sys.stderr)
                return 2
            mutants = [m for m in mutants if m.id in wanted]
            if not mutants:
                print('mutants_auto.py: --ids names no mutant of the code', file=sys.stderr)
                return 2
        if sample is not None:
            mutants = random.Random(opts['seed']).sample(
                sorted(mutants, key=lambda m: m.id), min(sample, len(mutants)))
            mutants.sort(key=lambda m: (m.target[0], m.first, m.id))
        if opts['list']:
            for m in mutants:
                print(f'{m.id}\t{m.place}\t{m.target[2]}\n\t- {m.before}\n\t+ {m.after}')
            return 0
        eq = read_equivalents()
        ids = {m.id for m in generate(snapshot)}
        stale = sorted(i for i in eq if i not in ids)
        if opts['kernel']:
            return run_kernel(mutants, unrun, eq, stale, start, sample, opts)
        originals = {}
        for path, _, suite in TARGETS:
            with open(os.path.join(snapshot if suite == 'ukunit' else REPO, path)
                      if suite == 'ukunit' else os.path.join(REPO, path)) as f:
                originals[path] = f.read()
        todo = [m for m in mutants if m.target[2] == 'ukunit']
        for m in mutants:
            if m.target[2] != 'ukunit':
                m.status, m.detail = 'not run', m.target[2]
        uk = Ukunit(work, snapshot, opts['extra']) if todo else None
        if uk:
            print(f'mutants-auto: baseline built; known failures left out: '
                  + ('; '.join(f'HZ={hz}: {", ".join(v)}' for hz, v in uk.known.items() if v)
                     or 'none'), flush=True)
        done = [0]

        def one(item):
            n, mu = item
            d = os.path.join(work, f'm{n}')
            os.makedirs(d)
            st, detail = uk.test(mu, mutated_file(mu, originals[mu.target[0]]), d)
            shutil.rmtree(d, ignore_errors=True)
            if st != 'stillborn' and mu.id in eq:
                st = 'killed' if st == 'killed' else 'equivalent'
                detail = detail or eq[mu.id]
            mu.status, mu.detail = st, detail
            done[0] += 1
            print(f'[{done[0]}/{len(todo)}] {mu.id} {st.upper()}'
                  + (f' {detail}' if detail else ''), flush=True)

        with ThreadPoolExecutor(max_workers=opts['jobs']) as pool:
            list(pool.map(one, enumerate(todo)))
        text, bad = report(mutants, unrun, eq, stale, time.time() - start, sample)
        print(text)
        # A partial run does not overwrite the results of a whole one.
        partial = opts['ids'] or opts['extra'] or opts['files'] or opts['functions']
        stem = 'mutants-auto' + ('-partial' if partial else '-sample' if sample else '')
        write_results(stem, text, mutants)
        for path, _, suite in TARGETS:
            if suite != 'ukunit':
                continue
            with open(os.path.join(REPO, path)) as f:
                if f.read() != originals[path]:
                    print(f'note: {path} changed in the repository during the run '
                          f'(not by this script): the results are for the copy '
                          f'taken at the start')
        if bad:
            return 1
        if opts['min'] is not None:
            for path, _, suite in TARGETS:
                k = sum(1 for m in mutants if m.target[0] == path and m.status == 'killed')
                s = sum(1 for m in mutants if m.target[0] == path and m.status == 'survived')
                if k + s and 100.0 * k / (k + s) < opts['min']:
                    print(f'mutants-auto: {path} scores {score(k, s).strip()}, '
                          f'below {opts["min"]}%')
                    return 1
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
