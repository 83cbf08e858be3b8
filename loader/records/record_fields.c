// SPDX-License-Identifier: GPL-2.0
#include "record_fields.h"
#include "names.h"
#include "record_spell.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The getters' ways to say what they found. */
static void set_text(struct field_value *v, const char *s)
{
	v->state = FIELD_SET;
	v->s = s;
	v->len = strlen(s);
}

static void set_bytes(struct field_value *v, const char *s, size_t max)
{
	v->state = FIELD_SET;
	v->s = s;
	v->len = strnlen(s, max);
}

/* A number, in decimal; null when it is not known. */
static void set_u64(struct field_value *v, bool known, uint64_t u)
{
	char *end = v->buf + sizeof(v->buf), *p = end;

	if (!known) {
		v->state = FIELD_NULL;
		return;
	}
	do
		*--p = '0' + u % 10;
	while (u /= 10);
	v->state = FIELD_SET;
	v->s = p;
	v->len = end - p;
}

/* A count the BPF side could not read is -1: null. */
static void set_count(struct field_value *v, bool known, int32_t n)
{
	set_u64(v, known && n >= 0, (uint64_t)n);
}

static void set_bool(struct field_value *v, bool b)
{
	set_text(v, b ? "true" : "false");
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

/* The envelope: none but in the JSON log's lines. */
static void get_schema(const struct record *r, struct field_value *v)
{
	if (r->envelope)
		set_u64(v, true, ARGGUARD_LOG_SCHEMA);
}

static void set_known_text(struct field_value *v, const char *s)
{
	if (s)
		set_text(v, s);
	else
		v->state = FIELD_NULL;
}

static void get_host(const struct record *r, struct field_value *v)
{
	if (r->envelope)
		set_known_text(v, r->envelope->host);
}

static void get_boot_id(const struct record *r, struct field_value *v)
{
	if (r->envelope)
		set_known_text(v, r->envelope->boot_id);
}

static void get_seq(const struct record *r, struct field_value *v)
{
	if (r->envelope)
		set_u64(v, true, r->envelope->seq);
}

/* When: an exec's stamp, or the end of what a summary covers. */
static uint64_t record_ktime(const struct record *r)
{
	return r->kind == RECORD_SUMMARY ? r->end_ns : r->event->ktime_ns;
}

static void get_time(const struct record *r, struct field_value *v)
{
	/* Wraps instead of overflowing (undefined for int64_t) on a hostile stamp. */
	int64_t ns = (int64_t)(record_ktime(r) + (uint64_t)r->realtime_offset_ns);
	int n = snprintf(v->buf, sizeof(v->buf), "%s.%06ldZ",
			 utc_seconds((time_t)(ns / 1000000000)), (long)(ns % 1000000000) / 1000);

	set_text(v, v->buf);
	v->len = n > 0 && (size_t)n < sizeof(v->buf) ? (size_t)n : 0;
}

static void get_mono_ns(const struct record *r, struct field_value *v)
{
	set_u64(v, true, record_ktime(r));
}

static void get_verdict(const struct record *r, struct field_value *v)
{
	set_text(v, r->kind == RECORD_SUMMARY ? "summary" : verdict_name(r->event->verdict));
}

/*
 * The exec's rows. A row with no getter of its own is a member of the
 * event, read as the row's member says.
 */
static void get_member(const struct record *r, const struct record_field *f, struct field_value *v)
{
	const char *m = (const char *)r->event + f->offset;
	uint64_t u64;
	uint32_t u32;
	int32_t s32;

	switch (f->member) {
	case MEMBER_U64:
		memcpy(&u64, m, sizeof(u64));
		set_u64(v, true, u64);
		break;
	case MEMBER_U32:
		memcpy(&u32, m, sizeof(u32));
		set_u64(v, true, u32);
		break;
	case MEMBER_COUNT:
		memcpy(&s32, m, sizeof(s32));
		set_count(v, true, s32);
		break;
	case MEMBER_STRING:
		set_bytes(v, m, f->size);
		break;
	case MEMBER_LOSS:
		set_u64(v, true, *(const uint64_t *)((const char *)&r->losses + f->offset));
		break;
	}
}

static void get_scope(const struct record *r, struct field_value *v)
{
	set_text(v, scope_name(r->event->scope));
}

static void get_rule_id(const struct record *r, struct field_value *v)
{
	set_u64(v, event_has_rule_id(r->event), r->event->rule_id);
}

static void get_limit(const struct record *r, struct field_value *v)
{
	set_text(v, limit_name(r->event->limit_kind));
}

/* The errno's name, its number when it has none, or null for 0. */
static void get_errno(const struct record *r, struct field_value *v)
{
	if (r->event->err)
		set_text(v, record_errno(r->event->err, v->buf, sizeof(v->buf)));
	else
		v->state = FIELD_NULL;
}

static void get_userns_owner(const struct record *r, struct field_value *v)
{
	set_u64(v, event_has_userns_owner(r->event), r->event->userns_owner);
}

/* Only when it was: judged by the strictest rule, as the cgroup index had no room. */
static void get_cgroup_unindexed(const struct record *r, struct field_value *v)
{
	if (r->event->flags & ARGGUARD_EV_CGROUP_UNINDEXED)
		set_bool(v, true);
}

static void get_interpreter(const struct record *r, struct field_value *v)
{
	if (record_interpreter(r->event, &v->s, &v->len))
		v->state = FIELD_SET;
}

static void get_total_bytes(const struct record *r, struct field_value *v)
{
	set_u64(v, event_has_total_bytes(r->event), r->event->total_bytes);
}

/* Only a patched kernel's counts are exact. */
static void get_argv_bytes(const struct record *r, struct field_value *v)
{
	set_u64(v, event_has_exact_sizes(r->event), r->event->argv_bytes);
}

static void get_envp_bytes(const struct record *r, struct field_value *v)
{
	set_u64(v, event_has_exact_sizes(r->event), r->event->envp_bytes);
}

static void get_orig_argc(const struct record *r, struct field_value *v)
{
	set_count(v, event_has_exact_sizes(r->event), r->event->orig_argc);
}

static void get_sizes(const struct record *r, struct field_value *v)
{
	set_text(v, record_sizes(r->event));
}

static void get_secureexec(const struct record *r, struct field_value *v)
{
	set_bool(v, r->event->flags & ARGGUARD_EV_SECUREEXEC);
}

/*
 * The head of the command line: its arguments, whether it stops short of
 * the whole, and how it is encoded. On a patched kernel the exact
 * argv_bytes decides truncation; otherwise what the BPF side saw.
 */
static size_t head_len(const struct argguard_event *e)
{
	return e->head_len < ARGGUARD_HEAD_MAX ? e->head_len : ARGGUARD_HEAD_MAX;
}

static void get_argv_head(const struct record *r, struct field_value *v)
{
	v->state = FIELD_SET;
	v->s = r->event->head;
	v->len = head_len(r->event);
}

static void get_argv_head_bytes(const struct record *r, struct field_value *v)
{
	set_u64(v, true, head_len(r->event));
}

static void get_argv_head_truncated(const struct record *r, struct field_value *v)
{
	const struct argguard_event *e = r->event;

	if (event_has_exact_sizes(e))
		set_bool(v, head_len(e) < e->argv_bytes);
	else
		set_bool(v, e->flags & ARGGUARD_EV_HEAD_TRUNCATED);
}

static void get_argv_head_unreadable(const struct record *r, struct field_value *v)
{
	if (r->event->flags & ARGGUARD_EV_HEAD_UNREADABLE)
		set_bool(v, true);
}

static void get_argv_head_encoding(const struct record *r, struct field_value *v)
{
	if (!record_is_utf8(r->event->head, head_len(r->event)))
		set_text(v, "hex");
}

static void get_head_source(const struct record *r, struct field_value *v)
{
	set_text(v, r->event->flags & ARGGUARD_EV_HEAD_KERNEL ? "kernel" : "caller");
}

/*
 * A cgroup path, however long (any byte but '/' and NUL may name a cgroup),
 * or null; then "<key>_error" says why it is null: "ENOENT", the cgroup is
 * gone, or the errno of what kept its path from being found.
 */
static void set_path(struct field_value *v, const char *path)
{
	if (path)
		set_bytes(v, path, strlen(path));
	else
		v->state = FIELD_NULL;
}

static void set_path_error(struct field_value *v, const char *path, int err)
{
	if (!path)
		set_text(v, record_errno(err < 0 ? -err : EIO, v->buf, sizeof(v->buf)));
}

static void get_cgroup(const struct record *r, struct field_value *v)
{
	set_path(v, r->cgroup);
}

static void get_cgroup_error(const struct record *r, struct field_value *v)
{
	set_path_error(v, r->cgroup, r->cgroup_err);
}

/* Only for a cgroup rule: the deciding rule's cgroup. */
static void get_rule_cgroup(const struct record *r, struct field_value *v)
{
	if (r->event->scope == ARGGUARD_SCOPE_CGROUP)
		set_path(v, r->rule_cgroup);
}

static void get_rule_cgroup_error(const struct record *r, struct field_value *v)
{
	if (r->event->scope == ARGGUARD_SCOPE_CGROUP)
		set_path_error(v, r->rule_cgroup, r->rule_cgroup_err);
}

/* The container whose cgroup the caller is in, in a known runtime's layout. */
static void get_container(const struct record *r, struct field_value *v)
{
	v->state = container_from_cgroup(r->cgroup, &v->container) ? FIELD_SET : FIELD_NULL;
}

/* Its members, flat: none without a container. */
static void get_container_runtime(const struct record *r, struct field_value *v)
{
	if (container_from_cgroup(r->cgroup, &v->container))
		set_text(v, v->container.runtime);
}

static void get_container_id(const struct record *r, struct field_value *v)
{
	if (container_from_cgroup(r->cgroup, &v->container))
		set_text(v, v->container.id);
}

/* Only in a Kubernetes pod. */
static void get_container_pod_uid(const struct record *r, struct field_value *v)
{
	if (container_from_cgroup(r->cgroup, &v->container) && v->container.pod_uid[0])
		set_text(v, v->container.pod_uid);
}

static void get_container_rootless(const struct record *r, struct field_value *v)
{
	if (container_from_cgroup(r->cgroup, &v->container))
		set_bool(v, v->container.rootless);
}

/* Only when the container's owner names a container below it: their claim. */
static void get_container_nested_runtime(const struct record *r, struct field_value *v)
{
	if (container_from_cgroup(r->cgroup, &v->container) && v->container.nested_runtime)
		set_text(v, v->container.nested_runtime);
}

static void get_container_nested_id(const struct record *r, struct field_value *v)
{
	if (container_from_cgroup(r->cgroup, &v->container) && v->container.nested_runtime)
		set_text(v, v->container.nested_id);
}

/* The summary's rows. */

static void get_losses(const struct record *r, struct field_value *v)
{
	v->state = FIELD_SET;
	v->losses = &r->losses;
}

/* As text: "1000:5,1001:3"; none when no uid lost any. */
static void get_suppressed_by_uid_text(const struct record *r, struct field_value *v)
{
	record_top_uids(&r->losses, v->buf, sizeof(v->buf));
	if (v->buf[0])
		set_text(v, v->buf);
}

/* As text: "journald:5,audit:0", each other sink in use; none without one. */
static void get_lost_by_sink_text(const struct record *r, struct field_value *v)
{
	const struct record_losses *n = &r->losses;
	size_t used = 0;

	v->buf[0] = '\0';
	for (int i = 0; i < RECORD_OTHER_SINKS; i++)
		if (n->other_sinks[i].name && used < sizeof(v->buf))
			used += snprintf(v->buf + used, sizeof(v->buf) - used, "%s%s:%llu",
					 used ? "," : "", n->other_sinks[i].name,
					 (unsigned long long)n->other_sinks[i].n);
	if (v->buf[0])
		set_text(v, v->buf);
}

static void get_lost(const struct record *r, struct field_value *v)
{
	set_u64(v, true, record_lost(&r->losses));
}

/* Seconds, with three decimals. */
static void get_interval_s(const struct record *r, struct field_value *v)
{
	int n = snprintf(v->buf, sizeof(v->buf), "%.3f", r->interval_ns / 1e9);

	set_text(v, v->buf);
	v->len = n > 0 && (size_t)n < sizeof(v->buf) ? (size_t)n : 0;
}

static void get_message(const struct record *r, struct field_value *v)
{
	record_summary_message(&r->losses, r->interval_ns, v->buf, sizeof(v->buf));
	set_text(v, v->buf);
}

/* A row its getter finds; one that is a member of the event; one of the summary's losses. */
#define ROW(name, kind, flags)                                  \
	{                                                       \
#name, FIELD_##kind, flags, get_##name, 0, 0, 0 \
	}
#define EVENT_ROW(name, kind, member, flags)                       \
	{                                                          \
#name, FIELD_##kind, flags, NULL, MEMBER_##member, \
			offsetof(struct argguard_event, name),     \
			sizeof(((struct argguard_event *)0)->name) \
	}
#define LOSS_ROW(name, member)                                    \
	{                                                         \
#name, FIELD_LITERAL, 0, NULL, MEMBER_LOSS,       \
			offsetof(struct record_losses, member), 0 \
	}

/* The fields every record starts with, an exec's or a summary's. */
static const struct record_field head_fields[] = {
	ROW(schema, LITERAL, FIELD_LOG_ONLY),
	ROW(host, BYTES, FIELD_LOG_ONLY),
	ROW(boot_id, TEXT, FIELD_LOG_ONLY),
	ROW(seq, LITERAL, FIELD_LOG_ONLY),
	ROW(time, TEXT, FIELD_NO_AUDIT),
	ROW(mono_ns, LITERAL, FIELD_NO_AUDIT),
	ROW(verdict, TEXT, 0),
};

/* Then an exec's, in the order the JSON has them (the audit message: linux_audit.c). */
static const struct record_field exec_fields[] = {
	ROW(scope, TEXT, 0),
	ROW(rule_id, LITERAL, 0),
	ROW(limit, TEXT, 0),
	{ "limit_value", FIELD_LITERAL, 0, NULL, MEMBER_U64, offsetof(struct argguard_event, limit),
	  0 },
	ROW(errno, TEXT, 0),
	EVENT_ROW(pid, LITERAL, U32, 0),
	EVENT_ROW(ppid, LITERAL, U32, 0),
	EVENT_ROW(uid, LITERAL, U32, 0),
	EVENT_ROW(euid, LITERAL, U32, 0),
	EVENT_ROW(gid, LITERAL, U32, 0),
	ROW(userns_owner, LITERAL, 0),
	EVENT_ROW(cgroup_id, LITERAL, U64, 0),
	ROW(cgroup_unindexed, LITERAL, 0),
	EVENT_ROW(comm, BYTES, STRING, 0),
	EVENT_ROW(filename, BYTES, STRING, 0),
	ROW(interpreter, BYTES, 0),
	EVENT_ROW(argc, LITERAL, COUNT, 0),
	EVENT_ROW(envc, LITERAL, COUNT, 0),
	ROW(total_bytes, LITERAL, 0),
	ROW(argv_bytes, LITERAL, 0),
	ROW(envp_bytes, LITERAL, 0),
	ROW(orig_argc, LITERAL, 0),
	ROW(sizes, TEXT, 0),
	ROW(secureexec, LITERAL, 0),
	ROW(argv_head, ARGS, FIELD_AUDIT_LAST),
	ROW(argv_head_bytes, LITERAL, 0),
	ROW(argv_head_truncated, LITERAL, 0),
	ROW(argv_head_unreadable, LITERAL, 0),
	ROW(argv_head_encoding, TEXT, FIELD_NO_AUDIT),
	ROW(head_source, TEXT, 0),
	ROW(cgroup, BYTES, FIELD_NOT_EVENT),
	ROW(cgroup_error, TEXT, FIELD_NOT_EVENT),
	ROW(rule_cgroup, BYTES, FIELD_NOT_EVENT),
	ROW(rule_cgroup_error, TEXT, FIELD_NOT_EVENT),
	ROW(container, CONTAINER, FIELD_NOT_EVENT | FIELD_NO_JOURNAL | FIELD_NO_AUDIT),
	ROW(container_runtime, TEXT, FIELD_FLAT),
	ROW(container_id, TEXT, FIELD_FLAT),
	ROW(container_pod_uid, TEXT, FIELD_FLAT),
	ROW(container_rootless, LITERAL, FIELD_FLAT),
	ROW(container_nested_runtime, TEXT, FIELD_FLAT),
	ROW(container_nested_id, TEXT, FIELD_FLAT),
};

/* Or a summary's, in order. */
static const struct record_field summary_fields[] = {
	LOSS_ROW(suppressed, suppressed),
	{ "suppressed_by_uid", FIELD_UIDS, FIELD_NO_AUDIT, get_losses, 0, 0, 0 },
	{ "suppressed_by_uid", FIELD_TEXT, FIELD_AUDIT_ONLY, get_suppressed_by_uid_text, 0, 0, 0 },
	ROW(lost, LITERAL, 0),
	LOSS_ROW(lost_ring_full, ring_full),
	LOSS_ROW(lost_log_backlog, log_backlog),
	LOSS_ROW(lost_malformed, malformed),
	LOSS_ROW(lost_held_at_exit, held_at_exit),
	{ "lost_by_sink", FIELD_SINKS, FIELD_NO_AUDIT, get_losses, 0, 0, 0 },
	{ "lost_by_sink", FIELD_TEXT, FIELD_AUDIT_ONLY, get_lost_by_sink_text, 0, 0, 0 },
	ROW(interval_s, LITERAL, 0),
	ROW(message, TEXT, FIELD_NO_AUDIT),
};

#define ROWS(a) (sizeof(a) / sizeof((a)[0]))

static void walk_rows(const struct record *r, const struct record_field *rows, size_t n,
		      unsigned int skip, record_field_writer *write, void *ctx)
{
	struct field_value v;

	for (size_t i = 0; i < n; i++) {
		if (rows[i].flags & skip)
			continue;
		v.state = FIELD_ABSENT;
		if (rows[i].get)
			rows[i].get(r, &v);
		else
			get_member(r, &rows[i], &v);
		if (v.state != FIELD_ABSENT)
			write(ctx, &rows[i], &v);
	}
}

void record_walk(const struct record *r, unsigned int skip, record_field_writer *write, void *ctx)
{
	walk_rows(r, head_fields, ROWS(head_fields), skip, write, ctx);
	if (r->kind == RECORD_SUMMARY)
		walk_rows(r, summary_fields, ROWS(summary_fields), skip, write, ctx);
	else
		walk_rows(r, exec_fields, ROWS(exec_fields), skip, write, ctx);
}
