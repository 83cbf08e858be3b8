// SPDX-License-Identifier: GPL-2.0
/* Numbers read from text (units.h). */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int parse_bytes(const char *text, uint64_t *bytes)
{
	unsigned long long value;
	unsigned int shift = 0;
	char *end;

	/* strtoull would accept leading blanks and a minus sign. */
	if (!text || !isdigit((unsigned char)text[0]))
		return -EINVAL;
	errno = 0;
	value = strtoull(text, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	default:
		return -EINVAL;
	}
	if (*end != '\0')
		return -EINVAL;
	if (shift && value > (UINT64_MAX >> shift))
		return -ERANGE;
	*bytes = (uint64_t)value << shift;
	return 0;
}

int read_numbers(const char *path, unsigned long long *v, int n)
{
	FILE *f = fopen(path, "re");
	char line[128], *p, *end;
	int got = 0;

	if (!f)
		return 0;
	p = fgets(line, sizeof(line), f);
	fclose(f);
	while (p && got < n) {
		errno = 0;
		v[got] = strtoull(p, &end, 10);
		if (end == p || errno)
			break;
		got++;
		p = end;
	}
	return got;
}
