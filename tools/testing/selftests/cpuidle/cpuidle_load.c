// SPDX-License-Identifier: GPL-2.0
/*
 * Idle/wakeup workloads for the cpuidle selftests.
 *
 *   cpuidle_load timer PERIOD_US MSECS   periodic timer wakeups
 *   cpuidle_load pingpong MSECS          pipe ping-pong between two CPUs
 *   cpuidle_load burst MSECS             bursts of short sleeps, then long
 *   cpuidle_load mix MSECS               the three above, one third each
 *
 * Exits 0 after the given time, 2 on bad arguments, 1 on a system error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static void run_timer(long period_us, long msecs)
{
	long long end = now_us() + msecs * 1000LL;

	while (now_us() < end)
		sleep_us(period_us);
}

static void run_burst(long msecs)
{
	long long end = now_us() + msecs * 1000LL;
	int i;

	while (now_us() < end) {
		for (i = 0; i < 50; i++)
			sleep_us(20);
		sleep_us(20000);
	}
}

struct pong {
	int in, out;
	int cpu;
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* Best effort: with one CPU online the two ends share it. */
	sched_setaffinity(0, sizeof(set), &set);
}

static void *pong_thread(void *arg)
{
	struct pong *p = arg;
	char c;

	pin(p->cpu);
	while (read(p->in, &c, 1) == 1 && c == 'p') {
		if (write(p->out, &c, 1) != 1)
			break;
	}
	return NULL;
}

static int run_pingpong(long msecs)
{
	long long end = now_us() + msecs * 1000LL;
	int ping[2], pong[2];
	struct pong p;
	pthread_t t;
	char c = 'p';
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (pipe(ping) || pipe(pong)) {
		perror("pipe");
		return 1;
	}
	p.in = ping[0];
	p.out = pong[1];
	p.cpu = ncpus > 1 ? 1 : 0;
	if (pthread_create(&t, NULL, pong_thread, &p)) {
		fprintf(stderr, "pthread_create failed\n");
		return 1;
	}
	pin(0);
	while (now_us() < end) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) {
			perror("ping");
			return 1;
		}
		/* Let both ends go idle between exchanges. */
		sleep_us(200);
	}
	c = 'q';
	if (write(ping[1], &c, 1) != 1)
		return 1;
	pthread_join(t, NULL);
	return 0;
}

static int bad_args(const char *prog)
{
	fprintf(stderr,
		"usage: %s timer PERIOD_US MSECS | pingpong MSECS | burst MSECS | mix MSECS\n",
		prog);
	return 2;
}

int main(int argc, char **argv)
{
	long period, msecs;

	if (argc == 4 && !strcmp(argv[1], "timer")) {
		if (parse_long(argv[2], 1, 10000000, &period) ||
		    parse_long(argv[3], 1, INT_MAX, &msecs))
			return bad_args(argv[0]);
		run_timer(period, msecs);
		return 0;
	}
	if (argc != 3 || parse_long(argv[2], 1, INT_MAX, &msecs))
		return bad_args(argv[0]);
	if (!strcmp(argv[1], "pingpong"))
		return run_pingpong(msecs);
	if (!strcmp(argv[1], "burst")) {
		run_burst(msecs);
		return 0;
	}
	if (!strcmp(argv[1], "mix")) {
		run_timer(1000, msecs / 3);
		if (run_pingpong(msecs / 3))
			return 1;
		run_burst(msecs / 3);
		return 0;
	}
	return bad_args(argv[0]);
}
