// SPDX-License-Identifier: GPL-2.0
/*
 * The size distributions: the bucket the BPF program counts a value in
 * (bpf/size_bucket.h, the very code), how many execs a limit would have
 * denied, the limits suggest makes (floors, minimum sample, weight by uid,
 * denied execs apart, the tier) and the file it prints, which slot each
 * rule counts in, and the report that prints them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include <json-c/json.h>

#include "check.h"
#include "log.h"
#include "size_bucket.h"
#include "metrics.h"
#include "size_report.h"
#include "size_slots.h"
#include "size_data.h"
#include "size_suggest.h"
#include "parse_quietly.h"

/* The bucket by its definition: 0 for 0 and 1, else the index of the top bit, at most 31. */
static __u32 naive_bucket(__u64 v)
{
	__u32 b = 0;

	while (v > 1) {
		v >>= 1;
		b++;
	}
	return b > 31 ? 31 : b;
}

static void test_buckets(void)
{
	bool all = true;
	__u64 bad = 0;

	for (int k = 0; k < 64; k++) {
		__u64 p = 1ULL << k;
		__u64 v[] = { p - 1, p, p + 1, p | (p >> 1), p * 3 / 2 };

		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			if (size_bucket(v[i]) != naive_bucket(v[i])) {
				all = false;
				bad = v[i];
			}
	}
	for (__u64 v = 0; v < 70000; v++)
		if (size_bucket(v) != naive_bucket(v)) {
			all = false;
			bad = v;
		}
	CHECK(all,
	      "size_bucket() is the top bit's index for every power of two and its neighbours "
	      "(first wrong: %llu)",
	      (unsigned long long)bad);
	CHECK(size_bucket(~0ULL) == 31, "the largest value counts in the last bucket");
	CHECK(size_bucket_low(12) == 4096 && size_bucket_high(12) == 8191,
	      "bucket 12 holds 4096 to 8191");
	CHECK(size_bucket_low(0) == 0 && size_bucket_high(0) == 1, "bucket 0 holds 0 and 1");
	for (__u32 b = 0; b < 31; b++)
		if (size_bucket(size_bucket_low(b)) != b || size_bucket(size_bucket_high(b)) != b)
			all = false;
	CHECK(all, "each bucket's bounds count in it");
}

/* A distribution of total_bytes: n execs of each size in sizes. */
static void fill(struct size_hist *h, const __u64 *sizes, size_t n_sizes, __u64 n)
{
	struct argguard_sizes cpu;

	memset(&cpu, 0, sizeof(cpu));
	for (size_t i = 0; i < n_sizes; i++) {
		cpu.count[ARGGUARD_SIZE_TOTAL_BYTES][size_bucket(sizes[i])] += n;
		cpu.sum[ARGGUARD_SIZE_TOTAL_BYTES] += n * sizes[i];
		if (sizes[i] > cpu.max[ARGGUARD_SIZE_TOTAL_BYTES])
			cpu.max[ARGGUARD_SIZE_TOTAL_BYTES] = sizes[i];
	}
	size_hist_add(h, &cpu);
}

/* d's arrays; the names of its largest execs and cgroups are the test's own. */
static void data_done(struct size_data *d)
{
	free(d->hist);
	free(d->denied);
	free(d->slot_largest);
	free(d->scopes);
	free(d->uids);
	memset(d, 0, sizeof(*d));
}

static void test_over(void)
{
	static const __u64 sizes[] = { 100, 5000, 300000 };
	struct size_hist h = { 0 };
	uint64_t least, most;
	const int T = ARGGUARD_SIZE_TOTAL_BYTES;

	fill(&h, sizes, 3, 10);
	fill(&h, sizes, 3, 5); /* a second CPU */
	CHECK(size_hist_execs(&h, T) == 45, "two CPUs' counts add up: %llu",
	      (unsigned long long)size_hist_execs(&h, T));
	CHECK(h.max[T] == 300000, "the largest is the larger CPU's");
	size_hist_over(&h, T, 300000, &least, &most);
	CHECK(least == 0 && most == 0, "a limit at the largest value denies nothing");
	size_hist_over(&h, T, 0, &least, &most);
	CHECK(least == 0 && most == 0, "no limit denies nothing");
	size_hist_over(&h, T, 1024, &least, &most);
	CHECK(least == 30 && most == 30,
	      "a limit under two whole buckets denies exactly them: %llu-%llu",
	      (unsigned long long)least, (unsigned long long)most);
	size_hist_over(&h, T, 299999, &least, &most);
	CHECK(least == 1 && most == 15,
	      "a limit inside the top bucket: at least the largest, at most the bucket (%llu-%llu)",
	      (unsigned long long)least, (unsigned long long)most);
	size_hist_over(&h, T, 4096, &least, &most);
	CHECK(least == 15 && most == 30, "a limit splitting a lower bucket: %llu-%llu",
	      (unsigned long long)least, (unsigned long long)most);
}

static void test_keep(void)
{
	static const __u64 many[] = { 3000 }, few[] = { 900000 };
	struct size_hist h = { 0 };
	const int T = ARGGUARD_SIZE_TOTAL_BYTES;

	CHECK(size_hist_keep(&h, T, 1) == 0, "nothing counted: no value");
	fill(&h, many, 1, 999);
	fill(&h, few, 1, 1);
	CHECK(size_hist_keep(&h, T, 1) == 900000, "keeping all is the largest value");
	CHECK(size_hist_keep(&h, T, 0.999) == 4095, "keeping 99.9%% is the top of its bucket: %llu",
	      (unsigned long long)size_hist_keep(&h, T, 0.999));
	memset(&h, 0, sizeof(h));
	fill(&h, many, 1, 10);
	CHECK(size_hist_keep(&h, T, 0.5) == 3000,
	      "never above the largest seen, though its bucket goes on: %llu",
	      (unsigned long long)size_hist_keep(&h, T, 0.5));
}

