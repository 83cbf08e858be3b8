// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* asprintf() */
#include <errno.h>
#include <ftw.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "log.h"
#include "names.h"
#include "policy.h"

/* Parse len bytes of text; err gets the error the parser logs (quietly), if any. */
static int parse_n(const char *text, size_t len, struct policy *p, char *err, size_t err_len)
{
	FILE *in = fmemopen((void *)text, len, "r");
	struct log_capture c;
	int ret;

	log_capture_start(&c, LOG_ERR, err, err_len, true);
	ret = policy_parse(in, "test.conf", p);
	log_capture_stop(&c);
	fclose(in);
	return ret;
}

static int parse(const char *text, struct policy *p, char *err, size_t err_len)
{
	return parse_n(text, strlen(text), p, err, err_len);
}

static void full_file_parses(void)
{
	const char *text = "# a site policy\n"
			   "[global]\n"
			   "mode = enforce\n"
			   "empty_argv = deny\n"
			   "max_total_bytes = 1M\n"
			   "max_argc = 4K\n"
			   "\n"
			   "[uid 1000]\n"
			   "max_argv_bytes = 256K ; inline comment\n"
			   "action = audit\n"
			   "[user root]\n"
			   "action = allow\n"
			   "[cgroup /ci/build]\n"
			   "max_envp_bytes = 64M\n"
			   "errno = EPERM\n"
			   "[setuid]\n"
			   "max_total_bytes = 64K\n";
	struct policy p;
	char err[256] = "";

	CHECK(parse(text, &p, err, sizeof(err)) == 0, "a full policy parses (%s)", err);
	CHECK(p.mode == ARGGUARD_MODE_ENFORCE, "mode = enforce");
	CHECK(p.empty_argv_action == ARGGUARD_ACTION_DENY, "empty_argv = deny");
	CHECK(p.global.max_total_bytes == 1 << 20, "global max_total_bytes = 1M");
	CHECK(p.global.max_argc == 4096, "global max_argc = 4K");
	CHECK(p.global.action == ARGGUARD_ACTION_DENY && p.global.deny_errno == E2BIG,
	      "a rule denies with E2BIG by default");
	CHECK(p.n_uids == 2 && p.uids[0].uid == 1000 && p.uids[1].uid == 0,
	      "[uid 1000] and [user root] are uid rules");
	CHECK(p.uids[0].rule.max_argv_bytes == 256 << 10 &&
		      p.uids[0].rule.action == ARGGUARD_ACTION_AUDIT,
	      "uid 1000: 256K argv, audit");
	CHECK(p.n_cgroups == 1 && !strcmp(p.cgroups[0].path, "/ci/build") &&
		      p.cgroups[0].rule.deny_errno == EPERM,
	      "cgroup rule with errno EPERM");
	CHECK(p.setuid.max_total_bytes == 64 << 10, "setuid rule");
	policy_free(&p);
}

static void printed_policy_reads_back_the_same(void)
{
	const char *text =
		"[global]\nmode = audit\nargv_head_bytes = 512\nevent_rate = 100\n"
		"event_burst = 7\nmax_envc = 100\n[uid 7]\nmax_total_bytes = 3\n"
		"action = allow\n[cgroup /ci]\nmax_argc = 9\n[setuid]\nmax_argv_bytes = 5\n";
	struct policy a, b;
	char err[256] = "", *out = NULL;
	size_t len = 0;
	FILE *f;

	CHECK(parse(text, &a, err, sizeof(err)) == 0, "source parses (%s)", err);
	f = open_memstream(&out, &len);
	policy_print(f, &a);
	fclose(f);
	CHECK(parse(out, &b, err, sizeof(err)) == 0, "printed policy parses (%s)", err);
	CHECK(a.mode == b.mode && a.head_bytes == 512 && b.head_bytes == 512 &&
		      b.event_rate == 100 && b.event_burst == 7 &&
		      !memcmp(&a.global, &b.global, sizeof(a.global)) &&
		      !memcmp(&a.setuid, &b.setuid, sizeof(a.setuid)) && b.n_uids == 1 &&
		      a.uids[0].uid == b.uids[0].uid &&
		      !memcmp(&a.uids[0].rule, &b.uids[0].rule, sizeof(a.uids[0].rule)) &&
		      b.n_cgroups == 1 && !strcmp(a.cgroups[0].path, b.cgroups[0].path) &&
		      !memcmp(&a.cgroups[0].rule, &b.cgroups[0].rule, sizeof(a.cgroups[0].rule)),
	      "a printed policy reads back with every rule kept");
	free(out);
	policy_free(&a);
	policy_free(&b);
}

/* bpftool can write any u32; policy show must still print a file that parses. */
static void out_of_range_map_values_print_as_a_valid_file(void)
{
	struct policy a, b;
	char err[256] = "", *out = NULL;
	size_t len = 0;
	FILE *f;

	policy_init(&a);
	a.mode = 7;
	a.head_bytes = 5000;
	a.event_rate = 4000000000U;
	a.event_burst = 3000000;
	f = open_memstream(&out, &len);
	policy_print(f, &a);
	fclose(f);
	CHECK(parse(out, &b, err, sizeof(err)) == 0 && b.mode == ARGGUARD_MODE_ENFORCE &&
		      b.head_bytes == ARGGUARD_HEAD_MAX && b.event_rate == POLICY_EVENT_RATE_MAX &&
		      b.event_burst == POLICY_EVENT_BURST_MAX,
	      "out-of-range config values print clamped, as a file that parses (%s)", err);
	CHECK(strstr(out, "# in the map: event_rate = 4000000000, event_burst = 3000000"),
	      "and the raw values are shown in a comment: got \"%s\"", out);
	free(out);
	policy_free(&b);
}

/* The record's name of the limit that a rule's limit l is, or NULL. */
static const char *record_limit_name(enum policy_limit l)
{
	if (l <= POLICY_LIMIT_max_envc)
		return limit_name(ARGGUARD_LIMIT_ARGV_BYTES + l);
	return limit_name(ARGGUARD_LIMIT_AUDIT_ARGV_BYTES +
			  (l - POLICY_LIMIT_audit_max_argv_bytes));
}

/*
 * One row of POLICY_LIMITS per limit: its key is the name a record gives
 * the limit (ARGGUARD_LIMITS, in the same order, the tier's after the
 * kernel's), and its member holds the largest value the key takes.
 */
static void each_limit_is_one_row_named_as_records_name_it(void)
{
	struct argguard_rule r = { 0 };

	for (enum policy_limit l = 0; l < POLICY_NR_LIMITS; l++) {
		CHECK(!strcmp(policy_limits[l].key, record_limit_name(l)),
		      "limit %d is %s in the policy and in the records (%s)", l,
		      policy_limits[l].key, record_limit_name(l));
		policy_limit_set(&r, l, policy_limits[l].max);
		CHECK(policy_limit_get(&r, l) == policy_limits[l].max,
		      "%s holds its largest value, %llu", policy_limits[l].key,
		      (unsigned long long)policy_limits[l].max);
	}
	CHECK(r.max_argv_bytes == UINT64_MAX && r.max_envp_bytes == UINT64_MAX &&
		      r.max_total_bytes == UINT64_MAX && r.max_argc == UINT32_MAX &&
		      r.max_envc == UINT32_MAX && r.audit_max_argv_bytes == UINT64_MAX &&
		      r.audit_max_envp_bytes == UINT64_MAX &&
		      r.audit_max_total_bytes == UINT64_MAX && r.audit_max_argc == UINT32_MAX &&
		      r.audit_max_envc == UINT32_MAX,
	      "and each row sets its own member");
}

static void expect_error(const char *text, const char *want)
{
	struct policy p;
	char err[1024] = "";

	CHECK(parse(text, &p, err, sizeof(err)) == -EINVAL && strstr(err, want),
	      "rejected with \"%s\": got \"%s\"", want, err);
	CHECK(p.n_uids == 0 && p.n_cgroups == 0 && p.mode == ARGGUARD_MODE_OFF,
	      "a rejected file leaves an empty policy");
}

