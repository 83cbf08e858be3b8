// SPDX-License-Identifier: GPL-2.0
/*
 * What learn() (exec.bpf.c) does only now and then, as global functions: an
 * exec into the table of the largest, and into its ruled cgroup's own
 * distributions.
 */
#include "learn.h"

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
