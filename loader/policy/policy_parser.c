// SPDX-License-Identifier: GPL-2.0
/*
 * The state of one policy parse: its first error, logged with FILE:LINE,
 * the names this host does not know, and trimming.
 */
#include "policy_parser.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

static void vfail_at(struct policy_parser *ps, unsigned int line, const char *fmt, va_list ap)
{
	/* Room for a message that quotes a whole line, or two cgroup paths. */
	char what[2 * POLICY_LINE_MAX], where[POLICY_WHERE_MAX];

	if (ps->failed)
		return;
	ps->failed = true;
	vsnprintf(what, sizeof(what), fmt, ap);
	log_error("%s: %s", policy_where(ps->p, line, ps->name, where, sizeof(where)), what);
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

const char *policy_line_from(const struct policy_parser *ps, unsigned int line, unsigned int from,
			     char *buf)
{
	size_t i = policy_part_of(ps->p, line);

	if (i == policy_part_of(ps->p, from)) {
		snprintf(buf, POLICY_WHERE_MAX, "line %u",
			 line - (i < ps->p->n_parts ? ps->p->parts[i].first : 0));
		return buf;
	}
	return policy_where(ps->p, line, ps->name, buf, POLICY_WHERE_MAX);
}

void policy_unknown_name(struct policy_parser *ps, const char *skipped, const char *fmt, ...)
{
	struct policy_unknown *more;
	char what[2 * POLICY_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	more = realloc(ps->unknown, (ps->n_unknown + 1) * sizeof(*more));
	if (!more) {
		policy_fail(ps, "out of memory");
		return;
	}
	ps->unknown = more;
	more[ps->n_unknown].line = ps->line;
	more[ps->n_unknown].skipped = skipped;
	more[ps->n_unknown].what = strdup(what);
	if (!more[ps->n_unknown].what) {
		policy_fail(ps, "out of memory");
		return;
	}
	ps->n_unknown++;
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
