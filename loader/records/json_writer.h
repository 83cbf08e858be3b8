/* SPDX-License-Identifier: GPL-2.0 */
/*
 * argguard's one JSON writer: it appends straight to one growing buffer, so
 * a record, argguard status or a report is written in one pass, with no
 * tree of objects to build and free. The same calls also write journald's
 * fields: with fields set, each member of the outermost object becomes
 * "ARGGUARD_<KEY>=<value>", NUL-terminated, its string value as it is and
 * any other value as JSON text; null members are left out.
 *
 * Keys are the program's own names, written unescaped. Strings are written
 * as they are but for what JSON must escape, so they must be UTF-8 to make
 * JSON (event_json.c writes hex for anything else). Out of memory, the
 * writer stops writing and json_writer_finish() gives NULL.
 */
#ifndef ARGGUARD_JSON_WRITER_H
#define ARGGUARD_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * One more than the objects and arrays a writer can have open at once:
 * argguard report nests 9 (a bucket, in a metric's buckets, in a cgroup's
 * metrics, in a pattern's cgroups, in the scopes).
 */
#define JSON_WRITER_MAX_DEPTH 12

struct json_writer {
	char *buf;
	size_t len, cap;
	bool fields; /* journald's fields, not JSON */
	bool failed;
	int depth; /* open objects and arrays */
	bool has_member[JSON_WRITER_MAX_DEPTH]; /* at each depth: a comma before the next */
};

void json_writer_init(struct json_writer *w, bool fields);
/*
 * The text written (fields: each NUL-terminated), and its length in *len
 * (len may be NULL); a NUL follows it. free() it.
 */
char *json_writer_finish(struct json_writer *w, size_t *len);

/*
 * Each call writes one value: a member of the open object under key, or an
 * element of the open array with key NULL.
 */
void json_begin_object(struct json_writer *w, const char *key);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w, const char *key);
void json_end_array(struct json_writer *w);
void json_string(struct json_writer *w, const char *key, const char *s, size_t len);
/* s up to its NUL; s NULL: null. */
void json_str(struct json_writer *w, const char *key, const char *s);
void json_hex(struct json_writer *w, const char *key, const void *bytes, size_t len);
void json_u64(struct json_writer *w, const char *key, uint64_t v);
/* v, or null where it is not known. */
void json_u64_or_null(struct json_writer *w, const char *key, bool known, uint64_t v);
void json_s64(struct json_writer *w, const char *key, int64_t v);
void json_boolean(struct json_writer *w, const char *key, bool v);
void json_null(struct json_writer *w, const char *key);
/* A number, true or false, as text spells it. */
void json_literal(struct json_writer *w, const char *key, const char *text, size_t len);

/* Fields only: one more field, "NAME=text" (json_field2: "NAME=prefixtext"), as it is. */
void json_field(struct json_writer *w, const char *name, const char *text);
void json_field2(struct json_writer *w, const char *name, const char *prefix, const char *text);

/* Print the text written and a newline to out, and free it: 0, or -ENOMEM. */
int json_writer_print(struct json_writer *w, FILE *out);

#endif /* ARGGUARD_JSON_WRITER_H */
