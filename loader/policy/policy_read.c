// SPDX-License-Identifier: GPL-2.0
/*
 * The policy file reader: text to struct policy, strictly, every error
 * naming FILE:LINE. Here the lines are read and split; policy_keys.c says
 * what their sections and keys mean.
 */
#include "cgroup_pattern.h"
#include "log.h"
#include "policy_keys.h"
#include "policy_parser.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>

/*
 * Read the next line into ps->text, without its line ending ("\n", or
 * "\r\n"). Returns false at the end of the file, or on a line longer than
 * POLICY_LINE_MAX or with a NUL byte: an error, not a line cut in two.
 */
static bool get_line(struct policy_parser *ps)
{
	size_t len = 0;
	bool nul = false;
	int c, last = 0;

	c = getc(ps->in);
	if (c == EOF)
		return false;
	ps->line++;
	for (; c != EOF && c != '\n'; c = getc(ps->in)) {
		if (len <= POLICY_LINE_MAX)
			ps->text[len] = (char)c;
		nul |= c == '\0';
		last = c;
		len++;
	}
	if (last == '\r')
		len--;
	if (len > POLICY_LINE_MAX) {
		policy_fail(ps, "line longer than %d bytes", POLICY_LINE_MAX);
		return false;
	}
	if (nul) {
		policy_fail(ps, "a NUL byte: a policy file is text");
		return false;
	}
	ps->text[len] = '\0';
	return true;
}

/*
 * The first of chars in s, or the ';' of a comment (one that follows white
 * space), or the end of s.
 */
static char *find_or_comment(char *s, const char *chars)
{
	bool after_space = false;

	for (; *s && !strchr(chars, *s) && !(after_space && *s == ';'); s++)
		after_space = isspace((unsigned char)*s);
	return s;
}

/* The section being read must have a key: one with none is a mistake, not a no-op. */
static void end_section(struct policy_parser *ps)
{
	if (ps->section_line && !ps->key_in_section)
		policy_fail_at(ps, ps->section_line,
			       "section [%s] has no keys: give it at least 'action = ...'",
			       ps->section);
}

/* "[NAME]": nothing but a comment may follow the ']'. */
static void read_section(struct policy_parser *ps, char *s)
{
	char *end = find_or_comment(s + 1, "]"), *rest;

	end_section(ps);
	if (ps->failed)
		return;
	if (*end != ']') {
		policy_fail(ps, "expected '[section]', 'key = value' or a comment");
		return;
	}
	rest = policy_trim(end + 1);
	if (*rest && *rest != ';' && *rest != '#') {
		policy_fail(ps, "text after the section header: '%s'", rest);
		return;
	}
	*end = '\0';
	policy_enter_section(ps, s + 1);
}

/* "KEY = VALUE" (or "KEY: VALUE"), and maybe a comment: white space, then ';'. */
static void read_key(struct policy_parser *ps, char *s)
{
	char *sep = find_or_comment(s, "=:"), *value;

	if (*sep != '=' && *sep != ':') {
		policy_fail(ps, "expected '[section]', 'key = value' or a comment");
		return;
	}
	*sep = '\0';
	s = policy_trim(s);
	value = sep + 1;
	*find_or_comment(value, "") = '\0';
	value = policy_trim(value);
	policy_set_key(ps, s, value);
}

/*
 * One line: blank, a comment (';' or '#' first), a section header or a
 * key. An indented line after a key is an error: INI readers take it for
 * more of that key's value.
 */
static void read_line(struct policy_parser *ps)
{
	char *start = ps->text, *s;

	if (ps->line == 1 && !strncmp(start, "\xef\xbb\xbf", 3))
		start += 3; /* a UTF-8 byte order mark */
	s = policy_trim(start);
	if (!*s || *s == ';' || *s == '#')
		return;
	if (s > start && ps->key_in_section)
		policy_fail(ps, "an indented line would continue the value above: unindent it");
	else if (*s == '[')
		read_section(ps, s);
	else
		read_key(ps, s);
}

/* Two patterns of one rank that can match one cgroup: which rule judges it? */
static void refuse_ambiguous(struct policy_parser *ps)
{
	const struct policy *p = ps->p;
	size_t a, b;

	if (!cgroup_patterns_ambiguous(p, &a, &b))
		return;
	policy_fail_at(ps, p->cgroups[b].line,
		       "[cgroup %s] and [cgroup %s] (line %u) can match the same cgroup and rank "
		       "equal (%u bytes besides '*'): make one more specific",
		       p->cgroups[b].path, p->cgroups[a].path, p->cgroups[a].line,
		       cgroup_pattern_rank(p->cgroups[a].path));
}

int policy_parse(FILE *in, const char *name, struct policy *p)
{
	struct policy_parser ps = {
		.in = in,
		.name = name,
		.p = p,
	};

	policy_init(p);
	while (!ps.failed && get_line(&ps))
		read_line(&ps);
	if (!ps.failed)
		end_section(&ps);
	if (!ps.failed && ferror(in)) {
		policy_fail(&ps, "cannot read the file");
		policy_free(p);
		return -EIO;
	}
	if (!ps.failed && !p->global_line)
		policy_fail_at(
			&ps, 1,
			"no [global] section: start the file with [global] and 'mode = enforce', "
			"'audit' or 'off'");
	if (!ps.failed && !ps.have_mode)
		policy_fail_at(
			&ps, p->global_line,
			"[global] has no 'mode': add 'mode = enforce', 'audit' or 'off' (a file "
			"without one is refused, not read as off)");
	if (!ps.failed)
		refuse_ambiguous(&ps);
	if (ps.failed) {
		policy_free(p);
		return -EINVAL;
	}
	return 0;
}

int policy_parse_file(const char *path, struct policy *p)
{
	FILE *in = fopen(path, "re");
	int ret;

	if (!in) {
		ret = -errno;
		log_error("failed to open %s: %s", path, strerror(-ret));
		policy_init(p);
		return ret;
	}
	ret = policy_parse(in, path, p);
	fclose(in);
	return ret;
}