static void errors_name_file_line_and_what_was_expected(void)
{
	expect_error("[global]\nmode = on\n",
		     "test.conf:2: mode = on: expected off, audit or enforce");
	expect_error("[global]\n\nmax_total_bytes = 1X\n",
		     "test.conf:3: max_total_bytes = 1X: expected a byte count");
	expect_error("[global]\nmax_total_bytes = -1\n", "test.conf:2:");
	expect_error("[global]\nmax_argc = 5G\n", "test.conf:2: max_argc = 5G: expected a count");
	expect_error("[global]\nargv_head_bytes = 2K\n",
		     "test.conf:2: argv_head_bytes = 2K: expected a byte count from 0 to 1024");
	expect_error("[global]\nevent_rate = 1K\n",
		     "test.conf:2: event_rate = 1K: expected a count");
	expect_error("[global]\nbogus = 1\n", "test.conf:2: unknown key 'bogus' in [global]");
	expect_error("[uid 1000]\nmode = audit\n", "test.conf:2: unknown key 'mode' in [uid 1000]");
	expect_error("[global]\naction = drop\n", "test.conf:2: action = drop: expected allow");
	expect_error("[global]\nerrno = ENOENT\n", "test.conf:2: errno = ENOENT: expected E2BIG");
	expect_error("[group 5]\naction = deny\n", "test.conf:1: unknown section [group 5]");
	expect_error("[uid abc]\naction = deny\n",
		     "test.conf:1: [uid abc]: expected a numeric uid");
	expect_error("[uid 5]\naction = deny\n[uid 5]\naction = allow\n",
		     "test.conf:3: a second rule for uid 5");
	expect_error("[cgroup ci]\naction = deny\n",
		     "test.conf:1: cgroup path 'ci' must start with '/'");
	expect_error("[uid 5]\n[global]\nmode = off\n", "test.conf:1: section [uid 5] has no keys");
	expect_error("[global]\nmode = off\n[setuid]\n",
		     "test.conf:3: section [setuid] has no keys");
	expect_error("mode = off\n", "test.conf:1: 'mode' outside any section");
	expect_error("[global]\nthis line has no equals sign\n",
		     "test.conf:2: expected '[section]'");
}

/* "[global]\nmode = enforce\n" and then text: a file that needs nothing else. */
#define ENFORCE "[global]\nmode = enforce\n"

static void expect_valid(const char *text, const char *what)
{
	struct policy p;
	char err[256] = "";

	CHECK(parse(text, &p, err, sizeof(err)) == 0, "%s parses (%s)", what, err);
	policy_free(&p);
}

/* A comment of exactly len bytes whose tail reads as a directive. */
static char *long_comment(size_t len)
{
	static const char tail[] = " max_total_bytes = 1G";
	char *line = malloc(len + 1);

	memset(line, 'x', len);
	line[0] = '#';
	memcpy(line + len - strlen(tail), tail, strlen(tail));
	line[len] = '\0';
	return line;
}

static void long_line_is_an_error_not_split(void)
{
	size_t size = 2 * POLICY_LINE_MAX;
	char *text = malloc(size), want[64];
	char *at_limit = long_comment(POLICY_LINE_MAX), *over = long_comment(POLICY_LINE_MAX + 1);
	char *reported = long_comment(POLICY_LINE_MAX + 50);
	struct policy p;
	char err[256] = "";

	snprintf(text, size, ENFORCE "%s\n", at_limit);
	CHECK(parse(text, &p, err, sizeof(err)) == 0 && p.global.max_total_bytes == 0,
	      "a %d-byte comment is a comment, tail and all (%s)", POLICY_LINE_MAX, err);
	policy_free(&p);
	snprintf(text, size, "[global]\r\nmode = enforce\r\n%s\r\n", at_limit);
	expect_valid(text, "a comment at the limit, ended by \\r\\n,");

	snprintf(want, sizeof(want), "test.conf:3: line longer than %d bytes", POLICY_LINE_MAX);
	snprintf(text, size, ENFORCE "%s\n", over);
	expect_error(text, want);
	snprintf(text, size, ENFORCE "%s\n", reported);
	expect_error(text, want);
	snprintf(text, size, ENFORCE "%s", reported);
	expect_error(text, want); /* the last line, with no newline */
	snprintf(text, size, "[global]\n%s\nmode = enforce\n", reported);
	expect_error(text, "test.conf:2: line longer than");

	/* A line at the limit does not throw the count off. */
	snprintf(text, size, ENFORCE "%s\nbogus = 1\n", at_limit);
	expect_error(text, "test.conf:4: unknown key 'bogus'");
	free(at_limit);
	free(over);
	free(reported);
	free(text);
}

/* "/argguard-t-long/xxx.../xxx..." of len bytes: parts of 60 bytes, none empty. */
static void long_cgroup_path(char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len + 1, "/argguard-t-long");

	for (; n < len; n++)
		out[n] = n % 61 == 16 && n + 1 < len ? '/' : 'x';
	out[len] = '\0';
}

/*
 * The maps hold a cgroup path of 254 bytes: policy show prints its rule on
 * a line of 263, which policy check must read back (inih's 197-byte lines
 * could not).
 */
static void longest_cgroup_rule_prints_and_reads_back(void)
{
	struct argguard_rule rule = policy_rule_default();
	char path[256], header[512], text[512], err[512] = "", *out = NULL;
	struct policy a, b;
	size_t len = 0;
	FILE *f;

	long_cgroup_path(path, 254);
	CHECK(strlen(path) == 254 && !cgroup_path_canonical(path, text, 255) && !strcmp(text, path),
	      "a canonical cgroup path of 254 bytes: %s", path);
	CHECK(cgroup_path_canonical(path, text, 254) == -ENAMETOOLONG,
	      "in 254 bytes it does not fit: -ENAMETOOLONG");
	CHECK(cgroup_path_canonical("/a/../..", text, 255) == -EINVAL &&
		      cgroup_path_canonical("a", text, 255) == -EINVAL,
	      "above the root, or not from it: -EINVAL");
	policy_init(&a);
	a.mode = ARGGUARD_MODE_ENFORCE;
	rule.max_total_bytes = 64 << 10;
	CHECK(policy_add_cgroup(&a, path, &rule, 0) != NULL, "a rule for it");
	f = open_memstream(&out, &len);
	policy_print(f, &a);
	fclose(f);
	snprintf(header, sizeof(header), "\n[cgroup %s]\n", path);
	CHECK(strstr(out, header), "policy_print() writes its header, %zu bytes, on a line",
	      strlen(header) - 2);
	CHECK(parse(out, &b, err, sizeof(err)) == 0 && b.n_cgroups == 1 &&
		      !strcmp(b.cgroups[0].path, path) &&
		      b.cgroups[0].rule.max_total_bytes == 64 << 10,
	      "and policy_parse() reads it back, path and rule whole (%s)", err);
	free(out);
	policy_free(&a);
	policy_free(&b);

	long_cgroup_path(path, 255);
	snprintf(text, sizeof(text), ENFORCE "[cgroup %s]\naction = deny\n", path);
	snprintf(header, sizeof(header), "test.conf:3: cgroup path '%s' is longer than 254 bytes",
		 path);
	expect_error(text, header);
}

static void nul_byte_is_an_error(void)
{
	static const char text[] = ENFORCE "max_argc = 5\0 junk\n";
	struct policy p;
	char err[256] = "";

	CHECK(parse_n(text, sizeof(text) - 1, &p, err, sizeof(err)) == -EINVAL &&
		      strstr(err, "test.conf:3: a NUL byte"),
	      "a NUL byte is an error naming its line: got \"%s\"", err);
}

static void section_given_twice_is_an_error(void)
{
	expect_error(ENFORCE "[global]\nmax_argc = 9\n",
		     "test.conf:3: a second [global] section (the first is at line 1)");
	expect_error(ENFORCE "[setuid]\naction = deny\n[setuid]\naction = deny\n",
		     "test.conf:5: a second [setuid] section (the first is at line 3)");
	expect_error(ENFORCE "[uid 1000]\naction = deny\n\n[uid 1000]\naction = allow\n",
		     "test.conf:6: a second rule for uid 1000 (the first is at line 3)");
	expect_error(ENFORCE "[uid 1000]\naction = deny\n[uid 01000]\naction = allow\n",
		     "test.conf:5: a second rule for uid 1000 (the first is at line 3)");
	expect_error(ENFORCE "[uid 0]\naction = deny\n[user root]\naction = allow\n",
		     "test.conf:5: a second rule for uid 0 (the first is at line 3)");
	expect_error(ENFORCE "[cgroup /ci]\naction = deny\n[cgroup /ci]\naction = allow\n",
		     "test.conf:5: a second rule for cgroup /ci (the first is at line 3)");
	expect_error(ENFORCE "[cgroup /ci]\naction = deny\n[cgroup //ci/]\naction = allow\n",
		     "test.conf:5: a second rule for cgroup /ci (the first is at line 3)");
	expect_error(ENFORCE "[cgroup /ci]\naction = deny\n[cgroup /ci/build/..]\naction = allow\n",
		     "test.conf:5: a second rule for cgroup /ci (the first is at line 3)");
}

static void key_given_twice_is_an_error(void)
{
	expect_error(ENFORCE "max_argc = 9\nmode = off\n",
		     "test.conf:4: a second 'mode' in [global] (the first is at line 2)");
	expect_error(ENFORCE "[uid 5]\nmax_argc = 9\nmax_argc = 10\n",
		     "test.conf:5: a second 'max_argc' in [uid 5] (the first is at line 4)");
	/* INI readers read an indented line after a key as more of that key's value. */
	expect_error(ENFORCE "  audit\n", "test.conf:3: an indented line would continue");
	expect_error(ENFORCE "max_argc = 9\n  [setuid]\n",
		     "test.conf:4: an indented line would continue");
	expect_valid("[global]\n  mode = enforce\n", "an indented first key of a section");
	expect_valid(ENFORCE "  ; an indented comment\n", "an indented comment");
}

