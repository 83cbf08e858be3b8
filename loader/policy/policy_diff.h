/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is the live policy the policy file's, and how not? Both are printed the
 * one way policy_print() prints a policy, rules in one order, leaving out
 * what the maps cannot hold (allow_lockout, the file's own), so that
 * comments, spellings ([user NAME], 1M), order and file-only keys do not
 * count. The texts are then compared, or diffed line by line. No libbpf:
 * the live policy is read elsewhere (policy_maps.c).
 */
#ifndef ARGGUARD_POLICY_DIFF_H
#define ARGGUARD_POLICY_DIFF_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "policy.h"

/* Sort p's rules: uid rules by uid, cgroup rules by path. */
void policy_sort(struct policy *p);

/*
 * p as policy_print() prints it, its rules sorted (p is sorted in place)
 * and the file's own keys (allow_lockout, admin_groups, unknown_names)
 * left out: a string to free(), or NULL when out of memory.
 */
char *policy_canonical_text(struct policy *p);

/*
 * Whether a and b, read from the maps by policy_maps_read() and sorted,
 * hold the same settings and the same rules, byte for byte: then
 * policy_canonical_text() prints them the same.
 */
bool policy_same_live(const struct policy *a, const struct policy *b);

/*
 * A unified diff from the text old to the text new (lines, each ended by a
 * newline), with three lines of context, under "--- old_name" and
 * "+++ new_name"; each hunk's header names the [section] of old that its
 * first change is in. Prints nothing if the texts are the same. Returns 0 if they are, 1 if
 * they differ, or -ENOMEM.
 */
int text_diff(FILE *out, const char *old_name, const char *old, const char *new_name,
	      const char *new);

/* Room for a policy_file_check's error: a parse error names FILE:LINE and what was expected. */
#define POLICY_FILE_ERROR_MAX 512

/* What argguard status and the metrics say of the policy file beside the live policy. */
struct policy_file_check {
	enum {
		POLICY_FILE_UNCHECKED, /* not compared (the live policy could not be read) */
		POLICY_FILE_MATCHES,
		POLICY_FILE_DIFFERS,
		POLICY_FILE_INVALID, /* the file cannot be read or has an error: see error */
	} state;
	const char *path;
	char error[POLICY_FILE_ERROR_MAX];
};

/*
 * The policy file as last parsed, with its fragments, for a caller that
 * compares again and again (the daemon, every few seconds): the file is
 * parsed again only when stat() says that it, its fragment directory or
 * one of its fragments changed (another device, inode, size, mtime or
 * ctime; a fragment added or removed changes the directory), or after
 * policy_drift_forget(). A timestamp is only as fine as the filesystem's
 * clock: a rewrite of the same size in the same tick of it, just after a
 * parse, would look the same. So a parse whose files changed within
 * settle_ns (POLICY_DRIFT_SETTLE_NS) of it is not trusted: the next check
 * parses again, until one parse sees files older than that.
 */
#define POLICY_DRIFT_SETTLE_NS (2 * 1000000000LL)

struct policy_drift {
	const char *path;
	bool parsed; /* text or error come from the files as st describes them */
	bool settled; /* and they had not changed within settle_ns of that parse */
	long long settle_ns;
	struct stat *st; /* the file's, its fragment directory's, each fragment's */
	size_t n_st;
	char *text; /* its canonical text; NULL if it did not parse */
	char error[POLICY_FILE_ERROR_MAX];
	unsigned int parses; /* how many times the file was parsed: for the tests */
};

void policy_drift_init(struct policy_drift *d, const char *path);
void policy_drift_free(struct policy_drift *d);

/* Parse the file again at the next check, changed or not (a reload). */
void policy_drift_forget(struct policy_drift *d);

/*
 * Compare live_text (a policy_canonical_text() of the live policy; NULL if
 * it could not be read) with the file, into out (whose path is d's).
 */
void policy_drift_check(struct policy_drift *d, const char *live_text,
			struct policy_file_check *out);

#endif /* ARGGUARD_POLICY_DIFF_H */
