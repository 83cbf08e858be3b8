// SPDX-License-Identifier: GPL-2.0
/*
 * A CRI container's names from its OCI bundle's annotations. Every step of
 * the way is opened with O_NOFOLLOW below a descriptor already checked, and
 * checked in turn (root's or owner's, no group or other may write it), so
 * that no one but root can have put a name there; config.json is opened
 * with O_NONBLOCK (a FIFO there blocks nobody) and read only as a regular
 * file, within CRI_BUNDLE_MAX bytes: on /run's tmpfs, at once.
 */
#define _GNU_SOURCE
#include "cri_names.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_reader.h"

/* How many namespaces of containerd's to look in, at most. */
#define CRI_MAX_NAMESPACES 64

static bool trusted(const struct stat *st, uid_t owner)
{
	return (st->st_uid == 0 || st->st_uid == owner) && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* name (one component) below dir_fd, opened with flags and trusted; -errno if not. */
static int open_trusted_at(int dir_fd, const char *name, int flags, uid_t owner)
{
	struct stat st;
	int fd;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	fd = openat(dir_fd, name, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP || errno == ENOTDIR ? -EPERM : -errno; /* a symlink */
	if (fstat(fd, &st)) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (!trusted(&st, owner) ||
	    ((flags & O_DIRECTORY) ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int cri_open_trusted_dir(const char *path, uid_t owner)
{
	char buf[PATH_MAX], *save = NULL, *name;
	struct stat st;
	int fd, next;

	if (path[0] != '/' || strlen(path) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, path);
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !trusted(&st, owner)) {
		close(fd);
		return -EPERM;
	}
	for (name = strtok_r(buf, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		next = open_trusted_at(fd, name, O_RDONLY | O_DIRECTORY, owner);
		close(fd);
		if (next < 0)
			return next;
		fd = next;
	}
	return fd;
}

static char *dup_annotation(const struct json_value *annotations, const char *key, int *err)
{
	const char *s = json_str_of(json_get(annotations, key));
	char *copy;

	if (!s)
		return NULL;
	copy = strdup(s);
	if (!copy)
		*err = -ENOMEM;
	return copy;
}

int cri_names_parse(const char *text, size_t len, struct cri_names *n)
{
	const struct json_value *annotations;
	struct json_value *root;
	char why[128];
	int err = 0;

	*n = (struct cri_names){ 0 };
	root = json_parse(text, len, why, sizeof(why));
	if (!root)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	if (root->type != JSON_OBJECT) {
		json_free(root);
		return -EINVAL;
	}
	annotations = json_get(root, "annotations");
	if (annotations && annotations->type == JSON_OBJECT) {
		n->pod = dup_annotation(annotations, "io.kubernetes.cri.sandbox-name", &err);
		n->namespace =
			dup_annotation(annotations, "io.kubernetes.cri.sandbox-namespace", &err);
		n->name = dup_annotation(annotations, "io.kubernetes.cri.container-name", &err);
		n->image = dup_annotation(annotations, "io.kubernetes.cri.image-name", &err);
	}
	json_free(root);
	if (err)
		cri_names_free(n);
	return err;
}

void cri_names_free(struct cri_names *n)
{
	free(n->pod);
	free(n->namespace);
	free(n->name);
	free(n->image);
	*n = (struct cri_names){ 0 };
}

/* config.json below the bundle directory bundle_fd, parsed. */
static int read_bundle(int bundle_fd, uid_t owner, struct cri_names *n)
{
	size_t len = 0;
	ssize_t got;
	char *text;
	int fd, err;

	fd = open_trusted_at(bundle_fd, "config.json", O_RDONLY | O_NONBLOCK, owner);
	if (fd < 0)
		return fd;
	text = malloc(CRI_BUNDLE_MAX + 1);
	if (!text) {
		close(fd);
		return -ENOMEM;
	}
	/* Up to one byte past the bound: a file that has it is too big, whatever fstat said. */
	while (len <= CRI_BUNDLE_MAX &&
	       (got = read(fd, text + len, CRI_BUNDLE_MAX + 1 - len)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			goto out;
		}
		len += (size_t)got;
	}
	err = len > CRI_BUNDLE_MAX ? -EFBIG : cri_names_parse(text, len, n);
out:
	free(text);
	close(fd);
	return err;
}

int cri_names_read(int tasks_fd, const char *id, uid_t owner, struct cri_names *n)
{
	int err = -ENOENT, dup_fd, ns_fd, bundle_fd, seen = 0;
	struct dirent *d;
	DIR *dir;

	*n = (struct cri_names){ 0 };
	dup_fd = fcntl(tasks_fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return -errno;
	dir = fdopendir(dup_fd);
	if (!dir) {
		close(dup_fd);
		return -errno;
	}
	while (err == -ENOENT && seen < CRI_MAX_NAMESPACES && (d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		seen++;
		ns_fd = open_trusted_at(tasks_fd, d->d_name, O_RDONLY | O_DIRECTORY, owner);
		if (ns_fd < 0)
			continue; /* not root's: nothing of root's containerd there */
		bundle_fd = open_trusted_at(ns_fd, id, O_RDONLY | O_DIRECTORY, owner);
		close(ns_fd);
		if (bundle_fd == -ENOENT)
			continue;
		err = bundle_fd < 0 ? bundle_fd : read_bundle(bundle_fd, owner, n);
		if (bundle_fd >= 0)
			close(bundle_fd);
	}
	closedir(dir);
	return err;
}

/* Whether root made the container's own cgroup: a user's delegated subtree is theirs to name. */
static bool cgroup_is_roots(const struct cri_cache *cache, const char *cgroup,
			    const struct container *c)
{
	char path[PATH_MAX];
	struct stat st;
	int n;

	n = snprintf(path, sizeof(path), "%s%.*s", cache->cgroup_root, (int)c->cgroup_len, cgroup);
	if (n < 0 || (size_t)n >= sizeof(path) || lstat(path, &st))
		return false;
	return S_ISDIR(st.st_mode) && st.st_uid == 0;
}

const struct cri_names *cri_cache_names(struct cri_cache *cache, const char *cgroup,
					const struct container *c)
{
	unsigned int i;
	int tasks_fd, err;

	if (!cgroup || (strcmp(c->runtime, "containerd") && strcmp(c->runtime, "cri")) ||
	    c->rootless || !cgroup_is_roots(cache, cgroup, c))
		return NULL;
	for (i = 0; i < CRI_CACHE; i++)
		if (!strcmp(cache->entries[i].id, c->id))
			return cache->entries[i].found ? &cache->entries[i].names : NULL;
	i = cache->next++ % CRI_CACHE;
	cri_names_free(&cache->entries[i].names);
	strcpy(cache->entries[i].id, c->id);
	cache->entries[i].found = false;
	tasks_fd = cri_open_trusted_dir(cache->tasks_dir, cache->owner);
	err = tasks_fd < 0
		      ? tasks_fd
		      : cri_names_read(tasks_fd, c->id, cache->owner, &cache->entries[i].names);
	if (tasks_fd >= 0)
		close(tasks_fd);
	cache->entries[i].found = !err;
	if (err == -ENOMEM || err == -EIO)
		cache->entries[i].id[0] = '\0'; /* no answer: the next record asks again */
	return cache->entries[i].found ? &cache->entries[i].names : NULL;
}

void cri_cache_free(struct cri_cache *cache)
{
	for (unsigned int i = 0; i < CRI_CACHE; i++)
		cri_names_free(&cache->entries[i].names);
}
