/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cgroup rules by pattern: "[cgroup /system.slice/docker-*.scope]". A '*'
 * matches within one path component; a component "**" matches any number
 * of whole components, none too, and must have a component after it. A
 * cgroup is judged by the most specific rule that matches its path: a
 * literal path first, then the pattern of highest rank, its count of bytes
 * other than '*'. Two patterns of one rank that can match one path make a
 * file ambiguous, and it is refused.
 */
#ifndef ARGGUARD_CGROUP_PATTERN_H
#define ARGGUARD_CGROUP_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

/* Whether a canonical cgroup rule path is a pattern. */
bool cgroup_is_pattern(const char *path);

/*
 * Whether canonical pattern pat is one argguard can judge by; if not, a
 * reason into why ("'**' must be a whole path component", ...).
 */
bool cgroup_pattern_check(const char *pat, char *why, size_t why_len);

/* A pattern's rank: its bytes other than '*'. Higher wins. */
unsigned int cgroup_pattern_rank(const char *pat);

/*
 * Whether the cgroup path (canonical, as the kernel names it) matches pat,
 * by the steps the cgroup_mkdir program takes; *steps (if not NULL) says
 * how many it took.
 */
bool cgroup_pattern_match(const char *pat, const char *path, unsigned long *steps);

/* Whether some path matches both patterns a and b. */
bool cgroup_patterns_overlap(const char *a, const char *b);

/*
 * The index in p->cgroups of the rule that judges the cgroup at path
 * itself (not its ancestors): its literal rule, else its pattern of
 * highest rank. -1 if none.
 */
long cgroup_rule_for(const struct policy *p, const char *path);

/*
 * The first pair of patterns in p that rank equal and can match one path,
 * as indexes into p->cgroups; false if none.
 */
bool cgroup_patterns_ambiguous(const struct policy *p, size_t *first, size_t *second);

/*
 * p's patterns in the order the cgroup_mkdir program tries them: highest
 * rank first. Fills order (room for p->n_cgroups) with indexes into
 * p->cgroups; returns how many.
 */
size_t cgroup_patterns_ranked(const struct policy *p, size_t *order);

#endif /* ARGGUARD_CGROUP_PATTERN_H */
