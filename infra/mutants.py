#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""`make mutants`: prove that the tests can fail.

Applies, one at a time, small mutations (defects one could plausibly
write) to the project's code: in the prepared kernel tree for the kernel
and replay code, in the repository for the scripts. For each, runs the
cheapest suite that should catch it and prints one line, "caught by
<test>" or "SURVIVED". Each suite must pass unmutated first. A mutant
that does not build, or whose suite reports no result, is an error: a
mutant only counts when its suite ran and a named test failed. Every
file is put back after its mutant, on error and on interrupt too. Ends
with "mutants: N caught, N survived" (and the errors, if any); exits
non-zero unless every mutant was caught.

Usage: mutants.py [NAME...]   (default: every mutant)
"""

import os
import re
import signal
import subprocess
import sys

INFRA = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(INFRA)
CACHE = os.environ.get('HORIZON_CACHE') or os.path.join(
    os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
    'horizon')
SRC = os.path.join(CACHE, 'linux')
RESULTS = os.path.join(CACHE, 'results')

HORIZON = 'src:drivers/cpuidle/governors/horizon.c'
TICK_SCHED = 'src:kernel/time/tick-sched.c'

# name, file ("src:" the prepared tree, "repo:" the repository), suite,
# the text replaced (exactly once in the file), its replacement.
MUTANTS = [
    ('horizon-enters-disabled-state', HORIZON, 'kunit',
     '\t\tif (dev->states_usage[i].disable ||\n'
     '\t\t    drv->states[i].exit_latency_ns > latency_req)\n'
     '\t\t\tcontinue;\n'
     '\t\t/* The first usable state is taken even if it does not fit. */',
     '\t\tif (drv->states[i].exit_latency_ns > latency_req)\n'
     '\t\t\tcontinue;\n'
     '\t\t/* The first usable state is taken even if it does not fit. */'),
    ('horizon-ignores-pm-qos', HORIZON, 'kunit',
     '\ts64 latency_req = horizon_latency_req(dev->cpu);',
     '\ts64 latency_req = (horizon_latency_req(dev->cpu), S64_MAX);'),
    ('horizon-no-decay', HORIZON, 'kunit',
     '\tif (!(++data->learned % HORIZON_DECAY_EVERY))\n'
     '\t\tdata->total -= horizon_decay(data);',
     '\tif (!(++data->learned % HORIZON_DECAY_EVERY))\n'
     '\t\t(void)horizon_decay;'),
    ('horizon-ignores-safety_net-param', HORIZON, 'kunit',
     '\treturn READ_ONCE(horizon_safety_net) && !tick_nohz_full_cpu(cpu);',
     '\treturn !tick_nohz_full_cpu(cpu);'),
    ('horizon-net-twice-the-tick', HORIZON, 'kunit',
     'clamp_t(s64, 2 * seen_ns, HORIZON_NET_MIN_NS, TICK_NSEC);',
     'clamp_t(s64, 2 * seen_ns, HORIZON_NET_MIN_NS, 2 * TICK_NSEC);'),
    ('horizon-cut-lost-when-tick-overdue', HORIZON, 'kunit',
     '\tcut_ns = at_cut ? clamp_t(s64, cut_ns, 0, limit_ns) : S64_MAX;',
     '\tcut_ns = at_cut && cut_ns > 0 ? min(cut_ns, limit_ns) : S64_MAX;'),
    ('horizon-stale-sleep-length', HORIZON, 'kunit',
     '\treturn queried_ns == data->queried_ns ? data->polled_ns : 0;',
     '\treturn 0;'),
    ('horizon-unqueried-wakeup-is-intercept', HORIZON, 'kunit',
     '\tif (data->sleep_length_ns == KTIME_MAX)\n\t\tby_timer =',
     '\tif (0)\n\t\tby_timer ='),
    ('tick-bound-expiry-does-tick-work', TICK_SCHED,
     'selftests:cpuidle_safety_net.sh',
     '\tif (IS_ENABLED(CONFIG_NO_HZ_COMMON) &&\n\t    unlikely(',
     '\tif (0 && IS_ENABLED(CONFIG_NO_HZ_COMMON) &&\n\t    unlikely('),
    ('tick-bound-expiry-leaves-nothing-armed', TICK_SCHED,
     'selftests:cpuidle_safety_net.sh',
     'HRTIMER_NORESTART :\n\t\t\t\t\t\t    HRTIMER_RESTART;',
     'HRTIMER_NORESTART :\n\t\t\t\t\t\t    HRTIMER_NORESTART;'),
    ('tick-late-bound-expiry-skips-tick', 'src:kernel/time/tick-internal.h',
     'kunit', '\treturn now < unbounded ? unbounded : 0;',
     '\treturn unbounded;'),
    ('tick-bound-no-floor', 'src:kernel/time/tick-internal.h', 'kunit',
     '\treturn max_t(u64, max_sleep_ns, TICK_NOHZ_NET_MIN_NS);',
     '\treturn max_sleep_ns;'),
    ('tick-bound-on-nohz_full-cpu', 'src:kernel/time/tick-internal.h', 'kunit',
     '\tif (!max_sleep_ns || tick_nohz_full_cpu(cpu))',
     '\tif (!max_sleep_ns)'),
    ('tick-bound-past-next-event', 'src:kernel/time/tick-internal.h', 'kunit',
     '\tif (max_sleep_ns && expires > now && max_sleep_ns < expires - now)',
     '\tif (max_sleep_ns && expires > now)'),
    ('tick-bound-from-idle-entry', TICK_SCHED, 'selftests:cpuidle_safety_net.sh',
     'tick_nohz_net_expires(expires, ktime_get(),',
     'tick_nohz_net_expires(expires, ts->idle_entrytime,'),
    ('core-net-not-cleared-before-select', 'src:drivers/cpuidle/cpuidle.c',
     'selftests:cpuidle_safety_net.sh',
     '\tdev->safety_net_ns = 0;\n\treturn cpuidle_curr_governor->select',
     '\treturn cpuidle_curr_governor->select'),
    ('sysfs-accepts-trailing-garbage', 'src:drivers/cpuidle/sysfs.c',
     'selftests:cpuidle_governor.sh',
     '\t\tif (sysfs_streq(buf, gov->name)) {',
     '\t\tif (!strncmp(buf, gov->name, strlen(gov->name))) {'),
    ('replay-oracle-off-by-one-period',
     'src:tools/power/cpuidle-replay/replay.c', 'replay',
     '\treturn (t / TICK_NSEC + 1) * TICK_NSEC;',
     '\treturn (t / TICK_NSEC + 2) * TICK_NSEC;'),
    ('replay-model-c-latency-once',
     'src:tools/power/cpuidle-replay/replay.c', 'replay',
     '\t\te += 2 * t->active_mw[m] * t->drv.states[i].exit_latency;',
     '\t\te += t->active_mw[m] * t->drv.states[i].exit_latency;'),
    # The two build breaks of the bots: the net's trace events only with
    # NO_HZ_COMMON, which HZ_PERIODIC with high-res timers lacks; and a
    # 64-bit modulo in the KUnit suite, a libgcc call on 32-bit.
    # The series are written from the repository, so these two mutate it
    # (the patch's + lines, its hunk counts kept).
    ('trace-net-events-need-nohz-common', 'repo:include/trace/events/timer.h.patch',
     'bots:HZ_PERIODIC',
     (' );\n #endif\n \n+/**\n+ * tick_idle_net - ',
      '+);\n+\n #endif /*  _TRACE_TIMER_H */'),
     (' );\n-#endif\n \n+/**\n+ * tick_idle_net - ',
      '+);\n+#endif\n+\n #endif /*  _TRACE_TIMER_H */')),
    ('kunit-64-bit-modulo', 'repo:drivers/cpuidle/governors/tests/horizon_kunit.c',
     'bots:i386 KUnit suites built in',
     'horizon_test_rand(&rnd, 2 * TICK_NSEC);',
     'horizon_test_random_ns(&rnd) % (2 * TICK_NSEC);'),
    # A restart of the tick that leaves the net's flag set: the handler
    # must not take the running tick for a net (it warns instead).
    ('tick-restart-keeps-net-flag', TICK_SCHED, 'selftests:cpuidle_safety_net.sh',
     'tick_sched_flag_clear(ts, TS_FLAG_STOPPED | TS_FLAG_NET);',
     'tick_sched_flag_clear(ts, TS_FLAG_STOPPED);'),
    ('horizon-majority-over-whole-bin', HORIZON, 'kunit',
     '\t\ts64 span_ns = 2 * max_t(s64, rel_ns - from_ns, 0);',
     '\t\ts64 span_ns = max_t(s64, rel_ns - from_ns, 0);'),
    ('ab-counter-wrap-off-by-one', 'repo:tools/power/cpuidle-ab/cpuidle-ab-lib.sh',
     'ab', '\t\td += max + 1', '\t\td += max'),
    ('ab-variant-param-not-put-back', 'repo:tools/power/cpuidle-ab/cpuidle-ab-lib.sh',
     'ab', '\t\techo "${_pv##*=}" 2>/dev/null >"${_pv%=*}" || _rc=1',
     '\t\t:'),
    ('infra-help-on-stderr', 'repo:infra/common.sh', 'infra',
     'sub(/^# ?/, ""); print }\' "$0"', 'sub(/^# ?/, ""); print }\' "$0" >&2'),
    ('infra-tally-ignores-exit-status', 'repo:infra/common.sh', 'infra',
     '\t\telse if (rc != 0 && !bad) {', '\t\telse if (0) {'),
    ('infra-count-accepts-no-test', 'repo:infra/common.sh', 'infra',
     '\tif [ $((p + f)) -eq 0 ]; then', '\tif false; then'),
]


def path_of(spec):
    where, rel = spec.split(':', 1)
    return os.path.join(SRC if where == 'src' else REPO, rel)


def run(cmd, env=None):
    """Run CMD, its output kept in a log; return (status, log text)."""
    proc = subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, check=False)
    return proc.returncode, proc.stdout


def failed_names(text, pattern):
    return sorted(set(m.group(1).strip() for m in re.finditer(pattern, text, re.M)))


def suite_kunit():
    st, log = run([os.path.join(INFRA, 'kunit.sh')])
    # Cases (snake_case), not suites or the descriptions of parameters.
    case = r'\[FAILED\] (\w+_\w+)(?: =+)?$'
    try:
        with open(os.path.join(RESULTS, 'kunit.log'), errors='replace') as f:
            names = failed_names(f.read(), case)
    except OSError:
        names = []
    return st, names, log


def suite_selftests(program):
    st, log = run([os.path.join(INFRA, 'build-kernel.sh')])
    if st:
        return None, [], log
    env = dict(os.environ, HORIZON_APPEND=(
        os.environ.get('HORIZON_APPEND', '') + ' horizon.only=' + program).strip())
    st, log = run([os.path.join(INFRA, 'qemu.sh'), 'test'], env=env)
    names = []
    for line in log.splitlines():
        if line.startswith('failed: '):
            names = line[len('failed: '):].split()
    return st, names, log


def suite_bots(pattern):
    """The bots' builds matching PATTERN; only a build that fails counts
    (a mutant of the repository also makes the series differ from the
    prepared tree, which says nothing of the mutant)."""
    env = dict(os.environ, BOTS=pattern)
    st, log = run([os.path.join(INFRA, 'check-series.sh'), 'bots'], env=env)
    names = [n for n in failed_names(log, r'^\s*not ok (.*)$') if n.startswith('build ')]
    return (1 if names else 0), names, log


def suite_tap(cmd):
    st, log = run(cmd)
    return st, failed_names(log, r'^not ok \d+ (.*)$'), log


def suite(name):
    if name == 'kunit':
        return suite_kunit()
    if name.startswith('selftests:'):
        return suite_selftests(name.split(':', 1)[1])
    if name.startswith('bots:'):
        return suite_bots(name.split(':', 1)[1])
    if name == 'replay':
        return suite_tap([os.path.join(INFRA, 'replay.sh'), 'test'])
    if name == 'ab':
        return suite_tap([os.path.join(REPO, 'tools/power/cpuidle-ab/tests/run_tests.sh'),
                          '/dev/null'])
    if name == 'infra':
        return suite_tap([os.path.join(INFRA, 'tests/run_tests.sh')])
    raise ValueError(name)


def main(argv):
    if len(argv) == 2 and argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        print('Mutants: ' + ' '.join(m[0] for m in MUTANTS))
        return 0
    wanted = argv[1:]
    known = [m[0] for m in MUTANTS]
    for w in wanted:
        if w not in known:
            sys.exit(f'mutants.py: no mutant {w}; known: {" ".join(known)}')
    caught = survived = errors = 0
    saved = {}

    def restore(*_):
        for p, text in saved.items():
            with open(p, 'w') as f:
                f.write(text)
        saved.clear()

    def interrupted(*_):
        restore()
        sys.exit('mutants.py: interrupted; every file put back')

    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)
    chosen = [m for m in MUTANTS if not wanted or m[0] in wanted]
    # A suite that fails unmutated cannot tell a mutant from the code.
    for suite_name in dict.fromkeys(m[2] for m in chosen):
        st, names, log = suite(suite_name)
        if st != 0:
            tail = '\n'.join('    ' + l for l in log.splitlines()[-15:])
            print(f'mutants: {suite_name} fails without a mutant '
                  f'({", ".join(names) or "no result"}):\n{tail}')
            return 1
        print(f'baseline: {suite_name} passes', flush=True)
    for name, spec, suite_name, old, new in chosen:
        p = path_of(spec)
        try:
            with open(p) as f:
                text = f.read()
        except OSError as e:
            print(f'{name}: ERROR: {e}', flush=True)
            errors += 1
            continue
        # One replacement, or a tuple of them made together.
        pairs = list(zip(old, new)) if isinstance(old, tuple) else [(old, new)]
        bad = [o for o, _ in pairs if text.count(o) != 1]
        if bad:
            print(f'{name}: ERROR: the text to mutate occurs {text.count(bad[0])} '
                  f'times in {spec}', flush=True)
            errors += 1
            continue
        saved[p] = text
        mutated = text
        for o, n in pairs:
            mutated = mutated.replace(o, n)
        try:
            with open(p, 'w') as f:
                f.write(mutated)
            st, names, log = suite(suite_name)
        finally:
            restore()
        if st is None or (st and not names):
            errors += 1
            tail = '\n'.join('    ' + l for l in log.splitlines()[-15:])
            print(f'{name}: ERROR: {suite_name} built or reported nothing\n{tail}',
                  flush=True)
        elif st and names:
            caught += 1
            print(f'{name}: caught by {suite_name}: {", ".join(names)}', flush=True)
        else:
            survived += 1
            print(f'{name}: SURVIVED {suite_name}', flush=True)
    line = f'mutants: {caught} caught, {survived} survived'
    print(line + (f', {errors} errors' if errors else ''))
    return 0 if not survived and not errors else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
