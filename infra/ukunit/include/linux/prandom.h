/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space KUnit build: the kernel's prandom_u32_state() (Tausworthe
 * LFSR113, lib/random32.c) and prandom_seed_state(), bit for bit, so that
 * seeded tests draw the same numbers as in the kernel.
 */
#ifndef UKUNIT_PRANDOM_H
#define UKUNIT_PRANDOM_H

struct rnd_state {
	u32 s1, s2, s3, s4;
};

static inline u32 ukunit_seed(u32 x, u32 m)
{
	return (x < m) ? x + m : x;
}

static inline void prandom_seed_state(struct rnd_state *state, u64 seed)
{
	u32 i = ((seed >> 32) ^ (seed << 10) ^ seed) & 0xffffffffUL;

	state->s1 = ukunit_seed(i, 2U);
	state->s2 = ukunit_seed(i, 8U);
	state->s3 = ukunit_seed(i, 16U);
	state->s4 = ukunit_seed(i, 128U);
}

#define UKUNIT_TAUSWORTHE(s, a, b, c, d) ((((s) & (c)) << (d)) ^ ((((s) << (a)) ^ (s)) >> (b)))

static inline u32 prandom_u32_state(struct rnd_state *state)
{
	state->s1 = UKUNIT_TAUSWORTHE(state->s1, 6U, 13U, 4294967294U, 18U);
	state->s2 = UKUNIT_TAUSWORTHE(state->s2, 2U, 27U, 4294967288U, 2U);
	state->s3 = UKUNIT_TAUSWORTHE(state->s3, 13U, 21U, 4294967280U, 7U);
	state->s4 = UKUNIT_TAUSWORTHE(state->s4, 3U, 12U, 4294967168U, 13U);
	return state->s1 ^ state->s2 ^ state->s3 ^ state->s4;
}

#endif /* UKUNIT_PRANDOM_H */