static struct policy two_rules(void)
{
	struct policy p;
	struct argguard_rule r = policy_rule_default();

	policy_init(&p);
	policy_add_uid(&p, 1000, &r, 0);
	policy_add_cgroup(&p, "/system.slice/build.service", &r, 0);
	return p;
}

/* The tables of the largest, each slot's: those that ran and those denied, apart. */
static void test_largest(void)
{
	struct argguard_largest cpu = { 0 };
	struct size_data d;

	CHECK(!size_data_init(&d), "the data is made");
	cpu.total_bytes[0] = 5000;
	cpu.uid[0] = 1000;
	cpu.slot[0] = 3;
	cpu.total_bytes[1] = 9000;
	cpu.uid[1] = 1001;
	cpu.slot[1] = 3;
	size_data_add_largest(&d, &cpu, false);
	cpu.total_bytes[0] = 4 << 20;
	cpu.uid[0] = 65534;
	cpu.total_bytes[1] = 0;
	size_data_add_largest(&d, &cpu, true);
	CHECK(d.n_largest == 2 && d.largest[0].total_bytes == 9000 && d.n_largest_denied == 1 &&
		      d.largest_denied[0].total_bytes == 4 << 20,
	      "what ran and what was denied, in tables of their own");
	CHECK(d.slot_largest[3].total_bytes == 9000 && d.slot_largest[3].uid == 1001,
	      "slot 3's largest that ran, and whose: a denied one is not it");
	size_data_free(&d);
}

static void test_slots(void)
{
	struct policy live = two_rules(), next;
	struct argguard_rule r = policy_rule_default();
	struct size_scope scopes[ARGGUARD_SIZE_SLOTS];
	uint64_t fresh;
	char name[300];

	fresh = size_slots_assign(&live, NULL, true);
	CHECK(live.global.size_slot == ARGGUARD_SIZE_SLOT_GLOBAL &&
		      live.setuid.size_slot == ARGGUARD_SIZE_SLOT_SETUID,
	      "global and setuid have their fixed slots");
	CHECK(live.uids[0].rule.size_slot == 3 && live.cgroups[0].rule.size_slot == 4,
	      "the rules take the first free slots: %u, %u", live.uids[0].rule.size_slot,
	      live.cgroups[0].rule.size_slot);
	CHECK(fresh == ((1ULL << 3) | (1ULL << 4)), "both are fresh, to clear");

	/* The next policy drops the uid rule and adds two: the cgroup rule keeps its slot. */
	policy_init(&next);
	policy_add_uid(&next, 2000, &r, 0);
	policy_add_cgroup(&next, "/system.slice/build.service", &r, 0);
	policy_add_uid(&next, 3000, &r, 0);
	fresh = size_slots_assign(&next, &live, true);
	CHECK(next.cgroups[0].rule.size_slot == 4, "a rule kept keeps its slot");
	CHECK(next.uids[0].rule.size_slot == 5 && next.uids[1].rule.size_slot == 6,
	      "new rules take slots that the live policy does not count in either: %u, %u",
	      next.uids[0].rule.size_slot, next.uids[1].rule.size_slot);
	CHECK(fresh == ((1ULL << 5) | (1ULL << 6)), "only the slots taken afresh are cleared");

	size_slots_scopes(&next, scopes);
	size_scope_name(&scopes[4], name, sizeof(name));
	CHECK(!strcmp(name, "cgroup /system.slice/build.service"), "slot 4 is the cgroup's: %s",
	      name);
	size_scope_name(&scopes[6], name, sizeof(name));
	CHECK(!strcmp(name, "uid 3000"), "slot 6 is uid 3000's: %s", name);
	size_scope_name(&scopes[3], name, sizeof(name));
	CHECK(!strcmp(name, "a rule since removed") && !size_scope_shown(&scopes[3]),
	      "slot 3, the dropped rule's, is no scope's: %s", name);
	CHECK(size_slots_rule(&live, &scopes[4]) == &live.cgroups[0].rule,
	      "another policy's rule for the same scope is found");
	CHECK(!size_slots_rule(&live, &scopes[6]), "a scope the policy has no rule for has none");

	CHECK(size_slots_assign(&next, &live, false) == 0 && !next.global.size_slot &&
		      !next.uids[0].rule.size_slot && !next.cgroups[0].rule.size_slot,
	      "not learning, no rule counts");
	policy_free(&next);

	policy_init(&next);
	for (uint32_t uid = 0; uid < 100; uid++)
		policy_add_uid(&next, uid, &r, 0);
	fresh = size_slots_assign(&next, &live, true);
	CHECK(next.uids[0].rule.size_slot == 5 && next.uids[57].rule.size_slot == 62 &&
		      next.uids[58].rule.size_slot == 3 && next.uids[59].rule.size_slot == 4,
	      "once the slots the live policy leaves are taken, the live ones are too: %u, %u",
	      next.uids[58].rule.size_slot, next.uids[59].rule.size_slot);
	CHECK(fresh & (1ULL << 3), "and cleared");
	CHECK(next.uids[60].rule.size_slot == ARGGUARD_SIZE_SLOT_OTHER &&
		      next.uids[99].rule.size_slot == ARGGUARD_SIZE_SLOT_OTHER,
	      "the rules past the slots share the last");
	policy_free(&next);
	policy_free(&live);
}

