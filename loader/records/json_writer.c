// SPDX-License-Identifier: GPL-2.0
#include "json_writer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_writer_init(struct json_writer *w, bool fields)
{
	*w = (struct json_writer){ .fields = fields };
}

char *json_writer_finish(struct json_writer *w, size_t *len)
{
	char *buf = w->buf;

	if (w->failed || !buf) {
		free(buf);
		buf = NULL;
	}
	if (len)
		*len = buf ? w->len : 0;
	w->buf = NULL;
	return buf;
}

/* Room for n more bytes and a NUL. */
static bool room(struct json_writer *w, size_t n)
{
	size_t cap = w->cap ? w->cap : 1024;
	char *buf;

	if (w->failed)
		return false;
	if (w->len + n < w->cap)
		return true;
	while (w->len + n >= cap)
		cap *= 2;
	buf = realloc(w->buf, cap);
	if (!buf) {
		w->failed = true;
		return false;
	}
	w->buf = buf;
	w->cap = cap;
	return true;
}

static inline void put(struct json_writer *w, const char *s, size_t n)
{
	if (!room(w, n))
		return;
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

static inline void put_char(struct json_writer *w, char c)
{
	if (!room(w, 1))
		return;
	w->buf[w->len++] = c;
	w->buf[w->len] = '\0';
}

/* A member of the outermost object, written as a field of its own. */
static bool in_field(const struct json_writer *w)
{
	return w->fields && w->depth == 1;
}

/* The bytes JSON cannot hold as they are in a string. */
static bool needs_escape(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\';
}

/* s in quotes, with what JSON cannot hold as it is escaped. */
static void put_quoted(struct json_writer *w, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, run;

	put_char(w, '"');
	while (i < len) {
		char esc[6] = { '\\', 0 };
		size_t n = 2;
		unsigned char c;

		for (run = i; i < len && !needs_escape(s[i]); i++)
			;
		put(w, s + run, i - run);
		if (i == len)
			break;
		c = s[i++];
		switch (c) {
		case '"':
		case '\\':
			esc[1] = c;
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\t':
			esc[1] = 't';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		default:
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			n = 6;
		}
		put(w, esc, n);
	}
	put_char(w, '"');
}

/* Before a value: the separator and the key, or the field's name. */
static void member(struct json_writer *w, const char *key)
{
	if (w->depth == 0)
		return;
	if (in_field(w)) {
		size_t n = strlen(key);
		char *p;

		if (!room(w, 9 + n + 1))
			return;
		p = w->buf + w->len;
		strcpy(p, "ARGGUARD_");
		for (size_t i = 0; i < n; i++)
			p[9 + i] = key[i] >= 'a' && key[i] <= 'z' ? key[i] - 'a' + 'A' : key[i];
		memcpy(p + 9 + n, "=", 2);
		w->len += 9 + n + 1;
		return;
	}
	if (w->has_member[w->depth])
		put_char(w, ',');
	w->has_member[w->depth] = true;
	if (key) { /* the program's own names: nothing to escape */
		size_t n = strlen(key);

		if (!room(w, n + 3))
			return;
		w->buf[w->len] = '"';
		memcpy(w->buf + w->len + 1, key, n + 1);
		memcpy(w->buf + w->len + 1 + n, "\":", 3); /* over key's NUL, and a NUL */
		w->len += n + 3;
	}
}

/* After a value: a field ends with its NUL. */
static void end_value(struct json_writer *w)
{
	if (in_field(w))
		put(w, "", 1);
}

/* A value written as it is: a number, true, false. */
static void scalar(struct json_writer *w, const char *key, const char *text, size_t len)
{
	member(w, key);
	put(w, text, len);
	end_value(w);
}

static void open_nested(struct json_writer *w, const char *key, char bracket)
{
	member(w, key);
	if (w->depth == JSON_WRITER_MAX_DEPTH - 1) {
		w->failed = true;
		return;
	}
	if (!(w->fields && w->depth == 0))
		put_char(w, bracket);
	w->has_member[++w->depth] = false;
}

static void close_nested(struct json_writer *w, char bracket)
{
	if (w->depth == 0) {
		w->failed = true;
		return;
	}
	w->depth--;
	if (!(w->fields && w->depth == 0))
		put_char(w, bracket);
	end_value(w);
}

void json_begin_object(struct json_writer *w, const char *key)
{
	open_nested(w, key, '{');
}

void json_end_object(struct json_writer *w)
{
	close_nested(w, '}');
}

void json_begin_array(struct json_writer *w, const char *key)
{
	open_nested(w, key, '[');
}

void json_end_array(struct json_writer *w)
{
	close_nested(w, ']');
}

void json_string(struct json_writer *w, const char *key, const char *s, size_t len)
{
	member(w, key);
	if (in_field(w))
		put(w, s, len);
	else
		put_quoted(w, s, len);
	end_value(w);
}

void json_str(struct json_writer *w, const char *key, const char *s)
{
	if (s)
		json_string(w, key, s, strlen(s));
	else
		json_null(w, key);
}

void json_hex(struct json_writer *w, const char *key, const void *bytes, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = bytes;
	bool quoted = !in_field(w);
	char *out;

	member(w, key);
	if (!room(w, 2 * len + 2))
		return;
	out = w->buf + w->len;
	if (quoted)
		*out++ = '"';
	for (size_t i = 0; i < len; i++) {
		*out++ = digits[b[i] >> 4];
		*out++ = digits[b[i] & 15];
	}
	if (quoted)
		*out++ = '"';
	*out = '\0';
	w->len = out - w->buf;
	end_value(w);
}

void json_u64(struct json_writer *w, const char *key, uint64_t v)
{
	char text[20], *p = text + sizeof(text);

	do
		*--p = '0' + v % 10;
	while (v /= 10);
	scalar(w, key, p, text + sizeof(text) - p);
}

void json_u64_or_null(struct json_writer *w, const char *key, bool known, uint64_t v)
{
	if (known)
		json_u64(w, key, v);
	else
		json_null(w, key);
}

void json_s64(struct json_writer *w, const char *key, int64_t v)
{
	char text[21], *p = text + sizeof(text);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do
		*--p = '0' + u % 10;
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	scalar(w, key, p, text + sizeof(text) - p);
}

void json_boolean(struct json_writer *w, const char *key, bool v)
{
	scalar(w, key, v ? "true" : "false", v ? 4 : 5);
}

void json_null(struct json_writer *w, const char *key)
{
	if (in_field(w))
		return; /* journald: no field at all */
	scalar(w, key, "null", 4);
}

void json_literal(struct json_writer *w, const char *key, const char *text, size_t len)
{
	scalar(w, key, text, len);
}

void json_field(struct json_writer *w, const char *name, const char *text)
{
	json_field2(w, name, "", text);
}

void json_field2(struct json_writer *w, const char *name, const char *prefix, const char *text)
{
	put(w, name, strlen(name));
	put_char(w, '=');
	put(w, prefix, strlen(prefix));
	put(w, text, strlen(text));
	put(w, "", 1);
}

int json_writer_print(struct json_writer *w, FILE *out)
{
	size_t len;
	char *text;

	put_char(w, '\n');
	text = json_writer_finish(w, &len);
	if (!text)
		return -ENOMEM;
	fwrite(text, 1, len, out);
	free(text);
	return 0;
}
