#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Convert an ftrace recording into a cpuidle-replay trace.

Usage: ftrace2trace.py [FTRACE_TEXT] > out.trace   (stdin if no file)

Input: the text of /sys/kernel/tracing/trace (or `trace-cmd report`) with
the events sched:sched_switch, power:cpu_idle and timer:hrtimer_expire_entry
enabled. An idle period runs from a switch to the idle task to the next
switch away from it. Each exit from an idle state inside it is a wakeup:
  - preceded by the expiry of the tick's hrtimer: a tick, left out (the
    replay models the tick itself);
  - preceded by another hrtimer expiry: a timer event;
  - otherwise: an interrupt (device interrupt or IPI).
The expiry is logged inside the idle state, before its exit event, because
the interrupt is taken as soon as the CPU wakes. The last wakeup before the
switch away ends the period; the others are quiet. The governor's sleep length after an interrupt that ends a period
is taken from the next timer that really expired on that CPU (timers that
were cancelled are not seen: an approximation).
"""

import re
import sys

LINE = re.compile(r'^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S+\s+'
                  r'(?P<ts>\d+\.\d+):\s+(?P<event>\w+):\s*(?P<args>.*)$')
TICK_FUNCS = ('tick_nohz_handler', 'tick_sched_timer', 'tick_nohz_highres_handler')
EXIT_STATE = 4294967295


def parse(lines):
    """Yield (cpu, ts_us, event, args) in file order."""
    for n, line in enumerate(lines, 1):
        if line.startswith('#') or not line.strip():
            continue
        m = LINE.match(line)
        if not m:
            sys.exit('ftrace2trace: line %d: not an ftrace event line: %r'
                     % (n, line.strip()[:80]))
        yield (int(m['cpu']), float(m['ts']) * 1e6, m['event'], m['args'], n)


def kv(args):
    return dict(re.findall(r'(\w+)=(\S+)', args))


def convert(lines, out):
    per_cpu = {}
    for cpu, ts, ev, args, n in parse(lines):
        per_cpu.setdefault(cpu, []).append((ts, ev, args, n))
    if not per_cpu:
        sys.exit('ftrace2trace: no events')
    total = 0
    for cpu in sorted(per_cpu):
        evs = per_cpu[cpu]
        timers = [ts for ts, ev, args, _ in evs if ev == 'hrtimer_expire_entry'
                  and not any(f in args for f in TICK_FUNCS)]
        out.write('cpu %d\n' % cpu)
        start = None           # start of the current idle period
        wakes = []             # (time, kind) of exits in the period
        in_state = False       # between a cpu_idle entry and its exit
        cause = None           # what woke the CPU from the current state
        last_end = None
        periods = []
        for ts, ev, args, n in evs:
            if ev == 'sched_switch':
                a = kv(args)
                if a.get('next_pid') == '0':
                    start, wakes, in_state = ts, [], False
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
                    if in_state and cause != 'tick':
                        wakes.append((ts, cause or 'i'))
                    in_state = False
                else:
                    in_state, cause = True, None
            elif ev == 'hrtimer_expire_entry' and in_state and cause is None:
                # The interrupt is handled before the idle state is left.
                cause = 'tick' if any(f in args for f in TICK_FUNCS) else 't'
        for (pstart, wakes), busy in periods:
            evs_out = []
            for i, (t, kind) in enumerate(wakes):
                rel = int(round(t - pstart))
                if rel < 1 or (evs_out and rel <= evs_out[-1][0]):
                    continue
                evs_out.append((rel, kind, i != len(wakes) - 1))
            if not evs_out:
                continue
            end_rel, end_kind, _ = evs_out[-1]
            evs_out[-1] = (end_rel, end_kind, False)
            if end_kind == 'i':
                nxt = next((t for t in timers if t > pstart + end_rel), None)
                if nxt is not None:
                    evs_out.append((int(round(nxt - pstart)) + 1, 't', True))
            evs_out = evs_out[-60:]
            out.write('idle %d %s\n' % (max(1, int(busy)), ' '.join(
                '%s%s%d' % (k, 'q' if q else '', r) for r, k, q in evs_out)))
            total += 1
    if not total:
        sys.exit('ftrace2trace: no complete idle period found (need sched_switch, '
                 'cpu_idle and hrtimer_expire_entry events)')


def main():
    if len(sys.argv) > 2:
        sys.exit('usage: ftrace2trace.py [FTRACE_TEXT]')
    if len(sys.argv) == 2:
        with open(sys.argv[1]) as f:
            convert(f, sys.stdout)
    else:
        convert(sys.stdin, sys.stdout)


if __name__ == '__main__':
    main()
