/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live policy in the pinned maps: apply a policy atomically, read it back.
 */
#ifndef ARGGUARD_POLICY_MAPS_H
#define ARGGUARD_POLICY_MAPS_H

#include <stdint.h>

#include "pins.h"
#include "policy.h"

/* The pinned maps, by their pins (pins.h): fd[PIN_CONFIG] and the rest. */
struct policy_maps {
	int fd[NR_MAP_PINS];
};

/*
 * Open the pinned maps under ARGGUARD_PIN_DIR. 0, or a negative errno with
 * "failed to open PIN: ... (is argguard loaded?)" logged.
 */
int policy_maps_open(struct policy_maps *m);
void policy_maps_close(struct policy_maps *m);

/* The live set (config.active_set & 1) and its settings. 0 or a negative errno. */
int read_live_settings(int config_fd, int settings_fd, __u32 *set,
		       struct argguard_settings *settings);

/* One counter of the per-CPU counters map at fd, summed over CPUs; 0 if unreadable. */
uint64_t counter_sum(int fd, __u32 key);

typedef int map_entry_fn(const void *key, const void *value, void *ctx);

/*
 * Each entry of the hash map fd (keys key_size bytes, values value_size)
 * to each(), which returns 0 to go on or a negative errno to stop with.
 * Read in batches, one syscall for many entries, where the kernel takes
 * them; else a key and a lookup at a time. Entries added or deleted as it
 * reads may be met or not; one is never met half-written. 0 or a negative
 * errno.
 */
int map_read_entries(int fd, size_t key_size, size_t value_size, map_entry_fn *each, void *ctx);

/*
 * How the live set came to be (config.policy_state; a value past the table
 * reads as unset). 0 or a negative errno.
 */
int read_policy_state(int config_fd, enum argguard_policy_state *state);

/*
 * Write p into the rule set that execs are not reading, then switch them to
 * it with one update of the config map (its active_set), which also sets
 * config.policy_state to state. A cgroup rule is indexed by the id of the
 * cgroup at its path under cgroup_root, if there is one now; the
 * cgroup_mkdir program indexes those made later. On failure the live policy
 * is unchanged. Returns 0 or a negative errno.
 */
int policy_maps_apply(const struct policy_maps *m, const struct policy *p, const char *cgroup_root,
		      enum argguard_policy_state state);

/* Read the live policy, bpftool edits included, into p. */
int policy_maps_read(const struct policy_maps *m, struct policy *p);

/*
 * policy_maps_read() without the apply lock, its rules sorted: a read that
 * an apply overlapped (the config map changed under it, or a walk
 * restarted by a delete read a rule twice) is made again. 0, or a negative
 * errno with p empty.
 */
int policy_maps_read_live(const struct policy_maps *m, struct policy *p);

/*
 * The live policy as policy_canonical_text() prints it, read by
 * policy_maps_read_live(). A string to free(), or NULL with *err a
 * negative errno.
 */
char *policy_maps_live_text(const struct policy_maps *m, int *err);

#endif /* ARGGUARD_POLICY_MAPS_H */
