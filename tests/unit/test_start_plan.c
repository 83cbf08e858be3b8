// SPDX-License-Identifier: GPL-2.0
/*
 * What a start does with what it finds (loader/programs/start_plan.h): resume,
 * reuse or drop the map pins, adopt, the interim policy, and the fallback
 * chain, each branch from facts written here.
 */
#include <stdbool.h>

#include "check.h"
#include "start_plan.h"

static const struct kernel_features patched = {
	.exact_sizes = true,
	.kernel_head = true,
	.compat = true,
	.exec_args_failed = true,
};
static const struct kernel_features stock_compat = { .compat = true };
static const struct kernel_features stock_64 = { 0 };

static void test_wanted_links(void)
{
	CHECK(start_wants_link(PIN_LINK_EXEC_ARGS_FAILED, &patched),
	      "a kernel with the refusal tracepoint gets its program");
	CHECK(!start_wants_link(PIN_LINK_EXEC_ARGS_FAILED, &stock_compat),
	      "a kernel without the refusal tracepoint gets no program for it");
	CHECK(!start_wants_link(PIN_LINK_EXECVE, &patched) &&
		      !start_wants_link(PIN_LINK_EXECVEAT, &patched),
	      "a kernel with the refusal tracepoint gets no exec exits");
	CHECK(start_wants_link(PIN_LINK_EXECVE, &stock_64) &&
		      start_wants_link(PIN_LINK_EXECVEAT, &stock_64),
	      "a kernel without the refusal tracepoint gets the exec exits");
	CHECK(start_wants_link(PIN_LINK_COMPAT_EXECVE, &stock_compat) &&
		      start_wants_link(PIN_LINK_COMPAT_EXECVEAT, &stock_compat),
	      "a kernel with 32-bit execs and without the tracepoint gets the compat exits");
	CHECK(!start_wants_link(PIN_LINK_COMPAT_EXECVE, &stock_64) &&
		      !start_wants_link(PIN_LINK_COMPAT_EXECVEAT, &stock_64),
	      "a kernel without 32-bit execs gets no compat exits");
	CHECK(!start_wants_link(PIN_LINK_COMPAT_EXECVE, &patched),
	      "a kernel with the refusal tracepoint gets no compat exits");
	CHECK(start_wants_link(PIN_LINK_BPRM_CHECK, &stock_64) &&
		      start_wants_link(PIN_LINK_BPRM_CREDS, &stock_64) &&
		      start_wants_link(PIN_LINK_CGROUP_MKDIR, &stock_64) &&
		      start_wants_link(PIN_LINK_CGROUP_RMDIR, &stock_64),
	      "the LSM and cgroup links are pinned on every kernel");
}

/* Pins that hold one whole load of this build on kernel: what resume takes. */
static struct pins_found whole_load(const struct kernel_features *kernel)
{
	struct pins_found found = { .by_this_build = true, .kernel = *kernel };

	for (int pin = NR_MAP_PINS; pin < NR_PINS; pin++) {
		found.link_pinned[pin - NR_MAP_PINS] = start_wants_link(pin, kernel);
		found.link_of_that_load[pin - NR_MAP_PINS] = start_wants_link(pin, kernel);
	}
	for (int pin = 0; pin < NR_MAP_PINS; pin++)
		found.map_used[pin] = true;
	return found;
}

static void test_resume(void)
{
	struct pins_found found;

	found = whole_load(&patched);
	CHECK(start_can_resume(&found), "one whole load of this build on a patched kernel resumes");
	found = whole_load(&stock_compat);
	CHECK(start_can_resume(&found), "one whole load of this build on a stock kernel resumes");

	found = whole_load(&patched);
	found.by_this_build = false;
	CHECK(!start_can_resume(&found), "pins of another build are loaded over, not resumed");

	found = whole_load(&patched);
	found.link_pinned[PIN_LINK_BPRM_CREDS - NR_MAP_PINS] = false;
	found.link_of_that_load[PIN_LINK_BPRM_CREDS - NR_MAP_PINS] = false;
	CHECK(!start_can_resume(&found), "a wanted link that is not pinned is loaded, not resumed");

	found = whole_load(&patched);
	found.link_pinned[PIN_LINK_EXECVE - NR_MAP_PINS] = true;
	found.link_of_that_load[PIN_LINK_EXECVE - NR_MAP_PINS] = true;
	CHECK(!start_can_resume(&found), "a link pinned that this kernel does not want (an older "
					 "build's exit) is not resumed");

	found = whole_load(&patched);
	found.link_of_that_load[PIN_LINK_CGROUP_MKDIR - NR_MAP_PINS] = false;
	CHECK(!start_can_resume(&found), "a link of another load is not resumed with the rest");

	found = whole_load(&patched);
	found.map_used[PIN_UID_RULES] = false;
	CHECK(!start_can_resume(&found),
	      "a map pin the pinned programs do not use (or none) is not resumed");
}

