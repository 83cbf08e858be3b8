// SPDX-License-Identifier: GPL-2.0
/*
 * A cgroup's path from its id. On the cgroup v2 mount the id is a file
 * handle (FILEID_KERNFS), as systemd uses it: open_by_handle_at() finds the
 * cgroup at once, however many there are, and /proc/self/fd names it, or,
 * past PATH_MAX, a walk up from it. Elsewhere (the unit tests' plain
 * directories) the id is an inode number, found by walking the tree.
 */
#define _GNU_SOURCE /* open_by_handle_at() */
#include "cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "cgroup_walk.h"
#include "log.h"

#define FILEID_KERNFS 0xfe /* include/linux/exportfs.h: a kernfs node's 64-bit id */

/* The cgroup being looked for, and its path once found. */
struct search {
	uint64_t id;
	char *found;
};

static int match_cgroup(const char *path, ino_t ino, void *data)
{
	struct search *s = data;

	if (ino != s->id)
		return 0;
	s->found = strdup(path);
	return s->found ? 1 : -ENOMEM;
}

/* Without open_by_handle_at(): by walking the tree, however deep. */
static char *walk_for(const char *root, uint64_t id, int *err)
{
	struct search s = { .id = id };
	int ret = cgroup_walk(root, SIZE_MAX, match_cgroup, &s);

	*err = ret < 0 ? ret : s.found ? 0 : -ENOENT;
	return s.found;
}

