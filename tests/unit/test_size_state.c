// SPDX-License-Identifier: GPL-2.0
/* The window's counts on disk and from other hosts: the JSON reader. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "json_reader.h"

static bool parses(const char *text)
{
	char err[128];
	struct json_value *v = json_parse(text, strlen(text), err, sizeof(err));

	json_free(v);
	return v != NULL;
}

static void test_json_reader(void)
{
	static const char doc[] =
		"{\"a\": [1, 2, {\"b\": null}], \"s\": \"x\\u00e9\\ud83d\\ude00\\n\","
		" \"t\": true, \"n\": 18446744073709551615, \"big\": "
		"18446744073709551616, \"neg\": -1, \"f\": 1.5e3}";
	char err[128], deep[2 * JSON_READER_MAX_DEPTH + 8];
	struct json_value *v = json_parse(doc, strlen(doc), err, sizeof(err));
	const struct json_value *a, *s;
	uint64_t n;

	CHECK(v && v->type == JSON_OBJECT, "a document parses: %s", err);
	a = json_get(v, "a");
	CHECK(a && a->type == JSON_ARRAY && a->child && a->child->next->next->type == JSON_OBJECT &&
		      json_get(a->child->next->next, "b")->type == JSON_NULL,
	      "arrays, objects and null are read as written");
	s = json_get(v, "s");
	CHECK(s && !strcmp(json_str_of(s), "x\xc3\xa9\xf0\x9f\x98\x80\n"),
	      "\\u escapes, a surrogate pair included, are decoded to UTF-8");
	CHECK(json_u64_of(json_get(v, "n"), &n) && n == UINT64_MAX, "the largest u64 is read");
	CHECK(!json_u64_of(json_get(v, "big"), &n) && !json_u64_of(json_get(v, "neg"), &n) &&
		      !json_u64_of(json_get(v, "f"), &n) && !json_u64_of(s, &n),
	      "past 64 bits, negative, a fraction or a string is no u64");
	CHECK(json_get(v, "t")->type == JSON_TRUE && !json_get(v, "nothing"), "true; no such key");
	json_free(v);

	CHECK(!parses("{\"a\": 1,}") && !parses("[1 2]") && !parses("{\"a\" 1}"),
	      "a trailing comma, a missing comma or colon is refused");
	CHECK(!parses("{} {}") && !parses("// c\n{}") && !parses("{'a': 1}"),
	      "more after the value, a comment, single quotes are refused");
	CHECK(!parses("\"a\tb\"") && !parses("\"\\ud800\"") && !parses("\"\\udc00x\"") &&
		      !parses("\"\\x41\"") && !parses("\"abc"),
	      "a raw control character, a lone surrogate, an unknown escape, an open string");
	CHECK(!parses("01") && !parses("1.") && !parses("-") && !parses("tru") && !parses(""),
	      "numbers and literals as RFC 8259 spells them");
	for (int i = 0; i <= JSON_READER_MAX_DEPTH; i++) {
		deep[i] = '[';
		deep[JSON_READER_MAX_DEPTH + 1 + i] = ']';
	}
	deep[2 * JSON_READER_MAX_DEPTH + 2] = '\0';
	v = json_parse(deep, strlen(deep), err, sizeof(err));
	CHECK(!v && strstr(err, "nested more than"), "nesting past the bound is refused: %s", err);
	deep[2 * JSON_READER_MAX_DEPTH + 1] = '\0';
	CHECK(parses(deep + 1), "and up to it is read");
	v = json_parse("{\n\"a\": [1,\n2 3]}", 16, err, sizeof(err));
	CHECK(!v && !strcmp(err, "line 3: expected ',' or ']'"), "an error names its line: %s",
	      err);
}

int main(void)
{
	test_json_reader();
	return check_done();
}
