// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "policy.h"

static int parse(const char *text, struct policy *p, char *err, size_t err_len)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int ret = policy_parse(in, "test.conf", p, err, err_len);

	fclose(in);
	return ret;
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

static void expect_error(const char *text, const char *want)
{
	struct policy p;
	char err[256] = "";

	CHECK(parse(text, &p, err, sizeof(err)) == -1 && strstr(err, want),
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
		     "test.conf:2: argv_head_bytes = 2K: expected a byte count up to 1024");
	expect_error("[global]\nevent_rate = 1K\n",
		     "test.conf:2: event_rate = 1K: expected a count");
	expect_error("[global]\nbogus = 1\n", "test.conf:2: unknown key 'bogus' in [global]");
	expect_error("[uid 1000]\nmode = audit\n", "test.conf:2: unknown key 'mode' in [uid 1000]");
	expect_error("[global]\naction = drop\n", "test.conf:2: action = drop: expected allow");
	expect_error("[global]\nerrno = ENOENT\n", "test.conf:2: errno = ENOENT: expected E2BIG");
	expect_error("[group 5]\naction = deny\n", "test.conf:1: unknown section [group 5]");
	expect_error("[uid abc]\naction = deny\n",
		     "test.conf:1: [uid abc]: expected a numeric uid");
	expect_error("[user no-such-user-here]\naction = deny\n",
		     "test.conf:1: [user no-such-user-here]: no such user");
	expect_error("[uid 5]\naction = deny\n[uid 5]\naction = allow\n",
		     "test.conf:3: a second rule for uid 5");
	expect_error("[cgroup ci]\naction = deny\n", "test.conf:1: cgroup path 'ci': expected '/'");
	expect_error("[cgroup /a/../b]\naction = deny\n", "test.conf:1: cgroup path '/a/../b'");
	expect_error("[cgroup /a//b]\naction = deny\n", "test.conf:1: cgroup path '/a//b'");
	expect_error("[cgroup /a/]\naction = deny\n", "test.conf:1: cgroup path '/a/'");
	expect_error("[cgroup /a]\naction = deny\n[cgroup /a]\naction = allow\n",
		     "test.conf:3: a second rule for cgroup /a");
	expect_error("[uid 5]\n[global]\nmode = off\n", "test.conf:1: section [uid 5] has no keys");
	expect_error("[global]\nmode = off\n[setuid]\n",
		     "test.conf:3: section [setuid] has no keys");
	expect_error("mode = off\n", "test.conf:1: 'mode' outside any section");
	expect_error("[global]\nthis line has no equals sign\n",
		     "test.conf:2: expected '[section]'");
}

int main(void)
{
	full_file_parses();
	printed_policy_reads_back_the_same();
	errors_name_file_line_and_what_was_expected();
	return check_done();
}
