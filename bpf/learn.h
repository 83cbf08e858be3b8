/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The size distributions (argguard.h, "sizes" and "largest"): their maps,
 * and learn(), which counts an exec in the distributions of the rule that
 * judged it. Part of argguard.bpf.c, which includes it once, after
 * vmlinux.h, the helpers, struct exec_sizes and struct decision.
 */
#ifndef ARGGUARD_LEARN_H
#define ARGGUARD_LEARN_H

#include "size_bucket.h"

/* The size distributions, by the judging rule's size_slot (argguard.h). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ARGGUARD_SIZE_SLOTS);
	__type(key, __u32);
	__type(value, struct argguard_sizes);
} argguard_sizes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct argguard_largest);
} argguard_largest SEC(".maps");

/* The distributions by ruled cgroup, of pattern rules' execs (argguard.h). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, ARGGUARD_CGROUP_SIZES);
	__type(key, struct argguard_cgroup_sizes_key);
	__type(value, struct argguard_sizes);
} argguard_cgroup_sizes SEC(".maps");

/*
 * Put the caller's exec in place of the smallest of this CPU's largest
 * (argguard.h), which it passed, and find the new smallest. Rare once the
 * table has filled. A global function, verified once.
 */
__noinline int note_largest(struct argguard_largest *l, const struct exec_sizes *sz, __u32 slot)
{
	__u32 at, least_at = 0;
	__u64 least = ~0ULL;

	if (!l || !sz)
		return 0;
	at = l->least_at & (ARGGUARD_LARGEST - 1);
	l->total_bytes[at] = sz->total_bytes;
	l->argv_bytes[at] = sz->argv_bytes;
	l->envp_bytes[at] = sz->envp_bytes;
	l->cgroup_id[at] = bpf_get_current_cgroup_id();
	l->argc[at] = sz->argc;
	l->envc[at] = sz->envc;
	l->uid[at] = (__u32)bpf_get_current_uid_gid();
	l->slot[at] = slot;
	l->flags[at] = sz->flags & ARGGUARD_EV_EXACT_SIZES;
	bpf_get_current_comm(&l->comm[at * ARGGUARD_COMM_LEN], ARGGUARD_COMM_LEN);
	for (__u32 i = 0; i < ARGGUARD_LARGEST; i++) {
		if (l->total_bytes[i] < least) {
			least = l->total_bytes[i];
			least_at = i;
		}
	}
	l->least = least;
	l->least_at = least_at;
	return 0;
}

static __always_inline void tally(struct argguard_sizes *h, __u32 metric, __u64 v, bool shared)
{
	if (shared) { /* a distribution all CPUs share */
		__sync_fetch_and_add(&h->count[metric][size_bucket(v)], 1);
		__sync_fetch_and_add(&h->sum[metric], v);
	} else {
		h->count[metric][size_bucket(v)]++;
		h->sum[metric] += v;
	}
	if (v > h->max[metric])
		h->max[metric] = v;
}

/* An exec's sizes into h; argv and envp apart only where the kernel told them apart. */
static __always_inline void tally_exec(struct argguard_sizes *h, const struct exec_sizes *sz,
				       bool shared)
{
	tally(h, ARGGUARD_SIZE_TOTAL_BYTES, sz->total_bytes, shared);
	tally(h, ARGGUARD_SIZE_ARGC, (__u32)sz->argc, shared);
	tally(h, ARGGUARD_SIZE_ENVC, (__u32)sz->envc, shared);
	if (sz->flags & ARGGUARD_EV_EXACT_SIZES) {
		tally(h, ARGGUARD_SIZE_ARGV_BYTES, sz->argv_bytes, shared);
		tally(h, ARGGUARD_SIZE_ENVP_BYTES, sz->envp_bytes, shared);
	}
}

/*
 * Count an exec judged by a pattern rule in its ruled cgroup's own
 * distributions too (cgroup_id: the ruled ancestor, the container's cgroup),
 * made from the zeroed slot 0 of "sizes" the first time. A global
 * function, verified once; only such execs call it.
 */
__noinline int learn_cgroup(__u64 cgroup_id, __u32 slot, const struct exec_sizes *sz)
{
	struct argguard_cgroup_sizes_key key = { .cgroup_id = cgroup_id, .size_slot = slot };
	struct argguard_sizes *h, *zero;
	__u32 none = ARGGUARD_SIZE_SLOT_NONE;

	if (!sz)
		return 0;
	h = bpf_map_lookup_elem(&argguard_cgroup_sizes, &key);
	if (!h) {
		zero = bpf_map_lookup_elem(&argguard_sizes, &none);
		if (!zero)
			return 0;
		bpf_map_update_elem(&argguard_cgroup_sizes, &key, zero, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&argguard_cgroup_sizes, &key);
		if (!h)
			return 0;
	}
	tally_exec(h, sz, true);
	return 0;
}

/*
 * Count an exec in the size distributions of the rule that judged it, on
 * the path every judged exec takes: one per-CPU array lookup by the slot
 * the rule carries, no hash. Plain adds, not atomic ones: a program
 * preempted in the middle of one (argguard.h, bump()) can lose one count
 * of a distribution, never a decision. On a stock kernel the split of
 * argv and envp is unknown: only the total and the counts are kept.
 */
static __always_inline void learn(const struct argguard_rule *rule, const struct exec_sizes *sz,
				  const struct decision *d)
{
	__u32 slot = rule->size_slot, zero = 0;
	struct argguard_largest *l;
	struct argguard_sizes *h;

	if (!slot)
		return;
	/* Only a pattern's rule has the flag: no other exec does more than this test. */
	if (rule->flags & ARGGUARD_RULE_SIZES_BY_CGROUP)
		learn_cgroup(d->rule_id, slot, sz);
	h = bpf_map_lookup_elem(&argguard_sizes, &slot);
	if (!h)
		return;
	tally_exec(h, sz, false);
	l = bpf_map_lookup_elem(&argguard_largest, &zero);
	if (l && sz->total_bytes > l->least)
		note_largest(l, sz, slot);
}

#endif /* ARGGUARD_LEARN_H */
