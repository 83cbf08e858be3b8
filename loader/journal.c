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
	(void)s;
	return journal_fields(r, NULL);
}

/* The fields one after the other, up to the empty one that ends them. */
static int journal_send(struct sink *s, void *item)
{
	char *fields = item;
	struct iovec iov[MAX_FIELDS];
	int n = 0;

	(void)s;
	for (char *f = fields; *f && n < MAX_FIELDS; f += strlen(f) + 1)
		iov[n++] = (struct iovec){ .iov_base = f, .iov_len = strlen(f) };
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
