// SPDX-License-Identifier: GPL-2.0
/* The state of one policy parse: its first error, logged with FILE:LINE, and trimming. */
#include "policy_parser.h"

#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#include "log.h"

static void vfail_at(struct policy_parser *ps, unsigned int line, const char *fmt, va_list ap)
{
	/* Room for a message that quotes a whole line, or two cgroup paths. */
	char what[2 * POLICY_LINE_MAX];

	if (ps->failed)
		return;
	ps->failed = true;
	vsnprintf(what, sizeof(what), fmt, ap);
	log_error("%s:%u: %s", ps->name, line, what);
}

void policy_fail(struct policy_parser *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_at(ps, ps->line, fmt, ap);
	va_end(ap);
}

void policy_fail_at(struct policy_parser *ps, unsigned int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_at(ps, line, fmt, ap);
	va_end(ap);
}

/* Past leading white space. */
static char *skip_space(char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

/* Cut the white space off the end of s. */
static void cut_space(char *s)
{
	char *end = s + strlen(s);

	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
}

char *policy_trim(char *s)
{
	s = skip_space(s);
	cut_space(s);
	return s;
}
