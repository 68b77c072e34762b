// SPDX-License-Identifier: GPL-2.0
/*
 * Idle/wakeup workloads for the cpuidle selftests.
 *
 *   cpuidle_load timer PERIOD_US MSECS   periodic timer wakeups (on the CPU
 *                                        given by CPUIDLE_LOAD_CPU, if set)
 *   cpuidle_load pingpong MSECS [THINK_US]
 *                                        pipe ping-pong between two CPUs,
 *                                        THINK_US apart (200 by default)
 *   cpuidle_load burst MSECS             bursts of short sleeps, then long
 *   cpuidle_load mix MSECS               the three above, one third each
 *   cpuidle_load qos US MSECS            mix while holding a PM QoS CPU
 *                                        latency limit of US microseconds;
 *                                        prints "deeper_entries N", the
 *                                        entries into states with a larger
 *                                        exit latency while it was held
 *   cpuidle_load ipiburst CPU MSECS [GAP_US]
 *                                        bursts of interrupts that wake no
 *                                        task on CPU (cpuid reads through
 *                                        /dev/cpu/CPU/cpuid, sent from
 *                                        another CPU, GAP_US apart, 40 by
 *                                        default), then 20 ms of silence
 *
 * Exits 0 after the given time, 2 on bad arguments, 1 on a system error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
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

static int run_pingpong(long msecs, long think_us)
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
		sleep_us(think_us);
	}
	c = 'q';
	if (write(ping[1], &c, 1) != 1)
		return 1;
	pthread_join(t, NULL);
	return 0;
}

static int run_mix(long msecs)
{
	run_timer(1000, msecs / 3);
	if (run_pingpong(msecs / 3, 200))
		return 1;
	run_burst(msecs / 3);
	return 0;
}

static long long read_ll(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Entries, over all CPUs, into states whose exit latency exceeds @us. */
static long long deeper_entries(long us)
{
	const char *base = "/sys/devices/system/cpu";
	long long sum = 0, lat, usage;
	char path[128];
	int cpu, st;

	for (cpu = 0; cpu < 1024; cpu++) {
		for (st = 0; st < 10; st++) {
			snprintf(path, sizeof(path), "%s/cpu%d/cpuidle/state%d/latency",
				 base, cpu, st);
			lat = read_ll(path);
			if (lat < 0)
				break;
			if (lat <= us)
				continue;
			snprintf(path, sizeof(path), "%s/cpu%d/cpuidle/state%d/usage",
				 base, cpu, st);
			usage = read_ll(path);
			if (usage > 0)
				sum += usage;
		}
	}
	return sum;
}

/* Hold a CPU latency request while the mix runs; it ends with the close. */
static int run_qos(long us, long msecs)
{
	long long before;
	int32_t val = us;
	int fd, ret;

	fd = open("/dev/cpu_dma_latency", O_WRONLY);
	if (fd < 0) {
		perror("/dev/cpu_dma_latency");
		return 1;
	}
	if (write(fd, &val, sizeof(val)) != sizeof(val)) {
		perror("write /dev/cpu_dma_latency");
		close(fd);
		return 1;
	}
	/* Let CPUs already in deeper states wake up and be counted. */
	sleep_us(50000);
	before = deeper_entries(us);
	ret = run_mix(msecs);
	printf("deeper_entries %lld\n", deeper_entries(us) - before);
	close(fd);
	return ret;
}

static void spin_us(long us)
{
	long long end = now_us() + us;

	while (now_us() < end)
		;
}

/*
 * Every read of /dev/cpu/CPU/cpuid runs CPUID on that CPU through a
 * function-call IPI, handled in interrupt context: a wakeup that leaves
 * the target CPU in its idle loop, with the tick still stopped.
 */
static int run_ipiburst(long cpu, long msecs, long gap_us)
{
	long long end = now_us() + msecs * 1000LL;
	unsigned char regs[16];
	char path[64];
	int fd, i;

	snprintf(path, sizeof(path), "/dev/cpu/%ld/cpuid", cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	pin(cpu ? 0 : 1);
	while (now_us() < end) {
		for (i = 0; i < 100; i++) {
			if (pread(fd, regs, sizeof(regs), 0) != sizeof(regs)) {
				perror(path);
				close(fd);
				return 1;
			}
			spin_us(gap_us);
		}
		sleep_us(20000);
	}
	close(fd);
	return 0;
}

static int bad_args(const char *prog)
{
	fprintf(stderr, "usage: %s timer PERIOD_US MSECS | qos US MSECS |\n",
		prog);
	fprintf(stderr, "       pingpong MSECS [THINK_US] | burst MSECS | mix MSECS |\n");
	fprintf(stderr, "       ipiburst CPU MSECS [GAP_US]\n");
	return 2;
}

int main(int argc, char **argv)
{
	long period, msecs;

	if (argc == 4 && !strcmp(argv[1], "qos")) {
		if (parse_long(argv[2], 0, INT32_MAX, &period) ||
		    parse_long(argv[3], 1, INT_MAX, &msecs))
			return bad_args(argv[0]);
		return run_qos(period, msecs);
	}
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "ipiburst")) {
		long cpu, gap = 40;

		if (parse_long(argv[2], 0, CPU_SETSIZE - 1, &cpu) ||
		    parse_long(argv[3], 1, INT_MAX, &msecs) ||
		    (argc == 5 && parse_long(argv[4], 0, 1000000, &gap)))
			return bad_args(argv[0]);
		return run_ipiburst(cpu, msecs, gap);
	}
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "pingpong")) {
		long think = 200;

		if (parse_long(argv[2], 1, INT_MAX, &msecs) ||
		    (argc == 4 && parse_long(argv[3], 1, 10000000, &think)))
			return bad_args(argv[0]);
		return run_pingpong(msecs, think);
	}
	if (argc == 4 && !strcmp(argv[1], "timer")) {
		const char *cpu = getenv("CPUIDLE_LOAD_CPU");
		long c;

		if (parse_long(argv[2], 1, 10000000, &period) ||
		    parse_long(argv[3], 1, INT_MAX, &msecs))
			return bad_args(argv[0]);
		if (cpu) {
			if (parse_long(cpu, 0, CPU_SETSIZE - 1, &c))
				return bad_args(argv[0]);
			pin(c);
		}
		run_timer(period, msecs);
		return 0;
	}
	if (argc != 3 || parse_long(argv[2], 1, INT_MAX, &msecs))
		return bad_args(argv[0]);
	if (!strcmp(argv[1], "burst")) {
		run_burst(msecs);
		return 0;
	}
	if (!strcmp(argv[1], "mix"))
		return run_mix(msecs);
	return bad_args(argv[0]);
}
