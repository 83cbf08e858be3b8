// SPDX-License-Identifier: GPL-2.0
/*
 * A walk of the cgroup tree by descriptors. glibc's nftw() opens by full
 * path once it is deeper than its descriptor budget, and fails with
 * ENAMETOOLONG past PATH_MAX: a tree that any user with a delegated subtree
 * can make.
 */
#include "cgroup_walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* A directory being read, and the length of its path in walk.path. */
struct level {
	DIR *dir;
	size_t len;
};

struct walk {
	const char *root;
	size_t max_len;
	dev_t dev; /* root's file system */
	cgroup_walk_fn fn;
	void *data;
	char *path; /* relative to root; "" for root itself */
	size_t size; /* of path */
	struct level *levels;
	size_t depth, n_levels;
};

/* Room in w for a path of len bytes, and for a level more than it holds. */
static int make_room(struct walk *w, size_t len)
{
	size_t size = w->size;
	void *more;

	while (size <= len)
		size *= 2;
	if (size != w->size) {
		more = realloc(w->path, size);
		if (!more)
			return -ENOMEM;
		w->path = more;
		w->size = size;
	}
	if (w->depth == w->n_levels) {
		more = realloc(w->levels, 2 * w->n_levels * sizeof(*w->levels));
		if (!more)
			return -ENOMEM;
		w->levels = more;
		w->n_levels *= 2;
	}
	return 0;
}

/* Whether the entry de of dir is a directory, and not a symlink to one. */
static int is_dir(DIR *dir, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	return S_ISDIR(st.st_mode);
}

/*
 * The top directory's entry de, whose path is the first len bytes of
 * w->path: shown to fn, then put on top to be read. Returns fn's value, or
 * 0 if the entry is left out.
 */
static int enter(struct walk *w, const struct dirent *de, size_t len)
{
	DIR *top = w->levels[w->depth - 1].dir, *dir;
	struct stat st;
	int fd, ret = is_dir(top, de);

	if (ret < 0)
		log_warning("failed to stat %s%s: %s; not walked below it", w->root, w->path,
			    strerror(-ret));
	if (ret <= 0)
		return 0;
	ret = 0;
	fd = openat(dirfd(top), de->d_name, DIR_FLAGS);
	if (fd < 0 || fstat(fd, &st)) {
		log_warning("failed to open %s%s: %s; not walked below it", w->root, w->path,
			    strerror(errno));
		goto out_close;
	}
	if (st.st_dev != w->dev)
		goto out_close; /* a mount point */
	ret = w->fn(w->path, st.st_ino, w->data);
	if (ret)
		goto out_close;
	dir = fdopendir(fd);
	if (!dir) {
		log_warning("failed to read %s%s: %s; not walked below it", w->root, w->path,
			    strerror(errno));
		goto out_close;
	}
	w->levels[w->depth++] = (struct level){ .dir = dir, .len = len };
	return 0;

out_close:
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * The top directory is read to its end, or to err. Returns 0, or a negative
 * errno if it is the root that cannot be read.
 */
static int leave(struct walk *w, int err)
{
	struct level *top = &w->levels[w->depth - 1];

	if (err && w->depth == 1)
		log_error("failed to read %s: %s", w->root, strerror(err));
	else if (err) {
		w->path[top->len] =
			'\0'; /* the directory's own path; log_at() escapes what users named */
		log_warning("failed to read %s%s: %s; not walked below it", w->root, w->path,
			    strerror(err));
	}
	closedir(top->dir);
	w->depth--;
	return w->depth ? 0 : -err;
}

/*
 * One step: the top directory's next entry, entered if it is a directory
 * within max_len; or, at its end, the directory is left. Returns fn's
 * value, or a negative errno if the root cannot be read.
 */
static int step(struct walk *w)
{
	size_t at = w->levels[w->depth - 1].len, len;
	struct dirent *de;
	int err;

	errno = 0;
	de = readdir(w->levels[w->depth - 1].dir);
	if (!de)
		return leave(w, errno);
	if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
		return 0;
	len = at + 1 + strlen(de->d_name);
	if (len > w->max_len)
		return 0;
	err = make_room(w, len);
	if (err) {
		log_error("failed to walk %s: %s", w->root, strerror(-err));
		return err;
	}
	w->path[at] = '/';
	memcpy(w->path + at + 1, de->d_name, len - at); /* and its NUL */
	return enter(w, de, len);
}

int cgroup_walk(const char *root, size_t max_len, cgroup_walk_fn fn, void *data)
{
	struct walk w = { .root = root, .max_len = max_len, .fn = fn, .data = data };
	struct stat st;
	int fd = -1, ret;

	w.size = 256;
	w.n_levels = 16;
	w.levels = calloc(w.n_levels, sizeof(*w.levels));
	w.path = malloc(w.size);
	if (!w.levels || !w.path) {
		ret = -ENOMEM;
		log_error("failed to walk %s: %s", root, strerror(-ret));
		goto out_free;
	}
	fd = open(root, DIR_FLAGS);
	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		log_error("failed to open %s: %s", root, strerror(-ret));
		goto out_close;
	}
	w.dev = st.st_dev;
	ret = fn("/", st.st_ino, data);
	if (ret)
		goto out_close;
	w.levels[0] = (struct level){ .dir = fdopendir(fd), .len = 0 };
	if (!w.levels[0].dir) {
		ret = -errno;
		log_error("failed to read %s: %s", root, strerror(-ret));
		goto out_close;
	}
	fd = -1; /* the stream's now */
	w.depth = 1;
	while (w.depth && !ret)
		ret = step(&w);
	while (w.depth)
		closedir(w.levels[--w.depth].dir);
out_close:
	if (fd >= 0)
		close(fd);
out_free:
	free(w.levels);
	free(w.path);
	return ret;
}
