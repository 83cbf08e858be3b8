/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The size distributions (argguard.h, "sizes", "largest", "cgroup_sizes"
 * and "sizes_by_uid"): learn(), which counts an exec in the distributions
 * of the rule that judged it, on the path of every judged exec; and the
 * rarer work it hands to learn.bpf.c's global functions.
 */
#ifndef ARGGUARD_LEARN_H
#define ARGGUARD_LEARN_H

#include "maps.h"
#include "size_bucket.h"

/* learn.bpf.c's global functions, each described there. */
int note_largest(struct argguard_largest *l, const struct exec_sizes *sz, __u32 slot);
int learn_cgroup(__u64 cgroup_id, __u32 slot, const struct exec_sizes *sz);
int learn_by_uid(__u32 slot, const struct exec_sizes *sz);

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
 * Count an exec in the size distributions of the rule that judged it, on
 * the path every judged exec takes: one per-CPU array lookup by the slot
 * the rule carries, no hash, and its table of the largest; denied
 * (argguard refuses it), in the slot's other entries. Plain adds, not atomic ones: a program preempted in the
 * middle of one (maps.h, bump()) can lose one count of a distribution,
 * never a decision. On a stock kernel the split of argv and envp is
 * unknown: only the total and the counts are kept. cgroup_id: the ruled
 * cgroup that judged the exec, for a pattern's rule.
 */
static __always_inline void learn(const struct argguard_rule *rule, const struct exec_sizes *sz,
				  __u64 cgroup_id, bool denied)
{
	__u32 slot = rule->size_slot, at;
	struct argguard_largest *l;
	struct argguard_sizes *h;

	/* 0 is not counted; a slot past the table (bpftool's) neither. */
	if (slot - 1 >= ARGGUARD_SIZE_SLOTS - 1)
		return;
	/* Only a pattern's rule has the flag: no other exec does more than this test. */
	if ((rule->flags & ARGGUARD_RULE_SIZES_BY_CGROUP) && !denied)
		learn_cgroup(cgroup_id, slot, sz);
	at = denied ? slot + ARGGUARD_SIZE_DENIED : slot;
	h = bpf_map_lookup_elem(&argguard_sizes, &at);
	if (!h)
		return;
	tally_exec(h, sz, false);
	l = bpf_map_lookup_elem(&argguard_largest, &at);
	if (l && sz->total_bytes > l->least)
		note_largest(l, sz, slot);
	/* Under every floor suggest keeps: no uid's weight to count. */
	if (sz->total_bytes >= ARGGUARD_SIZES_BY_UID_FROM && !denied)
		learn_by_uid(slot, sz);
}

#endif /* ARGGUARD_LEARN_H */