/* n execs of each value in values, of metric m. */
static void fill_metric(struct size_hist *h, int m, const __u64 *values, size_t n_values, __u64 n)
{
	struct argguard_sizes cpu;

	memset(&cpu, 0, sizeof(cpu));
	for (size_t i = 0; i < n_values; i++) {
		cpu.count[m][size_bucket(values[i])] += n;
		cpu.sum[m] += n * values[i];
		if (values[i] > cpu.max[m])
			cpu.max[m] = values[i];
	}
	size_hist_add(h, &cpu);
}

#define NOW 1700000000ULL
#define HOURS(h) ((__u64)(h)*3600)

/* The options a test starts from: the defaults, but a sample of 10 execs over a day. */
static struct suggest_options options(void)
{
	return (struct suggest_options){ .keep_share = 1,
					 .margin = 25,
					 .mode = ARGGUARD_MODE_ENFORCE,
					 .tier = SUGGEST_TIER_DENY,
					 .min_execs = 10,
					 .min_hours = 24,
					 .now = NOW };
}

/* uid 1000 (slot 3): 7 execs of 40000 bytes and 7 of 250000, 3 arguments, over two days. */
static void sample(struct policy *live, struct size_data *d)
{
	static const __u64 seen[] = { 40000, 250000 };

	*live = two_rules();
	live->mode = ARGGUARD_MODE_ENFORCE;
	CHECK(!size_data_init(d), "the data is made");
	size_slots_assign(live, NULL, true);
	size_slots_scopes(live, d->scopes);
	fill(&d->hist[3], seen, 2, 7);
	fill_metric(&d->hist[3], ARGGUARD_SIZE_ARGC, (const __u64[]){ 3 }, 1, 14);
	d->hist[3].since = NOW - HOURS(48);
}

static void test_suggest(void)
{
	struct suggest_options o = options();
	struct suggest_note notes[ARGGUARD_SIZE_SLOTS];
	struct policy live, out;
	struct size_data d;

	sample(&live, &d);
	fill(&d.hist[ARGGUARD_SIZE_SLOT_GLOBAL], (const __u64[]){ 1000 }, 1, 20);
	d.hist[ARGGUARD_SIZE_SLOT_GLOBAL].since = NOW - HOURS(30);
	CHECK(!size_suggest(&live, &live, &d, &o, &out, notes), "a policy is made");
	CHECK(out.mode == ARGGUARD_MODE_ENFORCE, "in the mode asked for");
	CHECK(out.uids[0].rule.max_total_bytes == 313344,
	      "the largest total plus 25%%, up to a whole K: %llu",
	      (unsigned long long)out.uids[0].rule.max_total_bytes);
	CHECK(notes[3].execs == 14 && notes[3].hours == 48 && !notes[3].kept,
	      "the note gives the sample: %llu execs, %g hours", (unsigned long long)notes[3].execs,
	      notes[3].hours);
	CHECK(out.uids[0].rule.max_argc == 0 && out.uids[0].rule.max_envc == 0,
	      "max_argc and max_envc are left as they were unless asked for: %u",
	      out.uids[0].rule.max_argc);
	CHECK(out.uids[0].rule.max_argv_bytes == 0,
	      "a metric not counted (a stock kernel's argv) keeps its limit");
	CHECK(out.global.max_total_bytes == SUGGEST_MIN_BYTES &&
		      notes[ARGGUARD_SIZE_SLOT_GLOBAL].floored ==
			      1U << POLICY_LIMIT_max_total_bytes,
	      "global's 1000 bytes give the byte floor, 128K, and its note says so: %llu",
	      (unsigned long long)out.global.max_total_bytes);
	CHECK(out.cgroups[0].rule.max_total_bytes == 0 && !notes[4].counted,
	      "a rule that saw nothing is left alone");
	CHECK(!out.uids[0].rule.audit_max_total_bytes, "the tier is left alone");
	policy_free(&out);

	o.counts = true;
	size_suggest(&live, &live, &d, &o, &out, notes);
	CHECK(out.uids[0].rule.max_argc == SUGGEST_MIN_COUNT && !out.uids[0].rule.max_envc,
	      "--counts: max_argc at its floor, 32768; envc, never counted here, left alone: "
	      "%u, %u",
	      out.uids[0].rule.max_argc, out.uids[0].rule.max_envc);
	policy_free(&out);
	data_done(&d);
	policy_free(&live);
}

/* --tier would-deny sets the audit_max_ limits, and leaves the deny limits as they are. */
static void test_suggest_tier(void)
{
	struct suggest_options o = options();
	struct suggest_note notes[ARGGUARD_SIZE_SLOTS];
	struct policy live, out;
	struct size_data d;

	sample(&live, &d);
	live.uids[0].rule.max_total_bytes = 1 << 20;
	o.tier = SUGGEST_TIER_WOULD_DENY;
	o.counts = true;
	size_suggest(&live, &live, &d, &o, &out, notes);
	CHECK(out.uids[0].rule.audit_max_total_bytes == 313344 &&
		      out.uids[0].rule.audit_max_argc == SUGGEST_MIN_COUNT,
	      "the tier's limits are suggested: %llu, %u",
	      (unsigned long long)out.uids[0].rule.audit_max_total_bytes,
	      out.uids[0].rule.audit_max_argc);
	CHECK(out.uids[0].rule.max_total_bytes == 1 << 20 && !out.uids[0].rule.max_argc,
	      "the deny limits are as they were: %llu",
	      (unsigned long long)out.uids[0].rule.max_total_bytes);
	policy_free(&out);
	data_done(&d);
	policy_free(&live);
}