static void nothing_may_follow_a_section_header(void)
{
	expect_error("[global] max_total_bytes = 1G\nmode = enforce\n",
		     "test.conf:1: text after the section header: 'max_total_bytes = 1G'");
	expect_valid("[global]  ; the defaults\nmode = enforce\n", "a comment after a header");
	expect_valid("\xef\xbb\xbf[global]\nmode = enforce\n", "a file with a byte order mark");
}

static void cgroup_paths_are_read_in_one_spelling(void)
{
	struct policy p;
	char err[256] = "";

	CHECK(parse(ENFORCE "[cgroup //ci/./build/]\naction = deny\n", &p, err, sizeof(err)) == 0 &&
		      p.n_cgroups == 1 && !strcmp(p.cgroups[0].path, "/ci/build"),
	      "[cgroup //ci/./build/] is /ci/build (%s)", err);
	policy_free(&p);
	expect_error(ENFORCE "[cgroup /..]\naction = deny\n",
		     "test.conf:3: cgroup path '/..' leads above the cgroup root");
	CHECK(parse(ENFORCE "[cgroup /not/made/yet]\naction = deny\n", &p, err, sizeof(err)) == 0 &&
		      p.n_cgroups == 1 && !strcmp(p.cgroups[0].path, "/not/made/yet"),
	      "a rule may name a cgroup not made yet (%s)", err);
	policy_free(&p);
}

/*
 * inih kept 49 bytes of a section's name: [cgroup /PATH] with a longer
 * PATH was read as the rule of a cgroup that the file never named.
 */
