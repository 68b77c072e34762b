#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Convert idle recordings of real hardware into cpuidle-replay traces.

Usage: hw2trace.py FILE > out.trace
       hw2trace.py --dir HWDIR OUTDIR

FILE is the text of a recording: ftrace text (`trace-cmd report`, the
trace file of tracefs), a systrace HTML page (its ftrace text is read), or
LTTng text (`babeltrace --clock-cycles --no-delta`, a clock in ns); a name
ending in .xz is decompressed. --dir converts the recording of every
folder of HWDIR (the first *.txt.xz, *.txt or *.html in it) into
OUTDIR/hw-FOLDER.trace, all or nothing. A line of figures per recording
goes to stderr.

The idle periods and their wakeups are found as ftrace2trace.py finds
them (see there), from cpu_idle, sched_switch and timer expiry events;
what a recording lacks is made up as follows, and said in the figures:
  - LTTng events are renamed: power_cpu_idle is cpu_idle,
    [timer_]hrtimer_expire_entry and [timer_]timer_expire_entry the
    expiries, prev_tid/next_tid the pids. The tick's hrtimer is the
    function started most often (the tick is moved at every idle entry
    and exit); its expiries are the tick's.
  - No timer events at all (Juno, Android): every wakeup is an
    interrupt, and no timer is known after it (the replay's sleep length
    is then its no-timer bound). The recording kernel's own tick is found
    as a grid: the period (HZ 100, 250, 300 or 1000) and phase around which
    the most exits from idle states fall, within 100 us, if at least 10
    of them do and 3 times as many as chance would put there. Exits on
    the grid are the tick's: left out when quiet (the replay runs a tick of
    its own), a timer run by the tick's handler ('k') when they end the
    period.
  - No cpu_idle events on a CPU whose idle task runs (R-Car): the idle
    task's run, from the switch to it to the switch away, is one idle
    period split at each hard interrupt (irq_handler_entry), each an exit
    from a state entered again right before the next one. The switch away
    ends the period at the last interrupt if a task was woken on the CPU
    after it; otherwise at an interrupt not recorded (an IPI: 3.x Arm
    kernels trace none) 1 us before the switch.
