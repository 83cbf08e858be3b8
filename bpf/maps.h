/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every map of the BPF object, the .rodata the loader writes, and the few
 * reads and counts that several parts make of them. Each part declares
 * here what it uses; maps.bpf.c alone defines it all.
 */
#ifndef ARGGUARD_MAPS_H
#define ARGGUARD_MAPS_H

#include "prog.h"
#include "cgroup_glob.h"

/*
 * Set by the loader before the load: which build loaded these programs, and
 * what it chose for this kernel. A later start reads them back from the
 * programs' own .rodata, which the kernel froze at load, to tell whether the
 * pinned programs are exactly the ones it would load (loader/programs/programs.c).
 */
extern const volatile __u64 argguard_build_id;
extern const volatile __u32 argguard_build_features;

/*
 * A map is declared in each part that uses it, with its whole definition,
 * and defined in maps.bpf.c, which sets ARGGUARD_DEFINE_MAPS: the static
 * linker (bpftool gen object) joins each declaration to that definition,
 * and refuses one that differs from it.
 */
#ifdef ARGGUARD_DEFINE_MAPS
#define ARGGUARD_MAP_LINKAGE
#else
#define ARGGUARD_MAP_LINKAGE extern
#endif

/*
 * The maps carry argguard_ in their names: a newer kernel's vmlinux.h can
 * bring a type of any plain name (recent ones have a "config"). The loader
 * pins them under /sys/fs/bpf/argguard by the file names of its pin table
 * (loader/pins.h), which admins use with bpftool and which stay as they were.
 */

/* A map as libbpf reads it: name, type, max_entries, and the key and value types. */
#define ARGGUARD_MAP(name, type_, entries, key_, value_) \
	ARGGUARD_MAP_LINKAGE struct {                    \
		__uint(type, type_);                     \
		__uint(max_entries, entries);            \
		__type(key, key_);                       \
		__type(value, value_);                   \
	} name SEC(".maps")

ARGGUARD_MAP(argguard_config, BPF_MAP_TYPE_ARRAY, 1, __u32, struct argguard_config);

/* The settings, one entry per set. */
ARGGUARD_MAP(argguard_settings, BPF_MAP_TYPE_ARRAY, 2, __u32, struct argguard_settings);

ARGGUARD_MAP(argguard_probe, BPF_MAP_TYPE_ARRAY, 1, __u32, struct argguard_probe);

/* The global rule, one per set. */
ARGGUARD_MAP(argguard_global_rules, BPF_MAP_TYPE_ARRAY, 2, __u32, struct argguard_rule);

ARGGUARD_MAP(argguard_setuid_rules, BPF_MAP_TYPE_ARRAY, 2, __u32, struct argguard_rule);

ARGGUARD_MAP(argguard_uid_rules, BPF_MAP_TYPE_HASH, 2 * ARGGUARD_MAX_UID_RULES,
	     struct argguard_uid_key, struct argguard_rule);

ARGGUARD_MAP(argguard_cgroup_rules, BPF_MAP_TYPE_HASH, 2 * ARGGUARD_MAX_CGROUP_RULES,
	     struct argguard_cgroup_key, struct argguard_rule);

/*
 * The live cgroups at ruled paths, literal or matched by a pattern, and a
 * mark per set. Preallocated: an insert allocated as the map fills fails
 * with ENOMEM when a burst of new cgroups outruns the allocator's refill
 * (seen in the guest: 1 of 4,200), and would judge a cgroup by the
 * strictest rule for no attack at all.
 */
ARGGUARD_MAP(argguard_cgroup_ids, BPF_MAP_TYPE_HASH, ARGGUARD_CGROUP_IDS_MAX,
	     struct argguard_cgroup_id_key, struct argguard_cgroup_key);

/* Mappable: an apply counts its own failed inserts with the same atomics as the programs. */
ARGGUARD_MAP_LINKAGE struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct argguard_cgroup_index);
} argguard_cgroup_index SEC(".maps");

ARGGUARD_MAP(argguard_cgroup_patterns, BPF_MAP_TYPE_ARRAY, 2 * ARGGUARD_MAX_CGROUP_PATTERNS, __u32,
	     struct argguard_cgroup_key);

/*
 * Where the match of a new cgroup's path with a pattern stands. In a map,
 * not on the stack: 6.1's verifier follows a bpf_loop() callback through
 * one call, and would take the state's first values, all zero, for its
 * values at every step, and drop the code that moves a '*' back as dead.
 * Per CPU: the cgroup_mkdir tracepoint runs with preemption off.
 */
ARGGUARD_MAP(argguard_glob, BPF_MAP_TYPE_PERCPU_ARRAY, 1, __u32, struct cgroup_glob);

/* Most ruled ancestors a walk keeps: the nearest, and those above it while each tightens. */
#define CGROUP_CHAIN 8

/*
 * A walk's result, as of a generation: the caller's ruled ancestors,
 * nearest first, up to and with the first whose rule does not tighten
 * (ARGGUARD_RULE_TIGHTENS), CGROUP_CHAIN at most; none if no ancestor has
 * a rule.
 */
