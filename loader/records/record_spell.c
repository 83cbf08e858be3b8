// SPDX-License-Identifier: GPL-2.0
/* How records spell what the sinks pass on (record_spell.h). */
#define _GNU_SOURCE /* strerrorname_np(), asprintf() */
#include "record_spell.h"
#include "names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool record_is_utf8(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		size_t n;
		uint32_t cp;

		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (len - i <= n)
			return false;
		for (size_t k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		/* Reject overlong forms, surrogates and values past U+10FFFF. */
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return false;
		i += n + 1;
	}
	return true;
}

/* The bytes at s as hex digits, two a byte. free() it; NULL when out of memory. */
static char *hex_of(const char *s, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	char *hex = malloc(2 * len + 1);

	if (!hex)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		hex[2 * i] = digits[(unsigned char)s[i] >> 4];
		hex[2 * i + 1] = digits[(unsigned char)s[i] & 15];
	}
	hex[2 * len] = '\0';
	return hex;
}

/*
 * A kernel string of at most max bytes: the bytes themselves if they are
 * UTF-8, else their hex digits (and *hex is true); free() it, NULL when out
 * of memory.
 */
static char *record_string(const char *buf, size_t max, bool *hex)
{
	size_t len = strnlen(buf, max);

	*hex = !record_is_utf8(buf, len);
	return *hex ? hex_of(buf, len) : strndup(buf, len);
}

const char *record_errno(int32_t err, char *buf, size_t len)
{
	const char *name = strerrorname_np(err);

	if (name)
		return name;
	snprintf(buf, len, "%d", err);
	return buf;
}

const char *record_sizes(const struct argguard_event *e)
{
	if (event_has_exact_sizes(e))
		return "exact";
	return event_has_total_bytes(e) ? "derived" : "unknown";
}

bool record_interpreter(const struct argguard_event *e, const char **name, size_t *len)
{
	const char *p = e->shebang, *end = e->shebang + sizeof(e->shebang);

	if (!(e->flags & ARGGUARD_EV_SCRIPT))
		return false;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	*name = p;
	while (p < end && *p && *p != ' ' && *p != '\t' && *p != '\n')
		p++;
	*len = p - *name;
	return true;
}

uint64_t record_lost(const struct record_losses *n)
{
	return n->ring_full + n->log_backlog + n->malformed + n->held_at_exit;
}

void record_top_uids(const struct record_losses *n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < RECORD_TOP_UIDS && n->top_uids[i].n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%u:%llu", i ? "," : "",
				 n->top_uids[i].uid, (unsigned long long)n->top_uids[i].n);
}

void record_summary_message(const struct record_losses *n, uint64_t interval_ns, char *buf,
			    size_t len)
{
	char top[RECORD_TOP_UIDS * 32], by_uid[RECORD_TOP_UIDS * 40] = "", others[160] = "";
	size_t used = 0;

	record_top_uids(n, top, sizeof(top));
	if (top[0])
		snprintf(by_uid, sizeof(by_uid), " (uid:count %s)", top);
	for (int i = 0; i < RECORD_OTHER_SINKS; i++)
		if (n->other_sinks[i].n && used < sizeof(others))
			used += snprintf(others + used, sizeof(others) - used, "; %s lost %llu",
					 n->other_sinks[i].name,
					 (unsigned long long)n->other_sinks[i].n);
	snprintf(buf, len,
		 "suppressed %llu events%s and lost %llu (ring buffer full %llu, "
		 "log backlog full %llu, malformed %llu, held at exit %llu)%s in the last %.1f s",
		 (unsigned long long)n->suppressed, by_uid, (unsigned long long)record_lost(n),
		 (unsigned long long)n->ring_full, (unsigned long long)n->log_backlog,
		 (unsigned long long)n->malformed, (unsigned long long)n->held_at_exit, others,
		 interval_ns / 1e9);
}

char *record_message(const struct record *r)
{
	const struct argguard_event *e = r->event;
	char summary[400], *filename, *message;
	bool hex;
	int n;

	if (r->kind == RECORD_SUMMARY) {
		record_summary_message(&r->losses, r->interval_ns, summary, sizeof(summary));
		return strdup(summary);
	}
	filename = record_string(e->filename, sizeof(e->filename), &hex);
	if (!filename)
		return NULL;
	n = asprintf(&message, "%s exec of %s (%s %s, limit %llu)", verdict_name(e->verdict),
		     filename, scope_name(e->scope), limit_name(e->limit_kind),
		     (unsigned long long)e->limit);
	free(filename);
	return n < 0 ? NULL : message;
}
