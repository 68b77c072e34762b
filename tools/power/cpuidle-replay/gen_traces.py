#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate the cpuidle-replay trace families (fixed seeds, reproducible).

Usage: gen_traces.py OUTDIR [PERIODS]

Each family is a set of wakeup sources per CPU. The generator walks time
the way the replay does: an idle period starts, every source offers its
next events, the first event that wakes a task ends the period, and the CPU
is then busy for a while before the next period starts. Events that fall
in the busy time are handled there. See README.rst for the families.
"""

import math
import os
import random
import sys

MAX_EVENTS = 60          # below the replay's limit of 64 per period


INF = float('inf')


class Periodic:
    """A timer every period_us (with +-jitter), waking a task unless quiet."""

    kind = 't'

    def __init__(self, rng, period_us, jitter=0.02, quiet=False):
        self.rng, self.period, self.jitter, self.quiet = rng, period_us, jitter, quiet
        self.next = rng.uniform(0, period_us)

    def arm(self, now):
        pass

    def next_after(self, t):
        while self.next <= t:
            self.next += self.period * (1 + self.rng.uniform(-self.jitter, self.jitter))
        return self.next


class IrqPeriodic(Periodic):
    """A device interrupting at a fixed interval: not a timer the kernel
    knows about."""

    kind = 'i'


class Poisson:
    """Interrupts at rate_hz on average, waking a task unless quiet."""

    kind = 'i'

    def __init__(self, rng, rate_hz, quiet=False):
        self.rng, self.mean, self.quiet = rng, 1e6 / rate_hz, quiet
        self.next = rng.expovariate(1.0 / self.mean)

    def arm(self, now):
        pass

    def next_after(self, t):
        while self.next <= t:
            self.next += self.rng.expovariate(1.0 / self.mean)
        return self.next


class QuietBursts:
    """Bursts of interrupts that wake no task (network receive or storage
    completions handled in softirq): a burst of count() interrupts spaced
    by gap(), then silence for pause()."""

    kind = 'i'
    quiet = True

    def __init__(self, rng, count, gap, pause):
        self.rng, self.count, self.gap, self.pause = rng, count, gap, pause
        self.left = int(count(rng))
        self.next = rng.uniform(0, 1000)

    def arm(self, now):
        pass

    def next_after(self, t):
        while self.next <= t:
            if self.left:
                self.left -= 1
                self.next += max(1.0, self.gap(self.rng))
            else:
                self.left = int(self.count(self.rng))
                self.next += self.pause(self.rng)
        return self.next


class WheelTimer:
    """A timer wheel timer, run by the tick's handler: it expires on a
    jiffy, every jiffies(rng) jiffies of JIFFY_US (a multiple of the tick
    period at HZ 250 and 1000 alike), WAKE_EARLY_US before the boundary
    (see fam_tick_wheel)."""

    kind = 'k'
    JIFFY_US = 4000
    WAKE_EARLY_US = 1

    def __init__(self, rng, jiffies, quiet=False):
        self.rng, self.jiffies, self.quiet = rng, jiffies, quiet
        self.next = self.JIFFY_US * rng.randint(1, 25) - self.WAKE_EARLY_US

    def arm(self, now):
        pass

    def next_after(self, t):
        while self.next <= t:
            self.next += self.JIFFY_US * self.jiffies(self.rng)
        return self.next


class TimerSchedule:
    """Expiries of a timer every interval(rng), shared by the timer itself
    (Timer) and by interrupts that land shortly before it (NearTimer)."""

    def __init__(self, rng, interval):
        self.rng, self.interval, self.at = rng, interval, [rng.uniform(0, 1000)]

    def expiry(self, i):
        while len(self.at) <= i:
            self.at.append(self.at[-1] + max(1.0, self.interval(self.rng)))
        return self.at[i]


class Timer:
    """The timer of a TimerSchedule, waking a task."""

    kind = 't'
    quiet = False

    def __init__(self, sched):
        self.sched, self.i = sched, 0

    def arm(self, now):
        pass

    def next_after(self, t):
        while self.sched.expiry(self.i) <= t:
            self.i += 1
        return self.sched.expiry(self.i)


class NearTimer:
    """An interrupt waking a task before some of the expiries of a
    TimerSchedule (with probability share), early(rng) of the interval
    before it (a fraction)."""

    kind = 'i'
    quiet = False

    def __init__(self, rng, sched, share, early):
        self.rng, self.sched, self.share, self.early = rng, sched, share, early
        self.i, self.at = 0, {}

    def arm(self, now):
        pass

    def irq(self, i):
        if i not in self.at:
            t = self.sched.expiry(i + 1)
            gap = t - self.sched.expiry(i)
            hit = self.rng.random() < self.share
            self.at[i] = t - self.early(self.rng) * gap if hit else INF
        return self.at[i]

    def next_after(self, t):
        while self.sched.expiry(self.i + 1) <= t:
            self.at.pop(self.i, None)
            self.i += 1
        if self.irq(self.i) > t:
            return self.irq(self.i)
        return self.irq(self.i + 1) if self.irq(self.i + 1) > t else self.sched.expiry(self.i + 2)


class Runs:
    """Runs of count(rng) idle periods each ended by a completion after
    sample(rng), then one idle period with nothing from this source."""

    kind = 'i'
    quiet = False

    def __init__(self, rng, count, sample):
        self.rng, self.count, self.sample = rng, count, sample
        self.left, self.at = int(count(rng)), INF

    def arm(self, now):
        if self.left > 0:
            self.left -= 1
            self.at = now + max(1.0, self.sample(self.rng))
        else:
            self.left = int(self.count(self.rng))
            self.at = INF

    def next_after(self, t):
        return self.at if self.at > t else INF


class Completion:
    """A request issued when the CPU goes idle completes after a latency
    drawn by sample(); its interrupt wakes the waiting task."""

    kind = 'i'
    quiet = False

    def __init__(self, rng, sample):
        self.rng, self.sample, self.at = rng, sample, INF

    def arm(self, now):
        self.at = now + max(1.0, self.sample(self.rng))

    def next_after(self, t):
        return self.at if self.at > t else INF


def walk(out, cpu, sources, busy, periods, rng, start=None):
    """Write `periods` idle periods of one CPU to `out`, from `start` (us,
    an integer keeps every period start on the microsecond grid) or a
    random time."""
    now = rng.uniform(0, 1000) if start is None else start
    timers = [s for s in sources if s.kind in 'tk']
    out.write('cpu %d\n' % cpu)
    for _ in range(periods):
        for s in sources:
            s.arm(now)
        line, cursor, end = [], now, None
        while end is None:
            t, s = min(((s.next_after(cursor), i) for i, s in enumerate(sources)))
            s = sources[s]
            rel = int(round(t - now))
            quiet = s.quiet and len(line) < MAX_EVENTS - 2
            if rel >= 1 and (not line or rel > line[-1][0]):
                line.append((rel, s.kind, quiet))
                if not quiet:
                    end = rel
            cursor = t
        if line[-1][1] == 'i' and timers:
            # The governor's sleep length: the next timer after the end.
            t, k = min((s.next_after(now + end), s.kind) for s in timers)
            rel = int(round(t - now))
            if rel > end:
                line.append((rel, k, True))
        b = max(1, int(busy(rng)))
        out.write('idle %d %s\n' % (b, ' '.join(
            '%s%s%d' % (k, 'q' if q else '', r) for r, k, q in line)))
        now += end + b


def uniform(lo, hi):
    return lambda rng: rng.uniform(lo, hi)


def lognormal(median, sigma):
    return lambda rng: rng.lognormvariate(math.log(median), sigma)


def housekeeping(rng):
    """Timers an otherwise idle kernel keeps: some wake a kworker, some
    are handled in interrupt context."""
    return [Periodic(rng, 1000000, 0.01), Periodic(rng, 250000, 0.01),
            Periodic(rng, 100000, 0.05, quiet=True),
            Periodic(rng, 40000, 0.05, quiet=True)]


# name: (number of CPUs, function(rng, cpu, phase) -> (sources, busy sampler))
def fam_periodic(hz):
    return lambda rng, cpu, ph: ([Periodic(rng, 1e6 / hz, 0.02)] + housekeeping(rng),
                                 uniform(10, 40))


def fam_network(rate):
    return lambda rng, cpu, ph: ([Poisson(rng, rate)] + housekeeping(rng),
                                 lognormal(15, 0.5))


def fam_storage(lo, hi):
    return lambda rng, cpu, ph: ([Completion(rng, uniform(lo, hi))] + housekeeping(rng),
                                 uniform(5, 20))


def fam_ipi(rng, cpu, ph):
    # The peer CPU answers after its own short work: 10-60 us round trips.
    return [Completion(rng, lognormal(30, 0.4))] + housekeeping(rng), uniform(3, 10)


def fam_burst(rng, cpu, ph):
    if ph % 2 == 0:
        return [Completion(rng, uniform(20, 60))] + housekeeping(rng), uniform(5, 15)
    return housekeeping(rng) + [Periodic(rng, 15000, 0.3)], uniform(5, 15)


def fam_desktop(rng, cpu, ph):
    return housekeeping(rng) + [Periodic(rng, 16667, 0.01), Periodic(rng, 4000, 0.5, quiet=True),
                                Poisson(rng, 20)], uniform(20, 200)


def fam_softirq(rng, cpu, ph):
    # Network receive handled in softirq: interrupts that wake no task,
    # inside long idle periods ended by a 20 ms timer. The tick stays
    # stopped across them.
    return [Poisson(rng, 1500, quiet=True), Periodic(rng, 20000, 0.02)] + housekeeping(rng), \
        uniform(10, 30)


def fam_softirq_burst(rng, cpu, ph):
    # Bursts of quiet interrupts 20-60 us apart, then 2-30 ms of silence
    # with the tick stopped: the stuck-in-a-shallow-state case.
    return [QuietBursts(rng, uniform(20, 200), lognormal(35, 0.3), uniform(2000, 30000)),
            Poisson(rng, 10)] + housekeeping(rng), uniform(10, 30)


def fam_irq_interval(rng, cpu, ph):
    # A device interrupting every 300 us with little jitter: a repeating
    # non-timer interval.
    return [IrqPeriodic(rng, 300, 0.03)] + housekeeping(rng), uniform(10, 30)


def fam_tick_wheel(rng, cpu, ph):
    # An otherwise idle CPU whose wakeups are timer wheel timers run by the
    # tick's handler: delayed work polling every 2 to 5 jiffies of 4 ms,
    # a 100 ms and a 1 s kworker, and rare device interrupts. The replay
    # puts CPU 0's ticks at multiples of the tick period from the start of
    # the trace (walked from 0 here), so each 'k' event falls 1 us before
    # a tick boundary at HZ 250 and 1000.
    return [WheelTimer(rng, lambda r: r.randint(2, 5)), WheelTimer(rng, lambda r: 25),
            WheelTimer(rng, lambda r: 250), Poisson(rng, 5)], uniform(5, 30)


def fam_timer_intercept(rng, cpu, ph):
    # A timer every 0.5 to 8 ms (log-normal around 2 ms), and before half
    # of its expiries an interrupt that wakes a task 1% to 5% of the
    # interval early: intercepts just short of the timer.
    sched = TimerSchedule(rng, lognormal(2000, 0.7))
    return [Timer(sched), NearTimer(rng, sched, 0.5, uniform(0.01, 0.05))] + \
        housekeeping(rng), uniform(10, 40)


def fam_long_idle(rng, cpu, ph):
    # Runs of 5 to 50 short idle periods (completions after 20-80 us),
    # then a long idle until a far timer (every 50 ms to 1 s, log-normal
    # around 250 ms) with a few quiet interrupts: the tick is stopped
    # after a history of short idles, and the next timer is far.
    return [Runs(rng, uniform(5, 50), uniform(20, 80)), Periodic(rng, 250000, 0.8),
            Poisson(rng, 2, quiet=True)], uniform(5, 30)


def fam_poisson_3k(rng, cpu, ph):
    # Interrupts at 3 kHz on average, each waking a task: nothing repeats.
    return [Poisson(rng, 3000)] + housekeeping(rng), lognormal(20, 0.6)


def fam_io_lognormal(rng, cpu, ph):
    # I/O completions with a heavy-tailed latency (log-normal around
    # 150 us, a tenth beyond 500 us).
    return [Completion(rng, lognormal(150, 1.0))] + housekeeping(rng), uniform(5, 30)


def fam_compile(rng, cpu, ph):
    # A build: compiler runs of milliseconds waiting on page-cache misses
    # (heavy-tailed completions) and other CPUs' IPIs, then linking and
    # make's own bookkeeping with short, random waits.
    if ph % 2 == 0:
        return [Completion(rng, lognormal(400, 1.2)), Poisson(rng, 300)] + \
            housekeeping(rng), lognormal(2000, 1.0)
    return [Poisson(rng, 1000), Periodic(rng, 4000, 0.3, quiet=True)] + \
        housekeeping(rng), lognormal(300, 1.0)


def fam_frame_pacing(rng, cpu, ph):
    # A 60 Hz frame loop rendering for about 3 ms a frame, a compositor
    # timer at twice the rate handled without a wakeup, and input events.
    return [Periodic(rng, 16667, 0.02), Periodic(rng, 8333, 0.05, quiet=True),
            Poisson(rng, 60)] + housekeeping(rng), lognormal(3000, 0.5)


PHASES = [fam_network(10000), fam_desktop, fam_storage(80, 100), fam_periodic(1000)]


def fam_phases(rng, cpu, ph):
    return PHASES[ph % len(PHASES)](rng, cpu, ph)


FAMILIES = {
    'periodic-100hz': (1, fam_periodic(100), 0),
    'periodic-1khz': (1, fam_periodic(1000), 0),
    'periodic-4khz': (1, fam_periodic(4000), 0),
    'network-1k': (1, fam_network(1000), 0),
    'network-10k': (1, fam_network(10000), 0),
    'storage-nvme': (1, fam_storage(80, 100), 0),
    'storage-sata': (1, fam_storage(180, 220), 0),
    'storage-emmc': (1, fam_storage(1000, 3000), 0),
    'storage-slow': (1, fam_storage(20000, 60000), 0),
    'ipi-pingpong': (2, fam_ipi, 0),
    'burst': (1, fam_burst, 10),
    'desktop': (1, fam_desktop, 0),
    'softirq-net': (1, fam_softirq, 0),
    'irq-interval': (1, fam_irq_interval, 0),
    'phases': (1, fam_phases, 8),
    'softirq-burst': (1, fam_softirq_burst, 0),
    'tick-wheel': (1, fam_tick_wheel, 0),
    'timer-intercept': (1, fam_timer_intercept, 0),
    'long-idle': (1, fam_long_idle, 0),
    'poisson-3k': (1, fam_poisson_3k, 0),
    'io-lognormal': (1, fam_io_lognormal, 0),
    'compile': (1, fam_compile, 8),
    'frame-pacing': (1, fam_frame_pacing, 0),
}
# Families added later take the next seeds, so the earlier traces stay the same.
LATER = ['softirq-burst', 'tick-wheel', 'timer-intercept', 'long-idle',
         'poisson-3k', 'io-lognormal', 'compile', 'frame-pacing']
# Families walked from time 0, so that the replay's ticks fall where the
# family expects them.
FROM_ZERO = ('tick-wheel',)


def generate(outdir, periods):
    os.makedirs(outdir, exist_ok=True)
    names = sorted(n for n in FAMILIES if n not in LATER) + LATER
    for seed, name in enumerate(names):
        ncpu, fam, nphases = FAMILIES[name]
        path = os.path.join(outdir, name + '.trace')
        with open(path, 'w') as out:
            out.write('# cpuidle-replay trace v1: family %s, seed %d, generated by gen_traces.py\n'
                      % (name, seed))
            for cpu in range(ncpu):
                rng = random.Random(seed * 100 + cpu)
                if nphases:
                    for ph in range(nphases):
                        srcs, busy = fam(rng, cpu, ph)
                        walk(out, cpu, srcs, busy, periods // nphases, rng)
                else:
                    srcs, busy = fam(rng, cpu, 0)
                    walk(out, cpu, srcs, busy, periods, rng,
                         0 if name in FROM_ZERO else None)


def main():
    if len(sys.argv) == 2 and sys.argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        return
    if len(sys.argv) not in (2, 3):
        sys.exit('usage: gen_traces.py OUTDIR [PERIODS]')
    periods = int(sys.argv[2]) if len(sys.argv) == 3 else 10000
    if periods < 1:
        sys.exit('gen_traces.py: PERIODS must be positive')
    generate(sys.argv[1], periods)


if __name__ == '__main__':
    main()