/*
 * What argguard denied never raises a limit: the denied execs are kept
 * apart, and no suggestion passes the deny limit in force. Mode audit
 * denied nothing: what ran over its limits counts, and the note says so.
 */
static void test_suggest_denied_apart(void)
{
	struct suggest_options o = options();
	struct suggest_note notes[ARGGUARD_SIZE_SLOTS];
	struct policy live, out;
	struct size_data d;

	sample(&live, &d);
	fill(&d.denied[3], (const __u64[]){ 4 << 20 }, 1, 30);
	size_suggest(&live, &live, &d, &o, &out, notes);
	CHECK(out.uids[0].rule.max_total_bytes == 313344 && notes[3].denied == 30,
	      "30 denied execs of 4M leave the suggestion as it was: %llu",
	      (unsigned long long)out.uids[0].rule.max_total_bytes);
	policy_free(&out);

	live.uids[0].rule.max_total_bytes = 200 << 10;
	size_suggest(&live, &live, &d, &o, &out, notes);
	CHECK(out.uids[0].rule.max_total_bytes == 200 << 10 &&
		      notes[3].capped == 1U << POLICY_LIMIT_max_total_bytes,
	      "never above the deny limit in force, and the note says so: %llu",
	      (unsigned long long)out.uids[0].rule.max_total_bytes);
	policy_free(&out);

	live.uids[0].rule.action = ARGGUARD_ACTION_AUDIT;
	size_suggest(&live, &live, &d, &o, &out, notes);
	CHECK(out.uids[0].rule.max_total_bytes == 313344 && !notes[3].capped &&
		      notes[3].not_denying && notes[3].over_in_force >= 1,
	      "a rule that only audits held nothing back: what ran over it counts (%llu)",
	      (unsigned long long)out.uids[0].rule.max_total_bytes);
	policy_free(&out);

	live.uids[0].rule.action = ARGGUARD_ACTION_DENY;
	live.mode = ARGGUARD_MODE_AUDIT;
	size_suggest(&live, &live, &d, &o, &out, notes);
	CHECK(out.uids[0].rule.max_total_bytes == 313344 && notes[3].not_denying,
	      "nor does a rule in mode audit: %llu",
	      (unsigned long long)out.uids[0].rule.max_total_bytes);
	policy_free(&out);
	data_done(&d);
	policy_free(&live);
}

/* A scope with too few execs, or too few hours of them, keeps its limits; and the floors. */
static void test_suggest_min_sample_and_floors(void)
{
	struct suggest_options o = options();
	struct suggest_note notes[ARGGUARD_SIZE_SLOTS];
	struct policy live, out;
	struct size_data d;

	sample(&live, &d);
	live.setuid.max_total_bytes = 256 << 10;
	fill(&d.hist[ARGGUARD_SIZE_SLOT_SETUID], (const __u64[]){ 3000 }, 1, 1);
	fill_metric(&d.hist[ARGGUARD_SIZE_SLOT_SETUID], ARGGUARD_SIZE_ARGC, (const __u64[]){ 3 }, 1,
		    1);
	d.hist[ARGGUARD_SIZE_SLOT_SETUID].since = NOW - HOURS(100);
	d.hist[3].since = NOW - HOURS(2);
	o.counts = true;
	size_suggest(&live, &live, &d, &o, &out, notes);
	CHECK(out.setuid.max_total_bytes == 256 << 10 && !out.setuid.max_argc &&
		      notes[ARGGUARD_SIZE_SLOT_SETUID].kept,
	      "one setuid exec of 3 arguments is under the minimum sample: its limits as they "
	      "were (%llu, argc %u)",
	      (unsigned long long)out.setuid.max_total_bytes, out.setuid.max_argc);
	CHECK(!out.uids[0].rule.max_total_bytes && notes[3].kept,
	      "14 execs over 2 hours are under 24 hours: kept");
	policy_free(&out);

	/* The quiet host: a week of execs of about 3 KB and 4 arguments, one of 40 KB. */
	memset(&d.hist[3], 0, sizeof(d.hist[3]));
	fill(&d.hist[3], (const __u64[]){ 3000, 40000 }, 2, 1);
	fill(&d.hist[3], (const __u64[]){ 3000 }, 1, 100000);
	fill_metric(&d.hist[3], ARGGUARD_SIZE_ARGC, (const __u64[]){ 4 }, 1, 100002);
	fill_metric(&d.hist[3], ARGGUARD_SIZE_ENVC, (const __u64[]){ 12 }, 1, 100002);
	fill_metric(&d.hist[3], ARGGUARD_SIZE_ARGV_BYTES, (const __u64[]){ 100, 30000 }, 2, 1);
	fill_metric(&d.hist[3], ARGGUARD_SIZE_ENVP_BYTES, (const __u64[]){ 2900, 10000 }, 2, 1);
	d.hist[3].since = NOW - HOURS(24 * 7);
	o.counts = false;
	for (int pass = 0; pass < 2; pass++) {
		size_suggest(&live, &live, &d, &o, &out, notes);
		CHECK(out.uids[0].rule.max_total_bytes == SUGGEST_MIN_BYTES &&
			      out.uids[0].rule.max_argv_bytes == SUGGEST_MIN_BYTES &&
			      out.uids[0].rule.max_envp_bytes == SUGGEST_MIN_BYTES,
		      "the quiet host's bytes give the byte floor, 128K (keep-share %g): %llu",
		      o.keep_share * 100, (unsigned long long)out.uids[0].rule.max_total_bytes);
		CHECK(pass ? out.uids[0].rule.max_argc == SUGGEST_MIN_COUNT &&
				      out.uids[0].rule.max_envc == SUGGEST_MIN_COUNT
			   : !out.uids[0].rule.max_argc && !out.uids[0].rule.max_envc,
		      "its 4 arguments: max_argc %s (%u)",
		      pass ? "at its floor, 32768, when asked for" : "left alone",
		      out.uids[0].rule.max_argc);
		policy_free(&out);
		o.counts = true;
		o.keep_share = 0.5;
	}

	/* A limit in force under the floor stays: no suggestion passes it. */
	live.uids[0].rule.max_total_bytes = 64 << 10;
	o = options();
	size_suggest(&live, &live, &d, &o, &out, notes);
	CHECK(out.uids[0].rule.max_total_bytes == 64 << 10,
	      "a deny limit in force under the floor is kept: %llu",
	      (unsigned long long)out.uids[0].rule.max_total_bytes);
	policy_free(&out);
	data_done(&d);
	policy_free(&live);
}

