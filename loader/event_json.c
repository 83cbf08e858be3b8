// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* strerrorname_np(), asprintf() */
#include "event_json.h"
#include "names.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool is_utf8(const unsigned char *s, size_t len)
{
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
	char *hex = malloc(2 * len + 1);

	if (!hex)
		return NULL;
	for (size_t i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", (unsigned char)s[i]);
	hex[2 * len] = '\0';
	return hex;
}

char *record_string(const char *buf, size_t max, bool *hex)
{
	size_t len = strnlen(buf, max);

	*hex = !is_utf8((const unsigned char *)buf, len);
	return *hex ? hex_of(buf, len) : strndup(buf, len);
}

/*
 * Add a kernel string of at most max bytes. Bytes that are not UTF-8 cannot
 * go into JSON as they are: they are then written as hex, and "<key>_encoding"
 * says so.
 */
static void add_bytes(json_object *obj, const char *key, const char *buf, size_t max)
{
	size_t len = strnlen(buf, max);
	char enc_key[64];
	char *hex;

	if (is_utf8((const unsigned char *)buf, len)) {
		json_object_object_add(obj, key, json_object_new_string_len(buf, (int)len));
		return;
	}
	hex = hex_of(buf, len);
	if (!hex)
		return;
	json_object_object_add(obj, key, json_object_new_string(hex));
	snprintf(enc_key, sizeof(enc_key), "%s_encoding", key);
	json_object_object_add(obj, enc_key, json_object_new_string("hex"));
	free(hex);
}

/* A cgroup path, as add_bytes() spells it (any byte but '/' and NUL may name a cgroup); null if unknown. */
static void add_path(json_object *obj, const char *key, const char *path)
{
	if (path)
		add_bytes(obj, key, path, strlen(path));
	else
		json_object_object_add(obj, key, NULL);
}

static void add_time(json_object *obj, uint64_t ktime_ns, int64_t realtime_offset_ns)
{
	/* Wraps instead of overflowing (undefined for int64_t) on a hostile stamp. */
	int64_t ns = (int64_t)(ktime_ns + (uint64_t)realtime_offset_ns);
	time_t secs = (time_t)(ns / 1000000000);
	char stamp[64];
	struct tm tm;

	gmtime_r(&secs, &tm);
	snprintf(stamp, sizeof(stamp), "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (long)(ns % 1000000000) / 1000);
	json_object_object_add(obj, "time", json_object_new_string(stamp));
	json_object_object_add(obj, "mono_ns", json_object_new_uint64(ktime_ns));
}

static json_object *string_or_hex(const char *s, size_t len, bool hex)
{
	char *text;
	json_object *v;

	if (!hex)
		return json_object_new_string_len(s, (int)len);
	text = hex_of(s, len);
	if (!text)
		return NULL;
	v = json_object_new_string(text);
	free(text);
	return v;
}

/*
 * The head of the command line: an array of arguments, whether it stops
 * short of the whole, and how it is encoded. On a patched kernel the exact
 * argv_bytes decides truncation; otherwise what the BPF side saw.
 */
static void add_head(json_object *obj, const struct argguard_event *e)
{
	size_t len = e->head_len < ARGGUARD_HEAD_MAX ? e->head_len : ARGGUARD_HEAD_MAX;
	bool hex = !is_utf8((const unsigned char *)e->head, len);
	json_object *args = json_object_new_array();
	const char *p = e->head, *end = e->head + len;
	bool truncated;

	while (p < end) {
		size_t n = strnlen(p, end - p);

		json_object_array_add(args, string_or_hex(p, n, hex));
		p += n + 1;
	}
	if (e->flags & ARGGUARD_EV_EXACT_SIZES)
		truncated = len < e->argv_bytes;
	else
		truncated = e->flags & ARGGUARD_EV_HEAD_TRUNCATED;
	json_object_object_add(obj, "argv_head", args);
	json_object_object_add(obj, "argv_head_bytes", json_object_new_uint64(len));
	json_object_object_add(obj, "argv_head_truncated", json_object_new_boolean(truncated));
	if (e->flags & ARGGUARD_EV_HEAD_UNREADABLE)
		json_object_object_add(obj, "argv_head_unreadable", json_object_new_boolean(true));
	if (hex)
		json_object_object_add(obj, "argv_head_encoding", json_object_new_string("hex"));
	json_object_object_add(
		obj, "head_source",
		json_object_new_string(e->flags & ARGGUARD_EV_HEAD_KERNEL ? "kernel" : "caller"));
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

static void add_interpreter(json_object *obj, const struct argguard_event *e)
{
	const char *name;
	size_t len;

	if (record_interpreter(e, &name, &len))
		add_bytes(obj, "interpreter", name, len);
}

static json_object *count_or_null(int32_t n)
{
	return n < 0 ? NULL : json_object_new_int(n);
}

const char *record_errno(int32_t err, char *buf, size_t len)
{
	const char *name = strerrorname_np(err);

	if (name)
		return name;
	snprintf(buf, len, "%d", err);
	return buf;
}

/* The errno's name, its number when it has none, or null for 0. */
static json_object *errno_or_null(int32_t err)
{
	char number[16];

	if (!err)
		return NULL;
	return json_object_new_string(record_errno(err, number, sizeof(number)));
}

json_object *event_to_object(const struct argguard_event *e, int64_t realtime_offset_ns)
{
	bool exact = event_has_exact_sizes(e);
	bool kernel = !event_has_total_bytes(e);
	json_object *obj = json_object_new_object();

	if (!obj)
		return NULL;
	add_time(obj, e->ktime_ns, realtime_offset_ns);
	json_object_object_add(obj, "verdict", json_object_new_string(verdict_name(e->verdict)));
	json_object_object_add(obj, "scope", json_object_new_string(scope_name(e->scope)));
	json_object_object_add(obj, "rule_id",
			       event_has_rule_id(e) ? json_object_new_uint64(e->rule_id) : NULL);
	json_object_object_add(obj, "limit", json_object_new_string(limit_name(e->limit_kind)));
	json_object_object_add(obj, "limit_value", json_object_new_uint64(e->limit));
	json_object_object_add(obj, "errno", errno_or_null(e->err));
	json_object_object_add(obj, "pid", json_object_new_int64(e->pid));
	json_object_object_add(obj, "ppid", json_object_new_int64(e->ppid));
	json_object_object_add(obj, "uid", json_object_new_int64(e->uid));
	json_object_object_add(obj, "euid", json_object_new_int64(e->euid));
	json_object_object_add(obj, "gid", json_object_new_int64(e->gid));
	json_object_object_add(obj, "cgroup_id", json_object_new_uint64(e->cgroup_id));
	add_bytes(obj, "comm", e->comm, sizeof(e->comm));
	add_bytes(obj, "filename", e->filename, sizeof(e->filename));
	add_interpreter(obj, e);
	json_object_object_add(obj, "argc", count_or_null(e->argc));
	json_object_object_add(obj, "envc", count_or_null(e->envc));
	json_object_object_add(obj, "total_bytes",
			       kernel ? NULL : json_object_new_uint64(e->total_bytes));
	json_object_object_add(obj, "argv_bytes",
			       exact ? json_object_new_uint64(e->argv_bytes) : NULL);
	json_object_object_add(obj, "envp_bytes",
			       exact ? json_object_new_uint64(e->envp_bytes) : NULL);
	json_object_object_add(obj, "orig_argc", exact ? count_or_null(e->orig_argc) : NULL);
	json_object_object_add(obj, "sizes", json_object_new_string(record_sizes(e)));
	json_object_object_add(obj, "secureexec",
			       json_object_new_boolean(e->flags & ARGGUARD_EV_SECUREEXEC));
	add_head(obj, e);
	return obj;
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

/* The summary's message: what was held back and lost, and over how long. */
static void summary_message(const struct record_losses *n, uint64_t interval_ns, char *buf,
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

/* {"journald": N, "audit": N}: what the other sinks lost (the log has those records). */
static json_object *other_sinks_object(const struct record_losses *n)
{
	json_object *obj = json_object_new_object();

	for (int i = 0; obj && i < RECORD_OTHER_SINKS; i++)
		if (n->other_sinks[i].name)
			json_object_object_add(obj, n->other_sinks[i].name,
					       json_object_new_uint64(n->other_sinks[i].n));
	return obj;
}

/* [{"uid": U, "suppressed": N}, ...], most first. */
static json_object *top_uids_array(const struct record_losses *n)
{
	json_object *arr = json_object_new_array(), *o;

	for (int i = 0; arr && i < RECORD_TOP_UIDS && n->top_uids[i].n; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "uid", json_object_new_int64(n->top_uids[i].uid));
		json_object_object_add(o, "suppressed", json_object_new_uint64(n->top_uids[i].n));
		json_object_array_add(arr, o);
	}
	return arr;
}

json_object *summary_to_object(const struct record_losses *n, uint64_t interval_ns, uint64_t end_ns,
			       int64_t realtime_offset_ns)
{
	json_object *obj = json_object_new_object();
	char message[400];

	if (!obj)
		return NULL;
	add_time(obj, end_ns, realtime_offset_ns);
	json_object_object_add(obj, "verdict", json_object_new_string("summary"));
	json_object_object_add(obj, "suppressed", json_object_new_uint64(n->suppressed));
	json_object_object_add(obj, "suppressed_by_uid", top_uids_array(n));
	json_object_object_add(obj, "lost", json_object_new_uint64(record_lost(n)));
	json_object_object_add(obj, "lost_ring_full", json_object_new_uint64(n->ring_full));
	json_object_object_add(obj, "lost_log_backlog", json_object_new_uint64(n->log_backlog));
	json_object_object_add(obj, "lost_malformed", json_object_new_uint64(n->malformed));
	json_object_object_add(obj, "lost_held_at_exit", json_object_new_uint64(n->held_at_exit));
	json_object_object_add(obj, "lost_by_sink", other_sinks_object(n));
	json_object_object_add(obj, "interval_s", json_object_new_double(interval_ns / 1e9));
	summary_message(n, interval_ns, message, sizeof(message));
	json_object_object_add(obj, "message", json_object_new_string(message));
	return obj;
}

json_object *record_to_object(const struct record *r)
{
	json_object *obj;

	if (r->kind == RECORD_SUMMARY)
		return summary_to_object(&r->losses, r->interval_ns, r->end_ns,
					 r->realtime_offset_ns);
	obj = event_to_object(r->event, r->realtime_offset_ns);
	if (!obj)
		return NULL;
	add_path(obj, "cgroup", r->cgroup);
	if (r->event->scope == ARGGUARD_SCOPE_CGROUP)
		add_path(obj, "rule_cgroup", r->rule_cgroup);
	return obj;
}

char *record_message(const struct record *r)
{
	const struct argguard_event *e = r->event;
	char summary[400], *filename, *message;
	bool hex;
	int n;

	if (r->kind == RECORD_SUMMARY) {
		summary_message(&r->losses, r->interval_ns, summary, sizeof(summary));
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

char *event_object_to_line(json_object *obj)
{
	return strdup(json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
								  JSON_C_TO_STRING_NOSLASHESCAPE));
}

char *event_to_json(const struct argguard_event *e, int64_t realtime_offset_ns)
{
	json_object *obj = event_to_object(e, realtime_offset_ns);
	char *line;

	if (!obj)
		return NULL;
	line = event_object_to_line(obj);
	json_object_put(obj);
	return line;
}
