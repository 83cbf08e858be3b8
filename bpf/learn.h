/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The size distributions (argguard.h, "sizes", "largest", "cgroup_sizes"
 * and "sizes_by_uid"): tally_exec(), which counts an exec's sizes in one;
 * and learn.bpf.c's global functions, the rarer work that learn()
 * (exec.bpf.c) hands on.
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

#endif /* ARGGUARD_LEARN_H */
