/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The caller's ruled ancestors: the cgroup rule an exec is judged by, found
 * by a walk up the caller's cgroups (bpf_get_current_ancestor_cgroup_id())
 * in cgroup_ids, which cgroup_index.bpf.c and the loader keep; the walk's
 * result kept per cgroup in cgroup_walks. For exec.bpf.c's scope_rule().
 */
#ifndef ARGGUARD_ANCESTORS_H
#define ARGGUARD_ANCESTORS_H

#include "maps.h"

/* The rule that cgroup_id, a ruled cgroup, is indexed under in set. */
static const struct argguard_rule *rule_of(__u32 set, __u64 cgroup_id)
{
	struct argguard_cgroup_id_key k = { .set = set, .cgroup_id = cgroup_id };
	const struct argguard_cgroup_key *path = bpf_map_lookup_elem(&argguard_cgroup_ids, &k);

	return path ? bpf_map_lookup_elem(&argguard_cgroup_rules, path) : NULL;
}

/*
 * One search up the caller's ancestors for the nearest ruled one. Only
 * scalars go in and out: 6.1's verifier follows a bpf_loop() callback
 * through one call, so what the callback counts must index nothing.
 */
struct ancestor_walk {
	__u64 cgroup_id; /* the ruled ancestor found, or 0 */
	int from; /* the level the search starts at, going up */
	int found; /* the level of cgroup_id */
	__u32 set;
};

/* bpf_loop callback: step i looks at the ancestor i levels above w->from. */
static long ruled_ancestor(__u32 i, void *ctx)
{
	struct ancestor_walk *w = ctx;
	struct argguard_cgroup_id_key k = { .set = w->set };

	k.cgroup_id = bpf_get_current_ancestor_cgroup_id(w->from - (int)i);
	if (!bpf_map_lookup_elem(&argguard_cgroup_ids, &k))
		return 0;
	w->cgroup_id = k.cgroup_id;
	w->found = w->from - (int)i;
	return 1;
}

/* The nearest ruled ancestor at w->from or above, into w->cgroup_id (0: none). */
static long search_up(struct ancestor_walk *w)
{
	long err;

	w->cgroup_id = 0;
	if (w->from < 0)
		return 0;
	err = bpf_loop(w->from + 1, ruled_ancestor, w, 0);
	return err < 0 ? err : 0;
}

/*
 * The ancestors of the caller's cgroup (itself included) that have a rule
 * in set, nearest first, into walk, while each tightens, at any depth:
 * bpf_loop runs up to 2^23 steps, more levels than a machine can hold
 * cgroups. The chain's index is this loop's own, which the verifier
 * follows. < 0 if bpf_loop refuses.
 */
static long walk_ancestors(__u32 set, struct cgroup_walk *walk)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct ancestor_walk w = { .set = set };
	const struct argguard_rule *rule;
	long err;

	w.from = task->cgroups->dfl_cgrp->level;
	for (__u32 c = 0; c < CGROUP_CHAIN; c++) {
		err = search_up(&w);
		if (err || !w.cgroup_id)
			return err;
		walk->ruled[c] = w.cgroup_id;
		walk->n = c + 1;
		rule = rule_of(set, w.cgroup_id);
		walk->open = rule && (rule->flags & ARGGUARD_RULE_TIGHTENS);
		if (!walk->open)
			return 0;
		w.from = w.found - 1;
	}
	/* A full chain whose last rule tightens: one more ruled above it overflows. */
	err = search_up(&w);
	walk->overflow = !err && w.cgroup_id;
	return err;
}

/*
 * The rule of the caller's nearest ruled ancestor cgroup, and in *walk the
 * ancestors that judge with it (judge_above()). The walk's result is kept
 * for the cgroup: a cgroup made later is no ancestor of one that exec'd
 * already, and whatever else changes cgroup_ids moves the generation.
 * Should the walk fail, the exec is denied: nesting never takes a process
 * out of an ancestor's rule.
 */
static const struct argguard_rule *lookup_cgroup_rule(const struct argguard_config *live,
						      struct decision *d, struct cgroup_walk *walk)
{
	static const struct argguard_rule too_deep = { .action = ARGGUARD_ACTION_DENY,
						       .max_total_bytes = 1 };
	struct argguard_cgroup_id_key k = { .set = live->active_set,
					    .cgroup_id = ARGGUARD_CGROUP_IDS_USED };
	struct argguard_cgroup_index *index;
	struct cgroup_walk *seen;

	index = bpf_map_lookup_elem(&argguard_cgroup_index, &k.set);
	if (index && index->first_unindexed &&
	    bpf_get_current_cgroup_id() >= index->first_unindexed) {
		d->rule_id = bpf_get_current_cgroup_id();
		d->flags |= ARGGUARD_EV_CGROUP_UNINDEXED;
		return &index->unindexed_rule;
	}
	if (!bpf_map_lookup_elem(&argguard_cgroup_ids, &k))
		return NULL; /* no cgroup of this set has a rule: nothing to walk */
	k.cgroup_id = bpf_get_current_cgroup_id();
	seen = bpf_map_lookup_elem(&argguard_cgroup_walks, &k);
	if (seen && seen->generation == live->cgroup_generation) {
		*walk = *seen;
	} else {
		walk->generation = live->cgroup_generation;
		if (walk_ancestors(k.set, walk)) {
			walk->n = 0;
			d->rule_id = k.cgroup_id;
			return &too_deep;
		}
		/* Kept only if the caller stayed put: a walk half in another cgroup is not its. */
		if (bpf_get_current_cgroup_id() == k.cgroup_id)
			bpf_map_update_elem(&argguard_cgroup_walks, &k, walk, BPF_ANY);
	}
	if (!walk->n)
		return NULL;
	d->rule_id = walk->ruled[0];
	return rule_of(k.set, walk->ruled[0]);
}

#endif /* ARGGUARD_ANCESTORS_H */
