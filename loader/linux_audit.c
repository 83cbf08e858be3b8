// SPDX-License-Identifier: GPL-2.0
#include "linux_audit.h"
#include "container.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <utmp.h>

#include <libaudit.h>

#include "event_json.h"
#include "log.h"
#include "names.h"

struct linux_audit {
	struct sink sink;
	int fd;
	size_t message_size; /* the room for a message: message_size() */
};

/*
 * The kernel logs at most AUDIT_MESSAGE_TEXT_MAX bytes of a user message
 * and cuts the rest without a word, and audit_log_user_message() appends to
 * ours " exe=" and this program's path (quoted, or in hex), then
 * " hostname=? addr=? terminal=? res=failed", where a daemon run from a
 * terminal can have a host from utmp (UT_HOSTSIZE), an address
 * (INET6_ADDRSTRLEN) and a tty name (32 bytes). What is left is ours, so
 * that nothing is cut: a field that does not fit is left out, and named.
 */
static size_t message_size(void)
{
	const size_t tail = sizeof(" exe= hostname= addr= terminal= res=failed") - 1 + UT_HOSTSIZE +
			    INET6_ADDRSTRLEN + 32;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe));
	ssize_t room = AUDIT_MESSAGE_TEXT_MAX - (ssize_t)tail - (n > 0 ? 2 * n : 3);

	/* Installed thousands of bytes deep, argguard's messages lose their end. */
	return room > LINUX_AUDIT_MESSAGE_MIN ? (size_t)room : LINUX_AUDIT_MESSAGE_MIN;
}

/*
 * The message being written. A field that does not fit is left out and its
 * key kept in omitted, which ends the message: room for that is kept all
 * along.
 */
struct message {
	char *text;
	size_t len, size;
	char omitted[48]; /* "cgroup,filename": the keys left out, in order */
	bool omitted_more; /* and keys past what omitted holds: it ends in "..." */
};

#define OMITTED_ROOM (sizeof(" omitted=\"...\"") - 1 + sizeof(((struct message *)0)->omitted) - 1)

/* Leave out the field key: it did not fit. */
static void omit(struct message *m, const char *key)
{
	size_t used = strlen(m->omitted), klen = strlen(key);

	if (used + !!used + klen >= sizeof(m->omitted)) {
		m->omitted_more = true;
		return;
	}
	if (used)
		m->omitted[used++] = ',';
	memcpy(m->omitted + used, key, klen + 1);
}

/*
 * Append " key=value" as the kernel's audit_log_untrustedstring() writes a
 * value: in double quotes, or, where a byte needs it (a quote, a blank, a
 * control byte or any byte past 0x7e; audit_value_needs_encoding()), as
 * bare hex digits. The quotes tell the two apart, so no value reads as
 * another: the name "2F746D70" is written with its quotes, the bytes of
 * "/tmp\xff" as 2F746D70FF. auditd's ausearch -i decodes the hex.
 */
static void add_bytes(struct message *m, const char *key, const char *value, size_t vlen)
{
	size_t klen = strlen(key);
	bool hex = audit_value_needs_encoding(value, vlen);
	char *p = m->text + m->len;

	if (m->len + 2 + klen + (hex ? 2 * vlen : vlen + 2) + OMITTED_ROOM >= m->size) {
		omit(m, key);
		return;
	}
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

static void add(struct message *m, const char *key, const char *value)
{
	add_bytes(m, key, value, strlen(value));
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

/* A kernel string of at most max bytes: its own bytes, quoted or in hex. */
static void add_string(struct message *m, const char *key, const char *buf, size_t max)
{
	add_bytes(m, key, buf, strnlen(buf, max));
}

/* The fields of an exec: those of its JSON record that auditd gets, in this order. */
static void add_exec(struct message *m, const struct record *r)
{
	const struct argguard_event *e = r->event;
	const char *interpreter;
	struct container c;
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
	else
		add(m, "cgroup_error",
		    record_errno(r->cgroup_err < 0 ? -r->cgroup_err : EIO, number, sizeof(number)));
	if (container_from_cgroup(r->cgroup, &c)) {
		add(m, "container_runtime", c.runtime);
		add(m, "container_id", c.id);
		if (c.pod_uid[0])
			add(m, "container_pod_uid", c.pod_uid);
		if (c.nested_runtime) {
			add(m, "container_nested_runtime", c.nested_runtime);
			add(m, "container_nested_id", c.nested_id);
		}
	}
}

/* " omitted=\"cgroup\"": the fields left out, if any, in the room kept for it. */
static void end_message(struct message *m)
{
	if (!m->omitted[0] && !m->omitted_more)
		return;
	m->len += snprintf(m->text + m->len, m->size - m->len, " omitted=\"%s%s\"", m->omitted,
			   m->omitted_more ? "..." : "");
}

int linux_audit_message(const struct record *r, char *msg, size_t size)
{
	struct message m = { .text = msg, .size = size };
	char top[RECORD_TOP_UIDS * 32];

	if (size < LINUX_AUDIT_MESSAGE_MIN)
		return -EINVAL;
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
	end_message(&m);
	return 0;
}

/* A prepared record: its message, and whether the exec failed. */
struct audit_item {
	bool failure;
	char msg[];
};

static void *linux_audit_prepare(struct sink *s, const struct record *r)
{
	struct linux_audit *audit = sink_container(s, struct linux_audit);
	char msg[AUDIT_MESSAGE_TEXT_MAX];
	struct audit_item *item;

	if (linux_audit_message(r, msg, audit->message_size))
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
	*audit = (struct linux_audit){
		.sink = { .ops = &linux_audit_ops },
		.fd = fd,
		.message_size = message_size(),
	};
	return &audit->sink;
}
