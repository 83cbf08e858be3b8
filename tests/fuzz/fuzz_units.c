// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: parse_bytes(), the byte counts of the policy file and
 * the CLI ("4096", "256K", "4M"). Its answer is checked against a second,
 * deliberately naive reading of the same text.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

/* Digits, then at most one of kKmMgG, then the end; anything else is -EINVAL. */
static int naive_bytes(const char *text, uint64_t *bytes)
{
	const char *s = text;
	unsigned int shift = 0;
	uint64_t value = 0;
	bool overflow = false;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (__builtin_mul_overflow(value, 10, &value) ||
		    __builtin_add_overflow(value, (uint64_t)(*s - '0'), &value))
			overflow = true;
	}
	if (*s && strchr("kK", *s))
		shift = 10;
	else if (*s && strchr("mM", *s))
		shift = 20;
	else if (*s && strchr("gG", *s))
		shift = 30;
	if (shift)
		s++;
	if (*s)
		return overflow ? -ERANGE : -EINVAL;
	if (overflow || (shift && value > (UINT64_MAX >> shift)))
		return -ERANGE;
	*bytes = value << shift;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	uint64_t got = 0, want = 0;
	int err, want_err;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	err = parse_bytes(text, &got);
	want_err = naive_bytes(text, &want);
	if (err != want_err || (!err && got != want)) {
		fprintf(stderr, "parse_bytes(\"%s\"): %d, %llu; expected %d, %llu\n", text, err,
			(unsigned long long)got, want_err, (unsigned long long)want);
		abort();
	}
	free(text);
	return 0;
}