static void long_section_name_is_kept_whole(void)
{
	const char *path = "/system.slice/some-long-named-service.service/session-3.scope";
	char text[512];
	struct policy p;
	char err[256] = "";

	snprintf(text, sizeof(text), ENFORCE "[cgroup %s]\naction = deny\n", path);
	CHECK(parse(text, &p, err, sizeof(err)) == 0 && p.n_cgroups == 1 &&
		      !strcmp(p.cgroups[0].path, path),
	      "[cgroup %s] (%zu bytes) is its rule, path whole: got %s (%s)", path, strlen(path),
	      p.n_cgroups ? p.cgroups[0].path : "none", err);
	policy_free(&p);
	expect_error(ENFORCE
		     "[cgroup /ci]\naction = deny\n[cgroup /ci/a-sixty-byte-name-"
		     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx/]\nmax_argc = 9\n[cgroup /ci/a-sixty-"
		     "byte-name-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx]\naction = allow\n",
		     "test.conf:7: a second rule for cgroup /ci/a-sixty-byte-name-"
		     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx (the first is at line 5)");
}

static void missing_mode_is_an_error_not_off(void)
{
	expect_error("[global]\nmax_total_bytes = 1M\n",
		     "test.conf:1: [global] has no 'mode': add 'mode = enforce', 'audit' or 'off'");
	expect_error("# nothing yet\n[uid 5]\nmax_argc = 9\n[global]\nmax_argc = 9\n",
		     "test.conf:4: [global] has no 'mode'");
	expect_error("[uid 5]\nmax_argc = 9\n", "test.conf:1: no [global] section: start the "
						"file with [global] and 'mode = enforce'");
	expect_error("", "test.conf:1: no [global] section");
	expect_valid("[global]\nmode = off\n", "mode = off, said outright,");
}

/* One key's value at its bound passes; one past it fails, naming the range. */
static void bound(const char *section, const char *key, const char *inside, const char *outside,
		  const char *range)
{
	char text[256], want[256], what[128];

	snprintf(text, sizeof(text), ENFORCE "%s%s = %s\n", section, key, inside);
	snprintf(what, sizeof(what), "%s = %s in %s", key, inside,
		 section[0] ? "a uid rule" : "[global]");
	expect_valid(text, what);
	snprintf(text, sizeof(text), ENFORCE "%s%s = %s\n", section, key, outside);
	snprintf(want, sizeof(want), "test.conf:%d: %s = %s: %s", section[0] ? 4 : 3, key, outside,
		 range);
	expect_error(text, want);
}

static void every_number_has_a_range(void)
{
	const char *sections[] = { "", "[uid 5]\n" };

	bound("", "argv_head_bytes", "1024", "1025", "expected a byte count from 0 to 1024");
	bound("", "argv_head_bytes", "1K", "2K", "expected a byte count from 0 to 1024");
	/* 1e9 a second would make the BPF side's token interval 0 ns. */
	bound("", "event_rate", "1000000", "1000001",
	      "expected a count from 0 to 1000000 records a second");
	bound("", "event_burst", "1000000", "1000001", "expected a count from 0 to 1000000");
	bound("", "event_rate", "0", "-1", "expected a count from 0 to 1000000");
	bound("", "allow_lockout", "yes", "true", "expected yes or no");
	for (size_t i = 0; i < 2; i++) {
		const char *s = sections[i];

		bound(s, "max_argc", "4294967295", "4294967296",
		      "expected a count from 0 (no limit) to 4294967295");
		bound(s, "max_envc", "4194303K", "4194304K",
		      "expected a count from 0 (no limit) to 4294967295");
		bound(s, "max_argv_bytes", "18446744073709551615", "18446744073709551616",
		      "expected a byte count such as 4096, 256K or 4M, from 0 (no limit) to "
		      "18446744073709551615");
		bound(s, "max_envp_bytes", "17179869183G", "17179869184G", "expected a byte count");
		bound(s, "max_total_bytes", "0", "-0", "expected a byte count");
		bound(s, "errno", "ENOMEM", "ENOENT", "expected E2BIG, EPERM, EACCES or ENOMEM");
		bound(s, "action", "allow", "log", "expected allow, audit or deny");
	}
	expect_valid(ENFORCE "[uid 4294967294]\naction = deny\n", "the highest uid");
	expect_error(ENFORCE "[uid 4294967295]\naction = deny\n",
		     "test.conf:3: [uid 4294967295]: expected a numeric uid from 0 to 4294967294");
}

/*
 * The admins the gate is told of, as policy_admins_lookup() would find
 * them on a machine where alice is in sudo and bob in ops, and uid 1000 in
 * neither.
 */
static struct policy_admin test_admin_list[] = {
	{ .uid = 1001, .user = "alice", .group = "sudo" },
	{ .uid = 1002, .user = "bob", .group = "ops" },
};
static const struct policy_admins test_admins = { .list = test_admin_list, .n = 2 };

/*
 * Parse text and run it past the lockout gate, with the session scopes in
 * cgroup_root (NULL: none); msg gets the gate's words, as it logs them.
 */
static int gate_in(const char *text, const char *cgroup_root, bool force, char *msg, size_t msg_len)
{
	struct log_capture c;
	struct policy p;
	char err[256] = "";
	int ret;

	msg[0] = '\0';
	if (parse(text, &p, err, sizeof(err))) {
		snprintf(msg, msg_len, "parse error: %s", err);
		return -EINVAL;
	}
	log_capture_start(&c, LOG_WARNING, msg, msg_len, true);
	ret = policy_lockout_gate(&p, &test_admins, cgroup_root, "test.conf", force);
	log_capture_stop(&c);
	policy_free(&p);
	return ret;
}

static int gate(const char *text, bool force, char *msg, size_t msg_len)
{
	return gate_in(text, NULL, force, msg, msg_len);
}

static void expect_lockout(const char *text, const char *want)
{
	char msg[POLICY_LOCKOUT_MSG];

	CHECK(gate(text, false, msg, sizeof(msg)) == -EPERM && strstr(msg, want) &&
		      strstr(msg, "--force"),
	      "refused as a lockout, naming \"%s\" and --force: got \"%s\"", want, msg);
}

static void expect_no_lockout(const char *text, const char *what)
{
	char msg[POLICY_LOCKOUT_MSG];

	CHECK(gate(text, false, msg, sizeof(msg)) == 0, "%s is no lockout: got \"%s\"", what, msg);
}

static void policy_that_locks_admins_out_is_refused(void)
{
	expect_lockout(ENFORCE "max_argc = 3\n",
		       "test.conf:1: [global] max_argc = 3 with action deny in enforce mode would "
		       "lock admins out: for root's shell and sudo it must be 0 (no limit) or at "
		       "least 64");
	expect_lockout(ENFORCE "max_argc = 63\n", "[global] max_argc = 63");
	expect_no_lockout(ENFORCE "max_argc = 64\n", "max_argc = 64");
	expect_lockout(ENFORCE "max_envc = 63\n", "[global] max_envc = 63");
	expect_no_lockout(ENFORCE "max_envc = 64\n", "max_envc = 64");
	expect_lockout(ENFORCE "max_total_bytes = 32767\n",
		       "[global] max_total_bytes = 32767 with action deny in enforce mode would "
		       "lock admins out: for root's shell and sudo it must be 0 (no limit) or at "
		       "least 32K");
	expect_no_lockout(ENFORCE "max_total_bytes = 32K\n", "max_total_bytes = 32K");
	expect_lockout(ENFORCE "max_argv_bytes = 4K\n", "[global] max_argv_bytes = 4096");
	expect_lockout(ENFORCE "max_envp_bytes = 1\n", "[global] max_envp_bytes = 1");
	expect_no_lockout(ENFORCE "max_total_bytes = 0\nmax_argc = 0\n", "0 (no limit)");

	expect_lockout(ENFORCE "max_total_bytes = 1M\n\n[setuid]\nmax_total_bytes = 4K\n",
		       "test.conf:5: [setuid] max_total_bytes = 4096");
	expect_lockout(ENFORCE "[user root]\nmax_argc = 3\n", "test.conf:3: [uid 0] max_argc = 3");
	expect_lockout(ENFORCE "[cgroup /]\nmax_argc = 3\n", "test.conf:3: [cgroup /] max_argc");
	expect_lockout(ENFORCE "[cgroup /system.slice]\nmax_argc = 3\n", "[cgroup /system.slice]");
	expect_lockout(ENFORCE "[cgroup //system.slice/]\nmax_argc = 3\n",
		       "[cgroup /system.slice]");
	expect_lockout(ENFORCE "[cgroup /init.scope]\nmax_argc = 3\n", "[cgroup /init.scope]");
	expect_lockout(ENFORCE "[cgroup /user.slice/user-0.slice]\nmax_argc = 3\n",
		       "[cgroup /user.slice/user-0.slice]");
	expect_lockout(ENFORCE "[cgroup /system.slice/ssh.service]\nmax_argc = 3\n",
		       "[cgroup /system.slice/ssh.service]");
	expect_no_lockout(ENFORCE "[uid 1000]\nmax_argc = 3\n", "a tight [uid 1000]");
	expect_no_lockout(ENFORCE "[cgroup /system.slice/ci.service]\nmax_argc = 3\n",
			  "a tight service's cgroup");
	/* A pattern that matches where admins work is as tight for them as a path. */
	expect_lockout(ENFORCE "[cgroup /user.slice/*/session-*.scope]\nmax_argc = 3\n",
		       "[cgroup /user.slice/*/session-*.scope]");
	expect_lockout(ENFORCE "[cgroup /system.slice/*]\nmax_argc = 3\n",
		       "[cgroup /system.slice/*]");
	expect_lockout(ENFORCE "[cgroup /*]\nmax_argc = 3\n", "[cgroup /*]");
	expect_no_lockout(ENFORCE "[cgroup /system.slice/docker-*.scope]\nmax_argc = 3\n",
			  "a tight pattern for docker's scopes");
}

static void nothing_denied_is_no_lockout(void)
{
	expect_no_lockout("[global]\nmode = audit\nmax_argc = 3\n", "audit mode");
	expect_no_lockout("[global]\nmode = off\nmax_argc = 3\n", "off mode");
	expect_no_lockout(ENFORCE "max_argc = 3\naction = audit\n", "action audit");
	expect_no_lockout(ENFORCE "max_argc = 3\naction = allow\n", "action allow");
}

/* The would-deny tier denies nothing: however tight, it locks no one out. */
static void tight_would_deny_tier_is_no_lockout(void)
{
	expect_no_lockout(ENFORCE "audit_max_argc = 1\naudit_max_total_bytes = 1\n",
			  "a tight tier in [global]");
	expect_no_lockout("[global]\nmode = enforce\n[setuid]\naudit_max_total_bytes = 4K\n",
			  "a tight tier in [setuid]");
}

/* The shipped file: 2M denied, 1M and setuid's 256K logged as would-deny. */
static void shipped_tier_parses(void)
{
	const char *text = "[global]\n"
			   "mode = enforce\n"
			   "max_total_bytes = 2M\n"
			   "audit_max_total_bytes = 1M\n"
			   "[setuid]\n"
			   "audit_max_total_bytes = 256K\n";
	struct policy p;
	char err[256] = "";

	CHECK(parse(text, &p, err, sizeof(err)) == 0, "the tier parses (%s)", err);
	CHECK(p.global.max_total_bytes == 2 << 20 && p.global.audit_max_total_bytes == 1 << 20,
	      "global: 2M denied, 1M would-deny");
	CHECK(p.setuid.max_total_bytes == 0 && p.setuid.audit_max_total_bytes == 256 << 10,
	      "setuid: no deny limit of its own, 256K would-deny");
	policy_free(&p);
}

static void force_or_allow_lockout_lets_a_lockout_through(void)
{
	char msg[POLICY_LOCKOUT_MSG];

	CHECK(gate(ENFORCE "max_argc = 3\n", true, msg, sizeof(msg)) == 1 &&
		      strstr(msg, "test.conf:1: [global] max_argc = 3") &&
		      strstr(msg, "accepted, as --force says"),
	      "--force lets it through, still naming the rule: got \"%s\"", msg);
	CHECK(gate(ENFORCE "max_argc = 3\nallow_lockout = yes\n", false, msg, sizeof(msg)) == 1 &&
		      strstr(msg, "accepted, as allow_lockout = yes says"),
	      "the file's allow_lockout = yes lets it through: got \"%s\"", msg);
	CHECK(gate(ENFORCE "max_argc = 3\nallow_lockout = no\n", false, msg, sizeof(msg)) == -EPERM,
	      "allow_lockout = no lets nothing through: got \"%s\"", msg);
	CHECK(strstr(msg, "the daemon never forces") && strstr(msg, "allow_lockout = yes"),
	      "the refusal says how the daemon decides: got \"%s\"", msg);
}

/* Issue 28: admins log in as themselves, and use sudo as themselves. */
static void admins_own_tight_rule_is_a_lockout(void)
{
	char msg[POLICY_LOCKOUT_MSG];

	expect_lockout(
		ENFORCE "\n[uid 1001]\nmax_envc = 1\n",
		"test.conf:4: [uid 1001] max_envc = 1 with action deny in enforce mode would "
		"lock admins out: alice is in group sudo, which administers this machine "
		"(admin_groups): for alice's shell and sudo it must be 0 (no limit) or at "
		"least 64");
	expect_lockout(ENFORCE "[uid 1000]\nmax_argc = 3\n[uid 1002]\nmax_total_bytes = 4K\n",
		       "test.conf:5: [uid 1002] max_total_bytes = 4096 with action deny in enforce "
		       "mode would lock admins out: bob is in group ops");
	expect_no_lockout(ENFORCE "[uid 1001]\nmax_envc = 64\nmax_total_bytes = 32K\n",
			  "an admin's rule at the floors");
	CHECK(gate(ENFORCE "[uid 1001]\nmax_envc = 1\n", true, msg, sizeof(msg)) == 1 &&
		      strstr(msg, "[uid 1001] max_envc = 1") &&
		      strstr(msg, "accepted, as --force says"),
	      "--force lets an admin's tight rule through, naming it: got \"%s\"", msg);
}

static void admins_tight_rule_in_audit_mode_is_no_lockout(void)
{
	expect_no_lockout("[global]\nmode = audit\n[uid 1001]\nmax_envc = 1\n",
			  "an admin's tight rule in audit mode");
	expect_no_lockout(ENFORCE "[uid 1001]\nmax_envc = 1\naction = audit\n",
			  "an admin's tight rule with action = audit");
}

static void tight_rule_for_a_user_who_is_no_admin_is_no_lockout(void)
{
	char msg[POLICY_LOCKOUT_MSG] = "";
	struct policy p;

	expect_no_lockout(ENFORCE "[uid 1000]\nmax_envc = 1\n", "a tight rule for uid 1000");
	expect_no_lockout(ENFORCE "[uid 1003]\nmax_argc = 1\n", "a tight rule for uid 1003");

	/* Whether a uid is an admin is for the lookup to say, not the gate. */
	CHECK(parse(ENFORCE "[uid 1001]\nmax_envc = 1\n", &p, msg, sizeof(msg)) == 0 &&
		      policy_lockout_gate(&p, NULL, NULL, "test.conf", false) == 0,
	      "with no admins looked up, a tight rule for uid 1001 is no lockout: got \"%s\"", msg);
	policy_free(&p);
}

/* Whatever cgroup an admin's session is in, /user.slice covers it. */
static void cgroup_rule_on_an_admins_user_slice_is_a_lockout(void)
{
	expect_lockout(ENFORCE "[cgroup /user.slice/user-1001.slice]\nmax_envc = 1\n",
		       "test.conf:3: [cgroup /user.slice/user-1001.slice] max_envc = 1");
	expect_lockout(ENFORCE "[cgroup /user.slice/user-1001.slice/s3.scope]\nmax_envc = 1\n",
		       "[cgroup /user.slice/user-1001.slice/s3.scope] max_envc = 1");
}

/*
 * Issue 38: a pattern below an admin's slice is judged by the cgroups the
 * admin's sessions run in, not by a few sample paths of other users.
 */
static void cgroup_pattern_in_an_admins_slice_is_a_lockout(void)
{
	const char *issue =
		ENFORCE "[cgroup /user.slice/user-1001.slice/*]\nmax_total_bytes = 1K\n";
	char msg[POLICY_LOCKOUT_MSG];

	expect_lockout(issue, "test.conf:3: [cgroup /user.slice/user-1001.slice/*] "
			      "max_total_bytes = 1024 with action deny in enforce mode would lock "
			      "admins out: alice (uid 1001) is in group sudo, which administers "
			      "this machine (admin_groups): for alice's shell and sudo in "
			      "/user.slice/user-1001.slice/session-1.scope it must be 0");
	CHECK(gate(issue, true, msg, sizeof(msg)) == 1 &&
		      strstr(msg,
			     "[cgroup /user.slice/user-1001.slice/*] max_total_bytes = 1024") &&
		      strstr(msg, "accepted, as --force says"),
	      "--force lets the pattern through, naming it: got \"%s\"", msg);
	expect_lockout(ENFORCE "[cgroup /user.slice/user-1001.slice/session-*.scope]\n"
			       "max_argc = 3\n",
		       "[cgroup /user.slice/user-1001.slice/session-*.scope] max_argc = 3 with "
		       "action deny in enforce mode would lock admins out: alice (uid 1001)");
	expect_lockout(ENFORCE "[cgroup /user.slice/user-1002.slice/user@1002.service/*]\n"
			       "max_argc = 3\n",
		       "bob (uid 1002) is in group ops, which administers this machine "
		       "(admin_groups): for bob's shell and sudo in "
		       "/user.slice/user-1002.slice/user@1002.service/app.slice");
	expect_lockout(ENFORCE "[cgroup /user.slice/user-*.slice/session-c*.scope]\n"
			       "max_argc = 3\n",
		       "for root's (uid 0) shell and sudo in "
		       "/user.slice/user-0.slice/session-c1.scope");
}

static void literal_cgroup_in_an_admins_slice_is_a_lockout(void)
{
	expect_lockout(ENFORCE "[cgroup /user.slice/user-1001.slice]\nmax_total_bytes = 1K\n",
		       "[cgroup /user.slice/user-1001.slice] max_total_bytes = 1024 with action "
		       "deny in enforce mode would lock admins out: alice (uid 1001) is in group "
		       "sudo, which administers this machine (admin_groups): for alice's shell "
		       "and sudo in /user.slice/user-1001.slice");
	expect_lockout(ENFORCE "[cgroup /user.slice/user-1001.slice/session-c1.scope]\n"
			       "max_argc = 3\n",
		       "alice (uid 1001) is in group sudo, which administers this machine "
		       "(admin_groups): for alice's shell and sudo in "
		       "/user.slice/user-1001.slice/session-c1.scope");
}

static void cgroup_pattern_in_the_slice_of_no_admin_is_no_lockout(void)
{
	expect_no_lockout(ENFORCE "[cgroup /user.slice/user-2000.slice/*]\nmax_total_bytes = 1K\n",
			  "a tight pattern below uid 2000's slice");
	expect_no_lockout(ENFORCE "[cgroup /user.slice/user-2000.slice/session-*.scope]\n"
				  "max_argc = 3\n",
			  "a tight pattern for uid 2000's sessions");
	expect_no_lockout(ENFORCE "[cgroup /user.slice/user-1001.slice/*/ci-*.scope]\n"
				  "max_argc = 3\n",
			  "a tight pattern for scopes no admin's session is in");
}

/* A made-up cgroup root: user.slice/user-1001.slice/session-42.scope in a fresh directory. */
static bool make_cgroup_root(char *root, size_t len)
{
	static const char *const dirs[] = { "/user.slice", "/user.slice/user-1001.slice",
					    "/user.slice/user-1001.slice/session-42.scope" };
	char path[4096];

	snprintf(root, len, "/tmp/argguard-gate.XXXXXX");
	if (!mkdtemp(root))
		return false;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		if (mkdir(path, 0755))
			return false;
	}
	return true;
}

