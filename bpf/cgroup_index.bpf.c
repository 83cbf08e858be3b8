// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup index (argguard.h, cgroup_ids): each cgroup v2 directory made
 * at a ruled path, or at a path that one of a set's patterns matches
 * (cgroup_glob.h), indexed by its id as it is made; taken out as it goes.
 * Execs find their cgroup's rule in it (ancestors.h).
 */
#include "maps.h"

/* The cgroup being made, and the pattern its path is matched with. */
struct pattern_match {
	struct argguard_cgroup_key key; /* its path, as a cgroup_rules key */
	__u32 slot;
	int ret; /* cgroup_glob_step()'s last */
	bool matched; /* the pattern in slot matches */
};

/* bpf_loop callback: one step of the match of a pattern and the new cgroup's path. */
static long pattern_step(__u32 i, void *ctx)
{
	struct pattern_match *m = ctx;
	const struct argguard_cgroup_key *pat;
	struct cgroup_glob *g;
	__u32 zero = 0;

	pat = bpf_map_lookup_elem(&argguard_cgroup_patterns, &m->slot);
	g = bpf_map_lookup_elem(&argguard_glob, &zero);
	if (!pat || !g) {
		m->ret = -1;
		return 1;
	}
	m->ret = cgroup_glob_step(g, pat->path, m->key.path);
	return m->ret != 0;
}

/*
 * bpf_loop callback: the match of m->key.set's i-th pattern and the path; 1
 * to stop, at a match or at the set's end. A loop of callbacks rather than
 * a plain one: 6.12's verifier walks a plain loop's every turn, and refused
 * one of 128 turns, each with a bpf_loop() inside.
 */
static long pattern_try(__u32 i, void *ctx)
{
	struct pattern_match *m = ctx;
	const struct argguard_cgroup_key *pat;
	struct cgroup_glob *g;
	__u32 zero = 0;

	m->slot = m->key.set * ARGGUARD_MAX_CGROUP_PATTERNS + i;
	pat = bpf_map_lookup_elem(&argguard_cgroup_patterns, &m->slot);
	g = bpf_map_lookup_elem(&argguard_glob, &zero);
	if (!pat || !pat->path[0] || !g)
		return 1;
	__builtin_memset(g, 0, sizeof(*g));
	m->ret = -1;
	bpf_loop(CGROUP_GLOB_MAX_STEPS, pattern_step, m, 0);
	m->matched = m->ret == 1;
	return m->matched;
}

/*
 * The first of m->key.set's patterns, the highest rank first, that matches
 * m->key.path: its cgroup_rules key, or NULL. A match that would take more
 * than CGROUP_GLOB_MAX_STEPS (none of a pattern and a path the maps can
 * hold, tests/unit/test_cgroup_pattern.c) is no match.
 */
static const struct argguard_cgroup_key *pattern_for(struct pattern_match *m)
{
	m->matched = false;
	bpf_loop(ARGGUARD_MAX_CGROUP_PATTERNS, pattern_try, m, 0);
	if (!m->matched)
		return NULL;
	return bpf_map_lookup_elem(&argguard_cgroup_patterns, &m->slot);
}

/*
 * cgroup_ids had no room for the cgroup in set: from it on, cgroups are
 * judged by the set's unindexed_rule (argguard.h, cgroup_index). The
 * lowest id wins a race; should the race outlast the tries, every cgroup
 * is judged so, which is never looser.
 */
static void index_failed(__u32 set, __u64 cgroup_id)
{
	struct argguard_cgroup_index *index = bpf_map_lookup_elem(&argguard_cgroup_index, &set);
	__u64 old;

	if (!index)
		return;
	__sync_fetch_and_add(&index->failed_inserts, 1);
	for (int i = 0; i < 4; i++) {
		old = index->first_unindexed;
		if (old && old <= cgroup_id)
			return;
		if (__sync_val_compare_and_swap(&index->first_unindexed, old, cgroup_id) == old)
			return;
	}
	*(volatile __u64 *)&index->first_unindexed = 1;
}

/*
 * A cgroup v2 directory is being made, and not yet visible: if a rule names
 * its path, in either rule set, or else a pattern matches it, index it by
 * its id before any process can enter it. Paths longer than a rule's cannot
 * match. The path is the cgroup's from the root of the hierarchy, whatever
 * cgroup namespace the caller is in.
 */
SEC("tp_btf/cgroup_mkdir")
int BPF_PROG(argguard_cgroup_mkdir, struct cgroup *cgrp, const char *path)
{
	struct pattern_match m = {};
	struct argguard_cgroup_id_key id = {};
	const struct argguard_cgroup_key *rule_key;
	__u64 cgroup_id = BPF_CORE_READ(cgrp, kn, id);
	long n;

	if (BPF_CORE_READ(cgrp, root, hierarchy_id) != 0) /* cgroup v1 */
		return 0;
	n = bpf_probe_read_kernel_str(m.key.path, sizeof(m.key.path), path);
	if (n <= 0 || n >= (long)sizeof(m.key.path))
		return 0;
	for (__u32 set = 0; set < 2; set++) {
		m.key.set = set;
		id.set = set;
		rule_key = &m.key;
		if (!bpf_map_lookup_elem(&argguard_cgroup_rules, &m.key))
			rule_key = pattern_for(&m);
		if (!rule_key)
			continue;
		/* The mark first: an id without it would never be looked at. */
		id.cgroup_id = ARGGUARD_CGROUP_IDS_USED;
		if (bpf_map_update_elem(&argguard_cgroup_ids, &id, rule_key, BPF_ANY)) {
			index_failed(set, cgroup_id);
			continue;
		}
		id.cgroup_id = cgroup_id;
		if (bpf_map_update_elem(&argguard_cgroup_ids, &id, rule_key, BPF_ANY))
			index_failed(set, cgroup_id);
	}
	return 0;
}

SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(argguard_cgroup_rmdir, struct cgroup *cgrp, const char *path)
{
	struct argguard_cgroup_id_key id = { .cgroup_id = BPF_CORE_READ(cgrp, kn, id) };

	for (__u32 set = 0; set < 2; set++) {
		id.set = set;
		bpf_map_delete_elem(&argguard_cgroup_ids, &id);
	}
	return 0;
}