/* uid's execs of total bytes in slot 3 of d, as the BPF program counts them by uid. */
static void add_uid(struct size_data *d, uint32_t uid, const __u64 *sizes, size_t n_sizes, __u64 n)
{
	struct size_uid *u = realloc(d->uids, (d->n_uids + 1) * sizeof(*u));

	if (!u)
		abort();
	d->uids = u;
	u = &d->uids[d->n_uids++];
	memset(u, 0, sizeof(*u));
	u->slot = 3;
	u->uid = uid;
	fill(&u->hist, sizes, n_sizes, n);
	fill(&d->hist[3], sizes, n_sizes, n);
}

/*
 * A share under 100%: of the execs at or over the floor, each uid's as one
 * uid, and never under what leaving one uid out gives. One uid's flood
 * moves it no more than one exec of its own would, up or down.
 */
static void test_suggest_weighs_by_uid(void)
{
	struct policy live = two_rules();
	struct size_data d;
	const int T = ARGGUARD_SIZE_TOTAL_BYTES;
	uint64_t one, flood;

	CHECK(!size_data_init(&d), "the data is made");
	size_slots_assign(&live, NULL, true);
	size_slots_scopes(&live, d.scopes);
	/* A build uid: 950 link lines of 200K, 50 of 1.5M; a million small execs of others. */
	add_uid(&d, 2000, (const __u64[]){ 200000 }, 1, 950);
	add_uid(&d, 2000, (const __u64[]){ 1500000 }, 1, 50);
	d.uids[0].hist.count[T][size_bucket(1500000)] += 50;
	d.uids[0].hist.max[T] = 1500000;
	d.n_uids = 1;
	fill(&d.hist[3], (const __u64[]){ 3000 }, 1, 1000000);
	CHECK(size_keep_by_uid(&d, 3, T, 0.97, SUGGEST_MIN_BYTES) == 1500000,
	      "a million small execs under the floor weigh nothing: the 5%% of 1.5M is kept (%llu)",
	      (unsigned long long)size_keep_by_uid(&d, 3, T, 0.97, SUGGEST_MIN_BYTES));

	/* One uid's flood of 140K execs, just over the floor, to push the share down. */
	add_uid(&d, 3000, (const __u64[]){ 140000 }, 1, 1);
	one = size_keep_by_uid(&d, 3, T, 0.97, SUGGEST_MIN_BYTES);
	fill(&d.uids[1].hist, (const __u64[]){ 140000 }, 1, 999999);
	fill(&d.hist[3], (const __u64[]){ 140000 }, 1, 999999);
	flood = size_keep_by_uid(&d, 3, T, 0.97, SUGGEST_MIN_BYTES);
	CHECK(one == 1500000 && flood == 1500000,
	      "one uid cannot pull it down, with one exec (%llu) or a million (%llu)",
	      (unsigned long long)one, (unsigned long long)flood);
	data_done(&d);

	/* Mode audit: 200 uids of 150K execs, and one uid's execs of 4M that ran. */
	CHECK(!size_data_init(&d), "the data is made");
	size_slots_scopes(&live, d.scopes);
	for (uint32_t uid = 1; uid <= 200; uid++)
		add_uid(&d, 10000 + uid, (const __u64[]){ 150000 }, 1, 10);
	add_uid(&d, 3000, (const __u64[]){ 4 << 20 }, 1, 1000000);
	CHECK(size_keep_by_uid(&d, 3, T, 0.99, SUGGEST_MIN_BYTES) == 262143,
	      "a million execs of one uid weigh as that uid, 1 in 201: the top 1%% leaves them "
	      "out (%llu)",
	      (unsigned long long)size_keep_by_uid(&d, 3, T, 0.99, SUGGEST_MIN_BYTES));
	CHECK(size_keep_by_uid(&d, 3, T, 1, SUGGEST_MIN_BYTES) == 4 << 20,
	      "keeping all is the largest that ran, whoever ran it");
	/* Execs no uid was kept for (the map was full) weigh as one uid more. */
	fill(&d.hist[3], (const __u64[]){ 3 << 20 }, 1, 5000000);
	CHECK(size_keep_by_uid(&d, 3, T, 0.99, SUGGEST_MIN_BYTES) == 262143,
	      "five million execs with no uid kept weigh as one uid: %llu",
	      (unsigned long long)size_keep_by_uid(&d, 3, T, 0.99, SUGGEST_MIN_BYTES));
	data_done(&d);
	policy_free(&live);
}

