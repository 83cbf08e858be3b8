/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state file, ARGGUARD_SIZES_STATE: the window's counts on disk, by
 * scope, so that they outlive the maps that counted them (a reboot, an
 * upgrade that makes the maps afresh, an unload). It is a report, the JSON
 * size_report.c writes, of the whole window when it was written, with two
 * members more: "carried", the counts of the maps before the ones it names,
 * and "maps", which maps those are (the boot, the "sizes" map's id, and
 * when they began to count). So whoever reads it beside the live maps knows
 * what it adds to theirs: carried, while those maps count on (a restart
 * adopted them), else the whole window (they are gone).
 *
 * Only root writes it (the daemon, and an apply that drops a rule),
 * atomically, under a lock; whoever reads it trusts it only if root alone
 * can write it and its directory. No raw map bytes: a build whose maps
 * differ reads it all the same.
 */
#ifndef ARGGUARD_SIZE_STATE_H
#define ARGGUARD_SIZE_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy.h"
#include "size_data.h"

/* In apply.h's ARGGUARD_STATE_DIR, which the unit's StateDirectory= makes. */
#define ARGGUARD_SIZES_STATE "/var/lib/argguard/sizes.json"

/* Which maps counted: the "sizes" map of one boot, and since when. */
struct size_maps_id {
	char boot_id[40];
	uint32_t map_id;
	int64_t start; /* seconds since the epoch */
};

struct size_state {
	struct size_data whole; /* the window when it was written; its envelope in whole.origin */
	struct size_data carried; /* of the maps before those in maps */
	struct size_maps_id maps;
};

/*
 * The file at path into *st, if it is one to trust: a regular file with
 * one name, owned by owner (root: 0) and writable by it alone, in a
 * directory owned by owner and writable by it alone. 0 (size_state_free()
 * it); -ENOENT if there is none; else a negative errno, and why (which
 * names no file: the caller does).
 */
int size_state_read(const char *path, uid_t owner, struct size_state *st, char *why, size_t len);
void size_state_free(struct size_state *st);

/* Whether two ids name the same maps: the same boot and map id. */
bool size_maps_same(const struct size_maps_id *a, const struct size_maps_id *b);

/*
 * What the window holds besides the counts of the maps live: carried if
 * they are the maps st names, else all it holds.
 */
const struct size_data *size_state_before(const struct size_state *st,
					  const struct size_maps_id *live);

/*
 * Write whole (the window, with its envelope), carried and maps to path,
 * atomically: a temporary file beside it, made afresh and owned by whoever
 * writes, mode 0600, synced, then renamed over it, and the directory
 * synced. The directory is made (0700) if it is missing. 0 or a negative
 * errno.
 */
int size_state_write(const char *path, const struct size_data *whole,
		     const struct size_data *carried, const struct size_maps_id *maps);

/*
 * The lock of path's directory, which every read that writes back takes:
 * an fd for size_state_unlock(), or a negative errno.
 */
int size_state_lock(const char *path);
void size_state_unlock(int fd);

/*
 * Drop from the file at path the scopes p has no rule for, under the lock,
 * as the maps drop a rule's counts with it: a rule dropped from the policy
 * starts from zero if it comes back. Nothing to do without a file; a file
 * not to trust is left for the daemon to replace. 0 or a negative errno.
 */
int size_state_keep_ruled(const char *path, uid_t owner, const struct policy *p);

#endif /* ARGGUARD_SIZE_STATE_H */
