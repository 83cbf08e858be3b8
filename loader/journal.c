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

#define MAX_FIELDS 40

static const char *field(json_object *obj, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(obj, key, &v) && v ? json_object_get_string(v) : "?";
}

static int priority(const char *verdict)
{
	if (!strcmp(verdict, "deny") || !strcmp(verdict, "kernel-refused"))
		return LOG_WARNING;
	return LOG_NOTICE;
}

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

int event_to_journal(json_object *obj)
{
	struct iovec iov[MAX_FIELDS + 3];
	struct fields f = { .n = 0 };
	int ret = 0;

	json_object_object_foreach(obj, key, value)
	{
		if (!value || f.n == MAX_FIELDS)
			continue;
		ret = add(&f, "ARGGUARD_%s=%s", key, json_object_get_string(value));
		if (ret)
			goto out;
		for (char *c = f.text[f.n - 1] + strlen("ARGGUARD_"); *c != '='; c++)
			*c = toupper((unsigned char)*c);
	}
	if (!strcmp(field(obj, "verdict"), "summary"))
		ret = add(&f, "MESSAGE=argguard: %s", field(obj, "message"));
	else
		ret = add(&f, "MESSAGE=argguard: %s exec of %s (%s %s, limit %s)",
			  field(obj, "verdict"), field(obj, "filename"), field(obj, "scope"),
			  field(obj, "limit"), field(obj, "limit_value"));
	if (!ret)
		ret = add(&f, "PRIORITY=%d", priority(field(obj, "verdict")));
	if (!ret)
		ret = add(&f, "SYSLOG_IDENTIFIER=argguard");
	if (ret)
		goto out;
	for (int i = 0; i < f.n; i++)
		iov[i] = (struct iovec){ .iov_base = f.text[i], .iov_len = strlen(f.text[i]) };
	ret = sd_journal_sendv(iov, f.n);
out:
	for (int i = 0; i < f.n; i++)
		free(f.text[i]);
	return ret;
}