/* The printed file: the header, each section's comment, a comm that cannot add a line; it parses. */
static void test_suggest_print(void)
{
	struct suggest_options o = options();
	struct suggest_note notes[ARGGUARD_SIZE_SLOTS];
	struct policy live, out, back;
	struct size_data d;
	char *text = NULL, err[256] = "";
	size_t len = 0;
	FILE *f;

	sample(&live, &d);
	fill(&d.denied[3], (const __u64[]){ 4 << 20 }, 1, 30);
	d.slot_largest[3] =
		(struct size_exec){ .total_bytes = 250000, .argc = 3, .uid = 1000, .slot = 3 };
	strcpy(d.slot_largest[3].comm, "x\nmode = off");
	fill(&d.hist[ARGGUARD_SIZE_SLOT_SETUID], (const __u64[]){ 3000 }, 1, 1);
	d.hist[ARGGUARD_SIZE_SLOT_SETUID].since = NOW - HOURS(1);
	size_suggest(&live, &live, &d, &o, &out, notes);
	f = open_memstream(&text, &len);
	size_suggest_print(f, &out, &d, &o, notes, &live, "The live policy",
			   "the live policy judged");
	fclose(f);
	CHECK(strstr(text, "# uid 1000: 14 execs ran, 30 denied (not counted), in 48.0 hours since "
			   "2023-11-12T22:13:20Z.\n") != NULL,
	      "the uid's sample and window: %s", text);
	CHECK(strstr(text, "# The largest that ran: 250000 bytes, 3 arguments, by uid 1000 "
			   "(x\\x0amode = off).\n[uid 1000]\n") != NULL,
	      "the largest and whose, the comm escaped, above the section");
	CHECK(strstr(text,
		     "# The largest that ran: 3000 bytes, 0 arguments, by a uid not known.\n"),
	      "a largest exec whose table was not read: whose is not known");
	CHECK(strstr(text, "# setuid: 1 exec ran, 0 denied (not counted), in 1.0 hours") &&
		      strstr(text,
			     "# Under the minimum sample (10 execs that ran, over 24 hours): its "
			     "limits are as they were.\n[setuid]\n"),
	      "a scope under the minimum sample says why its limits stay");
	CHECK(strstr(text, "# cgroup /system.slice/build.service: no exec counted; its limits are "
			   "as they were.\n[cgroup /system.slice/build.service]\n"),
	      "a rule with no exec says so");
	CHECK(strstr(text, "\nmode = off") == NULL, "no line of the comm's own");
	f = fmemopen(text, len, "r");
	CHECK(!parse_quietly(f, "suggested.conf", &back, err, sizeof(err)),
	      "the printed file parses: %s", err);
	fclose(f);
	CHECK(back.mode == ARGGUARD_MODE_ENFORCE && back.n_uids == 1 &&
		      back.uids[0].rule.max_total_bytes == 313344,
	      "to the policy suggested");
	policy_free(&back);
	free(text);
	policy_free(&out);

	/* Mode audit in force: what ran over its limits counts, and the file says so. */
	live.mode = ARGGUARD_MODE_AUDIT;
	live.uids[0].rule.max_total_bytes = 100000;
	size_suggest(&live, &live, &d, &o, &out, notes);
	text = NULL;
	f = open_memstream(&text, &len);
	size_suggest_print(f, &out, &d, &o, notes, &live, "The live policy",
			   "the live policy judged");
	fclose(f);
	CHECK(strstr(text, "# The policy in force is in mode audit: the execs over its limits ran "
			   "(would-deny),\n# and count as seen here.\n") &&
		      strstr(text,
			     "# At least 7 of them ran over its limits in force, which did not "
			     "deny (mode or action audit): they count as seen.\n[uid 1000]\n"),
	      "mode audit: the file says what ran over the limits counts: %s", text);
	free(text);
	policy_free(&out);
	data_done(&d);
	policy_free(&live);
}

static void test_report(void)
{
	static const __u64 seen[] = { 300, 5000 };
	struct policy live = two_rules();
	struct size_data d;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	CHECK(!size_data_init(&d), "the data is made");
	size_slots_assign(&live, NULL, true);
	size_slots_scopes(&live, d.scopes);
	fill(&d.hist[3], seen, 2, 4);
	live.uids[0].rule.max_total_bytes = 4095;
	out = open_memstream(&text, &len);
	size_report_print(out, &d, &live, "the live policy", false);
	fclose(out);
	CHECK(strstr(text, "[uid 1000] 8 execs ran, 0 denied\n") != NULL,
	      "the scope and its execs");
	CHECK(strstr(text,
		     "          256-511        |######################################## 4\n"),
	      "a bar per bucket");
	CHECK(strstr(text, "max_total_bytes = 4095 would have denied 4 of 8\n") != NULL,
	      "what the limit in force would have denied");
	CHECK(!strstr(text, "[global]"), "a scope with no exec is left out");
	free(text);
	text = NULL;
	out = open_memstream(&text, &len);
	size_report_print(out, &d, &live, "the live policy", true);
	fclose(out);
	CHECK(strstr(text, "\"scope\":\"uid 1000\",\"uid\":1000,\"since\":null,\"execs\":8") !=
		      NULL,
	      "JSON names the scope: %s", text);
	CHECK(strstr(text, "{\"limit\":\"max_total_bytes\",\"value\":4095,\"over_at_least\":4,"
			   "\"over_at_most\":4}") != NULL,
	      "JSON gives the limit's denials");
	free(text);
	data_done(&d);
	policy_free(&live);
}

