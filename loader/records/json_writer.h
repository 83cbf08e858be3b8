/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A JSON writer that appends straight to one growing buffer: a record is
 * written in one pass, with no tree of objects to build and free. The same
 * calls also write journald's fields: with fields set, each member of the
 * outermost object becomes "ARGGUARD_<KEY>=<value>", NUL-terminated, its
 * string value as it is and any other value as JSON text; null members are
 * left out.
 *
 * Strings must be valid UTF-8 (event_json.c writes hex for anything else).
 * Out of memory, the writer stops writing and json_writer_finish() gives NULL.
 */
#ifndef ARGGUARD_JSON_WRITER_H
#define ARGGUARD_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_WRITER_MAX_DEPTH 8

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
void json_hex(struct json_writer *w, const char *key, const void *bytes, size_t len);
void json_u64(struct json_writer *w, const char *key, uint64_t v);
void json_s64(struct json_writer *w, const char *key, int64_t v);
void json_boolean(struct json_writer *w, const char *key, bool v);
void json_null(struct json_writer *w, const char *key);
/* A number, true or false, as text spells it. */
void json_literal(struct json_writer *w, const char *key, const char *text, size_t len);
/* v with three decimals. */
void json_fixed3(struct json_writer *w, const char *key, double v);

/* Fields only: one more field, "NAME=text" (json_field2: "NAME=prefixtext"), as it is. */
void json_field(struct json_writer *w, const char *name, const char *text);
void json_field2(struct json_writer *w, const char *name, const char *prefix, const char *text);

/*
 * Not this writer: the JSON of argguard status, report and the metrics,
 * built as a json-c tree. Print obj as one line of plain JSON, then free it
 * (json_object_put()). 0, or -ENOMEM if obj is NULL or cannot be printed.
 */
struct json_object;
int json_print_object(FILE *out, struct json_object *obj);

#endif /* ARGGUARD_JSON_WRITER_H */
