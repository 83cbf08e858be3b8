// SPDX-License-Identifier: GPL-2.0
/*
 * The policy file reader: text to struct policy, strictly, every error
 * naming FILE:LINE. Here the files are found and opened, the main file and
 * its fragments, and their lines read and split; policy_keys.c says what
 * their sections and keys mean.
 */
#define _GNU_SOURCE /* asprintf() */
#include "cgroup_pattern.h"
#include "log.h"
#include "policy_keys.h"
#include "policy_parser.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

	if (ps->line == ps->first + 1 && !strncmp(start, "\xef\xbb\xbf", 3))
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
	char first[POLICY_WHERE_MAX];
	size_t a, b;

	if (!cgroup_patterns_ambiguous(p, &a, &b))
		return;
	policy_fail_at(ps, p->cgroups[b].line,
		       "[cgroup %s] and [cgroup %s] (%s) can match the same cgroup and rank "
		       "equal (%u bytes besides '*'): make one more specific",
		       p->cgroups[b].path, p->cgroups[a].path,
		       policy_line_from(ps, p->cgroups[a].line, p->cgroups[b].line, first),
		       cgroup_pattern_rank(p->cgroups[a].path));
}

/*
 * Start on the file in, named name: one more of p's parts, its lines
 * numbered on from the last file's (an empty file takes one number).
 */
static void begin_file(struct policy_parser *ps, FILE *in, const char *name)
{
	struct policy *p = ps->p;
	struct policy_part *more = realloc(p->parts, (p->n_parts + 1) * sizeof(*more));
	char *copy = strdup(name);

	if (p->n_parts)
		ps->first = ps->line > ps->first ? ps->line : ps->first + 1;
	ps->line = ps->first;
	ps->name = name;
	ps->in = in;
	ps->rule = NULL;
	ps->section_line = 0;
	ps->key_in_section = false;
	if (more)
		p->parts = more;
	if (!more || !copy) {
		free(copy);
		policy_fail(ps, "out of memory");
		return;
	}
	p->parts[p->n_parts++] = (struct policy_part){ .name = copy, .first = ps->first };
	ps->name = copy;
}

/* Read the file begun, to its end: a section ends with its file. */
static void read_file(struct policy_parser *ps)
{
	while (!ps->failed && get_line(ps))
		read_line(ps);
	if (!ps->failed)
		end_section(ps);
	if (!ps->failed && ferror(ps->in)) {
		policy_fail(ps, "cannot read the file");
		ps->read_error = true;
	}
}

/*
 * The names this host did not know: each a warning, or the first an error
 * if the file says unknown_names = error.
 */
static void report_unknown(struct policy_parser *ps)
{
	struct policy *p = ps->p;
	char where[POLICY_WHERE_MAX];

	if (!ps->n_unknown)
		return;
	if (p->unknown_names_error) {
		policy_fail_at(ps, ps->unknown[0].line,
			       "%s (unknown_names = error: say warn to skip it instead)",
			       ps->unknown[0].what);
		return;
	}
	for (size_t i = 0; i < ps->n_unknown; i++)
		log_warning("%s: %s; %s",
			    policy_where(p, ps->unknown[i].line, ps->name, where, sizeof(where)),
			    ps->unknown[i].what, ps->unknown[i].skipped);
	p->unknown_names = (unsigned int)ps->n_unknown;
	p->unknown_line = ps->unknown[0].line;
}

/* What holds for the files read together; then 0, or p emptied and why. */
static int finish(struct policy_parser *ps, int err)
{
	struct policy *p = ps->p;

	if (!ps->failed && !p->global_line)
		policy_fail_at(
			ps, 1,
			"no [global] section: start the file with [global] and 'mode = enforce', "
			"'audit' or 'off'");
	if (!ps->failed && !ps->have_mode)
		policy_fail_at(
			ps, p->global_line,
			"[global] has no 'mode': add 'mode = enforce', 'audit' or 'off' (a file "
			"without one is refused, not read as off)");
	if (!ps->failed)
		refuse_ambiguous(ps);
	if (!ps->failed)
		report_unknown(ps);
	for (size_t i = 0; i < ps->n_unknown; i++)
		free(ps->unknown[i].what);
	free(ps->unknown);
	if (!ps->failed)
		return 0;
	policy_free(p);
	return err ? err : ps->read_error ? -EIO : -EINVAL;
}

static void parser_init(struct policy_parser *ps, struct policy *p)
{
	*ps = (struct policy_parser){ .p = p, .skipped = policy_rule_default() };
	policy_init(p);
}

int policy_parse(FILE *in, const char *name, struct policy *p)
{
	struct policy_parser ps;

	parser_init(&ps, p);
	begin_file(&ps, in, name);
	if (!ps.failed)
		read_file(&ps);
	return finish(&ps, 0);
}

/*
 * May the file or directory open at fd, named name, be read as policy?
 * Only if no one but root (or the caller, reading a file of its own) can
 * write it: whoever writes a fragment writes the policy. 0, or -EPERM
 * logged.
 */
