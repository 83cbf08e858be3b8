// SPDX-License-Identifier: GPL-2.0
/*
 * What learn() (exec.bpf.c) does only now and then, as global functions: an
 * exec into the table of the largest, into its ruled cgroup's own
 * distributions, and into its uid's.
 */
#include "learn.h"
#include "caller.h"

/*
 * Put the caller's exec in place of the smallest of this CPU's largest of
 * its slot (argguard.h), which it passed, and find the new smallest. Rare once the
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
 * The entry at key of a map of distributions, made from the zeroed slot 0
 * of "sizes" the first time; NULL if the map is full.
 */
static struct argguard_sizes *sizes_entry(void *map, const void *key)
{
	struct argguard_sizes *h, *zero;
	__u32 none = ARGGUARD_SIZE_SLOT_NONE;

	h = bpf_map_lookup_elem(map, key);
	if (h)
		return h;
	zero = bpf_map_lookup_elem(&argguard_sizes, &none);
	if (!zero)
		return NULL;
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

/*
 * Count an exec judged by a pattern rule in its ruled cgroup's own
 * distributions too (cgroup_id: the ruled ancestor, the container's
 * cgroup). A global function, verified once; only such execs call it.
 */
__noinline int learn_cgroup(__u64 cgroup_id, __u32 slot, const struct exec_sizes *sz)
{
	struct argguard_cgroup_sizes_key key = { .cgroup_id = cgroup_id, .size_slot = slot };
	struct argguard_sizes *h;

	if (!sz)
		return 0;
	h = sizes_entry(&argguard_cgroup_sizes, &key);
	if (h)
		tally_exec(h, sz, true);
	return 0;
}

/*
 * Count a large exec that ran in its uid's distributions of the slot: the
 * namespace's user for a subordinate uid, so that a user's 65,536 of them
 * weigh as the user. A global function, verified once; only execs of
 * ARGGUARD_SIZES_BY_UID_FROM bytes and more call it.
 */
__noinline int learn_by_uid(__u32 slot, const struct exec_sizes *sz)
{
	struct argguard_sizes_by_uid_key key = { .size_slot = slot };
	struct argguard_sizes *h;
	long user;

	if (!sz)
		return 0;
	user = namespace_user();
	key.uid = user >= 0 ? (__u32)user : (__u32)bpf_get_current_uid_gid();
	h = sizes_entry(&argguard_sizes_by_uid, &key);
	if (h)
		tally_exec(h, sz, true);
	return 0;
}
