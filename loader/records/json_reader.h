/* SPDX-License-Identifier: GPL-2.0 */
/*
 * argguard's one JSON reader, for the JSON it reads back: its own state
 * file and the reports suggest --from merges, which another host may have
 * written. The whole text is parsed into a tree at once, strictly (RFC
 * 8259: no comments, no trailing commas, one value and only white space
 * around it), within bounds: at most JSON_READER_MAX_DEPTH arrays and
 * objects nested, and a text of at most JSON_READER_MAX_TEXT bytes. A
 * number is kept as written, and read as the type its reader asks for; a
 * string is decoded to its bytes (\u escapes to UTF-8). Of an object's
 * members with one key, the first is the one json_get() finds.
 */
#ifndef ARGGUARD_JSON_READER_H
#define ARGGUARD_JSON_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_READER_MAX_DEPTH 32
#define JSON_READER_MAX_TEXT (64U << 20)

enum json_type {
	JSON_NULL,
	JSON_FALSE,
	JSON_TRUE,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT
};

struct json_value {
	enum json_type type;
	char *key; /* a member's key, NUL-terminated; NULL for an array's element or the root */
	char *text; /* a string's bytes, or a number as written; NUL-terminated */
	size_t len; /* of text (a string may hold a NUL of its own) */
	struct json_value *child; /* an array's first element, an object's first member */
	struct json_value *next; /* the next element or member */
};

/*
 * Parse the len bytes at text. Returns the root value (json_free() it), or
 * NULL with why in err ("line 3: expected ':' after a key"), or errno
 * ENOMEM.
 */
struct json_value *json_parse(const char *text, size_t len, char *err, size_t err_len);
void json_free(struct json_value *v);

/* The member of obj (an object) under key, or NULL (not an object, or no such member). */
const struct json_value *json_get(const struct json_value *obj, const char *key);

/* v as an unsigned integer in 64 bits (digits only, no sign, fraction or exponent). */
bool json_u64_of(const struct json_value *v, uint64_t *out);

/* v's bytes if it is a string that holds no NUL, else NULL. */
const char *json_str_of(const struct json_value *v);

/* The value of a hex digit of either case, or -1. */
int json_hex_digit(char c);

#endif /* ARGGUARD_JSON_READER_H */
