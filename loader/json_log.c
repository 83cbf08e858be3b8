// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON-lines log: one record a line, appended whole. While the file
 * cannot be written (a full disk), records are held back, oldest first, and
 * written as soon as it can; past MAX_PENDING of them, they are given up on
 * and counted.
 */
#define _GNU_SOURCE /* asprintf() */
#include "json_log.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event_json.h"
#include "log.h"
#include "record_pipeline.h"

#define MAX_PENDING 4096 /* records held while the log cannot be written */

struct json_log {
	struct sink sink; /* sink.gave_up: records given up on because pending was full */
	const char *path;
	int fd;
	char *pending[MAX_PENDING]; /* lines, oldest first, waiting for space */
	unsigned int n_pending;
	uint64_t write_errors; /* failed writes, each retried later */
};

/*
 * Open the log for appending: root:adm 0640, so admins in group adm can
 * read it, as with the rest of /var/log.
 */
static int open_log(const char *path)
{
	struct group *adm = getgrnam("adm");
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);

	if (fd < 0) {
		log_error("failed to open log %s: %s", path, strerror(errno));
		return -1;
	}
	if (adm && fchown(fd, 0, adm->gr_gid))
		log_error("failed to give %s to group adm: %s", path, strerror(errno));
	/* Only argguard's own directory: --log may point anywhere. */
	if (adm && !strncmp(path, ARGGUARD_LOG_DIR "/", strlen(ARGGUARD_LOG_DIR "/")) &&
	    chown(ARGGUARD_LOG_DIR, 0, adm->gr_gid))
		log_error("failed to give %s to group adm: %s", ARGGUARD_LOG_DIR, strerror(errno));
	if (fchmod(fd, 0640))
		log_error("failed to make %s mode 0640: %s", path, strerror(errno));
	return fd;
}

/* SIGUSR1: after logrotate moved the log away, write to a new one. */
static void json_log_reopen(struct sink *s)
{
	struct json_log *log = sink_container(s, struct json_log);
	int fd = open_log(log->path);

	if (fd < 0)
		return; /* keep writing where we were */
	close(log->fd);
	log->fd = fd;
}

/*
 * Append one line whole, or not at all: a short write (disk full) is cut
 * back so that the file never holds half a record.
 */
static bool append_line(struct json_log *log, const char *line)
{
	size_t len = strlen(line);
	ssize_t n = write(log->fd, line, len);
	off_t after;

	if (n == (ssize_t)len)
		return true;
	/* O_APPEND: the short write ended at the end of the file. */
	after = n > 0 ? lseek(log->fd, 0, SEEK_CUR) : -1;
	if (after >= n && ftruncate(log->fd, after - n))
		log_error("failed to cut a partial record from %s: %s", log->path, strerror(errno));
	if (!log->write_errors++ || log->n_pending == 0)
		log_error("failed to write %s: %s; holding records until it can be written",
			  log->path, n < 0 ? strerror(errno) : "short write");
	return false;
}

/* Write what is held back, oldest first; stop at the first failure. */
static void flush_pending(struct json_log *log)
{
	unsigned int done = 0;

	while (done < log->n_pending && append_line(log, log->pending[done]))
		free(log->pending[done++]);
	memmove(log->pending, log->pending + done, (log->n_pending - done) * sizeof(char *));
	log->n_pending -= done;
	if (done && !log->n_pending)
		log_info("%s is writable again: wrote %u held records; "
			 "%llu failed writes since start",
			 log->path, done, (unsigned long long)log->write_errors);
}

/* A record's line, newline included; for a summary, the totals it brings the log up to. */
struct log_item {
	bool summary;
	uint64_t suppressed, ring_full;
	char line[];
};

/* In the pipeline's thread: the record's line. */
static void *json_log_prepare(struct sink *s, const struct record *r)
{
	size_t len;
	char *line = record_to_json(r, &len);
	struct log_item *item = line ? malloc(sizeof(*item) + len + 2) : NULL;

	(void)s;
	if (item) {
		item->summary = r->kind == RECORD_SUMMARY;
		item->suppressed = r->mark_suppressed;
		item->ring_full = r->mark_ring_full;
		memcpy(item->line, line, len);
		memcpy(item->line + len, "\n", 2);
	}
	free(line);
	return item;
}

/* One line, appended, or held back behind those already held. */
static int json_log_send(struct sink *s, void *it)
{
	struct json_log *log = sink_container(s, struct json_log);
	struct log_item *item = it;
	char *line = item->line;

	flush_pending(log);
	if (!log->n_pending && append_line(log, line)) {
		if (item->summary)
			record_pipeline_save_reported(item->suppressed, item->ring_full, 0);
		return 0;
	}
	if (log->n_pending == MAX_PENDING) {
		__atomic_fetch_add(&log->sink.gave_up, 1, __ATOMIC_RELAXED);
		return 0;
	}
	log->pending[log->n_pending] = strdup(line);
	if (!log->pending[log->n_pending])
		return -ENOMEM;
	log->n_pending++;
	return 0;
}

static void json_log_flush(struct sink *s)
{
	flush_pending(sink_container(s, struct json_log));
}

static void json_log_close(struct sink *s)
{
	struct json_log *log = sink_container(s, struct json_log);

	close(log->fd);
	for (unsigned int i = 0; i < log->n_pending; i++)
		free(log->pending[i]);
	free(log);
}

static const struct sink_ops json_log_ops = {
	.name = "log",
	.prepare = json_log_prepare,
	.send = json_log_send,
	.release = free,
	.flush = json_log_flush,
	.reopen = json_log_reopen,
	.close = json_log_close,
};

struct sink *json_log_open(const char *path)
{
	struct json_log *log = calloc(1, sizeof(*log));

	if (!log) {
		log_error("failed to open log %s: %s", path, strerror(ENOMEM));
		return NULL;
	}
	log->fd = open_log(path);
	if (log->fd < 0) {
		free(log);
		return NULL;
	}
	log->sink.ops = &json_log_ops;
	log->path = path;
	return &log->sink;
}
