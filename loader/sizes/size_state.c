// SPDX-License-Identifier: GPL-2.0
#include "size_state.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_reader.h"
#include "json_writer.h"
#include "size_json.h"
#include "size_report.h"

/* path's directory, into buf. */
static const char *dir_of(const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s", path);
	return dirname(buf);
}

/* Whether st is owner's and writable by it alone. */
static bool owners_alone(const struct stat *st, uid_t owner)
{
	return st->st_uid == owner && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

static int read_maps(const struct json_value *v, struct size_maps_id *m)
{
	const char *boot = json_str_of(json_get(v, "boot_id"));
	const char *start = json_str_of(json_get(v, "start"));
	uint64_t id;

	if (!boot || strlen(boot) >= sizeof(m->boot_id) || !json_u64_of(json_get(v, "id"), &id) ||
	    id > UINT32_MAX || !start || !size_time_parse(start, &m->start))
		return -EINVAL;
	snprintf(m->boot_id, sizeof(m->boot_id), "%s", boot);
	m->map_id = (uint32_t)id;
	return 0;
}

/* The text of a state file into st. */
static int parse_state(const char *text, size_t n, struct size_state *st, char *why, size_t len)
{
	struct json_value *root = json_parse(text, n, why, len);
	const struct json_value *carried;
	int err;

	if (!root)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	err = size_json_origin(root, &st->whole.origin, why, len);
	if (!err)
		err = size_json_counts(root, &st->whole, why, len);
	carried = json_get(root, "carried");
	if (!err && !carried) {
		snprintf(why, len, "no carried counts");
		err = -EINVAL;
	}
	st->carried.origin = st->whole.origin;
	if (!err)
		err = size_json_counts(carried, &st->carried, why, len);
	if (!err && read_maps(json_get(root, "maps"), &st->maps)) {
		snprintf(why, len, "expected maps: their boot_id, id and start");
		err = -EINVAL;
	}
	json_free(root);
	return err;
}

int size_state_read(const char *path, uid_t owner, struct size_state *st, char *why, size_t len)
{
	char dir_buf[4096], *text;
	struct stat st_dir, st_file;
	const char *dir = dir_of(path, dir_buf, sizeof(dir_buf));
	size_t n = 0;
	int fd, err;

	memset(st, 0, sizeof(*st));
	if (size_data_init(&st->whole) || size_data_init(&st->carried)) {
		size_state_free(st);
		snprintf(why, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		err = -errno;
		snprintf(why, len, "%s", errno == ELOOP ? "a symbolic link" : strerror(errno));
		goto fail;
	}
	if (lstat(dir, &st_dir) || !S_ISDIR(st_dir.st_mode) || !owners_alone(&st_dir, owner)) {
		snprintf(why, len, "its directory, %s, is not uid %u's and writable by it alone",
			 dir, (unsigned int)owner);
		err = -EPERM;
		goto fail;
	}
	if (fstat(fd, &st_file) || !S_ISREG(st_file.st_mode) || st_file.st_nlink != 1 ||
	    !owners_alone(&st_file, owner)) {
		snprintf(why, len,
			 "not a regular file of one name, uid %u's and writable by it alone",
			 (unsigned int)owner);
		err = -EPERM;
		goto fail;
	}
	err = size_json_slurp(fd, &text, &n, why, len);
	if (err)
		goto fail;
	err = parse_state(text, n, st, why, len);
	free(text);
	if (err)
		goto fail;
	close(fd);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	size_state_free(st);
	return err;
}

void size_state_free(struct size_state *st)
{
	size_data_free(&st->whole);
	size_data_free(&st->carried);
}

bool size_maps_same(const struct size_maps_id *a, const struct size_maps_id *b)
{
	return a->map_id == b->map_id && !strcmp(a->boot_id, b->boot_id);
}

const struct size_data *size_state_before(const struct size_state *st,
					  const struct size_maps_id *live)
{
	return size_maps_same(&st->maps, live) ? &st->carried : &st->whole;
}

static char *state_text(const struct size_data *whole, const struct size_data *carried,
			const struct size_maps_id *maps, size_t *len)
{
	struct json_writer w;
	char start[32];

	json_writer_init(&w, false);
	json_begin_object(&w, NULL);
	size_report_write_envelope(&w, &whole->origin);
	size_report_write_counts(&w, whole, NULL);
	json_begin_object(&w, "carried");
	size_report_write_counts(&w, carried, NULL);
	json_end_object(&w);
	json_begin_object(&w, "maps");
	json_str(&w, "boot_id", maps->boot_id);
	json_u64(&w, "id", maps->map_id);
	size_time_format(start, sizeof(start), maps->start);
	json_str(&w, "start", start);
	json_end_object(&w);
	json_end_object(&w);
	return json_writer_finish(&w, len);
}

/* All len bytes of text to fd. */
static int write_all(int fd, const char *text, size_t len)
{
	while (len) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		text += n;
		len -= n;
	}
	return 0;
}

int size_state_write(const char *path, const struct size_data *whole,
		     const struct size_data *carried, const struct size_maps_id *maps)
{
	char dir_buf[4096], tmp[4096];
	const char *dir = dir_of(path, dir_buf, sizeof(dir_buf));
	size_t len;
	char *text = state_text(whole, carried, maps, &len);
	int fd = -1, err = 0;

	if (!text)
		return -ENOMEM;
	if (mkdir(dir, 0700) && errno != EEXIST) {
		err = -errno;
		goto out;
	}
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	/* Left by a write that was killed: made afresh, never written through. */
	if (unlink(tmp) && errno != ENOENT) {
		err = -errno;
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = write_all(fd, text, len);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		goto out;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd))
		err = -errno;
	if (fd >= 0)
		close(fd);
out:
	free(text);
	return err;
}

int size_state_lock(const char *path)
{
	char dir_buf[4096];
	const char *dir = dir_of(path, dir_buf, sizeof(dir_buf));
	int fd, err;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX)) {
		if (errno == EINTR)
			continue;
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

void size_state_unlock(int fd)
{
	close(fd); /* drops the lock */
}

int size_state_keep_ruled(const char *path, uid_t owner, const struct policy *p)
{
	struct size_state st;
	char why[SIZE_JSON_WHY_MAX];
	int lock = size_state_lock(path), err;

	if (lock < 0)
		return lock;
	err = size_state_read(path, owner, &st, why, sizeof(why));
	if (err == -ENOENT) {
		err = 0;
		goto out;
	}
	if (err)
		goto out;
	size_data_keep_ruled(&st.whole, p);
	size_data_keep_ruled(&st.carried, p);
	err = size_state_write(path, &st.whole, &st.carried, &st.maps);
	size_state_free(&st);
out:
	size_state_unlock(lock);
	return err;
}
