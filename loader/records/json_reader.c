// SPDX-License-Identifier: GPL-2.0
#include "json_reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *p, *end, *start;
	char *err;
	size_t err_len;
	bool failed;
};

__attribute__((format(printf, 2, 3))) static void fail(struct parser *ps, const char *fmt, ...)
{
	unsigned int line = 1;
	size_t n;
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = true;
	if (!ps->err_len)
		return;
	for (const char *c = ps->start; c < ps->p && c < ps->end; c++)
		line += *c == '\n';
	n = snprintf(ps->err, ps->err_len, "line %u: ", line);
	if (n >= ps->err_len)
		return;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->err_len - n, fmt, ap);
	va_end(ap);
}

static void skip_space(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

/* Past the next character after white space, if it is c; else fail with why. */
static bool expect(struct parser *ps, char c, const char *why)
{
	skip_space(ps);
	if (ps->p >= ps->end || *ps->p != c) {
		fail(ps, "%s", why);
		return false;
	}
	ps->p++;
	return true;
}

static struct json_value *new_value(struct parser *ps, enum json_type type)
{
	struct json_value *v = calloc(1, sizeof(*v));

	if (!v) {
		errno = ENOMEM;
		fail(ps, "out of memory");
		return NULL;
	}
	v->type = type;
	return v;
}

static bool literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n)) {
		fail(ps, "expected a value");
		return false;
	}
	ps->p += n;
	return true;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Past one digit or more; else fail with why. */
static bool digits(struct parser *ps, const char *why)
{
	if (ps->p >= ps->end || !is_digit(*ps->p)) {
		fail(ps, "%s", why);
		return false;
	}
	while (ps->p < ps->end && is_digit(*ps->p))
		ps->p++;
	return true;
}

/* A number as RFC 8259 writes it, kept as its text. */
static struct json_value *parse_number(struct parser *ps)
{
	const char *s = ps->p;
	struct json_value *v;

	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (ps->p < ps->end && *ps->p == '0') {
		ps->p++;
	} else if (ps->p < ps->end && is_digit(*ps->p)) {
		while (ps->p < ps->end && is_digit(*ps->p))
			ps->p++;
	} else {
		fail(ps, "expected a value");
		return NULL;
	}
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (!digits(ps, "expected a digit after '.'"))
			return NULL;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (!digits(ps, "expected a digit in an exponent"))
			return NULL;
	}
	v = new_value(ps, JSON_NUMBER);
	if (!v)
		return NULL;
	v->len = ps->p - s;
	v->text = strndup(s, v->len);
	if (!v->text) {
		free(v);
		errno = ENOMEM;
		fail(ps, "out of memory");
		return NULL;
	}
	return v;
}

int json_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The four hex digits after "\u", into *u. */
static bool read_u4(struct parser *ps, unsigned int *u)
{
	*u = 0;
	if (ps->end - ps->p < 4) {
		fail(ps, "expected four hex digits after \\u");
		return false;
	}
	for (int i = 0; i < 4; i++) {
		int d = json_hex_digit(*ps->p++);

		if (d < 0) {
			fail(ps, "expected four hex digits after \\u");
			return false;
		}
		*u = *u << 4 | d;
	}
	return true;
}

