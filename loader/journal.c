// SPDX-License-Identifier: GPL-2.0
#include "journal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <syslog.h>

#include <systemd/sd-journal.h>

#include "event_json.h"
#include "json_writer.h"

/* More than a record has: ARGGUARD_<KEY> for each, MESSAGE, PRIORITY, SYSLOG_IDENTIFIER. */
#define MAX_FIELDS 48

/* A prepared entry: its fields, each NUL-terminated, one after the other. */
struct entry {
	size_t len;
	char fields[];
};

char *journal_fields(const struct record *r, size_t *len)
{
	char *message = record_message(r), priority[16], *fields;
	struct json_writer w;

	record_to_fields(r, &w);
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

/* In the pipeline's thread: the entry's fields. */
static void *journal_prepare(struct sink *s, const struct record *r)
{
	struct entry *entry = NULL;
	size_t len;
	char *fields = journal_fields(r, &len);

	(void)s;
	if (fields)
		entry = malloc(sizeof(*entry) + len);
	if (entry) {
		entry->len = len;
		memcpy(entry->fields, fields, len);
	}
	free(fields);
	return entry;
}

static int journal_send(struct sink *s, void *item)
{
	struct entry *entry = item;
	struct iovec iov[MAX_FIELDS];
	size_t off = 0;
	int n = 0;

	(void)s;
	while (off < entry->len && n < MAX_FIELDS) {
		size_t len = strlen(entry->fields + off);

		iov[n++] = (struct iovec){ .iov_base = entry->fields + off, .iov_len = len };
		off += len + 1;
	}
	return sd_journal_sendv(iov, n);
}

static void journal_close(struct sink *s)
{
	(void)s; /* nothing held: each entry is a datagram of its own */
}

static const struct sink_ops journal_ops = {
	.name = "journald",
	.prepare = journal_prepare,
	.send = journal_send,
	.release = free,
	.close = journal_close,
};

struct sink *journal_open(void)
{
	static struct sink journal = { .ops = &journal_ops };

	return &journal;
}
