/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API that cpuidle governors use, for compiling them unchanged
 * in user space. Every <linux/...> header a governor includes resolves to
 * a stub that includes this file. Time is the replay's simulated clock.
 */
#ifndef REPLAY_KERNEL_H
#define REPLAY_KERNEL_H

#include <assert.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef HZ
#define HZ 250
#endif

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
typedef int64_t s64;
typedef s64 ktime_t;

#define NSEC_PER_USEC	1000L
#define NSEC_PER_MSEC	1000000L
#define NSEC_PER_SEC	1000000000L
#define TICK_NSEC	((NSEC_PER_SEC + HZ / 2) / HZ)
#define KTIME_MAX	((s64)~((u64)1 << 63))
#define S64_MAX		INT64_MAX
#define U64_MAX		UINT64_MAX
#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))

#define __init
#define __cpuidle
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define WARN_ON(c)	replay_warn_on(!!(c), __FILE__, __LINE__)
#define WARN_ON_ONCE(c)	WARN_ON(c)
#define BUILD_BUG_ON(c)	static_assert(!(c), #c)
#define READ_ONCE(x)	(x)		/* one thread: plain loads */
#define WRITE_ONCE(x, v) ((x) = (v))

#define min(a, b)	({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b)	({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
#define min_t(t, a, b)	({ t _a = (a), _b = (b); _a < _b ? _a : _b; })
#define max_t(t, a, b)	({ t _a = (a), _b = (b); _a > _b ? _a : _b; })

#define clamp_t(t, v, lo, hi) \
	({ t _v = (v), _lo = (lo), _hi = (hi); _v < _lo ? _lo : _v > _hi ? _hi : _v; })

static inline int fls(unsigned int x) { return x ? 32 - __builtin_clz(x) : 0; }
static inline u64 div_u64(u64 a, u32 b) { return a / b; }
static inline u64 div64_u64(u64 a, u64 b) { return a / b; }
static inline s64 div_s64(s64 a, s32 b) { return a / b; }
static inline u32 replay_do_div(u64 *n, u32 base)
{
	u32 rem = *n % base;

	*n /= base;
	return rem;
}

#define do_div(n, base)	replay_do_div(&(n), base)
static inline s64 ktime_to_ns(ktime_t t) { return t; }
static inline s64 ktime_to_us(ktime_t t) { return t / NSEC_PER_USEC; }
static inline ktime_t ns_to_ktime(u64 ns) { return ns; }
static inline ktime_t ktime_sub(ktime_t a, ktime_t b) { return a - b; }

/* Per-CPU data: one slot per simulated CPU. */
#define REPLAY_NR_CPUS	64
extern int replay_cpu;
#define DEFINE_PER_CPU(type, name)	struct { type slot[REPLAY_NR_CPUS]; } name
#define per_cpu_ptr(ptr, cpu)		(&(ptr)->slot[cpu])
#define per_cpu(var, cpu)		((var).slot[cpu])
#define this_cpu_ptr(ptr)		per_cpu_ptr(ptr, replay_cpu)

/* Governor registration: postcore_initcall() runs at program start. */
#define postcore_initcall(fn) \
	static void __attribute__((constructor)) replay_init_##fn(void) { fn(); }

#define CPUIDLE_STATE_MAX	10
#define CPUIDLE_NAME_LEN	16
#define CPUIDLE_DESC_LEN	32
#define CPUIDLE_FLAG_NONE	0x00
#define CPUIDLE_FLAG_POLLING	BIT(0)
#define CPUIDLE_FLAG_COUPLED	BIT(1)
#define CPUIDLE_FLAG_TIMER_STOP	BIT(2)
#define CPUIDLE_FLAG_UNUSABLE	BIT(3)
#define CPUIDLE_FLAG_OFF	BIT(4)
#define CPUIDLE_FLAG_TLB_FLUSHED BIT(5)
#define CPUIDLE_FLAG_RCU_IDLE	BIT(6)
#define CPUIDLE_STATE_DISABLED_BY_USER		BIT(0)
#define CPUIDLE_STATE_DISABLED_BY_DRIVER	BIT(1)

struct cpuidle_device;
struct cpuidle_driver;

struct cpuidle_state {
	char name[CPUIDLE_NAME_LEN];
	char desc[CPUIDLE_DESC_LEN];
	s64 exit_latency_ns;
	s64 target_residency_ns;
	unsigned int flags;
	unsigned int exit_latency;
	int power_usage;
	unsigned int target_residency;
};

struct cpuidle_state_usage {
	unsigned long long disable;
	unsigned long long usage;
	u64 time_ns;
	unsigned long long above;
	unsigned long long below;
	unsigned long long rejected;
};

struct cpuidle_device {
	unsigned int registered:1;
	unsigned int enabled:1;
	unsigned int poll_time_limit:1;
	unsigned int cpu;
	ktime_t next_hrtimer;
	int last_state_idx;
	u64 last_residency_ns;
	u64 poll_limit_ns;
	u64 forced_idle_latency_limit_ns;
	u64 safety_net_ns;
	struct cpuidle_state_usage states_usage[CPUIDLE_STATE_MAX];
};

struct cpuidle_driver {
	const char *name;
	struct cpuidle_state states[CPUIDLE_STATE_MAX];
	int state_count;
	int safe_state_index;
};

struct cpuidle_governor {
	char name[CPUIDLE_NAME_LEN];
	unsigned int rating;
	int (*enable)(struct cpuidle_driver *drv, struct cpuidle_device *dev);
	void (*disable)(struct cpuidle_driver *drv, struct cpuidle_device *dev);
	int (*select)(struct cpuidle_driver *drv, struct cpuidle_device *dev,
		      bool *stop_tick);
	void (*reflect)(struct cpuidle_device *dev, int index);
};

/* Provided by the replay engine. */
int cpuidle_register_governor(struct cpuidle_governor *gov);
s64 cpuidle_governor_latency_req(unsigned int cpu);
ktime_t tick_nohz_get_sleep_length(ktime_t *delta_next);
bool tick_nohz_tick_stopped(void);
bool tick_nohz_idle_got_tick(void);
/* No kernel configuration in user space: no option is enabled. */
#define IS_ENABLED(CONFIG_option)	defined(CONFIG_option)

/* The idle task of the replayed CPU is switched out once per idle period. */
struct task_struct {
	unsigned long nvcsw, nivcsw;
};

extern struct task_struct replay_idle_tasks[];
#define current (&replay_idle_tasks[replay_cpu])
/* The replayed CPU is never a nohz_full CPU. */
static inline bool tick_nohz_full_cpu(int cpu) { return false; }
u64 local_clock(void);
void replay_warn_on(int cond, const char *file, int line);
void replay_register_param(const char *name, bool *val);

/*
 * Boolean module parameters, set with replay -p NAME=0|1 (the governors
 * replayed name theirs with module_param_named()).
 */
#define module_param_named(name, value, type, perm)			\
	static_assert(__builtin_types_compatible_p(type, bool),	\
		      "replay: only bool parameters");			\
	static void __attribute__((constructor)) replay_param_##name(void) \
	{								\
		(void)(perm);						\
		replay_register_param(#name, &(value));			\
	}
#define MODULE_PARM_DESC(name, desc)					\
	static_assert(sizeof(desc) > 1, "replay: " #name " undescribed")

#endif /* REPLAY_KERNEL_H */
