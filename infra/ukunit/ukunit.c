// SPDX-License-Identifier: GPL-2.0
/*
 * User-space KUnit runner: runs the suites linked in, every case (and every
 * parameter of a parameterised case) in a forked process of its own, and
 * prints the results as KTAP, nested as the kernel's KUnit prints them.
 *
 * Usage: ukunit [-l] [-x] [-t SECONDS] [-X NAME]... [GLOB...]
 *   -l          list "suite.case" names and exit
 *   -x          stop at the first failure
 *   -t SECONDS  time limit per case (default 60); a case over it fails
 *   -X NAME     do not run NAME ("suite.case", or "suite.case/parameter"
 *               for one parameter): it is reported as skipped
 *   GLOB        run only the cases whose "suite.case" matches (fnmatch)
 *
 * Each failure is also named on a line "# ukunit-failed: NAME".
 *
 * Ends with "# ukunit: P passed, F failed, S skipped" (cases and parameters
 * run). Exits 0 if every case run passed (a skip fails, as in kunit.sh),
 * 1 if one did not, 2 on bad usage.
 */
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/cpuidle.h>
#include <kunit/test.h>
#include <kunit/static_stub.h>

/* The engine functions that replay_kernel.h declares: never reached. */
int replay_cpu;
struct task_struct replay_idle_tasks[REPLAY_NR_CPUS];

int cpuidle_register_governor(struct cpuidle_governor *gov)
{
	return 0;
}

static void ukunit_unreached(const char *fn)
{
	fprintf(stderr, "ukunit: %s called without a static stub\n", fn);
	abort();
}

s64 cpuidle_governor_latency_req(unsigned int cpu)
{
	ukunit_unreached(__func__);
	return 0;
}

ktime_t tick_nohz_get_sleep_length(ktime_t *delta_next)
{
	ukunit_unreached(__func__);
	return 0;
}

bool tick_nohz_tick_stopped(void)
{
	ukunit_unreached(__func__);
	return false;
}

bool tick_nohz_idle_got_tick(void)
{
	ukunit_unreached(__func__);
	return false;
}

u64 local_clock(void)
{
	ukunit_unreached(__func__);
	return 0;
}

/* A WARN in the kernel does not fail a KUnit case: it is reported. */
void replay_warn_on(int cond, const char *file, int line)
{
	if (cond)
		printf("# WARNING at %s:%d\n", file, line);
}

void replay_register_param(const char *name, bool *val)
{
}

ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t len = strnlen(src, size);

	if (!size)
		return -E2BIG;
	if (len == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return len;
}

#define UKUNIT_MAX_SUITES	16
#define UKUNIT_MAX_STUBS	16

static struct kunit_suite *suites[UKUNIT_MAX_SUITES];
static int nr_suites;

void ukunit_register(struct kunit_suite **list)
{
	for (; *list; list++) {
		if (nr_suites == UKUNIT_MAX_SUITES) {
			fprintf(stderr, "ukunit: more than %d suites\n", UKUNIT_MAX_SUITES);
			exit(2);
		}
		suites[nr_suites++] = *list;
	}
}

/* What a case's process reports to the runner, in shared memory. */
struct ukunit_result {
	int failed;
	int skipped;
	char skip_reason[256];
};

static struct ukunit_result *result;
static struct kunit *current_test;
static const char *indent = "";
static struct {
	const void *real;
	void *replacement;
} stubs[UKUNIT_MAX_STUBS];

struct kunit *kunit_get_current_test(void)
{
	return current_test;
}

void *ukunit_stub_lookup(const void *real_fn)
{
	int i;

	for (i = 0; i < UKUNIT_MAX_STUBS; i++)
		if (stubs[i].real == real_fn)
			return stubs[i].replacement;
	return NULL;
}