/* A code point as UTF-8 at out; returns the bytes written (at most 4). */
static size_t put_utf8(char *out, unsigned int cp)
{
	if (cp < 0x80) {
		out[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = 0xc0 | cp >> 6;
		out[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = 0xe0 | cp >> 12;
		out[1] = 0x80 | (cp >> 6 & 0x3f);
		out[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	out[0] = 0xf0 | cp >> 18;
	out[1] = 0x80 | (cp >> 12 & 0x3f);
	out[2] = 0x80 | (cp >> 6 & 0x3f);
	out[3] = 0x80 | (cp & 0x3f);
	return 4;
}

/* A \u escape, a surrogate pair's two included, as UTF-8 at out; returns its length or 0. */
static size_t unicode_escape(struct parser *ps, char *out)
{
	unsigned int u, low;

	if (!read_u4(ps, &u))
		return 0;
	if (u >= 0xdc00 && u <= 0xdfff) {
		fail(ps, "a lone low surrogate, \\u%04x", u);
		return 0;
	}
	if (u >= 0xd800 && u <= 0xdbff) {
		if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u') {
			fail(ps, "a high surrogate, \\u%04x, with no low one after it", u);
			return 0;
		}
		ps->p += 2;
		if (!read_u4(ps, &low))
			return 0;
		if (low < 0xdc00 || low > 0xdfff) {
			fail(ps, "a high surrogate, \\u%04x, with no low one after it", u);
			return 0;
		}
		u = 0x10000 + ((u - 0xd800) << 10) + (low - 0xdc00);
	}
	return put_utf8(out, u);
}

/*
 * A string after its opening quote: its bytes into *text (a NUL after
 * them), their number into *len. Its decoded bytes are never more than
 * those it was written with, so one buffer of that size holds them.
 */
static bool parse_string(struct parser *ps, char **text, size_t *len)
{
	const char *s = ps->p;
	char *out, *o;

	while (s < ps->end && *s != '"')
		s += *s == '\\' && s + 1 < ps->end ? 2 : 1;
	if (s >= ps->end) {
		fail(ps, "a string with no closing quote");
		return false;
	}
	out = malloc(s - ps->p + 1);
	if (!out) {
		errno = ENOMEM;
		fail(ps, "out of memory");
		return false;
	}
	o = out;
	while (*ps->p != '"') {
		unsigned char c = *ps->p++;

		if (c < 0x20) {
			fail(ps, "a control character (0x%02x) in a string", c);
			goto bad;
		}
		if (c != '\\') {
			*o++ = c;
			continue;
		}
		switch (*ps->p++) {
		case '"':
			*o++ = '"';
			break;
		case '\\':
			*o++ = '\\';
			break;
		case '/':
			*o++ = '/';
			break;
		case 'b':
			*o++ = '\b';
			break;
		case 'f':
			*o++ = '\f';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'u': {
			size_t n = unicode_escape(ps, o);

			if (!n)
				goto bad;
			o += n;
			break;
		}
		default:
			fail(ps, "an unknown escape in a string");
			goto bad;
		}
	}
	ps->p++; /* the closing quote */
	*o = '\0';
	*text = out;
	*len = o - out;
	return true;
bad:
	free(out);
	return false;
}

/* A member's key and its ':', into *key (malloc'd). */
static bool parse_key(struct parser *ps, char **key)
{
	size_t len;

	if (!expect(ps, '"', "expected a key") || !parse_string(ps, key, &len))
		return false;
	if (strlen(*key) != len)
		fail(ps, "a key with a NUL in it");
	else if (expect(ps, ':', "expected ':' after a key"))
		return true;
	free(*key);
	*key = NULL;
	return false;
}

/* One value: a scalar whole, or an array's or an object's node with its bracket read. */
static struct json_value *parse_one(struct parser *ps)
{
	struct json_value *v;
	char c;

	skip_space(ps);
	if (ps->p >= ps->end) {
		fail(ps, "expected a value, found the end");
		return NULL;
	}
	c = *ps->p;
	if (c == '{' || c == '[') {
		ps->p++;
		return new_value(ps, c == '{' ? JSON_OBJECT : JSON_ARRAY);
	}
	if (c == '"') {
		ps->p++;
		v = new_value(ps, JSON_STRING);
		if (v && !parse_string(ps, &v->text, &v->len)) {
			free(v);
			v = NULL;
		}
		return v;
	}
	if (c == 't' || c == 'f' || c == 'n') {
		static const char *const words[] = { "true", "false", "null" };
		static const enum json_type types[] = { JSON_TRUE, JSON_FALSE, JSON_NULL };
		int i = c == 't' ? 0 : c == 'f' ? 1 : 2;

		return literal(ps, words[i]) ? new_value(ps, types[i]) : NULL;
	}
	return parse_number(ps);
}

static char closer(const struct json_value *v)
{
	return v->type == JSON_OBJECT ? '}' : ']';
}

/*
 * The whole value, its arrays and objects open on a stack of their own (no
 * recursion: the depth is the stack's), each node linked in as it is made,
 * so that freeing the root frees all on failure.
 */
static struct json_value *parse_tree(struct parser *ps)
{
	struct {
		struct json_value *v;
		struct json_value **tail;
	} open[JSON_READER_MAX_DEPTH];
	struct json_value *root = NULL, *v;
	char *key = NULL;
	int depth = 0;

	for (;;) {
		if (depth && open[depth - 1].v->type == JSON_OBJECT && !parse_key(ps, &key))
			goto fail;
		v = parse_one(ps);
		if (!v)
			goto fail;
		v->key = key;
		key = NULL;
		if (depth) {
			*open[depth - 1].tail = v;
			open[depth - 1].tail = &v->next;
		} else {
			root = v;
		}
		if (v->type == JSON_ARRAY || v->type == JSON_OBJECT) {
			if (depth == JSON_READER_MAX_DEPTH) {
				fail(ps, "arrays and objects nested more than %d deep",
				     JSON_READER_MAX_DEPTH);
				goto fail;
			}
			open[depth].v = v;
			open[depth].tail = &v->child;
			depth++;
			skip_space(ps);
			if (ps->p >= ps->end || *ps->p != closer(v))
				continue; /* its first element or member */
			ps->p++;
			depth--;
		}
		/* Close what ends after this value; then its next element or member. */
		while (depth) {
			skip_space(ps);
			if (ps->p < ps->end && *ps->p == ',') {
				ps->p++;
				break;
			}
			if (ps->p < ps->end && *ps->p == closer(open[depth - 1].v)) {
				ps->p++;
				depth--;
				continue;
			}
			fail(ps, open[depth - 1].v->type == JSON_OBJECT ? "expected ',' or '}'"
									: "expected ',' or ']'");
			goto fail;
		}
		if (!depth)
			return root;
	}
fail:
	free(key);
	json_free(root);
	return NULL;
}

struct json_value *json_parse(const char *text, size_t len, char *err, size_t err_len)
{
	struct parser ps = {
		.p = text, .end = text + len, .start = text, .err = err, .err_len = err_len
	};
	struct json_value *root;

	if (err_len)
		err[0] = '\0';
	if (len > JSON_READER_MAX_TEXT) {
		fail(&ps, "more than %u bytes", JSON_READER_MAX_TEXT);
		errno = EFBIG;
		return NULL;
	}
	root = parse_tree(&ps);
	if (!root) {
		if (errno != ENOMEM)
			errno = EINVAL;
		return NULL;
	}
	skip_space(&ps);
	if (ps.p != ps.end) {
		fail(&ps, "more after the value");
		json_free(root);
		errno = EINVAL;
		return NULL;
	}
	return root;
}

void json_free(struct json_value *v)
{
	while (v) {
		struct json_value *next, *last;

		/* Its children go before its siblings: one list, freed in one walk. */
		if (v->child) {
			for (last = v->child; last->next; last = last->next)
				;
			last->next = v->next;
			v->next = v->child;
		}
		next = v->next;
		free(v->key);
		free(v->text);
		free(v);
		v = next;
	}
}

const struct json_value *json_get(const struct json_value *obj, const char *key)
{
	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (const struct json_value *m = obj->child; m; m = m->next)
		if (!strcmp(m->key, key))
			return m;
	return NULL;
}

bool json_u64_of(const struct json_value *v, uint64_t *out)
{
	uint64_t n = 0;

	if (!v || v->type != JSON_NUMBER || !v->len || (v->text[0] == '0' && v->len > 1))
		return false;
	for (size_t i = 0; i < v->len; i++) {
		unsigned int d = v->text[i] - '0';

		if (d > 9 || n > (UINT64_MAX - d) / 10)
			return false;
		n = n * 10 + d;
	}
	*out = n;
	return true;
}

const char *json_str_of(const struct json_value *v)
{
	if (!v || v->type != JSON_STRING || strlen(v->text) != v->len)
		return NULL;
	return v->text;
}
