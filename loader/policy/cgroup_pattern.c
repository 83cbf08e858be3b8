// SPDX-License-Identifier: GPL-2.0
/* Cgroup rule patterns: checked, ranked, matched, and compared with each other. */
#define _GNU_SOURCE /* memmem() */
#include "cgroup_pattern.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_glob.h"

bool cgroup_is_pattern(const char *path)
{
	return strchr(path, '*') != NULL;
}

bool cgroup_pattern_check(const char *pat, char *why, size_t why_len)
{
	size_t n;

	for (const char *c = pat; *c; c += n) {
		c += strspn(c, "/");
		n = strcspn(c, "/");
		if (!memmem(c, n, "**", 2))
			continue;
		if (n != 2) {
			snprintf(why, why_len,
				 "'**' must be a whole path component ('*' matches within one)");
			return false;
		}
		if (!c[n]) {
			snprintf(why, why_len,
				 "a trailing '**' adds nothing: a rule holds for the cgroups below "
				 "those it matches; end with '*'");
			return false;
		}
	}
	return true;
}

unsigned int cgroup_pattern_rank(const char *pat)
{
	unsigned int rank = 0;

	for (; *pat; pat++)
		rank += *pat != '*';
	return rank;
}

bool cgroup_pattern_match(const char *pat, const char *path, unsigned long *steps)
{
	char p[ARGGUARD_CGROUP_PATH_LEN] = { 0 }, s[ARGGUARD_CGROUP_PATH_LEN] = { 0 };
	struct cgroup_glob g = { 0 };
	unsigned long n = 0;
	int ret = 0;

	if (strlen(pat) >= sizeof(p) - 1 || strlen(path) >= sizeof(s) - 1)
		return false; /* 254 bytes at most, as in the maps */
	memcpy(p, pat, strlen(pat) + 1);
	memcpy(s, path, strlen(path) + 1);
	while (!ret && n < CGROUP_GLOB_MAX_STEPS) {
		ret = cgroup_glob_step(&g, p, s);
		n++;
	}
	if (steps)
		*steps = n;
	return ret == 1;
}

/*
 * A pattern as a nondeterministic automaton, for cgroup_patterns_overlap().
 * State 2t is before the pattern's token t, 2t+1 inside a "**" token; the
 * last state, 2n, accepts.
 */
enum token { TOK_BYTE, TOK_STAR, TOK_DSTAR };

struct nfa {
	enum token tok[ARGGUARD_CGROUP_PATH_LEN];
	char byte[ARGGUARD_CGROUP_PATH_LEN];
	size_t n;
};

static void nfa_build(struct nfa *a, const char *pat)
{
	a->n = 0;
	for (size_t i = 0; pat[i] && a->n < ARGGUARD_CGROUP_PATH_LEN; i++) {
		if (pat[i] == '*' && pat[i + 1] == '*' && (!i || pat[i - 1] == '/') &&
		    pat[i + 2] == '/') {
			a->tok[a->n++] = TOK_DSTAR; /* "**" and its '/' */
			i += 2;
		} else if (pat[i] == '*') {
			a->tok[a->n++] = TOK_STAR;
		} else {
			a->tok[a->n] = TOK_BYTE;
			a->byte[a->n++] = pat[i];
		}
	}
}

enum class { ANY_BYTE, NOT_SLASH, ONE_BYTE };

struct move {
	enum class cls;
	char byte;
	size_t to;
};

/* The byte-consuming moves from state st; *eps: its empty move, or SIZE_MAX. */
static size_t nfa_moves(const struct nfa *a, size_t st, struct move *m, size_t *eps)
{
	size_t t = st / 2;

	*eps = SIZE_MAX;
	if (t >= a->n)
		return 0;
	if (st % 2) { /* inside "**": its components, each up to a '/' */
		m[0] = (struct move){ ANY_BYTE, 0, st };
		m[1] = (struct move){ ONE_BYTE, '/', 2 * (t + 1) };
		return 2;
	}
	switch (a->tok[t]) {
	case TOK_BYTE:
		m[0] = (struct move){ ONE_BYTE, a->byte[t], 2 * (t + 1) };
		return 1;
	case TOK_STAR:
		*eps = 2 * (t + 1);
		m[0] = (struct move){ NOT_SLASH, 0, st };
		return 1;
	case TOK_DSTAR:
		*eps = 2 * (t + 1);
		m[0] = (struct move){ ANY_BYTE, 0, st + 1 };
		m[1] = (struct move){ ONE_BYTE, '/', 2 * (t + 1) }; /* an empty component */
		return 2;
	}
	return 0;
}

