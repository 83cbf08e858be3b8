// SPDX-License-Identifier: GPL-2.0
/*
 * The window's counts on disk and from other hosts: the JSON reader, a
 * report read back as it was written (bytes that are not UTF-8 included),
 * what a report from another host is refused for, counts added scope by
 * scope, and the state file: what it adds to the live maps, whom it is
 * trusted from, its atomic write and what an apply drops from it.
 */
#define _GNU_SOURCE /* nftw() */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/types.h>

#include "check.h"
#include "json_reader.h"
#include "size_bucket.h"
#include "size_data.h"
#include "size_json.h"
#include "size_report.h"
#include "size_slots.h"
#include "size_state.h"

static bool parses(const char *text)
{
	char err[128];
	struct json_value *v = json_parse(text, strlen(text), err, sizeof(err));

	json_free(v);
	return v != NULL;
}

static void test_json_reader(void)
{
	static const char doc[] =
		"{\"a\": [1, 2, {\"b\": null}], \"s\": \"x\\u00e9\\ud83d\\ude00\\n\","
		" \"t\": true, \"n\": 18446744073709551615, \"big\": "
		"18446744073709551616, \"neg\": -1, \"f\": 1.5e3}";
	static const char *const errors[][2] = {
		{ "{1: 2}", "line 1: expected a key" },
		{ "{\"a\" 1}", "line 1: expected ':' after a key" },
		{ "1.x", "line 1: expected a digit after '.'" },
		{ "1e+", "line 1: expected a digit in an exponent" },
	};
	char err[128], deep[2 * JSON_READER_MAX_DEPTH + 8];
	struct json_value *v = json_parse(doc, strlen(doc), err, sizeof(err));
	const struct json_value *a, *s;
	uint64_t n;

	CHECK(v && v->type == JSON_OBJECT, "a document parses: %s", err);
	a = json_get(v, "a");
	CHECK(a && a->type == JSON_ARRAY && a->child && a->child->next->next->type == JSON_OBJECT &&
		      json_get(a->child->next->next, "b")->type == JSON_NULL,
	      "arrays, objects and null are read as written");
	s = json_get(v, "s");
	CHECK(s && !strcmp(json_str_of(s), "x\xc3\xa9\xf0\x9f\x98\x80\n"),
	      "\\u escapes, a surrogate pair included, are decoded to UTF-8");
	CHECK(json_u64_of(json_get(v, "n"), &n) && n == UINT64_MAX, "the largest u64 is read");
	CHECK(!json_u64_of(json_get(v, "big"), &n) && !json_u64_of(json_get(v, "neg"), &n) &&
		      !json_u64_of(json_get(v, "f"), &n) && !json_u64_of(s, &n),
	      "past 64 bits, negative, a fraction or a string is no u64");
	CHECK(json_get(v, "t")->type == JSON_TRUE && !json_get(v, "nothing"), "true; no such key");
	json_free(v);

	CHECK(!parses("{\"a\": 1,}") && !parses("[1 2]") && !parses("{\"a\" 1}"),
	      "a trailing comma, a missing comma or colon is refused");
	CHECK(!parses("{} {}") && !parses("// c\n{}") && !parses("{'a': 1}"),
	      "more after the value, a comment, single quotes are refused");
	CHECK(!parses("\"a\tb\"") && !parses("\"\\ud800\"") && !parses("\"\\udc00x\"") &&
		      !parses("\"\\x41\"") && !parses("\"abc"),
	      "a raw control character, a lone surrogate, an unknown escape, an open string");
	CHECK(!parses("01") && !parses("1.") && !parses("-") && !parses("tru") && !parses(""),
	      "numbers and literals as RFC 8259 spells them");
	for (int i = 0; i <= JSON_READER_MAX_DEPTH; i++) {
		deep[i] = '[';
		deep[JSON_READER_MAX_DEPTH + 1 + i] = ']';
	}
	deep[2 * JSON_READER_MAX_DEPTH + 2] = '\0';
	v = json_parse(deep, strlen(deep), err, sizeof(err));
	CHECK(!v && strstr(err, "nested more than"), "nesting past the bound is refused: %s", err);
	deep[2 * JSON_READER_MAX_DEPTH + 1] = '\0';
	CHECK(parses(deep + 1), "and up to it is read");
	v = json_parse("{\n\"a\": [1,\n2 3]}", 16, err, sizeof(err));
	CHECK(!v && !strcmp(err, "line 3: expected ',' or ']'"), "an error names its line: %s",
	      err);
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		v = json_parse(errors[i][0], strlen(errors[i][0]), err, sizeof(err));
		CHECK(!v && !strcmp(err, errors[i][1]), "%s is refused: %s", errors[i][0], err);
	}
	CHECK(parses("1.5E-3") && parses("-0.25e+10"), "fractions and exponents of either sign");
}

