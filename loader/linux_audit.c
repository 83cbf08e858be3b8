// SPDX-License-Identifier: GPL-2.0
#include "linux_audit.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libaudit.h>

#include "event_json.h"
#include "log.h"
#include "names.h"

struct linux_audit {
	struct sink sink;
	int fd;
};

/* The message being written, and the first error: every add after it does nothing. */
struct message {
	char *text;
	size_t len, size;
	int err;
};

/*
 * Append " key=value": the value in quotes, or in hex when auditd could not
 * trust it as it is (as audit_encode_nv_string() does, without a malloc a
 * field). A field that does not fit is left out.
 */
static void add(struct message *m, const char *key, const char *value)
{
	size_t klen = strlen(key), vlen = strlen(value);
	bool hex = audit_value_needs_encoding(value, vlen);
	char *p = m->text + m->len;

	if (m->err || m->len + 2 + klen + (hex ? 2 * vlen : vlen + 2) >= m->size)
		return;
	*p++ = ' ';
	memcpy(p, key, klen);
	p += klen;
	*p++ = '=';
	if (hex) {
		audit_encode_value(p, value, vlen);
		p += 2 * vlen;
	} else {
		*p++ = '"';
		memcpy(p, value, vlen);
		p += vlen;
		*p++ = '"';
	}
	*p = '\0';
	m->len = p - m->text;
}

static void add_u64(struct message *m, const char *key, uint64_t value)
{
	char text[24];

	snprintf(text, sizeof(text), "%" PRIu64, value);
	add(m, key, text);
}

static void add_s64(struct message *m, const char *key, int64_t value)
{
	char text[24];

	snprintf(text, sizeof(text), "%" PRId64, value);
	add(m, key, text);
}

/* A kernel string of at most max bytes, spelled as in the JSON record. */
static void add_string(struct message *m, const char *key, const char *buf, size_t max)
{
	bool hex;
	char *text = record_string(buf, max, &hex);

	if (!text && !m->err)
		m->err = -ENOMEM;
	if (text)
		add(m, key, text);
	free(text);
}

/* The fields of an exec: those of its JSON record that auditd gets, in this order. */
static void add_exec(struct message *m, const struct record *r)
{
	const struct argguard_event *e = r->event;
	const char *interpreter;
	char number[16];
	size_t len;

	add(m, "verdict", verdict_name(e->verdict));
	add(m, "scope", scope_name(e->scope));
	if (event_has_rule_id(e))
		add_u64(m, "rule_id", e->rule_id);
	add(m, "limit", limit_name(e->limit_kind));
	add_u64(m, "limit_value", e->limit);
	if (e->err)
		add(m, "errno", record_errno(e->err, number, sizeof(number)));
	add_s64(m, "pid", e->pid);
	add_s64(m, "ppid", e->ppid);
	add_s64(m, "uid", e->uid);
	add_s64(m, "euid", e->euid);
	add_s64(m, "gid", e->gid);
	if (event_has_userns_owner(e))
		add_s64(m, "userns_owner", e->userns_owner);
	if (e->argc >= 0)
		add_s64(m, "argc", e->argc);
	if (e->envc >= 0)
		add_s64(m, "envc", e->envc);
	if (event_has_exact_sizes(e)) {
		add_u64(m, "argv_bytes", e->argv_bytes);
		add_u64(m, "envp_bytes", e->envp_bytes);
		if (e->orig_argc >= 0)
			add_s64(m, "orig_argc", e->orig_argc);
	}
	if (event_has_total_bytes(e))
		add_u64(m, "total_bytes", e->total_bytes);
	add(m, "secureexec", e->flags & ARGGUARD_EV_SECUREEXEC ? "true" : "false");
	add(m, "sizes", record_sizes(e));
	add_string(m, "comm", e->comm, sizeof(e->comm));
	add_string(m, "filename", e->filename, sizeof(e->filename));
	if (record_interpreter(e, &interpreter, &len))
		add_string(m, "interpreter", interpreter, len);
	if (r->cgroup)
		add(m, "cgroup", r->cgroup);
}

int linux_audit_message(const struct record *r, char *msg, size_t size)
{
	struct message m = { .text = msg, .size = size };
	char top[RECORD_TOP_UIDS * 32];

	if (r->kind == RECORD_EXEC) {
		m.len = snprintf(msg, size, "op=argguard-exec");
		add_exec(&m, r);
	} else {
		m.len = snprintf(msg, size, "op=argguard-summary");
		add(&m, "verdict", "summary");
		add_u64(&m, "suppressed", r->losses.suppressed);
		record_top_uids(&r->losses, top, sizeof(top));
		if (top[0])
			add(&m, "suppressed_by_uid", top);
		add_u64(&m, "lost", record_lost(&r->losses));
	}
	return m.err;
}

/* A prepared record: its message, and whether the exec failed. */
struct audit_item {
	bool failure;
	char msg[];
};

static void *linux_audit_prepare(struct sink *s, const struct record *r)
{
	char msg[MAX_AUDIT_MESSAGE_LENGTH];
	struct audit_item *item;

	(void)s;
	if (linux_audit_message(r, msg, sizeof(msg)))
		return NULL;
	item = malloc(sizeof(*item) + strlen(msg) + 1);
	if (!item)
		return NULL;
	item->failure = record_is_failure(r);
	strcpy(item->msg, msg);
	return item;
}

/*
 * May block: with the kernel's audit backlog full, the kernel holds the
 * sender for up to audit_backlog_wait_time (60 s by default).
 */
static int linux_audit_send(struct sink *s, void *item)
{
	struct linux_audit *audit = sink_container(s, struct linux_audit);
	struct audit_item *a = item;

	if (audit_log_user_message(audit->fd, AUDIT_TRUSTED_APP, a->msg, NULL, NULL, NULL,
				   !a->failure) <= 0)
		return -errno ? -errno : -EIO;
	return 0;
}

static void linux_audit_close(struct sink *s)
{
	struct linux_audit *audit = sink_container(s, struct linux_audit);

	close(audit->fd);
	free(audit);
}

static const struct sink_ops linux_audit_ops = {
	.name = "audit",
	.prepare = linux_audit_prepare,
	.send = linux_audit_send,
	.release = free,
	.close = linux_audit_close,
};

struct sink *linux_audit_open(void)
{
	struct linux_audit *audit;
	int fd = audit_open();

	if (fd < 0) {
		log_error("failed to open the Linux audit log: %s", strerror(errno));
		return NULL;
	}
	audit = malloc(sizeof(*audit));
	if (!audit) {
		log_error("failed to open the Linux audit log: %s", strerror(ENOMEM));
		close(fd);
		return NULL;
	}
	*audit = (struct linux_audit){ .sink = { .ops = &linux_audit_ops }, .fd = fd };
	return &audit->sink;
}
