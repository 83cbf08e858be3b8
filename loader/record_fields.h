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
#include "record.h"

enum record_field_kind {
	FIELD_TEXT, /* a name or a number of ours, in s: ASCII */
	FIELD_BYTES, /* bytes the caller chose, in s: UTF-8 or not */
	FIELD_U64,
	FIELD_S64,
	FIELD_BOOL,
	FIELD_FIXED3, /* d, with three decimals */
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
	uint64_t u;
	int64_t i;
	bool b;
	double d;
	const struct record_losses *losses;
	struct container container;
	char buf[400]; /* what the getter spelled: a time, an errno's number, a message */
};

/* Which writers pass a row over, or write it elsewhere. */
#define FIELD_NO_AUDIT (1U << 0) /* auditd stamps its own time, and spells bytes its own way */
#define FIELD_NOT_EVENT (1U << 1) /* the daemon's, not the BPF event's: event_to_json() leaves it */
#define FIELD_AUDIT_LAST (1U << 2) /* the audit message's last field: see linux_audit.c */

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

/* Whether the len bytes at s are UTF-8: valid, no overlong form, no surrogate. */
bool record_is_utf8(const char *s, size_t len);

/*
 * A record in one line of text, as journald shows it: "deny exec of
 * /bin/true (global max_total_bytes, limit 1048576)", or a summary's
 * message. free() it; NULL when out of memory.
 */
char *record_message(const struct record *r);

/*
 * How records spell what the sinks pass on. record_string(): a kernel
 * string of at most max bytes, the bytes themselves if they are UTF-8, else
 * their hex digits (and *hex is true); free() it, NULL when out of memory.
 * record_errno(): an errno's name ("E2BIG"), or its number, in buf, where it
 * has none. record_interpreter(): a script's interpreter as binfmt_script
 * finds it in the "#!" line, the len bytes at *name; false for no script.
 * record_sizes(): where argv_bytes and the rest came from: "exact" (a
 * patched kernel's counts), "derived" (from the total) or "unknown".
 */
char *record_string(const char *buf, size_t max, bool *hex);
const char *record_errno(int32_t err, char *buf, size_t len);
bool record_interpreter(const struct argguard_event *e, const char **name, size_t *len);
const char *record_sizes(const struct argguard_event *e);

/*
 * For summaries. record_lost(): the records lost, all reasons together.
 * record_top_uids(): the uids that lost the most, as "uid:count,...", in buf.
 */
uint64_t record_lost(const struct record_losses *n);
void record_top_uids(const struct record_losses *n, char *buf, size_t len);

#endif /* ARGGUARD_RECORD_FIELDS_H */
