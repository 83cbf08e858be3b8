// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* strerrorname_np(), asprintf() */
#include "event_json.h"
#include "container.h"
#include "json_writer.h"
#include "names.h"

#include <errno.h>
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

char *record_string(const char *buf, size_t max, bool *hex)
{
	size_t len = strnlen(buf, max);

	*hex = !is_utf8((const unsigned char *)buf, len);
	return *hex ? hex_of(buf, len) : strndup(buf, len);
}

/*
 * Write a kernel string of at most max bytes. Bytes that are not UTF-8
 * cannot go into JSON as they are: they are then written as hex, and
 * "<key>_encoding" says so.
 */
static void add_bytes(struct json_writer *w, const char *key, const char *buf, size_t max)
{
	size_t len = strnlen(buf, max);
	char enc_key[64];

	if (is_utf8((const unsigned char *)buf, len)) {
		json_string(w, key, buf, len);
		return;
	}
	json_hex(w, key, buf, len);
	snprintf(enc_key, sizeof(enc_key), "%s_encoding", key);
	json_string(w, enc_key, "hex", 3);
}

/*
 * A cgroup path, as add_bytes() spells it (any byte but '/' and NUL may name
 * a cgroup), however long. Without one, null, and "<key>_error" says why:
 * "ENOENT", the cgroup is gone, or the errno of what kept its path from
 * being found.
 */
static void add_path(struct json_writer *w, const char *key, const char *path, int err)
{
	char error_key[64], number[16];
	const char *error;

	if (path) {
		add_bytes(w, key, path, strlen(path));
		return;
	}
	json_null(w, key);
	snprintf(error_key, sizeof(error_key), "%s_error", key);
	error = record_errno(err < 0 ? -err : EIO, number, sizeof(number));
	json_string(w, error_key, error, strlen(error));
}

/*
 * The container whose cgroup the caller is in, when the path is in a known
 * runtime's layout (container.h), else null; with the container its owner
 * names below it, if any, as "nested". journald gets flat fields, to match
 * on.
 */
static void add_container(struct json_writer *w, const char *cgroup)
{
	struct container c;
	size_t pod_len;

	if (!container_from_cgroup(cgroup, &c)) {
		json_null(w, "container");
		return;
	}
	pod_len = strlen(c.pod_uid);
	if (w->fields) {
		json_string(w, "container_runtime", c.runtime, strlen(c.runtime));
		json_string(w, "container_id", c.id, strlen(c.id));
		if (pod_len)
			json_string(w, "container_pod_uid", c.pod_uid, pod_len);
		json_boolean(w, "container_rootless", c.rootless);
		if (c.nested_runtime) {
			json_string(w, "container_nested_runtime", c.nested_runtime,
				    strlen(c.nested_runtime));
			json_string(w, "container_nested_id", c.nested_id, strlen(c.nested_id));
		}
		return;
	}
	json_begin_object(w, "container");
	json_string(w, "runtime", c.runtime, strlen(c.runtime));
	json_string(w, "id", c.id, strlen(c.id));
	if (pod_len)
		json_string(w, "pod_uid", c.pod_uid, pod_len);
	else
		json_null(w, "pod_uid");
	json_boolean(w, "rootless", c.rootless);
	if (c.nested_runtime) {
		json_begin_object(w, "nested");
		json_string(w, "runtime", c.nested_runtime, strlen(c.nested_runtime));
		json_string(w, "id", c.nested_id, strlen(c.nested_id));
		json_end_object(w);
	} else {
		json_null(w, "nested");
	}
	json_end_object(w);
}

/*
 * "2023-11-14T22:13:25" for secs: gmtime_r() and the formatting cost more
 * than the rest of a record, and records come in bursts within one second.
 */
