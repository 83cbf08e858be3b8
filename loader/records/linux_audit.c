// SPDX-License-Identifier: GPL-2.0
#include "linux_audit.h"
#include "container.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <utmp.h>

#include <libaudit.h>

#include "clocks.h"
#include "log.h"
#include "record_fields.h"

struct linux_audit {
	struct sink sink;
	int fd;
	size_t message_size; /* the room for a message: message_size() */
	uint64_t asked_ns; /* when the kernel last said whether auditing is on */
	bool off; /* what it said: auditing is off */
	bool cannot_ask; /* asking needs CAP_AUDIT_CONTROL */
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
 * How a value is written: a number of ours, bare; a string in double
 * quotes, or in hex where a byte needs it.
 */
enum spelling { BARE, QUOTED, HEX };

/*
 * A string's spelling: as the kernel's audit_log_untrustedstring() writes
 * one, in double quotes, or, where a byte needs it (a quote, a blank, a
 * control byte or any byte past 0x7e; audit_value_needs_encoding()), as
 * bare hex digits. The quotes tell the two apart, so no value reads as
 * another: the name "2F746D70" is written with its quotes, the bytes of
 * "/tmp\xff" as 2F746D70FF. auditd's ausearch -i decodes the hex. An '='
 * needs it too: ausearch finds a field by the first "exe=" or "res=" past
 * the offender's uid, so a program named "res=ok" would hide a denial from
 * ausearch -sv no.
 */
static enum spelling string_spelling(const char *value, size_t vlen)
{
	return audit_value_needs_encoding(value, vlen) || memchr(value, '=', vlen) ? HEX : QUOTED;
}

/* Append " key=value", spelled so. */
static void add_bytes(struct message *m, const char *key, const char *value, size_t vlen,
		      enum spelling how)
{
	size_t klen = strlen(key);
	size_t room = how == HEX ? 2 * vlen : how == QUOTED ? vlen + 2 : vlen;
	char *p = m->text + m->len;

	if (m->len + 2 + klen + room + OMITTED_ROOM >= m->size) {
		omit(m, key);
		return;
	}
	*p++ = ' ';
	memcpy(p, key, klen);
	p += klen;
	*p++ = '=';
	if (how == HEX) {
		audit_encode_value(p, value, vlen);
		p += 2 * vlen;
	} else {
		if (how == QUOTED)
			*p++ = '"';
		memcpy(p, value, vlen);
		p += vlen;
		if (how == QUOTED)
			*p++ = '"';
	}
	*p = '\0';
	m->len = p - m->text;
}

/*
 * One field of the record; a null one is left out. A number or true or
 * false is bare, as the kernel writes its own: ausearch -ui reads the
 * offender's uid=, the first past the kernel's own, only as bare digits.
 * The head's arguments each end in a NUL: in hex, as auditd's proctitle. No
 * argument, no field.
 */
static void add_field(struct message *m, const struct record_field *f, const struct field_value *v)
{
	if (v->state == FIELD_NULL || (f->kind == FIELD_ARGS && !v->len))
		return;
	add_bytes(m, f->name, v->s, v->len,
		  f->kind == FIELD_LITERAL ? BARE : string_spelling(v->s, v->len));
}

/*
 * The walk's writer. The fields go in the record's order but for the head
 * of the command line, which goes last: the one field that is long as a
 * matter of course, it is the one a message short of room leaves out.
 */
struct audit_walk {
	struct message *m;
	const struct record_field *last;
	struct field_value last_value;
};

static void write_field(void *ctx, const struct record_field *f, const struct field_value *v)
{
	struct audit_walk *walk = ctx;

	if (f->flags & FIELD_AUDIT_LAST) {
		walk->last = f;
		walk->last_value = *v;
		return;
	}
	add_field(walk->m, f, v);
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
	struct audit_walk walk = { .m = &m };

	if (size < LINUX_AUDIT_MESSAGE_MIN)
		return -EINVAL;
	m.len = snprintf(msg, size, "op=argguard-%s", r->kind == RECORD_EXEC ? "exec" : "summary");
	record_walk(r, FIELD_NO_AUDIT, write_field, &walk);
	if (walk.last)
		add_field(&m, walk.last, &walk.last_value);
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
 * The kernel's audit_enabled (0 off, 1 on, 2 on and locked), or -errno:
 * -EPERM without CAP_AUDIT_CONTROL. The kernel acks the request at once
 * (audit_request_status() takes the ack) and sends the status after it.
 */
static int kernel_audit_enabled(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct audit_reply rep;
	int rc = audit_request_status(fd);

	if (rc < 0)
		return rc;
	for (int i = 0; i < 10; i++) {
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			return -errno;
		rc = audit_get_reply(fd, &rep, GET_REPLY_NONBLOCKING, 0);
		if (rc > 0 && rep.type == AUDIT_GET)
			return (int)rep.status->enabled;
		if (rc > 0 && rep.type == NLMSG_ERROR && rep.error->error)
			return rep.error->error;
	}
	return -ETIMEDOUT;
}

/*
 * With auditing off (auditctl -e 0, or on Debian 12 a restart of
 * systemd-journald), the kernel acks a user message and drops it. Asked at
 * most once a second, so that the records it drops count as lost, not
 * sent. An error leaves the last answer; without the right to ask, stop.
 */
static bool kernel_auditing_off(struct linux_audit *audit)
{
	uint64_t now = monotonic_ns();
	int enabled;

	if (audit->cannot_ask || (audit->asked_ns && now - audit->asked_ns < 1000000000ULL))
		return audit->off;
	audit->asked_ns = now;
	enabled = kernel_audit_enabled(audit->fd);
	if (enabled == -EPERM) {
		audit->cannot_ask = true;
		log_info("cannot ask the kernel whether auditing is on (no CAP_AUDIT_CONTROL): "
			 "records it drops while it is off are not counted lost");
	}
	if (enabled < 0 || audit->off == !enabled)
		return audit->off;
	audit->off = !enabled;
	if (audit->off)
		log_error("the kernel's auditing is off (audit_enabled 0): it drops argguard's "
			  "audit records until auditctl -e 1 turns it on again");
	else
		log_info("the kernel's auditing is on again");
	return audit->off;
}

/*
 * May block: with the kernel's audit backlog full, the kernel holds the
 * sender for up to audit_backlog_wait_time (60 s by default).
 */
static int linux_audit_send(struct sink *s, void *item)
{
	struct linux_audit *audit = sink_container(s, struct linux_audit);
	struct audit_item *a = item;

	if (kernel_auditing_off(audit))
		return -ECANCELED;
	if (audit_log_user_message(audit->fd, AUDIT_TRUSTED_APP, a->msg, NULL, NULL, NULL,
				   !a->failure) <= 0)
		return -errno ? -errno : -EIO;
	return 0;
}

static void linux_audit_close(struct sink *s)
{
	close(sink_container(s, struct linux_audit)->fd);
}

static const struct sink_ops linux_audit_ops = SINK_OPS(linux_audit, "audit");

struct sink *linux_audit_open(void)
{
	struct linux_audit *audit;
	int fd = audit_open();

	if (fd < 0) {
		log_error("failed to open the Linux audit log: %s", strerror(errno));
		return NULL;
	}
	audit = sink_new(struct linux_audit, &linux_audit_ops);
	if (!audit) {
		close(fd);
		return NULL;
	}
	audit->fd = fd;
	audit->message_size = message_size();
	return &audit->sink;
}
