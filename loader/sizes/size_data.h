/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The size distributions the BPF program counts (argguard.h, "sizes",
 * "largest", "cgroup_sizes" and "sizes_by_uid"), summed over CPUs, and
 * what they say: how many execs a limit would have denied, and the value
 * that lets through all of them, or a share; counts of other windows (the
 * state file's, other hosts' reports) added by scope. Pure: the maps are
 * read in size_maps.c, the files in size_json.c; suggest's policy is
 * size_suggest.c's.
 */
#ifndef ARGGUARD_SIZE_DATA_H
#define ARGGUARD_SIZE_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "argguard.h"
#include "policy.h"
#include "size_slots.h"

/* One slot's distributions, over every CPU. */
struct size_hist {
	uint64_t max[ARGGUARD_NR_SIZE_METRICS];
	uint64_t sum[ARGGUARD_NR_SIZE_METRICS];
	uint64_t count[ARGGUARD_NR_SIZE_METRICS][ARGGUARD_SIZE_BUCKETS];
	uint64_t since; /* when its counts began, epoch seconds; 0: unknown */
};

/* One of the largest execs seen. */
struct size_exec {
	uint64_t total_bytes, argv_bytes, envp_bytes, cgroup_id;
	uint32_t argc, envc, uid, slot;
	bool exact; /* argv and envp bytes are known (a patched kernel) */
	char comm[ARGGUARD_COMM_LEN + 1];
	char *cgroup; /* its path, if it still exists; NULL if not */
};

/* The execs a pattern's rule judged in one cgroup (a container), from "cgroup_sizes". */
struct size_cgroup {
	uint64_t cgroup_id; /* the cgroup the pattern matched */
	uint32_t slot; /* the rule's */
	struct size_hist hist;
	char *cgroup; /* its path, if it still exists; NULL if not */
};

/* Where and over what time the counts were made: a report's envelope. */
struct size_origin {
	char host[256];
	char boot_id[40];
	int64_t start; /* the window's first second (since the epoch); 0: unknown */
	int64_t end; /* its last, as far as the counts go */
	bool exact; /* argv and envp bytes counted apart (a patched kernel), not the total alone */
};

/* One uid's execs of ARGGUARD_SIZES_BY_UID_FROM bytes and more that ran, in one scope. */
struct size_uid {
	uint32_t slot; /* the scope's index */
	uint32_t uid; /* a subordinate uid's namespace user */
	struct size_hist hist;
};

/*
 * Everything argguard report and suggest read. The distributions are by
 * scope: the first ARGGUARD_SIZE_SLOTS are the map's slots, which
 * size_slots_scopes() names; counts of a scope that no slot has, added
 * from a file, come after them. hist, denied, slot_largest and scopes
 * each hold n_scopes. A largest exec's, a cgroup's and a uid's slot are an
 * index into scopes.
 */
struct size_data {
	struct size_hist *hist; /* the execs that ran */
	struct size_hist *denied; /* those argguard denied */
	/* Each scope's largest exec that ran (its cgroup not named); total_bytes 0: none. */
	struct size_exec *slot_largest;
	struct size_scope *scopes;
	size_t n_scopes;
	struct size_exec largest[ARGGUARD_LARGEST * 4]; /* that ran, the largest first */
	size_t n_largest;
	struct size_exec largest_denied[ARGGUARD_LARGEST * 4];
	size_t n_largest_denied;
	struct size_cgroup *cgroups; /* by slot, then cgroup id */
	size_t n_cgroups;
	struct size_uid *uids; /* by slot, then uid */
	size_t n_uids;
	char **paths; /* the cgroup paths of the scopes added from a file */
	size_t n_paths;
	struct size_origin origin;
};

/* d empty, with the map's ARGGUARD_SIZE_SLOTS slots, named by no policy yet: 0 or -ENOMEM. */
int size_data_init(struct size_data *d);