static const char *utc_seconds(time_t secs)
{
	static __thread time_t cached_secs = -1;
	static __thread char cached[64];
	struct tm tm;

	if (secs != cached_secs) {
		gmtime_r(&secs, &tm);
		snprintf(cached, sizeof(cached), "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
		cached_secs = secs;
	}
	return cached;
}

static void add_time(struct json_writer *w, uint64_t ktime_ns, int64_t realtime_offset_ns)
{
	/* Wraps instead of overflowing (undefined for int64_t) on a hostile stamp. */
	int64_t ns = (int64_t)(ktime_ns + (uint64_t)realtime_offset_ns);
	char stamp[64];
	int n;

	n = snprintf(stamp, sizeof(stamp), "%s.%06ldZ", utc_seconds((time_t)(ns / 1000000000)),
		     (long)(ns % 1000000000) / 1000);
	json_string(w, "time", stamp, n > 0 && (size_t)n < sizeof(stamp) ? (size_t)n : 0);
	json_u64(w, "mono_ns", ktime_ns);
}

static void add_name(struct json_writer *w, const char *key, const char *name)
{
	json_string(w, key, name, strlen(name));
}

/*
 * The head of the command line: an array of arguments, whether it stops
 * short of the whole, and how it is encoded. On a patched kernel the exact
 * argv_bytes decides truncation; otherwise what the BPF side saw.
 */
static void add_head(struct json_writer *w, const struct argguard_event *e)
{
	size_t len = e->head_len < ARGGUARD_HEAD_MAX ? e->head_len : ARGGUARD_HEAD_MAX;
	bool hex = !is_utf8((const unsigned char *)e->head, len);
	const char *p = e->head, *end = e->head + len;
	bool truncated;

	json_begin_array(w, "argv_head");
	while (p < end) {
		size_t n = strnlen(p, end - p);

		if (hex)
			json_hex(w, NULL, p, n);
		else
			json_string(w, NULL, p, n);
		p += n + 1;
	}
	json_end_array(w);
	if (e->flags & ARGGUARD_EV_EXACT_SIZES)
		truncated = len < e->argv_bytes;
	else
		truncated = e->flags & ARGGUARD_EV_HEAD_TRUNCATED;
	json_u64(w, "argv_head_bytes", len);
	json_boolean(w, "argv_head_truncated", truncated);
	if (e->flags & ARGGUARD_EV_HEAD_UNREADABLE)
		json_boolean(w, "argv_head_unreadable", true);
	if (hex)
		add_name(w, "argv_head_encoding", "hex");
	add_name(w, "head_source", e->flags & ARGGUARD_EV_HEAD_KERNEL ? "kernel" : "caller");
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

static void add_interpreter(struct json_writer *w, const struct argguard_event *e)
{
	const char *name;
	size_t len;

	if (record_interpreter(e, &name, &len))
		add_bytes(w, "interpreter", name, len);
}

/* A count the BPF side could not read is -1: null. */
static void add_count(struct json_writer *w, const char *key, int32_t n)
{
	if (n < 0)
		json_null(w, key);
	else
		json_s64(w, key, n);
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
static void add_errno(struct json_writer *w, int32_t err)
{
	char number[16];

	if (err)
		add_name(w, "errno", record_errno(err, number, sizeof(number)));
	else
		json_null(w, "errno");
}

/* A field the event may lack: null without it. */
static void add_u64_or_null(struct json_writer *w, const char *key, bool known, uint64_t v)
{
	if (known)
		json_u64(w, key, v);
	else
		json_null(w, key);
}

static void add_event(struct json_writer *w, const struct argguard_event *e,
		      int64_t realtime_offset_ns)
{
	bool exact = event_has_exact_sizes(e);

	add_time(w, e->ktime_ns, realtime_offset_ns);
	add_name(w, "verdict", verdict_name(e->verdict));
	add_name(w, "scope", scope_name(e->scope));
	add_u64_or_null(w, "rule_id", event_has_rule_id(e), e->rule_id);
	add_name(w, "limit", limit_name(e->limit_kind));
	json_u64(w, "limit_value", e->limit);
	add_errno(w, e->err);
	json_s64(w, "pid", e->pid);
	json_s64(w, "ppid", e->ppid);
	json_s64(w, "uid", e->uid);
	json_s64(w, "euid", e->euid);
	json_s64(w, "gid", e->gid);
	add_u64_or_null(w, "userns_owner", event_has_userns_owner(e), e->userns_owner);
	json_u64(w, "cgroup_id", e->cgroup_id);
	add_bytes(w, "comm", e->comm, sizeof(e->comm));
	add_bytes(w, "filename", e->filename, sizeof(e->filename));
	add_interpreter(w, e);
	add_count(w, "argc", e->argc);
	add_count(w, "envc", e->envc);
	add_u64_or_null(w, "total_bytes", event_has_total_bytes(e), e->total_bytes);
	add_u64_or_null(w, "argv_bytes", exact, e->argv_bytes);
	add_u64_or_null(w, "envp_bytes", exact, e->envp_bytes);
	if (exact)
		add_count(w, "orig_argc", e->orig_argc);
	else
		json_null(w, "orig_argc");
	add_name(w, "sizes", record_sizes(e));
	json_boolean(w, "secureexec", e->flags & ARGGUARD_EV_SECUREEXEC);
	add_head(w, e);
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
static void add_other_sinks(struct json_writer *w, const struct record_losses *n)
{
	json_begin_object(w, "lost_by_sink");
	for (int i = 0; i < RECORD_OTHER_SINKS; i++)
		if (n->other_sinks[i].name)
			json_u64(w, n->other_sinks[i].name, n->other_sinks[i].n);
	json_end_object(w);
}

/* [{"uid": U, "suppressed": N}, ...], most first. */
static void add_top_uids(struct json_writer *w, const struct record_losses *n)
{
	json_begin_array(w, "suppressed_by_uid");
	for (int i = 0; i < RECORD_TOP_UIDS && n->top_uids[i].n; i++) {
		json_begin_object(w, NULL);
		json_s64(w, "uid", n->top_uids[i].uid);
		json_u64(w, "suppressed", n->top_uids[i].n);
		json_end_object(w);
	}
	json_end_array(w);
}

static void add_summary(struct json_writer *w, const struct record *r)
{
	const struct record_losses *n = &r->losses;
	char message[400];

	add_time(w, r->end_ns, r->realtime_offset_ns);
	add_name(w, "verdict", "summary");
	json_u64(w, "suppressed", n->suppressed);
	add_top_uids(w, n);
	json_u64(w, "lost", record_lost(n));
	json_u64(w, "lost_ring_full", n->ring_full);
	json_u64(w, "lost_log_backlog", n->log_backlog);
	json_u64(w, "lost_malformed", n->malformed);
	json_u64(w, "lost_held_at_exit", n->held_at_exit);
	add_other_sinks(w, n);
	json_fixed3(w, "interval_s", r->interval_ns / 1e9);
	summary_message(n, r->interval_ns, message, sizeof(message));
	add_name(w, "message", message);
}

static void add_record(struct json_writer *w, const struct record *r)
{
	json_begin_object(w, NULL);
	if (r->kind == RECORD_SUMMARY) {
		add_summary(w, r);
	} else {
		add_event(w, r->event, r->realtime_offset_ns);
		add_path(w, "cgroup", r->cgroup, r->cgroup_err);
		if (r->event->scope == ARGGUARD_SCOPE_CGROUP)
			add_path(w, "rule_cgroup", r->rule_cgroup, r->rule_cgroup_err);
		add_container(w, r->cgroup);
	}
	json_end_object(w);
}

char *record_to_json(const struct record *r, size_t *len)
{
	struct json_writer w;

	json_writer_init(&w, false);
	add_record(&w, r);
	return json_writer_finish(&w, len);
}

void record_to_fields(const struct record *r, struct json_writer *w)
{
	json_writer_init(w, true);
	add_record(w, r);
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

char *event_to_json(const struct argguard_event *e, int64_t realtime_offset_ns)
{
	struct json_writer w;

	json_writer_init(&w, false);
	json_begin_object(&w, NULL);
	add_event(&w, e, realtime_offset_ns);
	json_end_object(&w);
	return json_writer_finish(&w, NULL);
}
