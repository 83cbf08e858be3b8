// SPDX-License-Identifier: GPL-2.0
/* The policy model: an empty policy, its rules, and cgroup paths in one spelling. */
#include "policy.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

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
	for (size_t i = 0; i < p->n_parts; i++)
		free(p->parts[i].name);
	free(p->parts);
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

size_t policy_part_of(const struct policy *p, unsigned int line)
{
	size_t i = p->n_parts;

	while (i > 0 && p->parts[i - 1].first >= line)
		i--;
	return i ? i - 1 : p->n_parts;
}

const char *policy_where(const struct policy *p, unsigned int line, const char *name, char *buf,
			 size_t len)
{
	size_t i = policy_part_of(p, line);

	if (i == p->n_parts)
		snprintf(buf, len, "%s:%u", name, line);
	else
		snprintf(buf, len, "%s:%u", p->parts[i].name, line - p->parts[i].first);
	return buf;
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

/* A policy printed as a policy file, one that policy_parse() reads back to the same policy. */
static void print_rule(FILE *out, const struct argguard_rule *r)
{
	uint64_t value;

	for (enum policy_limit l = 0; l < POLICY_NR_LIMITS; l++) {
		value = policy_limit_get(r, l);
		if (value)
			fprintf(out, "%s = %llu\n", policy_limits[l].key,
				(unsigned long long)value);
	}
	/* Values that bpftool wrote out of range are printed as the BPF side reads them. */
	fprintf(out, "action = %s\n",
		action_name(r->action <= ARGGUARD_ACTION_DENY ? r->action : ARGGUARD_ACTION_DENY));
	fprintf(out, "errno = %s\n", deny_errno_name(r->deny_errno));
}

static bool rule_is_empty(const struct argguard_rule *r)
{
	for (enum policy_limit l = 0; l < POLICY_NR_LIMITS; l++)
		if (policy_limit_get(r, l))
			return false;
	return true;
}

static uint32_t at_most(uint32_t value, uint32_t max)
{
	return value < max ? value : max;
}

void policy_print(FILE *out, const struct policy *p)
{
	policy_print_noted(out, p, NULL, NULL);
}

void policy_print_noted(FILE *out, const struct policy *p, policy_note_fn note, void *ctx)
{
	uint32_t mode = p->mode <= ARGGUARD_MODE_ENFORCE ? p->mode : ARGGUARD_MODE_ENFORCE;
	uint32_t empty = p->empty_argv_action <= ARGGUARD_ACTION_DENY ? p->empty_argv_action
								      : ARGGUARD_ACTION_DENY;

	if (note)
		note(out, ARGGUARD_SCOPE_GLOBAL, 0, NULL, ctx);
	fprintf(out, "[global]\nmode = %s\nempty_argv = %s\n", mode_name(mode), action_name(empty));
	if (p->head_bytes)
		fprintf(out, "argv_head_bytes = %u\n",
			p->head_bytes < ARGGUARD_HEAD_MAX ? p->head_bytes : ARGGUARD_HEAD_MAX);
	/* bpftool may have written more than a file may say; show what a file can. */
	if (p->event_rate > POLICY_EVENT_RATE_MAX || p->event_burst > POLICY_EVENT_BURST_MAX)
		fprintf(out,
			"# in the map: event_rate = %u, event_burst = %u; a file says at most %u\n",
			p->event_rate, p->event_burst, POLICY_EVENT_RATE_MAX);
	if (p->event_rate_total > POLICY_EVENT_RATE_MAX)
		fprintf(out, "# in the map: event_rate_total = %u; a file says at most %u\n",
			p->event_rate_total, POLICY_EVENT_RATE_MAX);
	if (p->event_rate)
		fprintf(out, "event_rate = %u\nevent_burst = %u\n",
			at_most(p->event_rate, POLICY_EVENT_RATE_MAX),
			p->event_burst ? at_most(p->event_burst, POLICY_EVENT_BURST_MAX) : 1);
	if (p->event_rate_total)
		fprintf(out, "event_rate_total = %u\n",
			at_most(p->event_rate_total, POLICY_EVENT_RATE_MAX));
	if (p->allow_lockout)
		fprintf(out, "allow_lockout = yes\n");
	if (!p->learn_sizes)
		fprintf(out, "learn_sizes = no\n");
	if (p->unknown_names_error)
		fprintf(out, "unknown_names = error\n");
	for (size_t i = 0; i < p->n_admin_groups; i++)
		fprintf(out, "%s%s", i ? ", " : "admin_groups = ", p->admin_groups[i]);
	if (p->n_admin_groups)
		fprintf(out, "\n");
	print_rule(out, &p->global);
	if (note || !rule_is_empty(&p->setuid)) {
		fputc('\n', out);
		if (note)
			note(out, ARGGUARD_SCOPE_SETUID, 0, NULL, ctx);
		fprintf(out, "[setuid]\n");
		print_rule(out, &p->setuid);
	}
	for (size_t i = 0; i < p->n_uids; i++) {
		fputc('\n', out);
		if (note)
			note(out, ARGGUARD_SCOPE_UID, p->uids[i].uid, NULL, ctx);
		fprintf(out, "[uid %u]\n", p->uids[i].uid);
		print_rule(out, &p->uids[i].rule);
	}
	for (size_t i = 0; i < p->n_cgroups; i++) {
		fputc('\n', out);
		if (note)
			note(out, ARGGUARD_SCOPE_CGROUP, 0, p->cgroups[i].path, ctx);
		fprintf(out, "[cgroup %s]\n", p->cgroups[i].path);
		print_rule(out, &p->cgroups[i].rule);
	}
}