/* n execs of v bytes (total, and argv/envp if exact), argc 3, in h. */
static void count(struct size_hist *h, uint64_t v, uint64_t n, bool exact)
{
	static const int metrics[] = { ARGGUARD_SIZE_TOTAL_BYTES, ARGGUARD_SIZE_ARGV_BYTES,
				       ARGGUARD_SIZE_ENVP_BYTES, ARGGUARD_SIZE_ARGC };

	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		int m = metrics[i];
		uint64_t x = m == ARGGUARD_SIZE_ARGC	      ? 3
			     : m == ARGGUARD_SIZE_TOTAL_BYTES ? v
							      : v / 2;

		if (!exact && (m == ARGGUARD_SIZE_ARGV_BYTES || m == ARGGUARD_SIZE_ENVP_BYTES))
			continue;
		h->count[m][size_bucket(x)] += n;
		h->sum[m] += n * x;
		if (x > h->max[m])
			h->max[m] = x;
	}
}

#define ODD_PATH "/user.slice/odd\xff\"\n\\unit"
#define ODD_COMM "q\"\\\n\xfe"

/* A policy of uid 1000, a cgroup rule whose path is not UTF-8, and slots for them. */
static struct policy odd_policy(void)
{
	struct argguard_rule r = policy_rule_default();
	struct policy p;

	policy_init(&p);
	policy_add_uid(&p, 1000, &r, 0);
	policy_add_cgroup(&p, ODD_PATH, &r, 0);
	size_slots_assign(&p, NULL, true);
	return p;
}

/*
 * Live-like data: uid 1000 (slot 3: what ran since a time, 30 execs denied,
 * and its execs by uid), the odd cgroup (slot 4), global, two largest execs
 * that ran and one denied.
 */
static void odd_data(struct size_data *d, const struct policy *p)
{
	struct size_uid *u;

	size_data_init(d);
	size_slots_scopes(p, d->scopes);
	count(&d->hist[ARGGUARD_SIZE_SLOT_GLOBAL], 900, 10, true);
	count(&d->hist[3], 300000, 2, true);
	d->hist[3].since = 1777610000;
	count(&d->denied[3], 4 << 20, 30, true);
	u = size_data_uid(d, 3, 1000);
	count(&u->hist, 300000, 2, true);
	count(&d->hist[4], 5000, 7, true);
	d->largest[0] = (struct size_exec){ .total_bytes = 300000,
					    .argv_bytes = 150000,
					    .envp_bytes = 150000,
					    .argc = 3,
					    .uid = 1000,
					    .slot = 3,
					    .exact = true };
	d->largest[1] = (struct size_exec){
		.total_bytes = 5000, .argc = 3, .uid = 0, .slot = 4, .exact = true
	};
	strcpy(d->largest[0].comm, ODD_COMM);
	strcpy(d->largest[1].comm, "make");
	d->slot_largest[3] = d->largest[0];
	d->largest[0].cgroup = strdup(ODD_PATH);
	d->n_largest = 2;
	d->largest_denied[0] = (struct size_exec){ .total_bytes = 4 << 20,
						   .argv_bytes = 2 << 20,
						   .envp_bytes = 2 << 20,
						   .argc = 3,
						   .uid = 65534,
						   .slot = 3,
						   .exact = true };
	d->n_largest_denied = 1;
	snprintf(d->origin.host, sizeof(d->origin.host), "node-a");
	snprintf(d->origin.boot_id, sizeof(d->origin.boot_id),
		 "0f6ef1ea-9c4e-4c57-9d3e-5e3fd8f1e0a1");
	d->origin.start = 1777600000;
	d->origin.end = 1777686400;
	d->origin.exact = true;
}

static char *report_json(const struct size_data *d, const struct policy *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	size_report_print(out, d, p, "the live policy", true);
	fclose(out);
	return text;
}

