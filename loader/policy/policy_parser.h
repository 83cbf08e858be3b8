/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the policy file reader: the state of one parse, shared by
 * policy_read.c, which reads the lines, and policy_keys.c, which says what
 * each section and key means. Nothing else includes this.
 */
#ifndef ARGGUARD_POLICY_PARSER_H
#define ARGGUARD_POLICY_PARSER_H

#include <stdio.h>

#include "policy.h"

/*
 * The keys a policy file knows, KEY_<first> each, and their names in the
 * file; those before FIRST_RULE_KEY are [global]'s alone. The limits
 * follow: KEY_LIMIT + l is the key of policy_limits[l].
 */
#define POLICY_KEYS(X)                          \
	X(MODE, "mode")                         \
	X(EMPTY_ARGV, "empty_argv")             \
	X(HEAD_BYTES, "argv_head_bytes")        \
	X(EVENT_RATE, "event_rate")             \
	X(EVENT_BURST, "event_burst")           \
	X(EVENT_RATE_TOTAL, "event_rate_total") \
	X(ALLOW_LOCKOUT, "allow_lockout")       \
	X(LEARN_SIZES, "learn_sizes")           \
	X(ADMIN_GROUPS, "admin_groups")         \
	X(UNKNOWN_NAMES, "unknown_names")       \
	X(ACTION, "action")                     \
	X(ERRNO, "errno")

#define POLICY_KEY_ENUMERATOR(key, name) KEY_##key,
enum policy_key {
	POLICY_KEYS(POLICY_KEY_ENUMERATOR) KEY_LIMIT,
	NR_KEYS = KEY_LIMIT + POLICY_NR_LIMITS,
};

#define FIRST_RULE_KEY KEY_ACTION

/* A name this host does not know: skipped with a warning, or an error (unknown_names). */
struct policy_unknown {
	unsigned int line;
	char *what; /* "[user NAME]: no such user on this host" */
	const char *skipped; /* what a warning says was done instead: "rule skipped" */
};

/*
 * The state of one parse: the line just read, and the section it is in.
 * The reader stops at the first error. Lines are numbered on across the
 * files read (struct policy_part), which p->parts lists.
 */
struct policy_parser {
	FILE *in;
	const char *name; /* of the file being read */
	struct policy *p;
	unsigned int line;
	unsigned int first; /* the line before the first of the file being read */
	char text[POLICY_LINE_MAX + 1]; /* the line just read, its line ending left out */
	char section[POLICY_LINE_MAX + 1]; /* the name of the section being read */
	unsigned int section_line; /* its header's line; 0 before the first in this file */
	struct argguard_rule *rule; /* its rule; NULL before the first section in this file */
	bool key_in_section; /* a key was read since its header */
	/*
	 * Where the section set each key: rule_key_line for a [uid], [user] or
	 * [cgroup] section, global_key_line or setuid_key_line, kept from file
	 * to file, for [global] or [setuid].
	 */
	unsigned int *key_line;
	unsigned int rule_key_line[NR_KEYS], global_key_line[NR_KEYS], setuid_key_line[NR_KEYS];
	unsigned int global_header, setuid_header; /* the line of the last [global], [setuid] */
	struct argguard_rule
		skipped; /* a skipped section's rule: its keys are read, then dropped */
	struct policy_unknown *unknown; /* the names skipped, in order */
	size_t n_unknown;
	bool have_mode;
	bool failed;
	bool read_error;
};

/*
 * Fail: log "FILE:LINE: " and the message, LINE being the line just read.
 * Only the first failure is logged; the reader stops at it.
 */
void policy_fail(struct policy_parser *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Fail, naming another line: a section's header, say. */
void policy_fail_at(struct policy_parser *ps, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Where line is, for a message about line from: "line N" if both are in
 * one file, else "FILE:N". Into buf (POLICY_WHERE_MAX bytes).
 */
const char *policy_line_from(const struct policy_parser *ps, unsigned int line, unsigned int from,
			     char *buf);

/*
 * A name this host does not know, at the line just read: at the end of the
 * parse "FILE:LINE: WHAT; SKIPPED", a warning, or an error if the file says
 * unknown_names = error.
 */
void policy_unknown_name(struct policy_parser *ps, const char *skipped, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* s without the white space at its start and its end (cut off in place). */
char *policy_trim(char *s);

#endif /* ARGGUARD_POLICY_PARSER_H */
