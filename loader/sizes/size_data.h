/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The size distributions the BPF program counts (argguard.h, "sizes",
 * "largest", "cgroup_sizes" and "sizes_by_uid"), summed over CPUs, and what they say: how many execs a limit would have denied, and
 * the value that lets through all of them, or a share. Pure: the maps are
 * read in size_maps.c; suggest's policy is size_suggest.c's.
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

/* One uid's execs of ARGGUARD_SIZES_BY_UID_FROM bytes and more that ran, in one slot. */
struct size_uid {
	uint32_t slot;
	uint32_t uid; /* a subordinate uid's namespace user */
	struct size_hist hist;
};

/* Everything argguard report and suggest read. */
struct size_data {
	struct size_hist hist[ARGGUARD_SIZE_SLOTS]; /* the execs that ran */
	struct size_hist denied[ARGGUARD_SIZE_SLOTS]; /* those argguard denied */
	struct size_scope scopes[ARGGUARD_SIZE_SLOTS];
	struct size_exec largest[ARGGUARD_LARGEST * 4]; /* that ran, the largest first */
	size_t n_largest;
	struct size_exec largest_denied[ARGGUARD_LARGEST * 4];
	size_t n_largest_denied;
	/* Each slot's largest exec that ran (its cgroup not named); total_bytes 0: none. */
	struct size_exec slot_largest[ARGGUARD_SIZE_SLOTS];
	struct size_cgroup *cgroups; /* by slot, then cgroup id */
	size_t n_cgroups;
	struct size_uid *uids; /* by slot, then uid */
	size_t n_uids;
};

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
void size_data_free(struct size_data *d);

#endif /* ARGGUARD_SIZE_DATA_H */
