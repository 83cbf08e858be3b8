/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_CGROUP_H
#define ARGGUARD_CGROUP_H

#include <stdint.h>

/*
 * The path, relative to root (the cgroup v2 mount), of the cgroup whose id
 * (its kernfs id, which is also its directory's inode number) is id; "/"
 * for root itself. On cgroup2, one open_by_handle_at(), however many
 * cgroups there are, and the path however long. Returns a string to
 * free(), or NULL with *err: -ENOENT if no such cgroup exists now, else
 * the negative errno of what kept its path from being found.
 */
char *cgroup_path(const char *root, uint64_t id, int *err);

/*
 * The path of the directory dir_fd below the directory root_fd ("/" for
 * root_fd's own), however long: walking up "..", each directory named in
 * its parent by its inode number. Returns a string to free(), or NULL with
 * *err (-EXDEV: dir_fd is not below root_fd).
 */
char *dir_path_below(int root_fd, int dir_fd, int *err);

#define CGROUP_CACHE 16

/* Recently seen cgroup ids and their paths under root, in front of cgroup_path(). */
struct cgroup_cache {
	const char *root;
	struct {
		uint64_t id;
		char *path;
	} entries[CGROUP_CACHE]; /* replaced round robin */
	unsigned int next; /* the entry to replace next, modulo CGROUP_CACHE */
	unsigned int last; /* the entry returned last: never the one replaced next */
};

/*
 * The path of the cgroup whose id is id, or NULL with *err as
 * cgroup_path() says. The string is the cache's: it stays valid through
 * one more lookup, so that a record can hold its caller's cgroup and its
 * rule's at once. A failure is not kept: the next lookup tries again.
 */
const char *cgroup_cache_path(struct cgroup_cache *c, uint64_t id, int *err);

void cgroup_cache_free(struct cgroup_cache *c);

#endif /* ARGGUARD_CGROUP_H */
