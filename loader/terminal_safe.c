// SPDX-License-Identifier: GPL-2.0
#include "terminal_safe.h"

#include <stdio.h>
#include <string.h>

/* c as it prints: itself, "\\", or "\xHH". Returns its length. */
static size_t escape(unsigned char c, char out[5])
{
	if (c == '\\')
		return (size_t)snprintf(out, 5, "\\\\");
	if (c >= 0x20 && c < 0x7f) {
		out[0] = (char)c;
		out[1] = '\0';
		return 1;
	}
	return (size_t)snprintf(out, 5, "\\x%02x", c);
}

const char *terminal_safe(char *buf, size_t size, const char *s)
{
	size_t n = 0;
	char e[5];

	for (; *s; s++) {
		size_t len = escape((unsigned char)*s, e);

		if (n + len >= size)
			break;
		memcpy(buf + n, e, len);
		n += len;
	}
	buf[n] = '\0';
	return buf;
}

void terminal_safe_fputs(const char *s, FILE *out)
{
	char e[5];

	for (; *s; s++) {
		escape((unsigned char)*s, e);
		fputs(e, out);
	}
}