static void remove_cgroup_root(const char *root)
{
	static const char *const dirs[] = { "/user.slice/user-1001.slice/session-42.scope",
					    "/user.slice/user-1001.slice", "/user.slice", "" };
	char path[4096];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		rmdir(path);
	}
}

/* The sessions an admin has now count, whatever their number. */
static void cgroup_pattern_for_an_admins_live_session_is_a_lockout(void)
{
	const char *text = ENFORCE "[cgroup /user.slice/user-1001.slice/session-4*.scope]\n"
				   "max_argc = 3\n";
	char root[64], msg[POLICY_LOCKOUT_MSG];

	CHECK(make_cgroup_root(root, sizeof(root)), "a cgroup root of our own");
	CHECK(gate_in(text, root, false, msg, sizeof(msg)) == -EPERM &&
		      strstr(msg, "alice (uid 1001) is in group sudo") &&
		      strstr(msg, "in /user.slice/user-1001.slice/session-42.scope it must be"),
	      "a pattern for alice's session 42, in the cgroup root now, is refused, naming it: "
	      "got \"%s\"",
	      msg);
	CHECK(gate_in(text, NULL, false, msg, sizeof(msg)) == 0,
	      "with no cgroup root read, the same pattern meets no session: got \"%s\"", msg);
	remove_cgroup_root(root);
}

/* A user of this machine other than root, and the group that is its primary one. */
static bool host_user_with_primary_group(uint32_t *uid, char *group, size_t group_len)
{
	struct passwd *pw;
	struct group *gr;
	bool found = false;

	setpwent();
	while (!found && (pw = getpwent())) {
		gr = pw->pw_uid ? getgrgid(pw->pw_gid) : NULL;
		if (gr && strcmp(gr->gr_name, "root")) {
			*uid = pw->pw_uid;
			snprintf(group, group_len, "%s", gr->gr_name);
			found = true;
		}
	}
	endpwent();
	return found;
}

/* Is uid among admins, as a member of group? */
static bool found_admin(const struct policy_admins *admins, uint32_t uid, const char *group)
{
	for (size_t i = 0; i < admins->n; i++)
		if (admins->list[i].uid == uid)
			return !strcmp(admins->list[i].group, group);
	return false;
}

static void lookup_finds_members_by_primary_group(void)
{
	struct policy_admins admins;
	struct policy p;
	char text[512], group[256] = "", err[256] = "";
	uint32_t uid = 0;

	CHECK(host_user_with_primary_group(&uid, group, sizeof(group)),
	      "this machine has a user whose primary group is not root's");
	if (!uid)
		return;
	snprintf(text, sizeof(text),
		 ENFORCE "admin_groups = %s\n[uid %u]\nmax_envc = 1\n[uid 4294967294]\n"
			 "max_envc = 1\n",
		 group, uid);
	CHECK(parse(text, &p, err, sizeof(err)) == 0, "admin_groups = %s parses (%s)", group, err);
	CHECK(policy_admins_lookup(&p, NULL, &admins) == 0 && found_admin(&admins, uid, group) &&
		      !found_admin(&admins, 4294967294, group),
	      "uid %u, whose primary group is %s, is an admin and uid 4294967294 none (found %zu)",
	      uid, group, admins.n);
	policy_admins_free(&admins);
	policy_free(&p);
}

/* Issue 38: an admin by primary group whom only a cgroup rule names, by their slice. */
static void lookup_finds_the_admin_whose_slice_a_cgroup_rule_names(void)
{
	struct policy_admins admins;
	struct policy p;
	char text[512], group[256] = "", err[256] = "";
	uint32_t uid = 0;

	if (!host_user_with_primary_group(&uid, group, sizeof(group)))
		return; /* lookup_finds_members_by_primary_group() says so */
	snprintf(text, sizeof(text),
		 ENFORCE "admin_groups = %s\n[cgroup /user.slice/user-%u.slice/*]\n"
			 "max_total_bytes = 1K\n",
		 group, uid);
	CHECK(parse(text, &p, err, sizeof(err)) == 0, "admin_groups = %s parses (%s)", group, err);
	CHECK(policy_admins_lookup(&p, NULL, &admins) == 0 && found_admin(&admins, uid, group),
	      "uid %u, whose slice the rule names, is an admin by its primary group %s", uid,
	      group);
	policy_admins_free(&admins);
	policy_free(&p);
}

