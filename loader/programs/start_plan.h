/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a start does with what it finds, decided from facts alone: no call
 * here reads a pin, a map or a file. The callers gather the facts
 * (programs.c, program_load.c, apply.c, daemon.c) and act on the answer,
 * so every branch of a start's choice has a host test
 * (tests/unit/test_start_plan.c).
 *
 *   - resume: the pins hold one whole load of this build: take them as
 *     they are, with no load;
 *   - else load, over the pinned maps if they fit, or over maps made
 *     afresh (which then hold the interim policy before any program is
 *     attached), adopting the pinned links where they may be;
 *   - then apply the policy file unless an apply finished before, falling
 *     back on the last policy that applied, then the built-in default.
 */
#ifndef ARGGUARD_START_PLAN_H
#define ARGGUARD_START_PLAN_H

#include <stdbool.h>
#include <linux/types.h>

#include "argguard.h"
#include "kernel_features.h"
#include "pins.h"

/*
 * Whether this build pins a link at pin on a kernel with these features:
 * kernel refusals come from the series' tracepoint where the kernel has it,
 * and from the exits of the exec syscalls, 32-bit ones included, elsewhere.
 */
bool start_wants_link(enum pin pin, const struct kernel_features *kernel);

/* What a start found pinned, for start_can_resume(). Links by pin - NR_MAP_PINS. */
struct pins_found {
	bool by_this_build; /* the bprm_check link runs a program this build loaded */
	struct kernel_features kernel; /* what that load recorded of the kernel */
	bool link_pinned[NR_LINK_PINS];
	bool link_of_that_load[NR_LINK_PINS]; /* its program is of the bprm_check one's load */
	bool map_used[NR_MAP_PINS]; /* pinned, and a map those links' programs use */
};

/*
 * Whether the pins hold one whole load of this build: the bprm_check link
 * runs a program this build loaded, every link that load pins on its
 * kernel (and no other) is pinned and runs a program of that same load,
 * and every map pin is a map those programs use.
 */
bool start_can_resume(const struct pins_found *found);

/* What a load finds at each map pin, for start_map_plan(). */
struct map_pins_found {
	bool pinned[NR_MAP_PINS];
	bool fits[NR_MAP_PINS]; /* nothing there, or a map this object's map can reuse */
};

/* What a load does with the map pins it finds. */
enum map_plan {
	MAPS_REUSE, /* every pin, as far as pinned, is reused */
	MAPS_AFRESH_DIFFER, /* a pin holds a map of another layout (an upgrade) */
	MAPS_AFRESH_POLICY_GONE, /* a map that holds part of the policy lost its pin */
};

/*
 * Whether the map at pin holds part of the policy: made afresh alone, it
 * would read as zero (mode off, no rules) under a config that says the
 * policy was applied.
 */
bool start_pin_holds_policy(enum pin pin);

/*
 * What a load over earlier pins does with the map pins: reuse them, or,
 * where one holds a map of another layout or a policy map's pin is gone
 * while others stay, drop them all, so that the load makes every map
 * afresh under the interim policy. *why_pin names the first pin at fault.
 */
enum map_plan start_map_plan(const struct map_pins_found *found, enum pin *why_pin);

/*
 * Whether the load may adopt the pinned links: not over maps made afresh,
 * nor where a map pin was missing (a pinned link's program uses the old
 * map), so only when every map pin is reused.
 */
bool start_may_adopt(const struct map_pins_found *found, enum map_plan plan);

/*
 * Whether maps in this policy state need the interim policy before any
 * program is attached over them: only maps made afresh (unset, mode off).
 */
bool start_needs_interim(enum argguard_policy_state state);

/*
 * Whether a start applies the policy file: unless an apply finished
 * before (a restart keeps the live policy, bpftool edits included).
 */
bool start_applies_file(enum argguard_policy_state state);

/* Where the policy a start puts in force comes from, in the order tried. */
enum policy_source {
	POLICY_FROM_FILE,
	POLICY_FROM_LAST_GOOD,
	POLICY_FROM_DEFAULT,
	POLICY_FROM_NOWHERE,
};

/*
 * The source to try after failed did not apply: the last policy that
 * applied if one was kept, then the built-in default, then nowhere. The
 * interim policy starts here after POLICY_FROM_FILE, too.
 */
enum policy_source policy_fallback_after(enum policy_source failed, bool last_good_kept);

/*
 * policy_apply_at_start()'s result with in_force in force: 0 for the file,
 * 1 for a fallback, -1 for nothing at all.
 */
int policy_start_result(enum policy_source in_force);

#endif /* ARGGUARD_START_PLAN_H */
