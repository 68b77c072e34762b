/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space KUnit build: drivers/cpuidle/governors/gov.h of the base tree
 * (the repository ships only the files it changes), found by horizon.c's
 * #include "gov.h" and, through -iquote include/kunit, by the test's
 * #include "../gov.h".
 */
#ifndef __CPUIDLE_GOVERNOR_H
#define __CPUIDLE_GOVERNOR_H

#define RESIDENCY_THRESHOLD_NS	(15 * NSEC_PER_USEC)

#endif /* __CPUIDLE_GOVERNOR_H */