/* Up to n names of groups on this machine, root's first. */
static size_t host_groups(char names[][64], size_t n)
{
	struct group *gr;
	size_t found = 0;

	setgrent();
	while (found < n && (gr = getgrent()))
		if (strlen(gr->gr_name) < 64 && !strchr(gr->gr_name, ' '))
			snprintf(names[found++], 64, "%s", gr->gr_name);
	endgrent();
	return found;
}

static void admin_groups_print_and_read_back(void)
{
	char names[2][64], text[256], want[256], err[256] = "", *out = NULL;
	struct policy a, b;
	size_t len = 0;
	FILE *f;

	CHECK(host_groups(names, 2) == 2, "this machine has two groups");
	snprintf(text, sizeof(text), ENFORCE "admin_groups =%s ,  %s\n", names[0], names[1]);
	CHECK(parse(text, &a, err, sizeof(err)) == 0 && a.n_admin_groups == 2 &&
		      !strcmp(a.admin_groups[0], names[0]) && !strcmp(a.admin_groups[1], names[1]),
	      "admin_groups = %s, %s parses to both, in order (%s)", names[0], names[1], err);
	f = open_memstream(&out, &len);
	policy_print(f, &a);
	fclose(f);
	snprintf(want, sizeof(want), "\nadmin_groups = %s, %s\n", names[0], names[1]);
	CHECK(strstr(out, want), "policy_print() writes \"%s\": got \"%s\"", want + 1, out);
	CHECK(parse(out, &b, err, sizeof(err)) == 0 && b.n_admin_groups == 2 &&
		      !strcmp(b.admin_groups[0], names[0]) && !strcmp(b.admin_groups[1], names[1]),
	      "and it reads back the same (%s)", err);
	free(out);
	policy_free(&a);
	policy_free(&b);

	CHECK(parse(ENFORCE, &a, err, sizeof(err)) == 0 && a.n_admin_groups == 0,
	      "without admin_groups, none are kept: the defaults hold (%s)", err);
	out = NULL;
	f = open_memstream(&out, &len);
	policy_print(f, &a);
	fclose(f);
	CHECK(!strstr(out, "admin_groups"), "and none are printed: got \"%s\"", out);
	free(out);
	policy_free(&a);
}

static void admin_groups_bad_values_are_errors(void)
{
	char *list = malloc(POLICY_LINE_MAX + 1), *text = malloc(2 * POLICY_LINE_MAX), want[256];
	size_t line = 0, printed = strlen("admin_groups = "), count = 0;
	const size_t name_len = strlen("group-000-of-a-list");

	expect_error(ENFORCE "admin_groups =\n",
		     "test.conf:3: admin_groups = : expected group names separated by commas, such "
		     "as sudo, adm");
	expect_error(ENFORCE "admin_groups = root,\n",
		     "test.conf:3: admin_groups = root,: expected group names");
	expect_error(ENFORCE "admin_groups = root, , root\n",
		     "test.conf:3: admin_groups = root, , root: expected group names");
	expect_error(ENFORCE "admin_groups = root, root\n",
		     "test.conf:3: admin_groups = root, root: group root is named twice");
	expect_error(ENFORCE "admin_groups = root\nadmin_groups = root\n",
		     "test.conf:4: a second 'admin_groups' in [global]");
	expect_error(ENFORCE "[uid 5]\nadmin_groups = root\n",
		     "test.conf:4: unknown key 'admin_groups' in [uid 5]");

	/*
	 * Packed as "a,b,c" a list fits a line that "a, b, c" would not. Its
	 * length is checked before any group is looked up.
	 */
	line = (size_t)snprintf(list, POLICY_LINE_MAX + 1, "admin_groups=");
	while (line + 1 + name_len <= POLICY_LINE_MAX) {
		line += (size_t)snprintf(list + line, POLICY_LINE_MAX + 1 - line,
					 "%sgroup-%03zu-of-a-list", count ? "," : "", count);
		printed += (count ? 2 : 0) + name_len;
		count++;
	}
	CHECK(printed > POLICY_LINE_MAX,
	      "%zu groups take more than a line once printed (%zu bytes)", count, printed);
	snprintf(text, 2 * POLICY_LINE_MAX, ENFORCE "%s\n", list);
	snprintf(want, sizeof(want),
		 "test.conf:3: admin_groups: %zu groups take %zu bytes as 'admin_groups = A, B, "
		 "...', more than a line's %d: name fewer groups",
		 count, printed, POLICY_LINE_MAX);
	expect_error(text, want);
	free(list);
	free(text);
}

/*
 * Issue 40: names this host does not know. A [user NAME] is skipped with a
 * warning naming FILE:LINE, its keys still read; unknown_names = error
 * makes it an error, wherever the key is.
 */
static int parse_warned(const char *text, struct policy *p, char *err, size_t err_len)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	struct log_capture c;
	int ret;

	log_capture_start(&c, LOG_WARNING, err, err_len, true);
	ret = policy_parse(in, "test.conf", p);
	log_capture_stop(&c);
	fclose(in);
	return ret;
}

static void unknown_user_is_skipped_with_a_warning(void)
{
	char msg[1024] = "";
	struct policy p;

	CHECK(parse_warned(ENFORCE "[uid 7]\nmax_argc = 100\n\n[user no-such-user-here]\n"
				   "max_argc = 5\n",
			   &p, msg, sizeof(msg)) == 0 &&
		      p.n_uids == 1 && p.uids[0].uid == 7 && p.unknown_names == 1 &&
		      p.unknown_line == 6,
	      "a file naming a user unknown here parses, that rule left out (%zu uid rules, %u "
	      "unknown at line %u)",
	      p.n_uids, p.unknown_names, p.unknown_line);
	CHECK(!strcmp(msg, "test.conf:6: [user no-such-user-here]: no such user on this host; "
			   "rule skipped"),
	      "with a warning naming FILE:LINE: got \"%s\"", msg);
	policy_free(&p);
	expect_error(ENFORCE "[user no-such-user-here]\nmax_argc = lots\n",
		     "test.conf:4: max_argc = lots: expected a count");
	expect_error(
		ENFORCE "[user no-such-user-here]\nmax_argc = 5\nmax_argc = 6\n",
		"test.conf:5: a second 'max_argc' in [user no-such-user-here] (the first is at "
		"line 4)");
	expect_error(ENFORCE "[user no-such-user-here]\n",
		     "test.conf:3: section [user no-such-user-here] has no keys");
	expect_error(ENFORCE "unknown_names = error\n[user no-such-user-here]\nmax_argc = 5\n",
		     "test.conf:4: [user no-such-user-here]: no such user on this host "
		     "(unknown_names = error: say warn to skip it instead)");
	expect_error(ENFORCE "[user no-such-user-here]\nmax_argc = 5\n[global]\n",
		     "test.conf:5: a second [global] section (the first is at line 1)");
	expect_error("[user no-such-user-here]\nmax_argc = 5\n" ENFORCE "unknown_names = error\n",
		     "test.conf:1: [user no-such-user-here]: no such user on this host "
		     "(unknown_names = error");
	expect_error(ENFORCE "unknown_names = skip\n",
		     "test.conf:3: unknown_names = skip: expected warn or error");
	expect_error(ENFORCE "[uid 5]\nunknown_names = warn\n",
		     "test.conf:4: unknown key 'unknown_names' in [uid 5]");
	CHECK(parse_warned(ENFORCE "unknown_names = warn\n[user root]\nmax_argc = 100\n", &p, msg,
			   sizeof(msg)) == 0 &&
		      p.n_uids == 1 && !p.unknown_names && !msg[0],
	      "a user this host knows is no warning, unknown_names = warn or not (\"%s\")", msg);
	policy_free(&p);
}

/*
 * An admin group this host does not know is kept, with a warning; and the
 * gate, not knowing its members, counts each uid a rule names as maybe one.
 */
