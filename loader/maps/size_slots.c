// SPDX-License-Identifier: GPL-2.0
#include "size_slots.h"

#include <stdio.h>
#include <string.h>

#include "cgroup_pattern.h"

static uint32_t live_uid_slot(const struct policy *live, uint32_t uid)
{
	for (size_t i = 0; live && i < live->n_uids; i++)
		if (live->uids[i].uid == uid)
			return live->uids[i].rule.size_slot;
	return ARGGUARD_SIZE_SLOT_NONE;
}

static uint32_t live_cgroup_slot(const struct policy *live, const char *path)
{
	for (size_t i = 0; live && i < live->n_cgroups; i++)
		if (!strcmp(live->cgroups[i].path, path))
			return live->cgroups[i].rule.size_slot;
	return ARGGUARD_SIZE_SLOT_NONE;
}

/* A slot a rule may keep: one of the rules' own, not the shared one. */
static bool own_slot(uint32_t slot)
{
	return slot >= ARGGUARD_SIZE_SLOT_FIRST_RULE && slot < ARGGUARD_SIZE_SLOT_OTHER;
}

/* Keep the live slot of rule r if no other rule kept it first; *used marks the kept ones. */
static void keep(struct argguard_rule *r, uint32_t live_slot, uint64_t *used)
{
	r->size_slot = ARGGUARD_SIZE_SLOT_NONE;
	if (own_slot(live_slot) && !(*used & (1ULL << live_slot))) {
		r->size_slot = live_slot;
		*used |= 1ULL << live_slot;
	}
}

/* The lowest slot in neither mask, or 0. */
static uint32_t free_slot(uint64_t a, uint64_t b)
{
	for (uint32_t s = ARGGUARD_SIZE_SLOT_FIRST_RULE; s < ARGGUARD_SIZE_SLOT_OTHER; s++)
		if (!((a | b) & (1ULL << s)))
			return s;
	return 0;
}

/*
 * A slot for rule r if it kept none: one that the live policy does not use
 * either, so that no exec judged under it counts there while the new policy
 * is written; else one only the live policy uses.
 */
static void take(struct argguard_rule *r, uint64_t live_used, uint64_t *used, uint64_t *fresh)
{
	uint32_t s;

	if (r->size_slot != ARGGUARD_SIZE_SLOT_NONE)
		return;
	s = free_slot(*used, live_used);
	if (!s)
		s = free_slot(*used, 0);
	if (!s) {
		r->size_slot = ARGGUARD_SIZE_SLOT_OTHER;
		return;
	}
	*used |= 1ULL << s;
	*fresh |= 1ULL << s;
	r->size_slot = s;
}

/* The slots of live's uid and cgroup rules. */
static uint64_t live_slots(const struct policy *live)
{
	uint64_t mask = 0;

	for (size_t i = 0; live && i < live->n_uids; i++)
		if (own_slot(live->uids[i].rule.size_slot))
			mask |= 1ULL << live->uids[i].rule.size_slot;
	for (size_t i = 0; live && i < live->n_cgroups; i++)
		if (own_slot(live->cgroups[i].rule.size_slot))
			mask |= 1ULL << live->cgroups[i].rule.size_slot;
	return mask;
}

_Static_assert(ARGGUARD_SIZE_SLOTS <= 64, "a slot is a bit of a uint64_t");