static int trusted(int fd, const char *name)
{
	struct stat st;

	if (fstat(fd, &st)) {
		log_error("failed to open %s: %s", name, strerror(errno));
		return -errno;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		log_error("refusing %s: it belongs to uid %u, who could write the policy; it must "
			  "be root's",
			  name, (unsigned int)st.st_uid);
		return -EPERM;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		log_error("refusing %s: mode %04o lets %s write the policy; it must be writable "
			  "by its owner alone",
			  name, (unsigned int)(st.st_mode & 07777),
			  st.st_mode & S_IWOTH ? "every account" : "its group");
		return -EPERM;
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_fragment(const char *name)
{
	size_t len = strlen(name), suffix = strlen(POLICY_FRAGMENT_SUFFIX);

	return name[0] != '.' && len > suffix &&
	       !strcmp(name + len - suffix, POLICY_FRAGMENT_SUFFIX);
}

void policy_fragments_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * The names of the fragments in the directory open at dir_fd (dir_fd is
 * left open), each prefixed by prefix, in strcmp() order. 0 or -errno.
 */
static int list_fragments(int dir_fd, const char *prefix, char ***names, size_t *n)
{
	int fd = dup(dir_fd), err = 0;
	struct dirent *e;
	char **more;
	DIR *d;

	*names = NULL;
	*n = 0;
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	rewinddir(d);
	while (!err && (errno = 0, e = readdir(d))) {
		if (!is_fragment(e->d_name))
			continue;
		more = realloc(*names, (*n + 1) * sizeof(*more));
		if (!more) {
			err = -ENOMEM;
			break;
		}
		*names = more;
		if (asprintf(&more[*n], "%s%s", prefix, e->d_name) < 0)
			err = -ENOMEM;
		else
			(*n)++;
	}
	if (!err && errno)
		err = -errno;
	closedir(d);
	if (err) {
		policy_fragments_free(*names, *n);
		*names = NULL;
		*n = 0;
		return err;
	}
	if (*n)
		qsort(*names, *n, sizeof(**names), by_name);
	return 0;
}

/* The fragment directory of the policy file at path, into dir. 0 or -ENAMETOOLONG. */
static int fragment_dir(const char *path, char *dir, size_t len)
{
	if ((size_t)snprintf(dir, len, "%s" POLICY_FRAGMENT_DIR_SUFFIX, path) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int policy_fragments(const char *path, char ***names, size_t *n)
{
	char dir[PATH_MAX], prefix[PATH_MAX + 1];
	int fd, err;

	*names = NULL;
	*n = 0;
	err = fragment_dir(path, dir, sizeof(dir));
	if (err)
		return err;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	snprintf(prefix, sizeof(prefix), "%s/", dir);
	err = list_fragments(fd, prefix, names, n);
	close(fd);
	return err;
}

/* Read the fragment name in the directory open at dir_fd, its path path. 0 or -errno, logged. */
static int read_fragment(struct policy_parser *ps, int dir_fd, const char *name, const char *path)
{
	struct stat st;
	FILE *in;
	int fd, err;

	/* Not blocking: a FIFO named *.conf is refused, not waited on. */
	fd = openat(dir_fd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		log_error("failed to open %s: %s", path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		log_error("refusing %s: not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	err = trusted(fd, path);
	if (err) {
		close(fd);
		return err;
	}
	in = fdopen(fd, "r");
	if (!in) {
		err = -errno;
		log_error("failed to open %s: %s", path, strerror(-err));
		close(fd);
		return err;
	}
	begin_file(ps, in, path);
	if (!ps->failed)
		read_file(ps);
	fclose(in);
	return 0;
}

/*
 * Read the fragments of the policy file at path, after it: the directory
 * and each file in it must be trusted(). 0, or -errno logged.
 */
static int read_fragments(struct policy_parser *ps, const char *path)
{
	char dir[PATH_MAX], **names = NULL;
	size_t n = 0;
	int fd, err;

	err = fragment_dir(path, dir, sizeof(dir));
	if (err) {
		log_error("failed to open %s" POLICY_FRAGMENT_DIR_SUFFIX ": %s", path,
			  strerror(-err));
		return err;
	}
	/* A symbolic link is followed: what counts is who can write what it leads to. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		err = -errno;
		log_error("failed to open %s: %s", dir, strerror(-err));
		return err;
	}
	err = trusted(fd, dir);
	if (!err) {
		err = list_fragments(fd, "", &names, &n);
		if (err)
			log_error("failed to read %s: %s", dir, strerror(-err));
	}
	for (size_t i = 0; !err && !ps->failed && i < n; i++) {
		char full[PATH_MAX];

		if ((size_t)snprintf(full, sizeof(full), "%s/%s", dir, names[i]) >= sizeof(full)) {
			err = -ENAMETOOLONG;
			log_error("failed to open %s/%s: %s", dir, names[i], strerror(-err));
			break;
		}
		err = read_fragment(ps, fd, names[i], full);
	}
	policy_fragments_free(names, n);
	close(fd);
	return err;
}

static int parse_files(const char *path, struct policy *p, bool fragments)
{
	struct policy_parser ps;
	FILE *in = fopen(path, "re");
	int err = 0;

	parser_init(&ps, p);
	if (!in) {
		err = -errno;
		log_error("failed to open %s: %s", path, strerror(-err));
		return err;
	}
	begin_file(&ps, in, path);
	if (!ps.failed)
		read_file(&ps);
	fclose(in);
	if (!ps.failed && fragments)
		err = read_fragments(&ps, path);
	if (err)
		ps.failed = true; /* logged: no FILE:LINE to name */
	return finish(&ps, err);
}

int policy_parse_file(const char *path, struct policy *p)
{
	return parse_files(path, p, true);
}

int policy_parse_one_file(const char *path, struct policy *p)
{
	return parse_files(path, p, false);
}
