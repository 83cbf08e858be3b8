/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which slot of the "sizes" map each rule of a policy counts its execs in
 * (argguard_rule.size_slot), and which scope each slot stands for. Pure:
 * no libbpf; policy_maps.c writes the slots with the rules.
 */
#ifndef ARGGUARD_SIZE_SLOTS_H
#define ARGGUARD_SIZE_SLOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

/*
 * Give every rule of next its slot, in place: global and setuid their
 * fixed ones; a uid or cgroup rule that live (the policy in force, its
 * slots as the maps hold them; NULL for none) has for the same uid or path
 * keeps its slot, so its distribution goes on; the others take the lowest
 * slots that no rule of next keeps (first those that no rule of live has
 * either), and past the last free one share
 * ARGGUARD_SIZE_SLOT_OTHER. With learn false, every slot is
 * ARGGUARD_SIZE_SLOT_NONE: nothing is counted. Returns the slots taken
 * afresh, bit n for slot n: their counts were another scope's, and are to
 * be cleared before the rules are written. A cgroup rule by pattern that
 * counts also gets ARGGUARD_RULE_SIZES_BY_CGROUP: its execs are counted
 * by the cgroup it judged too (each container), in "cgroup_sizes".
 */
uint64_t size_slots_assign(struct policy *next, const struct policy *live, bool learn);

/* What a slot counts, as the policy p (its slots set) says. */
struct size_scope {
	enum argguard_scope scope; /* global, setuid, uid or cgroup; global for the "other" slot */
	bool other; /* ARGGUARD_SIZE_SLOT_OTHER: the rules past the slots */
	bool ruled; /* some rule of p has this slot */
	uint32_t uid; /* uid rules */
	const char *path; /* cgroup rules: p's string */
};

/*
 * Whether report and the metrics show a slot: a removed rule's counts,
 * until another rule takes its slot, belong to no scope.
 */
static inline bool size_scope_shown(const struct size_scope *s)
{
	return s->ruled || s->other;
}

/* Fill scopes[ARGGUARD_SIZE_SLOTS] from p's rules. */
void size_slots_scopes(const struct policy *p, struct size_scope *scopes);

/*
 * The rule of p for the same scope as slot's in scopes (the live policy's
 * map of slots), or NULL: how a policy file's rules meet the counts.
 */
const struct argguard_rule *size_slots_rule(const struct policy *p, const struct size_scope *s);

/*
 * "global", "setuid", "uid 1000", "cgroup /system.slice/x.service", "other
 * rules" or "a rule since removed" (its counts stay until a new rule takes
 * the slot), into buf.
 */
void size_scope_name(const struct size_scope *s, char *buf, size_t len);

#endif /* ARGGUARD_SIZE_SLOTS_H */
