/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prelude of the user-space KUnit build, included before every file
 * (-include): the kernel API of the replay's stubs (replay_kernel.h), with
 * the CPU topology of the QEMU KUnit run instead of the replay's single
 * CPU: two possible CPUs, CPU 1 nohz_full (kunit.sh boots "-smp 2
 * nohz_full=1").
 */
#ifndef UKUNIT_PRELUDE_H
#define UKUNIT_PRELUDE_H

/* replay_kernel.h has no nohz_full CPU: rename its helper out of the way. */
#define tick_nohz_full_cpu replay_tick_nohz_full_cpu
#include <replay_kernel.h>
#undef tick_nohz_full_cpu

#include <stdio.h>
#include <sys/types.h>

#define UKUNIT_NR_CPUS		2
#define UKUNIT_NOHZ_FULL_CPU	1

static inline bool tick_nohz_full_enabled(void)
{
	return true;
}

static inline bool tick_nohz_full_cpu(int cpu)
{
	return cpu == UKUNIT_NOHZ_FULL_CPU;
}

#define nr_cpu_ids		((unsigned int)UKUNIT_NR_CPUS)
#define num_possible_cpus()	nr_cpu_ids
#define for_each_possible_cpu(cpu) \
	for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)
#define for_each_online_cpu(cpu)	for_each_possible_cpu(cpu)

#define GFP_KERNEL		0
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))

ssize_t strscpy(char *dst, const char *src, size_t size);

#endif /* UKUNIT_PRELUDE_H */