static void unknown_admin_group_is_kept_and_the_gate_stays_sound(void)
{
	const char *text = ENFORCE "admin_groups = root, no-such-group-here\n"
				   "[uid 4294967290]\nmax_argc = 3\n";
	struct policy_admins admins;
	char msg[POLICY_LOCKOUT_MSG] = "", *out = NULL;
	struct log_capture c;
	struct policy p;
	size_t len = 0;
	FILE *f;
	int ret;

	CHECK(parse_warned(text, &p, msg, sizeof(msg)) == 0 && p.unknown_names == 1 &&
		      p.n_admin_groups == 2 && !strcmp(p.admin_groups[1], "no-such-group-here"),
	      "admin_groups naming a group unknown here parses, the group kept (%u unknown)",
	      p.unknown_names);
	CHECK(strstr(msg, "test.conf:3: admin_groups = root, no-such-group-here: no such group "
			  "no-such-group-here on this host; the lockout gate counts each uid a "
			  "rule names as maybe its member"),
	      "with a warning naming FILE:LINE: got \"%s\"", msg);
	f = open_memstream(&out, &len);
	policy_print(f, &p);
	fclose(f);
	CHECK(strstr(out, "\nadmin_groups = root, no-such-group-here\n"),
	      "and printed, so the last good policy keeps it: got \"%s\"", out);
	free(out);

	CHECK(policy_admins_lookup(&p, NULL, &admins) == 0, "the admins are looked up");
	log_capture_start(&c, LOG_WARNING, msg, sizeof(msg), true);
	ret = policy_lockout_gate(&p, &admins, NULL, "test.conf", false);
	log_capture_stop(&c);
	CHECK(ret == -EPERM &&
		      strstr(msg, "test.conf:4: [uid 4294967290] max_argc = 3 with "
				  "action deny in enforce mode would lock admins out: ") &&
		      strstr(msg, "lock admins out: uid 4294967290 may be in group "
				  "no-such-group-here, which "
				  "administers this machine (admin_groups) and which this host "
				  "does not know now"),
	      "a tight rule for a uid that may be in the unknown group is refused: got \"%s\"",
	      msg);
	policy_admins_free(&admins);
	policy_free(&p);

	/* The same rule with only known groups named: uid 4294967290 is in none. */
	CHECK(parse(ENFORCE "admin_groups = root\n[uid 4294967290]\nmax_argc = 3\n", &p, msg,
		    sizeof(msg)) == 0 &&
		      policy_admins_lookup(&p, NULL, &admins) == 0 &&
		      policy_lockout_gate(&p, &admins, NULL, "test.conf", false) == 0,
	      "with every group known, the same rule is no lockout");
	policy_admins_free(&admins);
	policy_free(&p);

	/* Every group unknown: not the defaults instead, but each uid maybe a member. */
	CHECK(parse(ENFORCE "admin_groups = no-such-group-here\n", &p, msg, sizeof(msg)) == 0 &&
		      p.n_admin_groups == 1,
	      "admin_groups naming only a group unknown here keeps it, not the defaults");
	policy_free(&p);
	expect_error(ENFORCE "unknown_names = error\nadmin_groups = root, no-such-group-here\n",
		     "test.conf:4: admin_groups = root, no-such-group-here: no such group "
		     "no-such-group-here on this host (unknown_names = error");
}

/* Issue 40: PATH.d/NAME.conf, merged after PATH. A scratch directory for them. */
static char conf_dir[64];
static char conf_path[128], frag_dir[128];