#define DOCKER_A         \
	"/system.slice/" \
	"docker-4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a.scope"
#define DOCKER_B         \
	"/system.slice/" \
	"docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope"

/* A pattern's rule counts by cgroup too; a literal path's, and a rule not learning, do not. */
static void test_pattern_counts_by_cgroup(void)
{
	struct policy p = two_rules();
	struct argguard_rule r = policy_rule_default();

	policy_add_cgroup(&p, "/system.slice/docker-*.scope", &r, 0);
	size_slots_assign(&p, NULL, true);
	CHECK(p.cgroups[1].rule.flags == ARGGUARD_RULE_SIZES_BY_CGROUP &&
		      p.cgroups[1].rule.size_slot,
	      "the pattern's rule counts by cgroup, with a slot (%u)", p.cgroups[1].rule.size_slot);
	CHECK(!p.cgroups[0].rule.flags && !p.uids[0].rule.flags,
	      "a literal path's rule and a uid rule do not");
	size_slots_assign(&p, NULL, false);
	CHECK(!p.cgroups[1].rule.flags,
	      "not learning, the pattern's rule counts nothing by cgroup");
	policy_free(&p);
}

/* Two containers of one pattern: two lines, each with its own execs. */
static void test_report_by_container(void)
{
	struct policy live = two_rules();
	struct argguard_rule r = policy_rule_default();
	struct size_cgroup cgroups[3] = { 0 };
	struct size_data d;
	char *text = NULL;
	size_t len = 0;
	uint32_t slot;
	FILE *out;

	policy_add_cgroup(&live, "/system.slice/docker-*.scope", &r, 0);
	CHECK(!size_data_init(&d), "the data is made");
	size_slots_assign(&live, NULL, true);
	size_slots_scopes(&live, d.scopes);
	slot = live.cgroups[1].rule.size_slot;
	fill(&d.hist[slot], (const __u64[]){ 1000, 200000 }, 2, 5);
	cgroups[0] = (struct size_cgroup){ .cgroup_id = 7, .slot = slot, .cgroup = DOCKER_A };
	fill(&cgroups[0].hist, (const __u64[]){ 1000 }, 1, 3);
	cgroups[1] = (struct size_cgroup){ .cgroup_id = 9, .slot = slot, .cgroup = DOCKER_B };
	fill(&cgroups[1].hist, (const __u64[]){ 200000 }, 1, 5);
	cgroups[2] = (struct size_cgroup){ .cgroup_id = 11, .slot = slot };
	fill(&cgroups[2].hist, (const __u64[]){ 1000 }, 1, 2);
	d.cgroups = cgroups;
	d.n_cgroups = 3;
	out = open_memstream(&text, &len);
	size_report_print(out, &d, &live, "the live policy", false);
	fclose(out);
	CHECK(strstr(text,
		     "  by cgroup (container):\n"
		     "    docker 4f1c2a9e8b7d             3 execs, total_bytes largest 1000, "
		     "mean 1000\n"
		     "    docker 0123456789ab             5 execs, total_bytes largest 200000, "
		     "mean 200000\n"
		     "    cgroup 11 (gone)                2 execs") != NULL,
	      "a line per container, and one for a cgroup since gone: %s", text);
	free(text);
	text = NULL;
	out = open_memstream(&text, &len);
	size_report_print(out, &d, &live, "the live policy", true);
	fclose(out);
	CHECK(strstr(text, "\"cgroups\":[{\"cgroup\":\"" DOCKER_A "\",\"cgroup_id\":7,"
			   "\"container\":{\"runtime\":\"docker\",\"id\":\"4f1c2a9e8b7d") != NULL,
	      "JSON gives the pattern's cgroups, each with its container: %s", text);
	CHECK(strstr(text, "\"cgroup\":null,\"cgroup_id\":11,\"container\":null,\"execs\":2") !=
		      NULL,
	      "and a cgroup since gone, by its id");
	free(text);
	data_done(&d);
	policy_free(&live);
}

#define PWNED "\x1b]0;pwned\x07"

/*
 * A comm and a cgroup path that set root's terminal title: the text shows
 * them escaped, with no ESC or BEL of theirs; the JSON keeps their bytes.
 */
