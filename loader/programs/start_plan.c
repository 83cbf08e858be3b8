// SPDX-License-Identifier: GPL-2.0
/* What a start does with what it finds, from facts alone (start_plan.h). */
#include "start_plan.h"

bool start_wants_link(enum pin pin, const struct kernel_features *kernel)
{
	switch (pin) {
	case PIN_LINK_EXEC_ARGS_FAILED:
		return kernel->exec_args_failed;
	case PIN_LINK_EXECVE:
	case PIN_LINK_EXECVEAT:
		return !kernel->exec_args_failed;
	case PIN_LINK_COMPAT_EXECVE:
	case PIN_LINK_COMPAT_EXECVEAT:
		return kernel->compat && !kernel->exec_args_failed;
	default:
		return true;
	}
}

static bool every_map_pin(const bool holds[NR_MAP_PINS])
{
	for (int pin = 0; pin < NR_MAP_PINS; pin++)
		if (!holds[pin])
			return false;
	return true;
}

bool start_can_resume(const struct pins_found *found)
{
	if (!found->by_this_build)
		return false;
	for (int pin = NR_MAP_PINS; pin < NR_PINS; pin++) {
		int link = pin - NR_MAP_PINS;

		if (found->link_pinned[link] != start_wants_link(pin, &found->kernel))
			return false;
		if (found->link_pinned[link] && !found->link_of_that_load[link])
			return false;
	}
	return every_map_pin(found->map_used);
}

bool start_pin_holds_policy(enum pin pin)
{
	switch (pin) {
	case PIN_PROBE:
	case PIN_COUNTERS:
	case PIN_DROPS:
	case PIN_UID_BUCKETS:
	case PIN_EVENTS:
		return false;
	default:
		return true;
	}
}

enum map_plan start_map_plan(const struct map_pins_found *found, enum pin *why_pin)
{
	for (int pin = 0; pin < NR_MAP_PINS; pin++) {
		*why_pin = pin;
		if (!found->fits[pin])
			return MAPS_AFRESH_DIFFER;
		if (start_pin_holds_policy(pin) && !found->pinned[pin])
			return MAPS_AFRESH_POLICY_GONE;
	}
	return MAPS_REUSE;
}

bool start_may_adopt(const struct map_pins_found *found, enum map_plan plan)
{
	return plan == MAPS_REUSE && every_map_pin(found->pinned);
}

bool start_needs_interim(enum argguard_policy_state state)
{
	return state == ARGGUARD_POLICY_UNSET;
}

bool start_applies_file(enum argguard_policy_state state)
{
	return state != ARGGUARD_POLICY_APPLIED;
}

enum policy_source policy_fallback_after(enum policy_source failed, bool last_good_kept)
{
	switch (failed) {
	case POLICY_FROM_FILE:
		return last_good_kept ? POLICY_FROM_LAST_GOOD : POLICY_FROM_DEFAULT;
	case POLICY_FROM_LAST_GOOD:
		return POLICY_FROM_DEFAULT;
	default:
		return POLICY_FROM_NOWHERE;
	}
}

int policy_start_result(enum policy_source in_force)
{
	switch (in_force) {
	case POLICY_FROM_FILE:
		return 0;
	case POLICY_FROM_LAST_GOOD:
	case POLICY_FROM_DEFAULT:
		return 1;
	default:
		return -1;
	}
}
