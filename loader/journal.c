// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* vasprintf() */
#include "journal.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <syslog.h>

#include <systemd/sd-journal.h>

#include "event_json.h"

#define MAX_FIELDS 40

struct fields {
	char *text[MAX_FIELDS + 3];
	int n;
};

static __attribute__((format(printf, 2, 3))) int add(struct fields *f, const char *fmt, ...)
{
	va_list ap;
	int ret;

	if (f->n == MAX_FIELDS + 3)
		return -E2BIG;
	va_start(ap, fmt);
	ret = vasprintf(&f->text[f->n], fmt, ap);
	va_end(ap);
	if (ret < 0)
		return -ENOMEM;
	f->n++;
	return 0;
}

static void journal_release(void *item)
{
	struct fields *f = item;

	for (int i = 0; f && i < f->n; i++)
		free(f->text[i]);
	free(f);
}

/* In the pipeline's thread: the entry's fields, ARGGUARD_<KEY> for each key of the JSON. */
static void *journal_prepare(struct sink *s, const struct record *r)
{
	struct fields *f = calloc(1, sizeof(*f));
	char *message = NULL;
	int ret = f ? 0 : -ENOMEM;

	(void)s;
	if (ret)
		return NULL;
	json_object_object_foreach(r->json, key, value)
	{
		if (!value || f->n == MAX_FIELDS)
			continue;
		ret = add(f, "ARGGUARD_%s=%s", key, json_object_get_string(value));
		if (ret)
			goto out;
		for (char *c = f->text[f->n - 1] + strlen("ARGGUARD_"); *c != '='; c++)
			*c = toupper((unsigned char)*c);
	}
	message = record_message(r);
	ret = message ? add(f, "MESSAGE=argguard: %s", message) : -ENOMEM;
	if (!ret)
		ret = add(f, "PRIORITY=%d", record_is_failure(r) ? LOG_WARNING : LOG_NOTICE);
	if (!ret)
		ret = add(f, "SYSLOG_IDENTIFIER=argguard");
out:
	free(message);
	if (ret) {
		journal_release(f);
		return NULL;
	}
	return f;
}

static int journal_send(struct sink *s, void *item)
{
	struct fields *f = item;
	struct iovec iov[MAX_FIELDS + 3];

	(void)s;
	for (int i = 0; i < f->n; i++)
		iov[i] = (struct iovec){ .iov_base = f->text[i], .iov_len = strlen(f->text[i]) };
	return sd_journal_sendv(iov, f->n);
}

static void journal_close(struct sink *s)
{
	(void)s; /* nothing held: each entry is a datagram of its own */
}

static const struct sink_ops journal_ops = {
	.name = "journald",
	.prepare = journal_prepare,
	.send = journal_send,
	.release = journal_release,
	.close = journal_close,
};

struct sink *journal_open(void)
{
	static struct sink journal = { .ops = &journal_ops };

	return &journal;
}
