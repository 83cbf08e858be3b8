// SPDX-License-Identifier: GPL-2.0
/*
 * A cgroup's path from its id. On the cgroup v2 mount the id is a file
 * handle (FILEID_KERNFS), as systemd uses it: open_by_handle_at() finds the
 * cgroup at once, however many there are. Elsewhere (the unit tests' plain
 * directories) the id is an inode number, found by walking the tree.
 */
#define _GNU_SOURCE /* nftw(), open_by_handle_at() */
#include "cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "log.h"

#define FILEID_KERNFS 0xfe /* include/linux/exportfs.h: a kernfs node's 64-bit id */

/* nftw() has no user pointer: the cgroup being looked for. */
static __thread struct {
	uint64_t id;
	size_t root_len;
	char *found;
} search;

static int match_cgroup(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_D || st->st_ino != search.id)
		return 0;
	search.found = strdup(path[search.root_len] ? path + search.root_len : "/");
	return 1;
}

static char *walk_for(const char *root, uint64_t id)
{
	search.id = id;
	search.root_len = strlen(root);
	search.found = NULL;
	nftw(root, match_cgroup, 16, FTW_PHYS | FTW_MOUNT);
	return search.found;
}

/* The cgroup's directory by its handle, and its path from /proc/self/fd. */
static char *open_by_id(int mount_fd, const char *root, uint64_t id)
{
	/* A file_handle with room for the 8 bytes of its f_handle. */
	char handle[sizeof(struct file_handle) + sizeof(uint64_t)] __attribute__((aligned(8)));
	struct file_handle *fh = (struct file_handle *)handle;
	char fd_path[64], target[PATH_MAX];
	size_t root_len = strlen(root);
	ssize_t n;
	int fd;

	fh->handle_bytes = sizeof(uint64_t);
	fh->handle_type = FILEID_KERNFS;
	memcpy(fh->f_handle, &id, sizeof(id));
	fd = open_by_handle_at(mount_fd, fh, O_PATH | O_CLOEXEC);
	if (fd < 0 && (errno == ESTALE || errno == ENOENT))
		return NULL; /* gone, or never was */
	if (fd < 0) {
		/* Without CAP_DAC_READ_SEARCH, say: EPERM. Slow, but right. */
		static bool said;

		if (!said)
			log_warning("failed to open cgroups by their ids (%s): walking %s for each "
				    "new one instead",
				    strerror(errno), root);
		said = true;
		return walk_for(root, id);
	}
	snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
	n = readlink(fd_path, target, sizeof(target) - 1);
	close(fd);
	if (n < 0 || (size_t)n < root_len || strncmp(target, root, root_len))
		return NULL;
	target[n] = '\0';
	return strdup(target[root_len] ? target + root_len : "/");
}

char *cgroup_path(const char *root, uint64_t id)
{
	struct statfs fs;
	int mount_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char *path;

	if (mount_fd < 0)
		return NULL;
	if (!fstatfs(mount_fd, &fs) && fs.f_type == CGROUP2_SUPER_MAGIC)
		path = open_by_id(mount_fd, root, id);
	else
		path = walk_for(root, id);
	close(mount_fd);
	return path;
}

const char *cgroup_cache_path(struct cgroup_cache *c, uint64_t id)
{
	unsigned int slot;

	for (unsigned int i = 0; i < CGROUP_CACHE; i++) {
		if (c->entries[i].path && c->entries[i].id == id) {
			c->last = i;
			return c->entries[i].path;
		}
	}
	slot = c->next++ % CGROUP_CACHE;
	if (slot == c->last)
		slot = c->next++ % CGROUP_CACHE;
	free(c->entries[slot].path);
	c->entries[slot].id = id;
	c->entries[slot].path = cgroup_path(c->root, id);
	c->last = slot;
	return c->entries[slot].path;
}

void cgroup_cache_free(struct cgroup_cache *c)
{
	for (unsigned int i = 0; i < CGROUP_CACHE; i++) {
		free(c->entries[i].path);
		c->entries[i].path = NULL;
	}
}