/* The metric's name ("argv_bytes" ...), and whether it counts bytes. */
const char *size_metric_name(enum argguard_size_metric m);
bool size_metric_bytes(enum argguard_size_metric m);

/* Add one CPU's counts to h: counts and sums add; the largest, and the earliest since, are kept. */
void size_hist_add(struct size_hist *h, const struct argguard_sizes *cpu);

/* The execs counted in metric m (0 for argv and envp on a stock kernel). */
uint64_t size_hist_execs(const struct size_hist *h, enum argguard_size_metric m);

/*
 * How many of the execs counted in m would a limit (0: none) have denied:
 * at least *least and at most *most. The two differ by the execs of the
 * one bucket that the limit splits, unless the largest value seen decides.
 */
void size_hist_over(const struct size_hist *h, enum argguard_size_metric m, uint64_t limit,
		    uint64_t *least, uint64_t *most);

/*
 * The smallest value that lets through keep_share (0 to 1) of the execs
 * counted in m, as far as the buckets tell: the largest value seen for 1,
 * else the top of the bucket where that share is reached (never above the
 * largest). 0 if none was counted.
 */
uint64_t size_hist_keep(const struct size_hist *h, enum argguard_size_metric m, double keep_share);

/*
 * Merge one CPU's largest execs of one slot's table into d->largest (that
 * ran) or, denied, d->largest_denied, keeping the largest of each; and the
 * largest that ran into d->slot_largest.
 */
void size_data_add_largest(struct size_data *d, const struct argguard_largest *cpu, bool denied);

/*
 * e among d's largest (denied: d's largest_denied), in order, the largest
 * first; the smallest falls off the end. d takes e->cgroup (or frees it).
 */
void size_data_add_exec(struct size_data *d, struct size_exec *e, bool denied);

/*
 * Add the counts of h to into: counts and sums add (at most UINT64_MAX);
 * the largest, and the earliest since, are kept.
 */
void size_hist_merge(struct size_hist *into, const struct size_hist *h);

/* Whether two scopes are one: the same kind, and the same uid or cgroup path. */
bool size_scope_same(const struct size_scope *a, const struct size_scope *b);

/*
 * The index of the scope of d that is s, added (with no counts) if d has
 * none; the shown scopes only (size_scope_shown()), but for a rule since
 * removed, which is one scope. -ENOMEM.
 */
int size_data_scope(struct size_data *d, const struct size_scope *s);

/*
 * A new entry of d->uids for uid in scope at, with no counts; NULL for
 * -ENOMEM. d->uids is then no longer in order, and may hold the uid
 * twice: size_data_sort_uids() puts it in order again.
 */
struct size_uid *size_data_uid(struct size_data *d, uint32_t at, uint32_t uid);

/*
 * d->uids by scope, then uid, each once: the counts of entries of the same
 * uid and scope add into one. Whether there were such.
 */
bool size_data_sort_uids(struct size_data *d);

/* Whether scope s of d counted an exec, that ran or that argguard denied. */
bool size_data_counted(const struct size_data *d, size_t s);

/*
 * Add from's counts to into, scope by scope: each shown scope of from
 * (what ran, what was denied, its uids and its largest) to the one of into
 * that is the same, or to one added for it; and from's largest execs among
 * into's. The cgroups a pattern judged stay into's: their ids name cgroups
 * of one boot. 0 or -ENOMEM.
 */
int size_data_add(struct size_data *into, const struct size_data *from);

/*
 * Keep, of d's scopes, only those p has a rule for (global and setuid
 * always, and the rules past the slots): the counts of any other are
 * cleared, with its uids and its largest execs.
 */
void size_data_keep_ruled(struct size_data *d, const struct policy *p);

/* Whether d counted no exec in any scope. */
bool size_data_empty(const struct size_data *d);

void size_data_free(struct size_data *d);

#endif /* ARGGUARD_SIZE_DATA_H */
