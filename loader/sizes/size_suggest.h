/* SPDX-License-Identifier: GPL-2.0 */
/*
 * argguard suggest: a policy made from the size distributions that no user
 * can steer and no short sample makes dangerous. Each limit comes from the
 * execs that ran (what argguard denied never counts), a share weighed by
 * uid, over a floor, and never above the deny limit the execs were judged
 * by; a scope under the minimum sample keeps its limits. A comment above
 * each section says what it was made from. Pure: size_commands.c reads the
 * maps and prints.
 */
#ifndef ARGGUARD_SIZE_SUGGEST_H
#define ARGGUARD_SIZE_SUGGEST_H

#include <stdio.h>

#include "size_data.h"

/*
 * The floors under which no suggested limit goes. Bytes: what xargs and
 * POSIX tools assume an exec can carry, 128 KiB (ARG_MAX before Linux
 * 2.6.23, and xargs' own default). max_argc and max_envc, only when asked
 * for: 128 KiB of the shortest arguments a glob gives, three bytes and a
 * NUL each.
 */
#define SUGGEST_MIN_BYTES (128ULL << 10)
#define SUGGEST_MIN_COUNT 32768

/* The minimum sample's defaults: a scope with less keeps its limits. */
#define SUGGEST_MIN_EXECS 1000
#define SUGGEST_MIN_HOURS 24

/* Which limits suggest sets: the deny limits (max_*) or the would-deny tier's (audit_max_*). */
enum suggest_tier { SUGGEST_TIER_DENY, SUGGEST_TIER_WOULD_DENY };

struct suggest_options {
	/*
	 * The share (0 to 1) of the execs at or over each floor that a limit
	 * lets through, each uid's weighing as one: 1 lets through all that ran.
	 */
	double keep_share;
	unsigned int margin; /* percent added on top */
	uint32_t mode; /* the suggested policy's mode */
	enum suggest_tier tier;
	bool counts; /* set max_argc and max_envc (or the tier's) too; else they are kept */
	uint64_t min_execs; /* the minimum sample: execs that ran in the scope */
	double min_hours; /* and hours it counted them */
	uint64_t now; /* epoch seconds: where each scope's window ends */
};

/* What suggest made of one scope: the facts its section's comment gives. */
struct suggest_note {
	uint64_t execs, denied;
	uint64_t since; /* epoch seconds; 0: unknown */
	double hours;
	uint64_t over_in_force; /* with not_denying: at least this many ran over its limits */
	uint64_t largest_bytes; /* the largest exec that ran */
	uint32_t largest_argc;
	uint32_t uid; /* whose, if uid_known */
	uint32_t capped; /* bit l: limit l held at the deny limit in force */
	uint32_t floored; /* bit l: limit l raised to its floor */
	bool counted; /* an exec ran or was denied there */
	bool kept; /* under the minimum sample: its limits as they were */
	/* The rule in force did not deny (mode audit, or its action): execs over its limits ran. */
	bool not_denying;
	bool uid_known;
	char comm[ARGGUARD_COMM_LEN + 1]; /* the largest's, "" if not known */
};

/*
 * The value that lets through keep_share of slot s's execs of metric m at
 * or over floor, where any limit suggest makes falls: each uid's execs
 * weigh as one uid, whatever their number (those the BPF program kept no
 * uid for, as one more); and the largest of that and what leaving any one
 * uid out gives, so no one uid pulls it down. As far as the buckets tell:
 * the top of a bucket, never above the largest seen. With no exec at or
 * over floor, the largest seen.
 */
uint64_t size_keep_by_uid(const struct size_data *d, size_t s, enum argguard_size_metric m,
			  double keep_share, uint64_t floor);

/*
 * Into out: base with, for each rule whose scope counted execs over the
 * minimum sample, each limit of o->tier whose metric counted set from what
 * ran: all of it (or keep_share, size_keep_by_uid()), plus the margin,
 * rounded up to a whole K for bytes, at least its floor, and never above
 * the deny limit of in_force's rule (the policy the execs were judged by;
 * NULL: base) while that rule denies. argc and envc only with o->counts.
 * Into notes, d->n_scopes of them, indexed by scope, what each scope's
 * comment says. Returns 0 or -ENOMEM.
 */
int size_suggest(const struct policy *base, const struct policy *in_force,
		 const struct size_data *d, const struct suggest_options *o, struct policy *out,
		 struct suggest_note *notes);

/*
 * Print out as a policy file, as suggest does: a header that says how it
 * was made (from: the policy it starts from, "The live policy" or a file;
 * judged: whose execs, "the live policy judged" or "of 2 reports"; and
 * d->origin's window), then each section under the comment of its scope's
 * note.
 */
void size_suggest_print(FILE *f, const struct policy *out, const struct size_data *d,
			const struct suggest_options *o, const struct suggest_note *notes,
			const struct policy *in_force, const char *from, const char *judged);

#endif /* ARGGUARD_SIZE_SUGGEST_H */