/* text, written to a file of its own in dir; its path in a static buffer. */
static const char *put(const char *dir, const char *name, const char *text)
{
	static char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static bool same_hist(const struct size_hist *a, const struct size_hist *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static void test_report_round_trip(const char *dir)
{
	struct policy p = odd_policy();
	struct size_data d, back;
	char why[SIZE_JSON_WHY_MAX] = "", *text, *again;
	int err;

	odd_data(&d, &p);
	text = report_json(&d, &p);
	CHECK(strstr(text, "\"schema\":2,\"host\":\"node-a\",\"boot_id\":\"0f6ef1ea-") &&
		      strstr(text, "\"window\":{\"start\":\"2026-05-01T01:46:40Z\","
				   "\"end\":\"2026-05-02T01:46:40Z\"},\"sizes\":\"exact\""),
	      "the envelope: schema, host, boot id, window, size mode: %.300s", text);
	CHECK(strstr(text, "\"scope\":\"" /* "cgroup /user.slice/odd..." in hex */
			   "6367726f7570202f757365722e736c6963652f6f6464ff22") &&
		      strstr(text, "\"scope_encoding\":\"hex\"") &&
		      strstr(text, "\"comm\":\"7122"
				   "5c0afe\",\"comm_encoding\":\"hex\""),
	      "bytes that are not UTF-8 are written in hex, and say so");
	err = size_json_read_file(put(dir, "round.json", text), &back, why, sizeof(why));
	CHECK(!err, "the report reads back: %s", why);
	CHECK(back.n_scopes == ARGGUARD_SIZE_SLOTS + 3, "its three scopes, after the slots: %zu",
	      back.n_scopes);
	CHECK(!err &&
		      same_hist(&back.hist[ARGGUARD_SIZE_SLOTS],
				&d.hist[ARGGUARD_SIZE_SLOT_GLOBAL]) &&
		      same_hist(&back.hist[ARGGUARD_SIZE_SLOTS + 1], &d.hist[3]) &&
		      same_hist(&back.hist[ARGGUARD_SIZE_SLOTS + 2], &d.hist[4]),
	      "every count, sum and largest value as it was");
	CHECK(!err && !strcmp(back.scopes[ARGGUARD_SIZE_SLOTS + 2].path, ODD_PATH),
	      "the cgroup rule's path, its very bytes");
	CHECK(!err && back.n_largest == 2 && !strcmp(back.largest[0].comm, ODD_COMM) &&
		      !strcmp(back.largest[0].cgroup, ODD_PATH) &&
		      back.largest[0].slot == ARGGUARD_SIZE_SLOTS + 1 &&
		      back.largest[0].argv_bytes == 150000 && !back.largest[1].cgroup,
	      "the largest execs, comm and cgroup byte for byte, each with its scope");
	CHECK(!err && same_hist(&back.denied[ARGGUARD_SIZE_SLOTS + 1], &d.denied[3]) &&
		      back.hist[ARGGUARD_SIZE_SLOTS + 1].since == 1777610000 &&
		      !back.hist[ARGGUARD_SIZE_SLOTS].since,
	      "what was denied, apart, and since when each scope counted (null: unknown)");
	CHECK(!err && back.n_uids == 1 && back.uids[0].slot == ARGGUARD_SIZE_SLOTS + 1 &&
		      back.uids[0].uid == 1000 && same_hist(&back.uids[0].hist, &d.uids[0].hist),
	      "the execs by uid, each in its scope");
	CHECK(!err && back.slot_largest[ARGGUARD_SIZE_SLOTS + 1].total_bytes == 300000 &&
		      back.slot_largest[ARGGUARD_SIZE_SLOTS + 1].uid == 1000 &&
		      !strcmp(back.slot_largest[ARGGUARD_SIZE_SLOTS + 1].comm, ODD_COMM) &&
		      back.slot_largest[ARGGUARD_SIZE_SLOTS + 2].total_bytes == 0,
	      "each scope's largest that ran, and whose");
	CHECK(!err && back.n_largest_denied == 1 && back.largest_denied[0].total_bytes == 4 << 20 &&
		      back.largest_denied[0].uid == 65534 &&
		      back.largest_denied[0].slot == ARGGUARD_SIZE_SLOTS + 1,
	      "the largest denied, in a list of their own");
	CHECK(!strcmp(back.origin.host, "node-a") && back.origin.start == 1777600000 &&
		      back.origin.end == 1777686400 && back.origin.exact,
	      "and the envelope");
	again = report_json(&back, &p);
	CHECK(!strcmp(text, again), "written again, it is the same text");
	free(again);
	free(text);
	size_data_free(&back);
	size_data_free(&d);
	policy_free(&p);
}

/* The report's text with the first from replaced by to, refused with a why holding want. */
static void refused(const char *dir, const char *report, const char *from, const char *to,
		    const char *want)
{
	char why[SIZE_JSON_WHY_MAX] = "", *text = malloc(strlen(report) + strlen(to) + 1);
	const char *at = strstr(report, from);
	struct size_data d;
	int err;

	if (!at) {
		CHECK(false, "the report holds %s", from);
		free(text);
		return;
	}
	sprintf(text, "%.*s%s%s", (int)(at - report), report, to, at + strlen(from));
	err = size_json_read_file(put(dir, "bad.json", text), &d, why, sizeof(why));
	CHECK(err == -EINVAL && strstr(why, want), "%s -> %s: refused, '%s'", from, to, why);
	size_data_free(&d);
	free(text);
}

static void test_report_refused(const char *dir)
{
	struct policy p = odd_policy();
	struct size_data d;
	char *text;

	odd_data(&d, &p);
	text = report_json(&d, &p);
	refused(dir, text, "\"schema\":2", "\"schema\":1",
		"schema 1; this argguard reads schema 2");
	refused(dir, text, "\"schema\":2,", "", "no schema");
	refused(dir, text, "\"sizes\":\"exact\"", "\"sizes\":\"some\"", "expected sizes");
	refused(dir, text, "\"sizes\":\"exact\"", "\"sizes\":\"total\"",
		"argv and envp counted apart, in a report of total sizes");
	refused(dir, text, "\"low\":512,\"high\":1023", "\"low\":512,\"high\":2047",
		"no bucket is 512 to 2047");
	refused(dir, text, "\"low\":512,\"high\":1023,\"count\":10",
		"\"low\":512,\"high\":1023,\"count\":11",
		"the buckets hold 11 execs, not the count");
	refused(dir, text, "\"max\":900", "\"max\":5000000", "not in the top bucket");
	refused(dir, text, "\"scope\":\"uid 1000\"", "\"scope\":\"global\"", "scope global twice");
	refused(dir, text, "\"scope\":\"uid 1000\"", "\"scope\":\"uid 01000\"",
		"a scope with no name argguard gives one");
	refused(dir, text, "\"execs\":10", "\"execs\":9",
		"its execs are not the total_bytes count");
	refused(dir, text, "\"total_bytes\":{", "\"tot_bytes\":{", "no metric is called tot_bytes");
	refused(dir, text, "\"start\":\"2026-05-01T01:46:40Z\"", "\"start\":\"yesterday\"",
		"expected a window");
	refused(dir, text, "\"comm_encoding\":\"hex\"", "\"comm_encoding\":\"base64\"",
		"largest: expected a comm");
	refused(dir, text, "{\"schema\"", "[{\"schema\"", "expected ',' or ']'");
	refused(dir, text, "\"denied\":{\"execs\":30", "\"denied\":{\"execs\":31",
		"denied: its execs are not the total_bytes count");
	refused(dir, text, "\"since\":1777610000", "\"since\":\"now\"", "expected since");
	refused(dir, text, "\"by_uid\":[{\"uid\":1000", "\"by_uid\":[{\"uid\":-1",
		"by_uid: expected a uid");
	refused(dir, text, "\"largest_denied\":[", "\"largest_denied_\":[",
		"expected scopes, largest and largest_denied");
	free(text);
	size_data_free(&d);
	policy_free(&p);
}

static void test_add(void)
{
	struct policy p = odd_policy();
	struct size_data live, carried;
	struct size_scope uid2000 = { .scope = ARGGUARD_SCOPE_UID, .uid = 2000, .ruled = true };
	struct size_exec big = { .total_bytes = 1 << 20, .argc = 1, .uid = 2000 };
	struct size_hist want = { 0 }, denied = { 0 };
	struct size_uid *u;
	int at;

	odd_data(&live, &p);
	size_data_init(&carried);
	/*
	 * The carried window: uid 1000 (a slot of the live maps: what ran, since
	 * earlier, what was denied, by uid, its largest) and uid 2000 (none).
	 */
	at = size_data_scope(&carried, &live.scopes[3]);
	count(&carried.hist[at], 300000, 5, true);
	carried.hist[at].since = 1777500000;
	count(&carried.denied[at], 3 << 20, 4, true);
	u = size_data_uid(&carried, at, 1001);
	count(&u->hist, 300000, 1, true);
	u = size_data_uid(&carried, at, 1000);
	count(&u->hist, 300000, 4, true);
	carried.slot_largest[at] = (struct size_exec){ .total_bytes = 310000, .uid = 1001 };
	at = size_data_scope(&carried, &uid2000);
	CHECK(at == ARGGUARD_SIZE_SLOTS + 1, "a scope added comes after the slots: %d", at);
	count(&carried.hist[at], 1000, 1, true);
	big.slot = at;
	size_data_add_exec(&carried, &big, false);
	CHECK(!size_data_add(&live, &carried), "the carried window adds to the live counts");
	count(&want, 300000, 7, true);
	want.since = 1777500000;
	CHECK(same_hist(&live.hist[3], &want),
	      "uid 1000's counts in its own slot: 2 + 5, since the earlier");
	count(&denied, 4 << 20, 30, true);
	count(&denied, 3 << 20, 4, true);
	CHECK(same_hist(&live.denied[3], &denied), "and what was denied: 30 + 4, apart");
	memset(&want, 0, sizeof(want));
	count(&want, 300000, 6, true);
	CHECK(live.n_uids == 2 && live.uids[0].slot == 3 && live.uids[0].uid == 1000 &&
		      same_hist(&live.uids[0].hist, &want) && live.uids[1].uid == 1001 &&
		      size_hist_execs(&live.uids[1].hist, ARGGUARD_SIZE_TOTAL_BYTES) == 1,
	      "by uid: uid 1000's 2 + 4 as one uid, uid 1001 beside it, in order");
	CHECK(live.slot_largest[3].total_bytes == 310000 && live.slot_largest[3].uid == 1001 &&
		      live.slot_largest[3].slot == 3,
	      "the scope's largest that ran, the larger of the two");
	CHECK(live.n_scopes == ARGGUARD_SIZE_SLOTS + 1 &&
		      live.scopes[ARGGUARD_SIZE_SLOTS].uid == 2000 &&
		      size_hist_execs(&live.hist[ARGGUARD_SIZE_SLOTS], ARGGUARD_SIZE_TOTAL_BYTES) ==
			      1,
	      "uid 2000, which no slot counts, as a scope of its own");
	CHECK(live.n_largest == 3 && live.largest[0].total_bytes == 1 << 20 &&
		      live.largest[0].slot == ARGGUARD_SIZE_SLOTS,
	      "the largest execs merged, the largest first, each with its scope here");
	size_data_keep_ruled(&live, &p);
	CHECK(!size_hist_execs(&live.hist[ARGGUARD_SIZE_SLOTS], ARGGUARD_SIZE_TOTAL_BYTES) &&
		      live.n_largest == 2 &&
		      size_hist_execs(&live.hist[3], ARGGUARD_SIZE_TOTAL_BYTES),
	      "kept by a policy with no uid 2000 rule: its counts and its exec go, the rest stay");
	policy_free(&p);
	policy_init(&p);
	size_data_keep_ruled(&live, &p);
	CHECK(!size_data_counted(&live, 3) && !live.n_uids && !live.n_largest_denied &&
		      !live.slot_largest[3].total_bytes,
	      "kept by a policy with no uid 1000 rule: what ran, what was denied, its uids and "
	      "its largest go");
	memset(&want, 0, sizeof(want));
	want.count[0][0] = UINT64_MAX - 1;
	want.sum[0] = 5;
	size_hist_merge(&want, &want);
	CHECK(want.count[0][0] == UINT64_MAX && want.sum[0] == 10,
	      "counts add up to the most 64 bits hold, never round");
	size_data_free(&carried);
	size_data_free(&live);
	policy_free(&p);
}

static void test_state(const char *dir)
{
	struct policy p = odd_policy(), none;
	struct size_data d, carried;
	struct size_state st;
	struct size_maps_id maps = { .boot_id = "b1", .map_id = 42, .start = 1777600000 };
	struct size_maps_id other = maps;
	char why[SIZE_JSON_WHY_MAX], path[4096], link_path[4200], sub[4096];
	struct stat sb;
	int err;

	snprintf(path, sizeof(path), "%s/state/sizes.json", dir);
	odd_data(&d, &p);
	size_data_init(&carried);
	carried.origin = d.origin;
	size_data_add(&carried, &d); /* what came before: here, the same counts again */
	CHECK(size_state_read(path, geteuid(), &st, why, sizeof(why)) == -ENOENT,
	      "no file: nothing to add, no error");
	CHECK(!size_state_write(path, &d, &carried, &maps), "the state is written");
	CHECK(!stat(path, &sb) && (sb.st_mode & 07777) == 0600, "mode 0600: %o",
	      sb.st_mode & 07777);
	snprintf(sub, sizeof(sub), "%s/state/sizes.json.new", dir);
	CHECK(access(sub, F_OK), "no temporary file left");
	err = size_state_read(path, geteuid(), &st, why, sizeof(why));
	CHECK(!err, "and read back: %s", err ? why : "");
	if (err)
		goto out;
	CHECK(size_state_before(&st, &maps) == &st.carried,
	      "beside the very maps it names (a restart adopted them): the carried counts");
	other.map_id = 43;
	CHECK(size_state_before(&st, &other) == &st.whole, "beside other maps: the whole window");
	snprintf(other.boot_id, sizeof(other.boot_id), "b2");
	other.map_id = 42;
	CHECK(size_state_before(&st, &other) == &st.whole,
	      "the same map id in another boot is other maps");
	CHECK(st.maps.start == 1777600000 && st.whole.origin.start == 1777600000 &&
		      same_hist(&st.whole.hist[ARGGUARD_SIZE_SLOTS + 1], &d.hist[3]),
	      "its window and counts as written");
	size_state_free(&st);

	/* An apply whose policy has no uid 1000 rule drops its counts from the file. */
	policy_init(&none);
	CHECK(!size_state_keep_ruled(path, geteuid(), &none), "an apply drops unruled scopes");
	err = size_state_read(path, geteuid(), &st, why, sizeof(why));
	CHECK(!err && st.whole.n_scopes == ARGGUARD_SIZE_SLOTS + 1 &&
		      size_hist_execs(&st.whole.hist[ARGGUARD_SIZE_SLOTS], 2) &&
		      st.whole.n_largest == 0 && st.carried.n_largest == 0 && st.maps.map_id == 42,
	      "global stays, uid 1000 and the cgroup go, in both parts; the maps' id stays");
	if (!err)
		size_state_free(&st);
	policy_free(&none);

	/* Whom it is trusted from. */
	err = size_state_read(path, geteuid() + 1, &st, why, sizeof(why));
	CHECK(err == -EPERM && strstr(why, "is not uid"), "another owner's directory: %s", why);
	chmod(path, 0620);
	err = size_state_read(path, geteuid(), &st, why, sizeof(why));
	CHECK(err == -EPERM && strstr(why, "writable by it alone"), "a group-writable file: %s",
	      why);
	chmod(path, 0600);
	snprintf(link_path, sizeof(link_path), "%s.link", path);
	link(path, link_path);
	err = size_state_read(path, geteuid(), &st, why, sizeof(why));
	CHECK(err == -EPERM && strstr(why, "one name"), "a file with a second name: %s", why);
	unlink(link_path);
	snprintf(sub, sizeof(sub), "%s/state", dir);
	chmod(sub, 0777);
	err = size_state_read(path, geteuid(), &st, why, sizeof(why));
	CHECK(err == -EPERM && strstr(why, "its directory"), "a directory others write: %s", why);
	chmod(sub, 0700);
	symlink(path, link_path);
	err = size_state_read(link_path, geteuid(), &st, why, sizeof(why));
	CHECK(err == -ELOOP && !strcmp(why, "a symbolic link"), "a symbolic link: %s", why);
	unlink(link_path);
	put(sub, "sizes.json", "{\"schema\": 1, \"sizes\": \"exact\", \"window\"");
	err = size_state_read(path, geteuid(), &st, why, sizeof(why));
	CHECK(err == -EINVAL && strstr(why, "line 1:"), "a file cut short: %s", why);
out:
	size_data_free(&carried);
	size_data_free(&d);
	policy_free(&p);
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int main(void)
{
	char dir[] = "/tmp/argguard-size-state.XXXXXX";

	if (!mkdtemp(dir))
		return 1;
	test_json_reader();
	test_report_round_trip(dir);
	test_report_refused(dir);
	test_add();
	test_state(dir);
	CHECK(!nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS), "the test's files are removed");
	return check_done();
}
