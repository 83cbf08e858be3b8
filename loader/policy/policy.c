// SPDX-License-Identifier: GPL-2.0
/* The policy model: an empty policy, its rules, and cgroup paths in one spelling. */
#include "policy.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LIMIT_INFO(key, unit, floor)                  \
	[POLICY_LIMIT_##key] = { #key, POLICY_##unit, \
				 POLICY_##unit == POLICY_BYTES ? UINT64_MAX : UINT32_MAX, floor },
const struct policy_limit_info policy_limits[POLICY_NR_LIMITS] = { POLICY_LIMITS(LIMIT_INFO) };

/* Each limit's member holds its unit's range: 64 bits for bytes, 32 for counts. */
#define LIMIT_FITS(key, unit, floor)                                    \
	_Static_assert(sizeof(((struct argguard_rule *)0)->key) ==      \
			       (POLICY_##unit == POLICY_BYTES ? 8 : 4), \
		       #key ": a " #unit " limit");
POLICY_LIMITS(LIMIT_FITS)

_Static_assert(POLICY_NR_LIMITS == 10,
	       "a rule's limits are ARGGUARD_LIMITS from max_argv_bytes to max_envc, and their "
	       "audit_ tier");

uint64_t policy_limit_get(const struct argguard_rule *r, enum policy_limit l)
{
	switch (l) {
#define LIMIT_GET(key, unit, floor) \
	case POLICY_LIMIT_##key:    \
		return r->key;
		POLICY_LIMITS(LIMIT_GET)
	default:
		return 0;
	}
}

void policy_limit_set(struct argguard_rule *r, enum policy_limit l, uint64_t value)
{
	switch (l) {
#define LIMIT_SET(key, unit, floor)                 \
	case POLICY_LIMIT_##key:                    \
		r->key = (__typeof__(r->key))value; \
		break;
		POLICY_LIMITS(LIMIT_SET)
	default:
		break;
	}
}

struct argguard_rule policy_rule_default(void)
{
	return (struct argguard_rule){ .action = ARGGUARD_ACTION_DENY, .deny_errno = E2BIG };
}

/* A limit of r as a floor for "at most": 0 (no limit) is the largest. */
static uint64_t tighter(uint64_t a, uint64_t b)
{
	if (!a)
		return b;
	return b && b < a ? b : a;
}

/* Fold r into *strict: r's limits that end in a denial, and those that end in a record. */
static void fold_strictest(struct argguard_rule *strict, const struct argguard_rule *r,
			   bool *denies)
{
	enum policy_limit tier = POLICY_LIMIT_audit_max_argv_bytes;
	uint64_t v;

	if (r->action == ARGGUARD_ACTION_ALLOW)
		return;
	for (enum policy_limit l = 0; l < tier; l++) {
		v = policy_limit_get(r, l);
		if (r->action == ARGGUARD_ACTION_AUDIT) /* a record: the would-deny tier's */
			policy_limit_set(strict, tier + l,
					 tighter(policy_limit_get(strict, tier + l), v));
		else if (v)
			policy_limit_set(strict, l, tighter(policy_limit_get(strict, l), v));
		v = policy_limit_get(r, tier + l);
		policy_limit_set(strict, tier + l, tighter(policy_limit_get(strict, tier + l), v));
	}
	if (r->action != ARGGUARD_ACTION_AUDIT)
		*denies = true;
}

struct argguard_rule policy_strictest_rule(const struct policy *p)
{
	struct argguard_rule strict = policy_rule_default();
	bool denies = false;

	fold_strictest(&strict, &p->global, &denies);
	for (size_t i = 0; i < p->n_uids; i++)
		fold_strictest(&strict, &p->uids[i].rule, &denies);
	for (size_t i = 0; i < p->n_cgroups; i++)
		fold_strictest(&strict, &p->cgroups[i].rule, &denies);
	if (!denies)
		strict.action = ARGGUARD_ACTION_AUDIT;
	return strict;
}

void policy_init(struct policy *p)
{
	*p = (struct policy){
		.mode = ARGGUARD_MODE_OFF,
		.learn_sizes = true,
		.empty_argv_action = ARGGUARD_ACTION_ALLOW,
		.global = policy_rule_default(),
		.setuid = policy_rule_default(),
	};
}

void policy_free(struct policy *p)
{
	for (size_t i = 0; i < p->n_cgroups; i++)
		free(p->cgroups[i].path);
	for (size_t i = 0; i < p->n_admin_groups; i++)
		free(p->admin_groups[i]);
	free(p->uids);
	free(p->cgroups);
	free(p->admin_groups);
	policy_init(p);
}

struct argguard_rule *policy_add_uid(struct policy *p, uint32_t uid,
				     const struct argguard_rule *rule, unsigned int line)
{
	struct uid_rule *more = realloc(p->uids, (p->n_uids + 1) * sizeof(*more));

	if (!more)
		return NULL;
	p->uids = more;
	p->uids[p->n_uids] = (struct uid_rule){ .uid = uid, .line = line, .rule = *rule };
	return &p->uids[p->n_uids++].rule;
}

struct argguard_rule *policy_add_cgroup(struct policy *p, const char *path,
					const struct argguard_rule *rule, unsigned int line)
{
	struct cgroup_rule *more = realloc(p->cgroups, (p->n_cgroups + 1) * sizeof(*more));
	char *copy = strdup(path);

	if (!more || !copy) {
		free(copy);
		if (more)
			p->cgroups = more;
		return NULL;
	}
	p->cgroups = more;
	p->cgroups[p->n_cgroups] =
		(struct cgroup_rule){ .path = copy, .line = line, .rule = *rule };
	return &p->cgroups[p->n_cgroups++].rule;
}

/*
 * path in one spelling: no empty or '.' parts, '..' taken back, no trailing
 * '/'. Nothing is looked up: the cgroup need not exist.
 */
int cgroup_path_canonical(const char *path, char *out, size_t out_len)
{
	size_t len = 0, n;

	if (path[0] != '/')
		return -EINVAL;
	if (out_len < 2)
		return -ENAMETOOLONG;
	out[0] = '\0';
	for (const char *c = path; *c; c += n) {
		c += strspn(c, "/");
		n = strcspn(c, "/");
		if (!n || (n == 1 && c[0] == '.'))
			continue;
		if (n == 2 && !strncmp(c, "..", 2)) {
			if (!len)
				return -EINVAL;
			while (out[--len] != '/')
				;
			out[len] = '\0';
			continue;
		}
		if (len + 1 + n >= out_len)
			return -ENAMETOOLONG;
		out[len++] = '/';
		memcpy(out + len, c, n);
		len += n;
		out[len] = '\0';
	}
	if (!len)
		strcpy(out, "/");
	return 0;
}