void ukunit_stub_set(struct kunit *test, const void *real_fn, void *replacement)
{
	int i, free_slot = -1;

	for (i = 0; i < UKUNIT_MAX_STUBS; i++) {
		if (stubs[i].real == real_fn) {
			stubs[i].replacement = replacement;
			return;
		}
		if (!stubs[i].real && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0) {
		fprintf(stderr, "ukunit: more than %d static stubs\n", UKUNIT_MAX_STUBS);
		abort();
	}
	stubs[free_slot].real = real_fn;
	stubs[free_slot].replacement = replacement;
}

void *kunit_kzalloc(struct kunit *test, size_t size, int gfp)
{
	/* Freed when the case's process exits. */
	return calloc(1, size);
}

const char *ukunit_fmt_s(char *buf, long long v)
{
	snprintf(buf, 48, "%lld (0x%llx)", v, (unsigned long long)v);
	return buf;
}

const char *ukunit_fmt_u(char *buf, unsigned long long v)
{
	snprintf(buf, 48, "%llu (0x%llx)", v, v);
	return buf;
}

static void ukunit_end_case(void)
{
	fflush(stdout);
	_exit(0);
}

/* Print @text, each line after the test's indentation. */
static void print_indented(const char *text)
{
	const char *nl;

	for (; *text; text = nl + 1) {
		nl = strchr(text, '\n');
		if (!nl)
			nl = text + strlen(text);
		printf("%s%.*s\n", indent, (int)(nl - text), text);
		if (!*nl)
			break;
	}
}

void ukunit_failed(struct kunit *test, bool assert, const char *file, int line,
		   const char *what, const char *fmt, ...)
{
	char msg[1024];
	int n;
	va_list ap;

	result->failed = 1;
	n = snprintf(msg, sizeof(msg), "# %s: %s FAILED at %s:%d\n%s", test->name,
		     assert ? "ASSERTION" : "EXPECTATION", file, line, what);
	va_start(ap, fmt);
	if (n >= 0 && n < sizeof(msg))
		vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	va_end(ap);
	print_indented(msg);
	if (assert)
		ukunit_end_case();
}

void ukunit_skip(struct kunit *test, bool stop, const char *fmt, ...)
{
	va_list ap;

	result->skipped = 1;
	va_start(ap, fmt);
	vsnprintf(result->skip_reason, sizeof(result->skip_reason), fmt, ap);
	va_end(ap);
	if (stop)
		ukunit_end_case();
}

void kunit_info(struct kunit *test, const char *fmt, ...)
{
	va_list ap;

	printf("%s# %s: ", indent, test->name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static unsigned int time_limit = 60;
/* Cases and parameters run, as kunit.sh counts them: skips apart. */
static int nr_passed, nr_failed, nr_skipped, nr_excluded;
static bool stop_at_failure, stopped;
#define UKUNIT_MAX_EXCLUDED	64
static const char *excluded[UKUNIT_MAX_EXCLUDED];
static int nr_excl;

static bool is_excluded(const char *full)
{
	int i;

	for (i = 0; i < nr_excl; i++)
		if (!strcmp(excluded[i], full))
			return true;
	return false;
}

static int failed_one(int number, const char *name, const char *full,
		      const char *why)
{
	printf("%snot ok %d %s%s\n%s# ukunit-failed: %s\n", indent, number, name,
	       why, indent, full);
	nr_failed++;
	stopped = stop_at_failure;
	return 1;
}

/* Run one case (one parameter of it) in a child; print its result line. */
static int run_one(struct kunit_suite *suite, struct kunit_case *c,
		   const void *param, int number, const char *name)
{
	char full[512];
	pid_t pid;
	int status;

	if (param)
		snprintf(full, sizeof(full), "%s.%s/%s", suite->name, c->name, name);
	else
		snprintf(full, sizeof(full), "%s.%s", suite->name, c->name);
	if (is_excluded(full)) {
		printf("%sok %d %s # SKIP excluded\n", indent, number, name);
		nr_excluded++;
		return 0;
	}

	memset(result, 0, sizeof(*result));
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("ukunit: fork");
		exit(2);
	}
	if (!pid) {
		struct kunit test = { .param_value = param, .name = c->name };

		alarm(time_limit);
		current_test = &test;
		if (suite->init && suite->init(&test)) {
			printf("%s# %s: initialization failed\n", indent, c->name);
			result->failed = 1;
			ukunit_end_case();
		}
		c->run_case(&test);
		if (suite->exit)
			suite->exit(&test);
		ukunit_end_case();
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("ukunit: waitpid");
			exit(2);
		}
	}
	if (WIFSIGNALED(status)) {
		printf("%s# %s: %s\n", indent, name,
		       WTERMSIG(status) == SIGALRM ? "timed out" : strsignal(WTERMSIG(status)));
		return failed_one(number, name, full, " # CRASHED");
	}
	if (WEXITSTATUS(status) || result->failed) {
		return failed_one(number, name, full, "");
	}
	if (result->skipped) {
		printf("%sok %d %s # SKIP %s\n", indent, number, name, result->skip_reason);
		nr_skipped++;
		return 1;
	}
	printf("%sok %d %s\n", indent, number, name);
	nr_passed++;
	return 0;
}

static int selected(struct kunit_suite *suite, struct kunit_case *c, int argc,
		    char **argv)
{
	char full[512];
	int i;

	if (!argc)
		return 1;
	snprintf(full, sizeof(full), "%s.%s", suite->name, c->name);
	for (i = 0; i < argc; i++)
		if (!fnmatch(argv[i], full, 0))
			return 1;
	return 0;
}

static int count_cases(struct kunit_suite *suite, int argc, char **argv)
{
	struct kunit_case *c;
	int n = 0;

	for (c = suite->test_cases; c->run_case; c++)
		n += selected(suite, c, argc, argv);
	return n;
}

static int run_case(struct kunit_suite *suite, struct kunit_case *c, int number)
{
	char desc[KUNIT_PARAM_DESC_SIZE];
	const void *param = NULL;
	int failed = 0, n = 0;

	if (!c->generate_params) {
		indent = "    ";
		return run_one(suite, c, NULL, number, c->name);
	}
	printf("        KTAP version 1\n        # Subtest: %s\n", c->name);
	indent = "        ";
	while (!stopped) {
		desc[0] = '\0';
		param = c->generate_params(param, desc);
		if (!param)
			break;
		n++;
		if (!desc[0])
			snprintf(desc, sizeof(desc), "param-%d", n - 1);
		failed |= run_one(suite, c, param, n, desc);
	}
	printf("        1..%d\n", n);
	indent = "    ";
	if (!n)
		printf("    # %s: no parameters\n", c->name);
	printf("    %s %d %s\n", failed || !n ? "not ok" : "ok", number, c->name);
	return failed || !n;
}

int main(int argc, char **argv)
{
	int opt, i, number = 0, failed = 0, list = 0;

	while ((opt = getopt(argc, argv, "hlxt:X:")) != -1) {
		switch (opt) {
		case 'l':
			list = 1;
			break;
		case 'x':
			stop_at_failure = true;
			break;
		case 'X':
			if (nr_excl == UKUNIT_MAX_EXCLUDED) {
				fprintf(stderr, "ukunit: more than %d -X\n", UKUNIT_MAX_EXCLUDED);
				return 2;
			}
			excluded[nr_excl++] = optarg;
			break;
		case 't':
			time_limit = atoi(optarg);
			if (time_limit > 0)
				break;
			fprintf(stderr, "ukunit: -t needs a positive number of seconds\n");
			return 2;
		case 'h':
			printf("Usage: %s [-l] [-x] [-t SECONDS] [-X NAME]... [SUITE.CASE-GLOB...]\n"
			       "Run the KUnit suites built in, each case in its own process;\n"
			       "print KTAP. -l lists the cases, -x stops at the first failure,\n"
			       "-t limits each case (60 s), -X NAME leaves out a case\n"
			       "(suite.case) or one parameter (suite.case/description).\n",
			       argv[0]);
			return 0;
		default:
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (list) {
		for (i = 0; i < nr_suites; i++) {
			struct kunit_case *c;

			for (c = suites[i]->test_cases; c->run_case; c++)
				printf("%s.%s\n", suites[i]->name, c->name);
		}
		return 0;
	}
	result = mmap(NULL, sizeof(*result), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (result == MAP_FAILED) {
		perror("ukunit: mmap");
		return 2;
	}
	for (i = 0; i < nr_suites; i++)
		number += count_cases(suites[i], argc, argv) > 0;
	if (!number) {
		fprintf(stderr, "ukunit: no case matches\n");
		return 2;
	}
	printf("KTAP version 1\n1..%d\n", number);
	number = 0;
	for (i = 0; i < nr_suites && !stopped; i++) {
		struct kunit_suite *s = suites[i];
		int n = count_cases(s, argc, argv), k = 0, suite_failed = 0;
		struct kunit_case *c;

		if (!n)
			continue;
		printf("    KTAP version 1\n    # Subtest: %s\n    1..%d\n", s->name, n);
		if (s->suite_init && s->suite_init(s)) {
			printf("    # %s: suite initialization failed\n", s->name);
			suite_failed = 1;
		} else {
			for (c = s->test_cases; c->run_case && !stopped; c++)
				if (selected(s, c, argc, argv))
					suite_failed |= run_case(s, c, ++k);
			if (s->suite_exit)
				s->suite_exit(s);
		}
		printf("%s %d %s\n", suite_failed ? "not ok" : "ok", ++number, s->name);
		failed |= suite_failed;
	}
	if (stopped)
		printf("# ukunit: stopped at the first failure (-x)\n");
	printf("# ukunit: %d passed, %d failed, %d skipped", nr_passed, nr_failed,
	       nr_skipped);
	printf(nr_excluded ? ", %d excluded\n" : "\n", nr_excluded);
	return failed;
}