/* The name in directory dir (which this closes) of its entry whose inode is ino. */
static char *name_in(int dir, ino_t ino, int *err)
{
	DIR *d = fdopendir(dir);
	struct dirent *de;
	char *name = NULL;

	if (!d) {
		*err = -errno;
		close(dir);
		return NULL;
	}
	*err = -ENOENT; /* renamed away meanwhile */
	while ((errno = 0, de = readdir(d))) {
		if (de->d_ino != ino || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		name = strdup(de->d_name);
		*err = name ? 0 : -ENOMEM;
		break;
	}
	if (!de && errno)
		*err = -errno;
	closedir(d);
	return name;
}

/* Put "/name" in front of the path at buf[*start..*size). */
static int prepend(char **buf, size_t *size, size_t *start, const char *name)
{
	size_t need = strlen(name) + 1, len = *size - *start, grown;
	char *bigger;

	if (need > *start) {
		grown = 2 * *size + need;
		bigger = malloc(grown);
		if (!bigger)
			return -ENOMEM;
		memcpy(bigger + grown - len, *buf + *start, len);
		free(*buf);
		*buf = bigger;
		*start = grown - len;
		*size = grown;
	}
	*start -= need;
	(*buf)[*start] = '/';
	memcpy(*buf + *start + 1, name, need - 1);
	return 0;
}

/*
 * One step up from dir: its name in its parent, and the parent in place of
 * dir (an O_PATH fd, as dir is). -EXDEV past the top of root's file
 * system, or of the whole tree.
 */
static char *step_up(int *dir, const struct stat *st, const struct stat *root, int *err)
{
	int parent = openat(*dir, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC), up_dir;
	struct stat up;

	if (parent < 0 || fstat(parent, &up)) {
		*err = -errno;
		goto out_close;
	}
	if (up.st_dev != root->st_dev || (up.st_dev == st->st_dev && up.st_ino == st->st_ino)) {
		*err = -EXDEV;
		goto out_close;
	}
	up_dir = openat(parent, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (up_dir < 0) {
		*err = -errno;
		goto out_close;
	}
	close(*dir);
	*dir = up_dir;
	return name_in(parent, st->st_ino, err); /* which closes parent */

out_close:
	if (parent >= 0)
		close(parent);
	return NULL;
}

char *dir_path_below(int root_fd, int dir_fd, int *err)
{
	struct stat root, st;
	size_t size = 256, start = size - 1;
	char *buf = NULL, *name, *path = NULL;
	int dir = openat(dir_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (dir < 0 || fstat(root_fd, &root)) {
		*err = -errno;
		goto out;
	}
	buf = malloc(size);
	if (!buf) {
		*err = -ENOMEM;
		goto out;
	}
	buf[start] = '\0';
	for (;;) {
		if (fstat(dir, &st)) {
			*err = -errno;
			goto out;
		}
		if (st.st_dev == root.st_dev && st.st_ino == root.st_ino)
			break;
		name = step_up(&dir, &st, &root, err);
		if (!name)
			goto out;
		*err = prepend(&buf, &size, &start, name);
		free(name);
		if (*err)
			goto out;
	}
	path = strdup(buf[start] ? buf + start : "/");
	*err = path ? 0 : -ENOMEM;
out:
	if (dir >= 0)
		close(dir);
	free(buf);
	return path;
}

/*
 * The cgroup's directory by its handle, and its path from /proc/self/fd;
 * where that cannot give it (a path of PATH_MAX bytes or more, deep in a
 * delegated subtree), by walking up from the directory.
 */
static char *open_by_id(int mount_fd, const char *root, uint64_t id, int *err)
{
	/* A file_handle with room for the 8 bytes of its f_handle. */
	char handle[sizeof(struct file_handle) + sizeof(uint64_t)] __attribute__((aligned(8)));
	struct file_handle *fh = (struct file_handle *)handle;
	char fd_path[64], target[PATH_MAX + 1], *path;
	size_t root_len = strlen(root);
	ssize_t n;
	int fd;

	fh->handle_bytes = sizeof(uint64_t);
	fh->handle_type = FILEID_KERNFS;
	memcpy(fh->f_handle, &id, sizeof(id));
	fd = open_by_handle_at(mount_fd, fh, O_PATH | O_CLOEXEC);
	if (fd < 0 && (errno == ESTALE || errno == ENOENT)) {
		*err = -ENOENT; /* gone, or never was */
		return NULL;
	}
	if (fd < 0) {
		/* Without CAP_DAC_READ_SEARCH, say: EPERM. Slow, but right. */
		static bool said;

		if (!said)
			log_warning("failed to open cgroups by their ids (%s): walking %s for each "
				    "new one instead",
				    strerror(errno), root);
		said = true;
		return walk_for(root, id, err);
	}
	snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
	/* The kernel gives at most PATH_MAX - 1 bytes: n < sizeof(target) - 1 is all of it. */
	n = readlink(fd_path, target, sizeof(target) - 1);
	if (n >= 0 && (size_t)n >= root_len && !strncmp(target, root, root_len) &&
	    ((size_t)n == root_len || target[root_len] == '/')) {
		target[n] = '\0';
		path = strdup(target[root_len] ? target + root_len : "/");
		*err = path ? 0 : -ENOMEM;
	} else {
		path = dir_path_below(mount_fd, fd, err); /* ENAMETOOLONG, or elsewhere than root */
	}
	close(fd);
	return path;
}

char *cgroup_path(const char *root, uint64_t id, int *err)
{
	struct statfs fs;
	int mount_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char *path;

	if (mount_fd < 0) {
		*err = -errno;
		return NULL;
	}
	if (!fstatfs(mount_fd, &fs) && fs.f_type == CGROUP2_SUPER_MAGIC)
		path = open_by_id(mount_fd, root, id, err);
	else
		path = walk_for(root, id, err);
	close(mount_fd);
	return path;
}

const char *cgroup_cache_path(struct cgroup_cache *c, uint64_t id, int *err)
{
	unsigned int slot;

	for (unsigned int i = 0; i < CGROUP_CACHE; i++) {
		if (c->entries[i].path && c->entries[i].id == id) {
			c->last = i;
			*err = 0;
			return c->entries[i].path;
		}
	}
	slot = c->next++ % CGROUP_CACHE;
	if (slot == c->last)
		slot = c->next++ % CGROUP_CACHE;
	free(c->entries[slot].path);
	c->entries[slot].id = id;
	c->entries[slot].path = cgroup_path(c->root, id, err);
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
