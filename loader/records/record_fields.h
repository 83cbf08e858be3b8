/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A record's fields, in one table: each row a name, a kind and a getter.
 * record_walk() hands a record's rows, in the table's order, to a writer:
 * the JSON log and journald (event_json.c) and the Linux audit log
 * (linux_audit.c) are writers of this one walk, so a field is added, named
 * or moved here and nowhere else. argguard-records(5) documents each row.
 */
#ifndef ARGGUARD_RECORD_FIELDS_H
#define ARGGUARD_RECORD_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "container.h"
#include "cri_names.h"
#include "record.h"

enum record_field_kind {
	FIELD_TEXT, /* a name of ours, in s: ASCII */
	FIELD_BYTES, /* bytes the caller chose, in s: UTF-8 or not */
	FIELD_LITERAL, /* a number, true or false, in s: as JSON spells it */
	FIELD_ARGS, /* the head of argv, in s: arguments each ended by a NUL */
	FIELD_UIDS, /* the summary's top uids: losses */
	FIELD_SINKS, /* what the other sinks lost: losses */
	FIELD_CONTAINER, /* container */
};

/* What a row's getter finds in a record. */
struct field_value {
	enum {
		FIELD_ABSENT, /* no such member in this record */
		FIELD_NULL, /* the member is there, and unknown */
		FIELD_SET,
	} state;
	const char *s;
	size_t len;
	const struct record_losses *losses;
	struct container container;
	const struct cri_names *names; /* with container: the CRI's names of it, or NULL */
	char buf[400]; /* what the getter spelled: a number, a time, an errno's number, a message */
};

/*
 * Which writers pass a row over, or write it elsewhere. The JSON log has
 * objects and arrays; journald has their JSON text, but a container's
 * members as flat fields; the audit log has those too, and text of its own
 * for the others.
 */
#define FIELD_NO_AUDIT (1U << 0) /* auditd stamps its own time, and spells bytes its own way */
#define FIELD_NO_JOURNAL (1U << 1)
#define FIELD_NO_LOG (1U << 2) /* the JSON log's */
#define FIELD_NOT_EVENT (1U << 3) /* the daemon's, not the BPF event's: event_to_json() leaves it */
#define FIELD_AUDIT_LAST (1U << 4) /* the audit message's last field: see linux_audit.c */
#define FIELD_FLAT (FIELD_NO_LOG | FIELD_NOT_EVENT) /* a member of container, flat */
#define FIELD_AUDIT_ONLY (FIELD_NO_LOG | FIELD_NO_JOURNAL)
/* The JSON log's envelope: journald and auditd stamp host, boot and sequence their own way. */
#define FIELD_LOG_ONLY (FIELD_NO_AUDIT | FIELD_NO_JOURNAL | FIELD_NOT_EVENT)

/*
 * The JSON log's schema version, in each line's "schema": raised when a
 * field is renamed or removed or its meaning changes, not when one is
 * added. argguard-records(5) says what each version changed.
 */
#define ARGGUARD_LOG_SCHEMA 1

/* A row with no getter: how to read the member at its offset. */
enum record_member {
	MEMBER_U64, /* of the event */
	MEMBER_U32, /* of the event, written as a signed number */
	MEMBER_COUNT, /* of the event: an int32_t, -1 (null) when the BPF side could not read it */
	MEMBER_STRING, /* of the event: a char array of size bytes, NUL-terminated or not */
	MEMBER_LOSS, /* a uint64_t of the summary's losses */
};

struct record_field {
	const char *name;
	enum record_field_kind kind;
	unsigned int flags;
	void (*get)(const struct record *r, struct field_value *v); /* NULL: the member */
	enum record_member member;
	size_t offset, size;
};

/* A writer: called for each row the record has (state FIELD_NULL or FIELD_SET). */
typedef void record_field_writer(void *ctx, const struct record_field *f,
				 const struct field_value *v);

/* Each of r's fields in order, but those with a flag of skip, to write(). */
void record_walk(const struct record *r, unsigned int skip, record_field_writer *write, void *ctx);

#endif /* ARGGUARD_RECORD_FIELDS_H */
