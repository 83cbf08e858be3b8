// SPDX-License-Identifier: GPL-2.0
#include "journal.h"

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include "event_json.h"
#include "json_writer.h"
#include "log.h"
#include "record_spell.h"

/* journald's native protocol (systemd.journal-fields(7)), spoken without libsystemd. */
#define JOURNAL_SOCKET "/run/systemd/journal/socket"
/* What libsystemd asks for: the kernel caps it at net.core.wmem_max. */
#define JOURNAL_SNDBUF (8 << 20)

struct journal {
	struct sink sink;
	int fd; /* -1 until the first send */
};

char *journal_fields(const struct record *r, size_t *len)
{
	char *message, priority[16], *fields;
	struct json_writer w;

	record_to_fields(r, &w);
	message = record_message(r);
	if (message)
		json_field2(&w, "MESSAGE", "argguard: ", message);
	snprintf(priority, sizeof(priority), "%d", record_is_failure(r) ? LOG_WARNING : LOG_NOTICE);
	json_field(&w, "PRIORITY", priority);
	json_field(&w, "SYSLOG_IDENTIFIER", "argguard");
	fields = json_writer_finish(&w, len);
	if (!message) {
		free(fields);
		fields = NULL;
	}
	free(message);
	return fields;
}

static char *put(char *out, const void *bytes, size_t n)
{
	memcpy(out, bytes, n);
	return out + n;
}

/*
 * A field with a newline in its value goes as the name, a newline, the
 * value's length (64 bits, little-endian), the value and a newline; any
 * other as NAME=value and a newline (journald's native protocol).
 */
struct journal_datagram *journal_datagram(const char *fields)
{
	struct journal_datagram *d;
	size_t size = sizeof(*d);
	const char *f, *eq;
	uint64_t le_len;
	char *out;

	for (f = fields; *f; f += strlen(f) + 1)
		size += strlen(f) + 1 + sizeof(le_len);
	d = malloc(size);
	if (!d)
		return NULL;
	out = d->bytes;
	for (f = fields; *f; f += strlen(f) + 1) {
		eq = strchr(f, '=');
		if (!eq || eq == f || memchr(f, '\n', eq - f)) {
			free(d); /* no NAME=: journald would misread the rest */
			return NULL;
		}
		if (!strchr(eq, '\n')) {
			out = put(out, f, strlen(f));
		} else {
			out = put(out, f, eq - f);
			*out++ = '\n';
			le_len = htole64(strlen(eq + 1));
			out = put(out, &le_len, sizeof(le_len));
			out = put(out, eq + 1, strlen(eq + 1));
		}
		*out++ = '\n';
	}
	d->len = out - d->bytes;
	return d;
}

/* In the pipeline's thread: the entry, ready to send. */
static void *journal_prepare(struct sink *s, const struct record *r)
{
	char *fields = journal_fields(r, NULL);
	struct journal_datagram *d = fields ? journal_datagram(fields) : NULL;

	(void)s;
	free(fields);
	return d;
}

static int journal_connect(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX, .sun_path = JOURNAL_SOCKET };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), sndbuf = JOURNAL_SNDBUF;

	if (fd < 0)
		return -errno;
	/* Room for a burst while journald catches up; what it cannot get is no failure. */
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* One datagram an entry; blocks while journald's queue is full, as a sink may. */
static int journal_send(struct sink *s, void *item)
{
	struct journal *j = sink_container(s, struct journal);
	struct journal_datagram *d = item;

	if (j->fd < 0)
		j->fd = journal_connect();
	if (j->fd < 0)
		return j->fd;
	if (send(j->fd, d->bytes, d->len, MSG_NOSIGNAL) >= 0)
		return 0;
	if (errno != ECONNREFUSED && errno != ENOTCONN)
		return -errno;
	/* journald restarted: its socket is a new one. Once more, on that. */
	close(j->fd);
	j->fd = journal_connect();
	if (j->fd < 0)
		return j->fd;
	return send(j->fd, d->bytes, d->len, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

static void journal_close(struct sink *s)
{
	struct journal *j = sink_container(s, struct journal);

	if (j->fd >= 0)
		close(j->fd);
}

static const struct sink_ops journal_ops = SINK_OPS(journal, "journald");

struct sink *journal_open(void)
{
	struct journal *j = sink_new(struct journal, &journal_ops);

	if (!j)
		return NULL;
	j->fd = -1;
	return &j->sink;
}