uint64_t size_slots_assign(struct policy *next, const struct policy *live, bool learn)
{
	uint64_t used = 0, fresh = 0;

	for (size_t i = 0; i < next->n_cgroups; i++)
		next->cgroups[i].rule.flags &= ~ARGGUARD_RULE_SIZES_BY_CGROUP;
	next->global.size_slot = learn ? ARGGUARD_SIZE_SLOT_GLOBAL : ARGGUARD_SIZE_SLOT_NONE;
	next->setuid.size_slot = learn ? ARGGUARD_SIZE_SLOT_SETUID : ARGGUARD_SIZE_SLOT_NONE;
	for (size_t i = 0; i < next->n_uids; i++)
		keep(&next->uids[i].rule, learn ? live_uid_slot(live, next->uids[i].uid) : 0,
		     &used);
	for (size_t i = 0; i < next->n_cgroups; i++)
		keep(&next->cgroups[i].rule,
		     learn ? live_cgroup_slot(live, next->cgroups[i].path) : 0, &used);
	if (!learn)
		return 0;
	for (size_t i = 0; i < next->n_uids; i++)
		take(&next->uids[i].rule, live_slots(live), &used, &fresh);
	for (size_t i = 0; i < next->n_cgroups; i++) {
		take(&next->cgroups[i].rule, live_slots(live), &used, &fresh);
		if (cgroup_is_pattern(next->cgroups[i].path))
			next->cgroups[i].rule.flags |= ARGGUARD_RULE_SIZES_BY_CGROUP;
	}
	return fresh;
}

/* The scope of the rule r, at its slot if it has one of its own. */
static void put_scope(struct size_scope *scopes, const struct argguard_rule *r,
		      struct size_scope scope)
{
	scope.ruled = true;
	if (own_slot(r->size_slot))
		scopes[r->size_slot] = scope;
}

void size_slots_scopes(const struct policy *p, struct size_scope *scopes)
{
	memset(scopes, 0, ARGGUARD_SIZE_SLOTS * sizeof(*scopes));
	scopes[ARGGUARD_SIZE_SLOT_GLOBAL].scope = ARGGUARD_SCOPE_GLOBAL;
	scopes[ARGGUARD_SIZE_SLOT_GLOBAL].ruled = true;
	scopes[ARGGUARD_SIZE_SLOT_SETUID].scope = ARGGUARD_SCOPE_SETUID;
	scopes[ARGGUARD_SIZE_SLOT_SETUID].ruled = true;
	scopes[ARGGUARD_SIZE_SLOT_OTHER].other = true;
	for (size_t i = 0; i < p->n_uids; i++)
		put_scope(
			scopes, &p->uids[i].rule,
			(struct size_scope){ .scope = ARGGUARD_SCOPE_UID, .uid = p->uids[i].uid });
	for (size_t i = 0; i < p->n_cgroups; i++)
		put_scope(scopes, &p->cgroups[i].rule,
			  (struct size_scope){ .scope = ARGGUARD_SCOPE_CGROUP,
					       .path = p->cgroups[i].path });
}

const struct argguard_rule *size_slots_rule(const struct policy *p, const struct size_scope *s)
{
	if (s->other || !s->ruled)
		return NULL;
	switch (s->scope) {
	case ARGGUARD_SCOPE_GLOBAL:
		return &p->global;
	case ARGGUARD_SCOPE_SETUID:
		return &p->setuid;
	case ARGGUARD_SCOPE_UID:
		for (size_t i = 0; i < p->n_uids; i++)
			if (p->uids[i].uid == s->uid)
				return &p->uids[i].rule;
		return NULL;
	case ARGGUARD_SCOPE_CGROUP:
		for (size_t i = 0; i < p->n_cgroups; i++)
			if (!strcmp(p->cgroups[i].path, s->path))
				return &p->cgroups[i].rule;
		return NULL;
	default:
		return NULL;
	}
}

void size_scope_name(const struct size_scope *s, char *buf, size_t len)
{
	if (s->other)
		snprintf(buf, len, "other rules");
	else if (!s->ruled)
		snprintf(buf, len, "a rule since removed");
	else if (s->scope == ARGGUARD_SCOPE_UID)
		snprintf(buf, len, "uid %u", s->uid);
	else if (s->scope == ARGGUARD_SCOPE_CGROUP)
		snprintf(buf, len, "cgroup %s", s->path);
	else
		snprintf(buf, len, "%s", s->scope == ARGGUARD_SCOPE_SETUID ? "setuid" : "global");
}