static struct map_pins_found all_maps_pinned(void)
{
	struct map_pins_found found;

	for (int pin = 0; pin < NR_MAP_PINS; pin++) {
		found.pinned[pin] = true;
		found.fits[pin] = true;
	}
	return found;
}

static void test_map_plan(void)
{
	struct map_pins_found found;
	enum pin why = NR_PINS;

	found = all_maps_pinned();
	CHECK(start_map_plan(&found, &why) == MAPS_REUSE, "map pins that all fit are reused");
	CHECK(start_may_adopt(&found, MAPS_REUSE), "over every map pin reused, links are adopted");

	found = all_maps_pinned();
	found.fits[PIN_COUNTERS] = false;
	CHECK(start_map_plan(&found, &why) == MAPS_AFRESH_DIFFER && why == PIN_COUNTERS,
	      "a map pin of another layout has all maps made afresh, and is named (%d)", why);
	CHECK(!start_may_adopt(&found, MAPS_AFRESH_DIFFER),
	      "over maps made afresh, no link is adopted");

	found = all_maps_pinned();
	found.pinned[PIN_GLOBAL_RULES] = false;
	CHECK(start_map_plan(&found, &why) == MAPS_AFRESH_POLICY_GONE && why == PIN_GLOBAL_RULES,
	      "a policy map whose pin is gone has all maps made afresh, and is named (%d)", why);

	found = all_maps_pinned();
	found.pinned[PIN_COUNTERS] = false;
	CHECK(start_map_plan(&found, &why) == MAPS_REUSE,
	      "a counter map whose pin is gone is made afresh alone: it holds no policy");
	CHECK(!start_may_adopt(&found, MAPS_REUSE),
	      "where a map was made afresh alone, no link is adopted: they use the old map");

	found = all_maps_pinned();
	found.fits[PIN_CONFIG] = false;
	found.pinned[PIN_SETTINGS] = false;
	CHECK(start_map_plan(&found, &why) == MAPS_AFRESH_DIFFER && why == PIN_CONFIG,
	      "the first map pin at fault is named (%d)", why);

	for (int pin = 0; pin < NR_MAP_PINS; pin++) {
		bool holds = pin != PIN_PROBE && pin != PIN_COUNTERS && pin != PIN_DROPS &&
			     pin != PIN_UID_BUCKETS && pin != PIN_EVENTS;

		CHECK(start_pin_holds_policy(pin) == holds, "map pin %d %s part of the policy", pin,
		      holds ? "holds" : "does not hold");
	}
}

static void test_policy_at_start(void)
{
	CHECK(start_needs_interim(ARGGUARD_POLICY_UNSET),
	      "maps made afresh get the interim policy before any program is attached");
	CHECK(!start_needs_interim(ARGGUARD_POLICY_INTERIM) &&
		      !start_needs_interim(ARGGUARD_POLICY_APPLIED),
	      "maps that hold a policy keep it until the start's apply");
	CHECK(start_applies_file(ARGGUARD_POLICY_UNSET) &&
		      start_applies_file(ARGGUARD_POLICY_INTERIM),
	      "a start whose maps hold no applied policy applies the file");
	CHECK(!start_applies_file(ARGGUARD_POLICY_APPLIED),
	      "a restart over an applied policy keeps it, bpftool edits included");
}

static void test_fallback_chain(void)
{
	CHECK(policy_fallback_after(POLICY_FROM_FILE, true) == POLICY_FROM_LAST_GOOD,
	      "a file that fails falls back on the last policy that applied");
	CHECK(policy_fallback_after(POLICY_FROM_FILE, false) == POLICY_FROM_DEFAULT,
	      "a file that fails with no last good policy kept falls back on the default");
	CHECK(policy_fallback_after(POLICY_FROM_LAST_GOOD, true) == POLICY_FROM_DEFAULT,
	      "a last good policy that fails falls back on the default");
	CHECK(policy_fallback_after(POLICY_FROM_DEFAULT, true) == POLICY_FROM_NOWHERE,
	      "a default that fails leaves nothing to try");
	CHECK(policy_fallback_after(POLICY_FROM_NOWHERE, true) == POLICY_FROM_NOWHERE,
	      "nowhere stays nowhere");

	CHECK(policy_start_result(POLICY_FROM_FILE) == 0, "the file in force: 0");
	CHECK(policy_start_result(POLICY_FROM_LAST_GOOD) == 1, "the last good policy in force: 1");
	CHECK(policy_start_result(POLICY_FROM_DEFAULT) == 1, "the default in force: 1");
	CHECK(policy_start_result(POLICY_FROM_NOWHERE) == -1, "nothing in force: -1");
}

int main(void)
{
	test_wanted_links();
	test_resume();
	test_map_plan();
	test_policy_at_start();
	test_fallback_chain();
	return check_done();
}