"""

import lzma
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ftrace2trace as f2t  # noqa: E402

LTTNG = re.compile(r'^\[(?P<ts>\d+)\] \S+ (?P<event>\w+): '
                   r'\{ cpu_id = (?P<cpu>\d+) \}, \{ ?(?P<args>.*?) ?\}$', re.S)
FIELD = re.compile(r'(\w+) = ("[^"]*"|[^,]*)')
# The HZ the recording kernel's tick may have run at, as periods in us.
TICK_PERIODS = (10000.0, 4000.0, 10000.0 / 3, 1000.0)
GRID_US = 100            # an exit this close to a tick boundary is the tick's
GRID_MIN = 10            # exits on the grid needed to call it the tick's ...
GRID_ENRICH = 3.0        # ... and how many times chance
TICK_FUNC = 'tick_sched_timer'   # what the tick's expiries are renamed to
EXIT = str(f2t.EXIT_STATE)


def fail(msg):
    sys.exit('hw2trace: ' + msg)


def read_text(path):
    """The lines of the text of a recording."""
    try:
        if path.endswith('.xz'):
            with lzma.open(path, 'rt', errors='replace') as f:
                text = f.read()
        else:
            with open(path, errors='replace') as f:
                text = f.read()
    except (OSError, lzma.LZMAError) as e:
        fail('%s: %s' % (path, e))
    if path.endswith('.html'):
        m = re.search(r'<script class="trace-data" type="application/text">\n?(.*?)</script>',
                      text, re.S)
        if not m:
            fail('%s: no ftrace text in this HTML (no trace-data script)' % path)
        text = m[1]
    return text.splitlines()


def is_lttng(lines):
    for line in lines:
        if line.strip():
            return line.startswith('[')
    return False


def lttng_events(lines, path):
    """Per CPU, [(ts_us, event, fields, line number)...] of LTTng text."""
    per_cpu = {}
    pending = None        # (line number, text) of an event whose string runs on
    for n, line in enumerate(lines, 1):
        if pending:
            n, line = pending[0], pending[1] + '\n' + line
            pending = None
        elif not line.strip():
            continue
        m = LTTNG.match(line)
        if not m and line.startswith('[') and '"' in line and not line.rstrip().endswith('}'):
            pending = (n, line)       # a string field holding a newline
            continue
        if not m:
            fail('%s: line %d: not a babeltrace event line: %r' % (path, n, line[:80]))
        fields = {k: v.strip('"') for k, v in FIELD.findall(m['args'])}
        per_cpu.setdefault(int(m['cpu']), []).append(
            (int(m['ts']) / 1000.0, m['event'], fields, n))
    if pending:
        fail('%s: line %d: an event not ended at the end of the file' % (path, pending[0]))
    return per_cpu


def lttng_normalise(per_cpu):
    """The events ftrace2trace reads, from LTTng's, with the tick's expiries
    named as ftrace names them, and the hard interrupts and wakeups kept
    for CPUs without cpu_idle events."""
    starts = {}
    for evs in per_cpu.values():
        for _, ev, f, _ in evs:
            if ev in ('hrtimer_start', 'timer_hrtimer_start') and 'function' in f:
                starts[f['function']] = starts.get(f['function'], 0) + 1
    tick = max(starts, key=starts.get) if starts else None
    out = {}
    for cpu, evs in per_cpu.items():
        o = []
        for ts, ev, f, n in sorted(evs, key=lambda e: e[0]):
            if ev == 'power_cpu_idle':
                o.append((ts, 'cpu_idle', 'state=%s' % f.get('state'), n))
            elif ev == 'sched_switch':
                o.append((ts, 'sched_switch', 'prev_pid=%s next_pid=%s'
                          % (f.get('prev_tid'), f.get('next_tid')), n))
            elif ev in ('hrtimer_expire_entry', 'timer_hrtimer_expire_entry'):
                fn = TICK_FUNC if f.get('function') == tick else 'hrtimer_%s' % f.get('function')
                o.append((ts, 'hrtimer_expire_entry', 'function=%s' % fn, n))
            elif ev in ('timer_expire_entry', 'timer_timer_expire_entry'):
                o.append((ts, 'timer_expire_entry', '', n))
            elif ev == 'irq_handler_entry':
                o.append((ts, 'irq', f.get('name', ''), n))
            elif ev == 'sched_wakeup':
                o.append((ts, 'wakeup', '', n))
        out[cpu] = o
    return out


def reconstruct(evs, st):
    """cpu_idle events for a CPU that logged none: the idle task's run split
    at hard interrupts (see the module's help)."""
    out = []
    idle = False          # the idle task runs
    entered = False       # in a state (entered, not left)
    last_irq = None       # time of the last interrupt in this idle run
    woke = False          # a task was woken since it
    for ts, ev, args, n in evs:
        if ev == 'sched_switch':
            a = f2t.kv(args)
            if a.get('next_pid') == '0':
                out.append((ts, ev, args, n))
                out.append((ts, 'cpu_idle', 'state=0', n))
                idle, entered, last_irq, woke = True, True, None, False
                continue
            if a.get('prev_pid') == '0' and idle:
                if last_irq is None or not woke:
                    # Woken by an interrupt the recording does not show.
                    if not entered:
                        out.append((ts - 2, 'cpu_idle', 'state=0', n))
                    out.append((ts - 1, 'cpu_idle', 'state=' + EXIT, n))
                    st['untraced'] += 1
                idle = False
            out.append((ts, ev, args, n))
        elif ev == 'irq' and idle:
            if not entered:
                out.append((ts - 0.001, 'cpu_idle', 'state=0', n))
            out.append((ts, 'cpu_idle', 'state=' + EXIT, n))
            entered, last_irq, woke = False, ts, False
            st['irqs'] += 1
        elif ev == 'wakeup':
            woke = True
        elif ev not in ('irq', 'wakeup'):
            out.append((ts, ev, args, n))
    return out


def tick_grid(per_cpu):
    """(period, phase) of the recording kernel's tick, found among the exits
    from idle states, or None."""
    exits = [ts for evs in per_cpu.values() for ts, ev, args, _ in evs
             if ev == 'cpu_idle' and f2t.kv(args).get('state') == EXIT]
    found = None
    for p in TICK_PERIODS:
        hist = {}
        for t in exits:
            b = int((t % p) // 20)
            hist[b] = hist.get(b, 0) + 1
        nb = int(p // 20) + 1
        w = GRID_US // 20
        for b in range(nb):
            c = sum(hist.get((b + d) % nb, 0) for d in range(-w, w + 1))
            chance = len(exits) * (2 * w + 1) * 20 / p
            if c >= GRID_MIN and c >= GRID_ENRICH * chance and \
               (found is None or c / chance > found[2]):
                found = (p, b * 20.0, c / chance)
    return found[:2] if found else None


def on_grid(ts, grid):
    p, ph = grid
    d = (ts - ph) % p
    return min(d, p - d) <= GRID_US


def merge_ticks(evs, grid, st):
    """The exits on the tick grid get the tick's expiry (and a timer wheel
    timer's, when the period ends there: the tick's handler woke a task)."""
    out = []
    for i, (ts, ev, args, n) in enumerate(evs):
        out.append((ts, ev, args, n))
        if ev != 'cpu_idle' or f2t.kv(args).get('state') != EXIT or not on_grid(ts, grid):
            continue
        st['ticks'] += 1
        out.append((ts, 'hrtimer_expire_entry', 'function=' + TICK_FUNC, n))
        nxt = next((e for e in evs[i + 1:] if e[1] in ('cpu_idle', 'sched_switch')), None)
        if nxt and nxt[1] == 'sched_switch':
            out.append((ts, 'timer_expire_entry', '', n))
    return out


def convert(path, out, name):
    lines = read_text(path)
    st = {'ticks': 0, 'irqs': 0, 'untraced': 0, 'reconstructed': 0}
    if is_lttng(lines):
        per_cpu = lttng_normalise(lttng_events(lines, path))
    else:
        per_cpu = {}
        try:
            for cpu, ts, ev, args, n in f2t.parse(lines):
                per_cpu.setdefault(cpu, []).append((ts, ev, args, n))
        except SystemExit as e:
            fail('%s: %s' % (path, str(e.code).replace('ftrace2trace: ', '')))
        for evs in per_cpu.values():
            evs.sort(key=lambda e: e[0] if e[0] is not None else -1)
    if not per_cpu:
        fail('%s: no events' % path)
    for cpu, evs in per_cpu.items():
        if not any(ev == 'cpu_idle' for _, ev, _, _ in evs):
            if any(ev == 'irq' for _, ev, _, _ in evs):
                per_cpu[cpu] = reconstruct(evs, st)
                st['reconstructed'] += 1
        per_cpu[cpu] = [e for e in per_cpu[cpu] if e[1] not in ('irq', 'wakeup')]
    timers = any(ev in ('hrtimer_expire_entry', 'timer_expire_entry')
                 for evs in per_cpu.values() for _, ev, _, _ in evs)
    grid = None if timers else tick_grid(per_cpu)
    if grid:
        per_cpu = {c: merge_ticks(evs, grid, st) for c, evs in per_cpu.items()}
    span = [ts for evs in per_cpu.values() for ts, _, _, _ in evs if ts is not None]
    out.write('# cpuidle-replay trace v1\n# converted by hw2trace.py from %s: a recording of '
              'real hardware, for evaluation only\n' % name)
    try:
        s = f2t.convert_events(per_cpu, out, 'hw2trace')
    except SystemExit as e:
        fail('%s: %s' % (path, str(e.code).replace('ftrace2trace: ', '')))
    if timers:
        ticks = 'timer events recorded'
    elif grid:
        ticks = 'no timer events; tick grid %.0f us, %d exits on it' % (grid[0], st['ticks'])
    else:
        ticks = 'no timer events, no tick grid found'
    rec = ('; idle periods of %d CPU%s rebuilt from %d interrupts, %d ends not recorded'
           % (st['reconstructed'], '' if st['reconstructed'] == 1 else 's', st['irqs'],
              st['untraced'])) if st['reconstructed'] else ''
    sys.stderr.write('hw2trace: %s: %d idle periods on %d CPU%s over %.2f s; %d wakeups '
                     '(t %d, i %d, k %d), %.1f%% quiet; %s%s; idle period median %d us, '
                     'p90 %d us\n' % (name, s['periods'], s['cpus'], '' if s['cpus'] == 1
                                      else 's', (max(span) - min(span)) / 1e6, s['wakeups'],
                                      s['kinds']['t'], s['kinds']['i'], s['kinds']['k'],
                                      s['quiet_pct'], ticks, rec, s['median'], s['p90']))


def recording_of(folder):
    for pat in ('.txt.xz', '.txt', '.html'):
        found = sorted(f for f in os.listdir(folder) if f.endswith(pat))
        if found:
            return os.path.join(folder, found[0])
    return None


def convert_dir(hwdir, outdir):
    if not os.path.isdir(hwdir):
        fail('%s: no such directory' % hwdir)
    todo = []
    for sub in sorted(os.listdir(hwdir)):
        d = os.path.join(hwdir, sub)
        if os.path.isdir(d):
            rec = recording_of(d)
            if rec:
                todo.append((sub, rec))
    if not todo:
        fail('%s: no recording (*.txt.xz, *.txt, *.html) in any folder' % hwdir)
    os.makedirs(outdir, exist_ok=True)
    done = []
    try:
        for sub, rec in todo:
            tmp = os.path.join(outdir, '.hw-%s.trace.tmp' % sub)
            done.append(tmp)
            with open(tmp, 'w') as out:
                convert(rec, out, sub)
    except SystemExit:
        for t in done:
            if os.path.exists(t):
                os.remove(t)
        raise
    for t in done:
        os.replace(t, os.path.join(outdir, os.path.basename(t)[1:-len('.tmp')]))


def main():
    args = sys.argv[1:]
    if args and args[0] in ('-h', '--help'):
        print(__doc__.strip())
        return
    if len(args) == 3 and args[0] == '--dir':
        convert_dir(args[1], args[2])
    elif len(args) == 1 and not args[0].startswith('-'):
        convert(args[0], sys.stdout, os.path.basename(args[0]))
    else:
        sys.exit('usage: hw2trace.py FILE > out.trace | hw2trace.py --dir HWDIR OUTDIR')


if __name__ == '__main__':
    main()