static void test_report_escapes_what_execs_chose(void)
{
	struct policy live = two_rules();
	struct size_data d;
	json_object *obj, *largest, *e;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	CHECK(!size_data_init(&d), "the data is made");
	size_slots_assign(&live, NULL, true);
	size_slots_scopes(&live, d.scopes);
	fill(&d.hist[3], (const __u64[]){ 5000 }, 1, 1);
	d.largest[0] = (struct size_exec){
		.total_bytes = 5000, .uid = 1000, .slot = 3, .cgroup = "/user.slice/" PWNED "\\x"
	};
	strcpy(d.largest[0].comm, PWNED);
	d.n_largest = 1;
	out = open_memstream(&text, &len);
	size_report_print(out, &d, &live, "the live policy", false);
	fclose(out);
	CHECK(!strchr(text, '\x1b') && !strchr(text, '\x07'), "the text holds no ESC and no BEL");
	CHECK(strstr(text, " \\x1b]0;pwned\\x07 ") != NULL, "the comm, escaped: %s", text);
	CHECK(strstr(text, " /user.slice/\\x1b]0;pwned\\x07\\\\x\n") != NULL,
	      "the cgroup path, escaped, its backslash doubled: %s", text);
	free(text);
	text = NULL;
	out = open_memstream(&text, &len);
	size_report_print(out, &d, &live, "the live policy", true);
	fclose(out);
	CHECK(strstr(text, "\"comm\":\"\\u001b]0;pwned\\u0007\"") != NULL,
	      "the JSON escapes the comm as JSON does: %s", text);
	CHECK(strstr(text, "\"total_bytes\":5000,\"argv_bytes\":null,\"envp_bytes\":null,") != NULL,
	      "a stock kernel's exec: its argv and envp bytes not known, null: %s", text);
	obj = json_tokener_parse(text);
	largest = obj ? json_object_object_get(obj, "largest") : NULL;
	e = largest ? json_object_array_get_idx(largest, 0) : NULL;
	CHECK(e && !strcmp(json_object_get_string(json_object_object_get(e, "comm")), PWNED) &&
		      !strcmp(json_object_get_string(json_object_object_get(e, "cgroup")),
			      "/user.slice/" PWNED "\\x"),
	      "and it reads back as the exact bytes");
	json_object_put(obj);
	free(text);
	data_done(&d);
	policy_free(&live);
}

static void test_prometheus(void)
{
	static const __u64 seen[] = { 300, 5000 };
	struct policy live;
	struct argguard_rule r = policy_rule_default();
	struct size_data d;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	policy_init(&live);
	policy_add_cgroup(&live, "/odd\"unit", &r, 0);
	CHECK(!size_data_init(&d), "the data is made");
	size_slots_assign(&live, NULL, true);
	size_slots_scopes(&live, d.scopes);
	fill(&d.hist[3], seen, 2, 4);
	out = open_memstream(&text, &len);
	size_metrics_print(out, &d);
	fclose(out);
	CHECK(strstr(text, "# TYPE argguard_exec_total_bytes histogram\n") != NULL,
	      "a histogram family per metric");
	CHECK(strstr(text,
		     "argguard_exec_total_bytes_bucket{scope=\"cgroup\",rule=\"/odd\\\"unit\","
		     "le=\"511\"} 4\n") != NULL,
	      "buckets by their top, the label escaped");
	CHECK(strstr(text, "le=\"4095\"} 4\n") && strstr(text, "le=\"8191\"} 8\n"),
	      "the buckets are cumulative");
	CHECK(strstr(text, "le=\"+Inf\"} 8\n") != NULL, "+Inf counts every exec");
	CHECK(strstr(text, "argguard_exec_total_bytes_sum{scope=\"cgroup\",rule=\"/odd\\\"unit\"} "
			   "21200\n") != NULL,
	      "the sum");
	CHECK(!strstr(text, "argguard_exec_argc"), "a metric that counted nothing is left out");
	free(text);
	data_done(&d);
	policy_free(&live);
}

static void test_learn_sizes_key(void)
{
	static const char off[] = "[global]\nmode = enforce\nlearn_sizes = no\n";
	static const char bad[] = "[global]\nmode = enforce\nlearn_sizes = maybe\n";
	char err[256] = "", *text = NULL;
	struct policy p;
	size_t len = 0;
	FILE *in, *out;

	in = fmemopen((void *)off, sizeof(off) - 1, "r");
	CHECK(!parse_quietly(in, "t.conf", &p, err, sizeof(err)) && !p.learn_sizes,
	      "learn_sizes = no turns learning off: %s", err);
	fclose(in);
	out = open_memstream(&text, &len);
	policy_print(out, &p);
	fclose(out);
	CHECK(strstr(text, "\nlearn_sizes = no\n") != NULL, "and is printed back");
	free(text);
	size_slots_assign(&p, NULL, p.learn_sizes);
	CHECK(p.global.size_slot == ARGGUARD_SIZE_SLOT_NONE, "so no rule counts");
	policy_free(&p);
	CHECK(p.learn_sizes, "learning is the default");
	in = fmemopen((void *)bad, sizeof(bad) - 1, "r");
	CHECK(parse_quietly(in, "t.conf", &p, err, sizeof(err)) &&
		      !strcmp(err, "t.conf:3: learn_sizes = maybe: expected yes or no"),
	      "a bad value names its line: %s", err);
	fclose(in);
}

int main(void)
{
	test_buckets();
	test_over();
	test_keep();
	test_largest();
	test_slots();
	test_suggest();
	test_suggest_tier();
	test_suggest_denied_apart();
	test_suggest_min_sample_and_floors();
	test_suggest_weighs_by_uid();
	test_suggest_print();
	test_report();
	test_pattern_counts_by_cgroup();
	test_report_by_container();
	test_report_escapes_what_execs_chose();
	test_prometheus();
	test_learn_sizes_key();
	return check_done();
}