struct cgroup_walk {
	__u64 ruled[CGROUP_CHAIN];
	__u32 generation;
	__u32 n;
	bool open; /* the last of them tightens: the uid or global rule judges too */
	bool overflow; /* more tighten past the last: the set's unindexed_rule judges too */
};

/*
 * The walks from each cgroup that exec'd lately, by set and cgroup id.
 * Not pinned: only the programs use it, and a stale entry is never read
 * (argguard.h, cgroup_ids).
 */
ARGGUARD_MAP(argguard_cgroup_walks, BPF_MAP_TYPE_LRU_HASH, 4096, struct argguard_cgroup_id_key,
	     struct cgroup_walk);

ARGGUARD_MAP(argguard_counters, BPF_MAP_TYPE_PERCPU_ARRAY, ARGGUARD_NR_COUNTERS, __u32, __u64);

ARGGUARD_MAP(argguard_drops, BPF_MAP_TYPE_PERCPU_ARRAY, ARGGUARD_NR_DROPS, __u32, __u64);

ARGGUARD_MAP_LINKAGE struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);
} argguard_events SEC(".maps");

/*
 * The token buckets for all records, as the time the next token is due
 * (GCRA): RECORD_TOTAL, which every uid competes for, and RECORD_RESERVE,
 * which a uid draws on only within its share (ARGGUARD_RECORD_SHARE).
 */
enum { RECORD_TOTAL, RECORD_RESERVE };
ARGGUARD_MAP(argguard_record_bucket, BPF_MAP_TYPE_ARRAY, 2, __u32, __u64);

/* One bucket per uid, and per container for root: one user's flood cannot spend another's records. */
ARGGUARD_MAP(argguard_uid_buckets, BPF_MAP_TYPE_LRU_HASH, ARGGUARD_MAX_RATED_UIDS,
	     struct argguard_uid_bucket_key, struct argguard_uid_bucket);

/*
 * Execs that argguard itself denied, until their syscall returns. An LRU:
 * an entry that no exit deletes (an ABI with no fexit here, such as x32)
 * cannot fill it for good. By pid_tgid.
 */
ARGGUARD_MAP(argguard_denied_execs, BPF_MAP_TYPE_LRU_HASH, 4096, __u64, __u8);

/* The size distributions, by the judging rule's size_slot, and denied apart (argguard.h). */
ARGGUARD_MAP(argguard_sizes, BPF_MAP_TYPE_PERCPU_ARRAY, ARGGUARD_SIZE_ENTRIES, __u32,
	     struct argguard_sizes);

ARGGUARD_MAP(argguard_largest, BPF_MAP_TYPE_PERCPU_ARRAY, ARGGUARD_SIZE_ENTRIES, __u32,
	     struct argguard_largest);

/* The large execs that ran, by slot and uid (argguard.h); allocated as used. */
ARGGUARD_MAP_LINKAGE struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, ARGGUARD_SIZES_BY_UID);
	__type(key, struct argguard_sizes_by_uid_key);
	__type(value, struct argguard_sizes);
} argguard_sizes_by_uid SEC(".maps");

/* The distributions by ruled cgroup, of pattern rules' execs (argguard.h). */
ARGGUARD_MAP(argguard_cgroup_sizes, BPF_MAP_TYPE_LRU_HASH, ARGGUARD_CGROUP_SIZES,
	     struct argguard_cgroup_sizes_key, struct argguard_sizes);

/*
 * One more in a per-CPU counter, as one atomic add: a plain n += 1 is a
 * load, an add and a store, and a program preempted between the load and
 * the store loses whatever another program on its CPU counted meanwhile.
 * migrate_disable() keeps a program on its CPU, but only a kernel that
 * cannot preempt it (PREEMPT_NONE or _VOLUNTARY, with no preemption point
 * in BPF code) keeps a second one off that CPU: with preempt=full (Debian's
 * PREEMPT_DYNAMIC kernels take it on the command line) or PREEMPT_RT, the
 * LSM and fexit programs (rcu_read_lock() and migrate_disable(), neither of
 * which stops preemption there) and the sleepable lsm.s ones can all be
 * preempted in it. One locked add on a cache line no other CPU writes costs
 * a few ns an exec.
 */
static void bump(void *map, __u32 index)
{
	__u64 *n = bpf_map_lookup_elem(map, &index);

	if (n)
		__sync_fetch_and_add(n, 1);
}

static __maybe_unused void count(__u32 index)
{
	bump(&argguard_counters, index);
}

static __maybe_unused void drop(__u32 reason)
{
	bump(&argguard_drops, reason);
}

/*
 * The live set, and its settings: the config is read once, so that an exec
 * judges by one whole policy even while an apply flips it.
 */
static __maybe_unused const struct argguard_settings *live_settings(struct argguard_config *live)
{
	__u32 zero = 0;
	struct argguard_config *cfg = bpf_map_lookup_elem(&argguard_config, &zero);

	if (!cfg)
		return NULL;
	live->active_set = *(volatile __u32 *)&cfg->active_set & 1;
	live->cgroup_generation = *(volatile __u32 *)&cfg->cgroup_generation;
	return bpf_map_lookup_elem(&argguard_settings, &live->active_set);
}

#endif /* ARGGUARD_MAPS_H */
