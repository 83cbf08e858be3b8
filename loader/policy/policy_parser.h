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
 * The keys a policy file knows; those before FIRST_RULE_KEY are [global]'s
 * alone. KEY_LIMIT + l is the key of policy_limits[l].
 */
enum policy_key {
	KEY_MODE,
	KEY_EMPTY_ARGV,
	KEY_HEAD_BYTES,
	KEY_EVENT_RATE,
	KEY_EVENT_BURST,
	KEY_EVENT_RATE_TOTAL,
	KEY_ALLOW_LOCKOUT,
	KEY_LEARN_SIZES,
	KEY_ADMIN_GROUPS,
	KEY_ACTION,
	KEY_ERRNO,
	KEY_LIMIT,
	NR_KEYS = KEY_LIMIT + POLICY_NR_LIMITS,
};

#define FIRST_RULE_KEY KEY_ACTION

/*
 * The state of one parse: the line just read, and the section it is in.
 * The reader stops at the first error.
 */
struct policy_parser {
	FILE *in;
	const char *name;
	struct policy *p;
	unsigned int line;
	char text[POLICY_LINE_MAX + 1]; /* the line just read, its line ending left out */
	char section[POLICY_LINE_MAX + 1]; /* the name of the section being read */
	unsigned int section_line; /* its header's line; 0 before the first */
	struct argguard_rule *rule; /* its rule; NULL before the first section */
	bool key_in_section; /* a key was read since its header */
	unsigned int key_line[NR_KEYS]; /* where the section set each key */
	bool have_mode;
	bool failed;
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

/* s without the white space at its start and its end (cut off in place). */
char *policy_trim(char *s);

#endif /* ARGGUARD_POLICY_PARSER_H */
