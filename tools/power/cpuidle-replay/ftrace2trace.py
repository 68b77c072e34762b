#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Convert an ftrace recording into a cpuidle-replay trace.

Usage: ftrace2trace.py [FTRACE_TEXT] > out.trace   (stdin if no file)

Input: the text of /sys/kernel/tracing/trace (or `trace-cmd report`) with
the events sched:sched_switch, power:cpu_idle and timer:hrtimer_expire_entry
enabled, and timer:timer_expire_entry if timer wheel timers are to show
(record-host.sh enables all four). An idle period runs from a switch to the
idle task to the next switch away from it. Each exit from an idle state
inside it is a wakeup, classified by the timer expiries logged between the
state's entry and the next state entry (or the switch away): whether the
interrupt is taken inside the state, before its exit event (HLT and
polling, as in a VM), or after it (MWAIT with interrupts off), its
handlers run there:
  - another hrtimer than the tick's expired: a timer event ('t');
  - the tick's hrtimer expired and its handler ran timer wheel timers: a
    timer run by the tick's handler ('k');
  - the tick's hrtimer alone: a tick, left out (the replay models the tick
    itself), unless it ends the period: then its handler woke a task, 'k';
  - nothing: an interrupt (device interrupt or IPI, 'i').
The last wakeup before the switch away ends the period; the others are
quiet. The governor's sleep length after an interrupt that ends a period
is taken from the next timer that really expired on that CPU (timers that
were cancelled are not seen: an approximation). A "[LOST N EVENTS]" line
drops the idle period it falls in. CPUs beyond the replay's 64, and CPUs
without a complete idle period, are left out with a warning.
"""

import re
import sys

LINE = re.compile(r'^\s*(?P<task>.+?)-(?P<pid>\d+)\s+(?:\(\s*[\d-]+\)\s+)?'
                  r'\[(?P<cpu>\d+)\]\s+(?:\S+\s+)?'
                  r'(?P<ts>\d+\.\d+):\s+(?P<event>\w+):\s*(?P<args>.*)$')
LOST = re.compile(r'^CPU:(?P<cpu>\d+) \[LOST (?P<n>\d+) EVENTS\]$')
TICK_FUNCS = ('tick_nohz_handler', 'tick_sched_timer', 'tick_nohz_highres_handler')
EXIT_STATE = 4294967295
NR_CPUS = 64             # REPLAY_NR_CPUS
MAX_EVENTS = 60          # below the replay's limit of 64 per period


def fail(msg):
    sys.exit('ftrace2trace: ' + msg)


# Header lines of `trace-cmd report`: the number of CPUs, the file version.
HEADER = re.compile(r'^(cpus=\d+|version = \d+)$')


def parse(lines):
    """Yield (cpu, ts_us, event, args, line number) in file order."""
    for n, line in enumerate(lines, 1):
        if line.startswith('#') or not line.strip() or HEADER.match(line.strip()):
            continue
        m = LINE.match(line)
        if m:
            yield (int(m['cpu']), float(m['ts']) * 1e6, m['event'], m['args'], n)
            continue
        m = LOST.match(line.strip())
        if m:
            yield (int(m['cpu']), None, 'lost', '', n)
            continue
        fail('line %d: not an ftrace event line: %r' % (n, line.strip()[:80]))


def kv(args):
    return dict(re.findall(r'(\w+)=(\S+)', args))


def is_tick(args):
    return any(f in args for f in TICK_FUNCS)


def cause_of(seen):
    """The kind of a wakeup from the timer expiries seen around it."""
    if 'hr' in seen:
        return 't'
    if 'tick' in seen:
        return 'k' if 'wheel' in seen else 'tick'
    return 'i'


def periods_of(evs):
    """The idle periods of one CPU: ((start, [(time, seen)...]), busy)."""
    start = None           # start of the current idle period
    wakes = []             # (time, set of expiries seen) per state exit
    in_state = False       # between a cpu_idle entry and its exit
    seen = None            # expiries seen since the current state's entry
    last_end = None
    periods = []
    for ts, ev, args, n in evs:
        if ev == 'lost':
            start, last_end = None, None
        elif ev == 'sched_switch':
            a = kv(args)
            if a.get('next_pid') == '0':
                start, wakes, in_state, seen = ts, [], False, None
                if last_end is not None and periods:
                    periods[-1][1] = ts - last_end
            elif a.get('prev_pid') == '0' and start is not None:
                if wakes:
                    periods.append([(start, wakes), 0])
                    last_end = ts
                start = None
        elif start is None:
            continue
        elif ev == 'cpu_idle':
            if int(kv(args).get('state', -1)) == EXIT_STATE:
                if in_state:
                    # The set stays shared: handlers run after the exit
                    # event (interrupts taken outside the state) add to it.
                    wakes.append((ts, seen))
                in_state = False
            else:
                in_state, seen = True, set()
        elif seen is not None and ev == 'hrtimer_expire_entry':
            seen.add('tick' if is_tick(args) else 'hr')
        elif seen is not None and ev == 'timer_expire_entry':
            seen.add('wheel')
    return periods


def convert(lines, out):
    per_cpu = {}
    for cpu, ts, ev, args, n in parse(lines):
        per_cpu.setdefault(cpu, []).append((ts, ev, args, n))
    st = convert_events(per_cpu, out, 'ftrace2trace')
    sys.stderr.write('ftrace2trace: %d idle periods on %d CPU%s; %d wakeups, %.1f%% quiet '
                     '(no task woken); idle period median %d us, p90 %d us\n'
                     % (st['periods'], st['cpus'], '' if st['cpus'] == 1 else 's',
                        st['wakeups'], st['quiet_pct'], st['median'], st['p90']))


def convert_events(per_cpu, out, prog):
    """Write the idle periods of PER_CPU ({cpu: [(ts_us, event, args, line
    number)...]}, each CPU's events in time order) to OUT as a trace; warn
    under the name PROG. Returns the figures of the stats line."""
    if not per_cpu:
        fail('no events')
    total = 0
    lengths, quiet, wakeups, cpus = [], 0, 0, 0
    kinds = {'t': 0, 'i': 0, 'k': 0}
    for cpu in sorted(per_cpu):
        if cpu >= NR_CPUS:
            sys.stderr.write('%s: CPU %d left out (the replay has %d CPUs)\n'
                             % (prog, cpu, NR_CPUS))
            continue
        evs = per_cpu[cpu]
        timers = [(ts, 'k' if ev == 'timer_expire_entry' else 't') for ts, ev, args, _ in evs
                  if (ev == 'hrtimer_expire_entry' and not is_tick(args)) or
                  ev == 'timer_expire_entry']
        lines_out = []
        for (pstart, wakes), busy in periods_of(evs):
            evs_out = []
            for j, (t, seen) in enumerate(wakes):
                kind = cause_of(seen)
                if kind == 'tick' and j == len(wakes) - 1:
                    # The tick's handler woke a task (its timer wheel
                    # timers were not recorded, or its own work did).
                    kind = 'k'

                rel = int(round(t - pstart))
                if kind == 'tick' or rel < 1 or (evs_out and rel <= evs_out[-1][0]):
                    continue
                evs_out.append((rel, kind))
            if not evs_out:
                continue
            end_rel, end_kind = evs_out[-1]
            evs_out = [(r, k, True) for r, k in evs_out[:-1]] + [(end_rel, end_kind, False)]
            if end_kind == 'i':
                nxt = next((tk for tk in timers if tk[0] > pstart + end_rel), None)
                if nxt is not None:
                    evs_out.append((max(int(round(nxt[0] - pstart)), end_rel) + 1, nxt[1], True))
            lengths.append(end_rel)
            quiet += sum(q for r, _, q in evs_out if r <= end_rel)
            wakeups += sum(1 for r, _, _ in evs_out if r <= end_rel)
            for r, k, _ in evs_out:
                kinds[k] += r <= end_rel
            evs_out = evs_out[-MAX_EVENTS:]
            lines_out.append('idle %d %s\n' % (max(1, int(busy)), ' '.join(
                '%s%s%d' % (k, 'q' if q else '', r) for r, k, q in evs_out)))
        if lines_out:
            out.write('cpu %d\n' % cpu)
            out.writelines(lines_out)
            total += len(lines_out)
            cpus += 1
        else:
            sys.stderr.write('%s: CPU %d left out: no complete idle period (no '
                             'cpu_idle events, or no switch away from the idle task)\n'
                             % (prog, cpu))
    if not total:
        fail('no complete idle period found (need sched_switch, cpu_idle and '
             'hrtimer_expire_entry events)')
    lengths.sort()
    return {'periods': total, 'cpus': cpus, 'wakeups': wakeups, 'kinds': kinds,
            'quiet_pct': 100.0 * quiet / wakeups, 'median': lengths[len(lengths) // 2],
            'p90': lengths[min(len(lengths) - 1, len(lengths) * 9 // 10)]}


def main():
    if len(sys.argv) == 2 and sys.argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        return
    if len(sys.argv) > 2:
        sys.exit('usage: ftrace2trace.py [FTRACE_TEXT]')
    if len(sys.argv) == 2:
        try:
            with open(sys.argv[1]) as f:
                convert(f, sys.stdout)
        except OSError as e:
            fail(str(e))
    else:
        convert(sys.stdin, sys.stdout)


if __name__ == '__main__':
    main()