static void conf_make(void)
{
	snprintf(conf_dir, sizeof(conf_dir), "/tmp/argguard-conf-d-XXXXXX");
	CHECK(mkdtemp(conf_dir) != NULL, "made %s", conf_dir);
	snprintf(conf_path, sizeof(conf_path), "%s/main.conf", conf_dir);
	snprintf(frag_dir, sizeof(frag_dir), "%s/main.conf.d", conf_dir);
	CHECK(!mkdir(frag_dir, 0755), "made %s", frag_dir);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void conf_remove(void)
{
	chmod(frag_dir, 0755);
	nftw(conf_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Write text to the file at conf_dir/rel, mode 0644. */
static void conf_write(const char *rel, const char *text)
{
	char *path;
	FILE *f;

	if (asprintf(&path, "%s/%s", conf_dir, rel) < 0)
		return;
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(path, 0644);
	free(path);
}

/* policy_parse_file(conf_path) (or one_file); err gets the first message at priority or above. */
static int conf_parse(bool one_file, int priority, struct policy *p, char *err, size_t err_len)
{
	struct log_capture c;
	int ret;

	log_capture_start(&c, priority, err, err_len, true);
	ret = one_file ? policy_parse_one_file(conf_path, p) : policy_parse_file(conf_path, p);
	log_capture_stop(&c);
	return ret;
}

/* The merged files must fail with ret and want, each "DIR" in want conf_dir. */
static void conf_expect_error(int want_ret, const char *want)
{
	char err[2048] = "", full[1024];
	struct policy p;
	int ret = conf_parse(false, LOG_ERR, &p, err, sizeof(err));
	size_t n = 0;

	for (const char *c = want; *c && n + sizeof(conf_dir) < sizeof(full); c++) {
		if (strncmp(c, "DIR", 3)) {
			full[n++] = *c;
			continue;
		}
		n += (size_t)snprintf(full + n, sizeof(full) - n, "%s", conf_dir);
		c += 2;
	}
	full[n] = '\0';
	CHECK(ret == want_ret && strstr(err, full) && p.n_uids == 0 && !p.n_parts,
	      "refused (%d) with \"%s\": got %d, \"%s\"", want_ret, full, ret, err);
}

static void fragments_merge_after_the_file_in_lexical_order(void)
{
	char err[1024] = "", *merged = NULL, *again = NULL;
	struct policy p, q;
	size_t len = 0;
	FILE *f;

	conf_make();
	conf_write("main.conf", "[global]\nmode = enforce\nmax_total_bytes = 1M\n");
	CHECK(conf_parse(false, LOG_ERR, &p, err, sizeof(err)) == 0 && p.n_parts == 1,
	      "an empty fragment directory adds nothing (%s)", err);
	policy_free(&p);

	conf_write("main.conf.d/20-b.conf", "[uid 1002]\nmax_argc = 100\n");
	conf_write("main.conf.d/10-a.conf", "; site tier\n[global]\nmax_argc = 1000\n\n"
					    "[uid 1001]\nmax_argc = 200\n");
	conf_write("main.conf.d/a.conf", "[uid 1004]\nmax_argc = 400\n");
	conf_write("main.conf.d/Z.conf", "[uid 1003]\nmax_argc = 300\n");
	conf_write("main.conf.d/README", "not a policy\n");
	conf_write("main.conf.d/.hidden.conf", "not a policy\n");
	conf_write("main.conf.d/30-c.conf.dpkg-old", "not a policy\n");
	conf_write("main.conf.d/40-empty.conf", "");
	CHECK(conf_parse(false, LOG_ERR, &p, err, sizeof(err)) == 0, "the fragments parse (%s)",
	      err);
	CHECK(p.global.max_total_bytes == 1 << 20 && p.global.max_argc == 1000,
	      "[global] of the file and of a fragment make one rule");
	CHECK(p.n_uids == 4 && p.uids[0].uid == 1001 && p.uids[1].uid == 1002 &&
		      p.uids[2].uid == 1003 && p.uids[3].uid == 1004,
	      "read in strcmp() order (10-a, 20-b, Z, a: the C locale's, not a language's), "
	      "and only the *.conf not hidden");
	CHECK(p.n_parts == 6 && strstr(p.parts[1].name, "/main.conf.d/10-a.conf") &&
		      strstr(p.parts[3].name, "/main.conf.d/40-empty.conf"),
	      "each file read is a part of the policy (%zu)", p.n_parts);

	/* The last good policy: the merged one printed, read back alone, the same. */
	f = open_memstream(&merged, &len);
	policy_print(f, &p);
	fclose(f);
	conf_write("main.conf", merged);
	CHECK(conf_parse(true, LOG_ERR, &q, err, sizeof(err)) == 0 && q.n_uids == 4 &&
		      q.n_parts == 1,
	      "the merged policy printed reads back alone, no fragment added (%s)", err);
	f = open_memstream(&again, &len);
	policy_print(f, &q);
	fclose(f);
	CHECK(!strcmp(merged, again), "and prints the same: \"%s\" then \"%s\"", merged, again);
	free(merged);
	free(again);
	policy_free(&p);
	policy_free(&q);
	conf_remove();

	conf_make();
	rmdir(frag_dir);
	conf_write("main.conf", "[global]\nmode = audit\n");
	CHECK(conf_parse(false, LOG_ERR, &p, err, sizeof(err)) == 0 &&
		      p.mode == ARGGUARD_MODE_AUDIT,
	      "no fragment directory: the file alone (%s)", err);
	policy_free(&p);
	conf_remove();
}

static void a_second_key_or_rule_in_a_fragment_names_both_places(void)
{
	conf_make();
	conf_write("main.conf", "[global]\nmode = enforce\nmax_total_bytes = 1M\n\n[uid 5]\n"
				"max_argc = 10\n[cgroup /ci]\nmax_argc = 10\n");
	conf_write("main.conf.d/10-x.conf", "\n[global]\nmax_total_bytes = 2M\n");
	conf_expect_error(-EINVAL, "DIR/main.conf.d/10-x.conf:3: a second 'max_total_bytes' in "
				   "[global] (the first is at DIR/main.conf:3)");
	conf_write("main.conf.d/10-x.conf", "[global]\nmode = audit\n");
	conf_expect_error(-EINVAL, "DIR/main.conf.d/10-x.conf:2: a second 'mode' in [global] (the "
				   "first is at DIR/main.conf:2)");
	conf_write("main.conf.d/10-x.conf", "[uid 5]\nmax_argc = 20\n");
	conf_expect_error(-EINVAL, "DIR/main.conf.d/10-x.conf:1: a second rule for uid 5 (the "
				   "first is at DIR/main.conf:5)");
	conf_write("main.conf.d/10-x.conf", "[cgroup //ci/]\nmax_argc = 20\n");
	conf_expect_error(-EINVAL, "DIR/main.conf.d/10-x.conf:1: a second rule for cgroup /ci (the "
				   "first is at DIR/main.conf:7)");
	conf_write("main.conf.d/10-x.conf", "[global]\nmax_argc = 20\n[global]\n");
	conf_expect_error(-EINVAL, "DIR/main.conf.d/10-x.conf:3: a second [global] section (the "
				   "first is at line 1)");
	conf_write("main.conf.d/10-x.conf", "[cgroup /a/*]\nmax_argc = 20\n");
	conf_write("main.conf.d/20-y.conf", "\n[cgroup /*/a]\nmax_argc = 20\n");
	conf_expect_error(-EINVAL, "DIR/main.conf.d/20-y.conf:2: [cgroup /*/a] and [cgroup /a/*] "
				   "(DIR/main.conf.d/10-x.conf:1) can match the same cgroup");
	unlink(strcat(strcpy((char[256]){ 0 }, frag_dir), "/20-y.conf"));
	conf_write("main.conf.d/10-x.conf", "[setuid]\nmax_argc = 20\n[uid 6]\nmax_argc = x\n");
	conf_expect_error(-EINVAL, "DIR/main.conf.d/10-x.conf:4: max_argc = x: expected a count");
	conf_remove();
}

static void a_section_ends_with_its_file(void)
{
	conf_make();
	conf_write("main.conf", "[global]\nmode = enforce\n[uid 5]\nmax_argc = 10\n");
	conf_write("main.conf.d/10-x.conf", "max_argc = 20\n");
	conf_expect_error(-EINVAL, "DIR/main.conf.d/10-x.conf:1: 'max_argc' outside any section: "
				   "start the file with a section");
	conf_write("main.conf", "[global]\nmode = enforce\n[uid 5]\n");
	conf_write("main.conf.d/10-x.conf", "max_argc = 20\n");
	conf_expect_error(-EINVAL, "DIR/main.conf:3: section [uid 5] has no keys");
	conf_write("main.conf", "[uid 5]\nmax_argc = 10\n");
	conf_write("main.conf.d/10-x.conf", "[global]\nmode = enforce\n");
	{
		char err[256] = "";
		struct policy p;

		CHECK(conf_parse(false, LOG_ERR, &p, err, sizeof(err)) == 0 &&
			      p.mode == ARGGUARD_MODE_ENFORCE,
		      "[global] may come from a fragment alone (%s)", err);
		policy_free(&p);
	}
	conf_write("main.conf", "");
	conf_write("main.conf.d/10-x.conf", "[uid 5]\nmax_argc = 10\n");
	conf_expect_error(-EINVAL, "DIR/main.conf:1: no [global] section");
	conf_remove();
}

/* The lockout gate names the fragment and the line of the [global] that set the limit. */
static void the_gate_names_a_fragments_line(void)
{
	char err[256] = "", msg[POLICY_LOCKOUT_MSG] = "", want[512];
	struct log_capture c;
	struct policy p;

	conf_make();
	conf_write("main.conf", "[global]\nmode = enforce\naction = deny\n");
	conf_write("main.conf.d/10-x.conf", "; tight\n[global]\nmax_argc = 3\n");
	CHECK(conf_parse(false, LOG_ERR, &p, err, sizeof(err)) == 0, "parses (%s)", err);
	log_capture_start(&c, LOG_WARNING, msg, sizeof(msg), true);
	CHECK(policy_lockout_gate(&p, &test_admins, NULL, conf_path, false) == -EPERM,
	      "a lockout in a fragment is refused");
	log_capture_stop(&c);
	snprintf(want, sizeof(want), "%s/main.conf.d/10-x.conf:2: [global] max_argc = 3 with",
		 conf_dir);
	CHECK(!strncmp(msg, want, strlen(want)), "naming \"%s\": got \"%s\"", want, msg);
	policy_free(&p);
	conf_remove();
}

/* Whoever can write a fragment writes the policy: only root (or the caller) may. */
static void a_fragment_others_can_write_is_refused(void)
{
	char target[256], link_path[256], fifo[256];

	conf_make();
	conf_write("main.conf", "[global]\nmode = enforce\n");
	conf_write("main.conf.d/10-x.conf", "[uid 5]\nmax_argc = 10\n");
	snprintf(target, sizeof(target), "%s/10-x.conf", frag_dir);
	chmod(target, 0666);
	conf_expect_error(-EPERM,
			  "refusing DIR/main.conf.d/10-x.conf: mode 0666 lets every account "
			  "write the policy; it must be writable by its owner alone");
	chmod(target, 0664);
	conf_expect_error(-EPERM, "refusing DIR/main.conf.d/10-x.conf: mode 0664 lets its group "
				  "write the policy");
	chmod(target, 0644);
	chmod(frag_dir, 0775);
	conf_expect_error(-EPERM, "refusing DIR/main.conf.d: mode 0775 lets its group write");
	chmod(frag_dir, 0755);

	/* A symbolic link is followed: what it leads to is judged, and read. */
	conf_write("outside.conf", "[uid 6]\nmax_argc = 10\n");
	snprintf(target, sizeof(target), "%s/outside.conf", conf_dir);
	snprintf(link_path, sizeof(link_path), "%s/20-link.conf", frag_dir);
	CHECK(!symlink(target, link_path), "linked %s", link_path);
	{
		char err[256] = "";
		struct policy p;

		CHECK(conf_parse(false, LOG_ERR, &p, err, sizeof(err)) == 0 && p.n_uids == 2 &&
			      p.uids[1].uid == 6,
		      "a fragment that is a symbolic link is read where it leads (%s)", err);
		policy_free(&p);
	}
	chmod(target, 0646);
	conf_expect_error(-EPERM, "refusing DIR/main.conf.d/20-link.conf: mode 0646 lets every "
				  "account write");
	unlink(target);
	conf_expect_error(-ENOENT, "failed to open DIR/main.conf.d/20-link.conf: No such file");
	unlink(link_path);

	snprintf(fifo, sizeof(fifo), "%s/30-fifo.conf", frag_dir);
	CHECK(!mkfifo(fifo, 0600), "made the FIFO %s", fifo);
	conf_expect_error(-EINVAL, "refusing DIR/main.conf.d/30-fifo.conf: not a regular file");
	conf_remove();
}

int main(void)
{
	full_file_parses();
	each_limit_is_one_row_named_as_records_name_it();
	printed_policy_reads_back_the_same();
	out_of_range_map_values_print_as_a_valid_file();
	errors_name_file_line_and_what_was_expected();
	long_line_is_an_error_not_split();
	nul_byte_is_an_error();
	section_given_twice_is_an_error();
	key_given_twice_is_an_error();
	nothing_may_follow_a_section_header();
	cgroup_paths_are_read_in_one_spelling();
	long_section_name_is_kept_whole();
	longest_cgroup_rule_prints_and_reads_back();
	missing_mode_is_an_error_not_off();
	every_number_has_a_range();
	policy_that_locks_admins_out_is_refused();
	nothing_denied_is_no_lockout();
	tight_would_deny_tier_is_no_lockout();
	shipped_tier_parses();
	force_or_allow_lockout_lets_a_lockout_through();
	admins_own_tight_rule_is_a_lockout();
	admins_tight_rule_in_audit_mode_is_no_lockout();
	tight_rule_for_a_user_who_is_no_admin_is_no_lockout();
	cgroup_rule_on_an_admins_user_slice_is_a_lockout();
	cgroup_pattern_in_an_admins_slice_is_a_lockout();
	literal_cgroup_in_an_admins_slice_is_a_lockout();
	cgroup_pattern_in_the_slice_of_no_admin_is_no_lockout();
	cgroup_pattern_for_an_admins_live_session_is_a_lockout();
	lookup_finds_members_by_primary_group();
	lookup_finds_the_admin_whose_slice_a_cgroup_rule_names();
	admin_groups_print_and_read_back();
	admin_groups_bad_values_are_errors();
	unknown_user_is_skipped_with_a_warning();
	unknown_admin_group_is_kept_and_the_gate_stays_sound();
	fragments_merge_after_the_file_in_lexical_order();
	a_second_key_or_rule_in_a_fragment_names_both_places();
	a_section_ends_with_its_file();
	the_gate_names_a_fragments_line();
	a_fragment_others_can_write_is_refused();
	return check_done();
}