/* Whether one byte (never a NUL) can take both moves. */
static bool meet(const struct move *x, const struct move *y)
{
	if (x->cls == ONE_BYTE && y->cls == ONE_BYTE)
		return x->byte == y->byte;
	if (x->cls == ONE_BYTE)
		return y->cls == ANY_BYTE || x->byte != '/';
	if (y->cls == ONE_BYTE)
		return x->cls == ANY_BYTE || y->byte != '/';
	return true;
}

/* Reachability in the product of both automata: a path both accept. */
bool cgroup_patterns_overlap(const char *a, const char *b)
{
	struct nfa *na = malloc(sizeof(*na)), *nb = malloc(sizeof(*nb));
	size_t wa, wb, *stack = NULL, top = 0, ea, eb, ma, mb;
	struct move mva[2], mvb[2];
	bool *seen = NULL, found = false;

	if (!na || !nb)
		goto out;
	nfa_build(na, a);
	nfa_build(nb, b);
	wa = 2 * na->n + 1;
	wb = 2 * nb->n + 1;
	seen = calloc(wa * wb, sizeof(*seen));
	stack = malloc(wa * wb * sizeof(*stack));
	if (!seen || !stack)
		goto out;
#define VISIT(x, y)                                  \
	do {                                         \
		if (!seen[(x)*wb + (y)]) {           \
			seen[(x)*wb + (y)] = true;   \
			stack[top++] = (x)*wb + (y); \
		}                                    \
	} while (0)
	VISIT(0, 0);
	while (top && !found) {
		size_t x = stack[--top] / wb, y = stack[top] % wb;

		if (x == 2 * na->n && y == 2 * nb->n) {
			found = true;
			break;
		}
		ma = nfa_moves(na, x, mva, &ea);
		mb = nfa_moves(nb, y, mvb, &eb);
		if (ea != SIZE_MAX)
			VISIT(ea, y);
		if (eb != SIZE_MAX)
			VISIT(x, eb);
		for (size_t i = 0; i < ma; i++)
			for (size_t j = 0; j < mb; j++)
				if (meet(&mva[i], &mvb[j]))
					VISIT(mva[i].to, mvb[j].to);
	}
#undef VISIT
out:
	free(na);
	free(nb);
	free(seen);
	free(stack);
	return found;
}

long cgroup_rule_for(const struct policy *p, const char *path)
{
	long best = -1;
	unsigned int best_rank = 0, rank;

	for (size_t i = 0; i < p->n_cgroups; i++) {
		const char *rule = p->cgroups[i].path;

		if (!cgroup_is_pattern(rule)) {
			if (!strcmp(rule, path))
				return (long)i; /* a literal path beats every pattern */
			continue;
		}
		rank = cgroup_pattern_rank(rule);
		if ((best < 0 || rank > best_rank) && cgroup_pattern_match(rule, path, NULL)) {
			best = (long)i;
			best_rank = rank;
		}
	}
	return best;
}

bool cgroup_patterns_ambiguous(const struct policy *p, size_t *first, size_t *second)
{
	for (size_t i = 0; i < p->n_cgroups; i++) {
		const char *a = p->cgroups[i].path;

		if (!cgroup_is_pattern(a))
			continue;
		for (size_t j = i + 1; j < p->n_cgroups; j++) {
			const char *b = p->cgroups[j].path;

			if (cgroup_is_pattern(b) &&
			    cgroup_pattern_rank(a) == cgroup_pattern_rank(b) &&
			    cgroup_patterns_overlap(a, b)) {
				*first = i;
				*second = j;
				return true;
			}
		}
	}
	return false;
}

static const struct policy *ranking; /* qsort() has no user pointer */

static int by_rank(const void *x, const void *y)
{
	const char *a = ranking->cgroups[*(const size_t *)x].path;
	const char *b = ranking->cgroups[*(const size_t *)y].path;
	unsigned int ra = cgroup_pattern_rank(a), rb = cgroup_pattern_rank(b);

	if (ra != rb)
		return ra > rb ? -1 : 1;
	return strcmp(a, b);
}

size_t cgroup_patterns_ranked(const struct policy *p, size_t *order)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_cgroups; i++)
		if (cgroup_is_pattern(p->cgroups[i].path))
			order[n++] = i;
	ranking = p;
	qsort(order, n, sizeof(*order), by_rank);
	ranking = NULL;
	return n;
}
