// SPDX-License-Identifier: GPL-2.0
/*
 * The size distributions: the bucket the BPF program counts a value in
 * (bpf/size_bucket.h, the very code), how many execs a limit would have
 * denied, the limits suggest makes, which slot each rule counts in, and
 * the report that prints them.
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

static void test_suggest(void)
{
	static const __u64 seen[] = { 40000, 250000 };
	struct policy live = two_rules(), out;
	struct suggest_options o = { .keep_share = 1, .margin = 25, .mode = ARGGUARD_MODE_ENFORCE };
	struct size_data d;
	struct argguard_sizes argc = { 0 };

	memset(&d, 0, sizeof(d));
	size_slots_assign(&live, NULL, true);
	size_slots_scopes(&live, d.scopes);
	fill(&d.hist[3], seen, 2, 7); /* uid 1000 */
	argc.count[ARGGUARD_SIZE_ARGC][size_bucket(3)] = 1;
	argc.max[ARGGUARD_SIZE_ARGC] = 3;
	size_hist_add(&d.hist[3], &argc);
	fill(&d.hist[ARGGUARD_SIZE_SLOT_GLOBAL], (const __u64[]){ 1000 }, 1, 1);
	CHECK(!size_suggest(&live, &d, &o, &out), "a policy is made");
	CHECK(out.mode == ARGGUARD_MODE_ENFORCE, "in the mode asked for");
	CHECK(out.uids[0].rule.max_total_bytes == 313344,
	      "the largest total plus 25%%, up to a whole K: %llu",
	      (unsigned long long)out.uids[0].rule.max_total_bytes);
	CHECK(out.uids[0].rule.max_argc == LOCKOUT_MIN_COUNT, "never under the lockout floor: %u",
	      out.uids[0].rule.max_argc);
	CHECK(out.uids[0].rule.max_argv_bytes == 0,
	      "a metric not counted (a stock kernel's argv) keeps its limit");
	CHECK(out.global.max_total_bytes == LOCKOUT_MIN_BYTES, "global too, at its floor");
	CHECK(out.cgroups[0].rule.max_total_bytes == 0, "a rule that saw nothing is left alone");
	policy_free(&out);

	o.keep_share = 0.5;
	o.margin = 0;
	size_suggest(&live, &d, &o, &out);
	CHECK(out.uids[0].rule.max_total_bytes == 65536,
	      "keeping half: the top of the bucket that holds it, up to a whole K: %llu",
	      (unsigned long long)out.uids[0].rule.max_total_bytes);
	policy_free(&out);
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

	memset(&d, 0, sizeof(d));
	size_slots_assign(&live, NULL, true);
	size_slots_scopes(&live, d.scopes);
	fill(&d.hist[3], seen, 2, 4);
	live.uids[0].rule.max_total_bytes = 4095;
	out = open_memstream(&text, &len);
	size_report_print(out, &d, &live, "the live policy", false);
	fclose(out);
	CHECK(strstr(text, "[uid 1000] 8 execs\n") != NULL, "the scope and its execs");
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
	CHECK(strstr(text, "\"scope\":\"uid 1000\",\"uid\":1000,\"execs\":8") != NULL,
	      "JSON names the scope: %s", text);
	CHECK(strstr(text, "{\"limit\":\"max_total_bytes\",\"value\":4095,\"over_at_least\":4,"
			   "\"over_at_most\":4}") != NULL,
	      "JSON gives the limit's denials");
	free(text);
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
	memset(&d, 0, sizeof(d));
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

	memset(&d, 0, sizeof(d));
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
	memset(&d, 0, sizeof(d));
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
	test_slots();
	test_suggest();
	test_report();
	test_pattern_counts_by_cgroup();
	test_report_by_container();
	test_report_escapes_what_execs_chose();
	test_prometheus();
	test_learn_sizes_key();
	return check_done();
}
