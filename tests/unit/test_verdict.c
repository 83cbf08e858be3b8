// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict on one exec under one rule (bpf/verdict.h), the very code the
 * BPF program judges with: which limit is crossed first, at the limit or
 * past it, the would-deny tier beneath the limits, what each action makes
 * of it, and the errno of a denial.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "check.h"
#include "policy.h"
#include "verdict.h"

/* The exec every case judges. */
static const struct exec_sizes sizes = {
	.argv_bytes = 1000,
	.envp_bytes = 2000,
	.total_bytes = 3000,
	.argc = 10,
	.envc = 20,
};

#define DENY .action = ARGGUARD_ACTION_DENY
#define AUDIT .action = ARGGUARD_ACTION_AUDIT
#define ALLOW .action = ARGGUARD_ACTION_ALLOW

/* Each rule, the limit the exec crosses first under it, and the verdict. */
static const struct {
	const char *what;
	struct argguard_rule rule;
	__u64 limit;
	__u32 kind;
	__u32 verdict;
} cases[] = {
	{ "no limits", { DENY }, 0, ARGGUARD_LIMIT_NONE, ARGGUARD_VERDICT_ALLOW },
	{ "argv bytes past the limit",
	  { DENY, .max_argv_bytes = 999 },
	  999,
	  ARGGUARD_LIMIT_ARGV_BYTES,
	  ARGGUARD_VERDICT_DENY },
	{ "argv bytes at the limit",
	  { DENY, .max_argv_bytes = 1000 },
	  0,
	  ARGGUARD_LIMIT_NONE,
	  ARGGUARD_VERDICT_ALLOW },
	{ "envp bytes past the limit",
	  { DENY, .max_envp_bytes = 1999 },
	  1999,
	  ARGGUARD_LIMIT_ENVP_BYTES,
	  ARGGUARD_VERDICT_DENY },
	{ "envp bytes at the limit",
	  { DENY, .max_envp_bytes = 2000 },
	  0,
	  ARGGUARD_LIMIT_NONE,
	  ARGGUARD_VERDICT_ALLOW },
	{ "total bytes past the limit",
	  { DENY, .max_total_bytes = 2999 },
	  2999,
	  ARGGUARD_LIMIT_TOTAL_BYTES,
	  ARGGUARD_VERDICT_DENY },
	{ "total bytes at the limit",
	  { DENY, .max_total_bytes = 3000 },
	  0,
	  ARGGUARD_LIMIT_NONE,
	  ARGGUARD_VERDICT_ALLOW },
	{ "argc past the limit",
	  { DENY, .max_argc = 9 },
	  9,
	  ARGGUARD_LIMIT_ARGC,
	  ARGGUARD_VERDICT_DENY },
	{ "argc at the limit",
	  { DENY, .max_argc = 10 },
	  0,
	  ARGGUARD_LIMIT_NONE,
	  ARGGUARD_VERDICT_ALLOW },
	{ "envc past the limit",
	  { DENY, .max_envc = 19 },
	  19,
	  ARGGUARD_LIMIT_ENVC,
	  ARGGUARD_VERDICT_DENY },
	{ "envc at the limit",
	  { DENY, .max_envc = 20 },
	  0,
	  ARGGUARD_LIMIT_NONE,
	  ARGGUARD_VERDICT_ALLOW },
	{ "argv is named before envp, total, argc and envc",
	  { DENY, .max_argv_bytes = 1, .max_envp_bytes = 1, .max_total_bytes = 1, .max_argc = 1,
	    .max_envc = 1 },
	  1,
	  ARGGUARD_LIMIT_ARGV_BYTES,
	  ARGGUARD_VERDICT_DENY },
	{ "envp is named before total, argc and envc",
	  { DENY, .max_envp_bytes = 1, .max_total_bytes = 1, .max_argc = 1, .max_envc = 1 },
	  1,
	  ARGGUARD_LIMIT_ENVP_BYTES,
	  ARGGUARD_VERDICT_DENY },
	{ "total is named before argc and envc",
	  { DENY, .max_total_bytes = 1, .max_argc = 1, .max_envc = 1 },
	  1,
	  ARGGUARD_LIMIT_TOTAL_BYTES,
	  ARGGUARD_VERDICT_DENY },
	{ "argc is named before envc",
	  { DENY, .max_argc = 1, .max_envc = 1 },
	  1,
	  ARGGUARD_LIMIT_ARGC,
	  ARGGUARD_VERDICT_DENY },
	{ "an audit rule over its limit audits",
	  { AUDIT, .max_total_bytes = 1 },
	  1,
	  ARGGUARD_LIMIT_TOTAL_BYTES,
	  ARGGUARD_VERDICT_AUDIT },
	{ "an allow rule over its limit allows",
	  { ALLOW, .max_total_bytes = 1 },
	  1,
	  ARGGUARD_LIMIT_TOTAL_BYTES,
	  ARGGUARD_VERDICT_ALLOW },
	{ "an action past the table (a bpftool-written value) denies",
	  { .action = 99, .max_argc = 1 },
	  1,
	  ARGGUARD_LIMIT_ARGC,
	  ARGGUARD_VERDICT_DENY },
	{ "within the limits, past the would-deny tier: would-deny",
	  { DENY, .max_total_bytes = 5000, .audit_max_total_bytes = 2999 },
	  2999,
	  ARGGUARD_LIMIT_AUDIT_TOTAL_BYTES,
	  ARGGUARD_VERDICT_WOULD_DENY },
	{ "an audit rule's would-deny tier: would-deny",
	  { AUDIT, .audit_max_argc = 9 },
	  9,
	  ARGGUARD_LIMIT_AUDIT_ARGC,
	  ARGGUARD_VERDICT_WOULD_DENY },
	{ "at the would-deny tier: allowed",
	  { DENY, .audit_max_argv_bytes = 1000 },
	  0,
	  ARGGUARD_LIMIT_NONE,
	  ARGGUARD_VERDICT_ALLOW },
	{ "the tier names its limits in the same order",
	  { DENY, .audit_max_envp_bytes = 1, .audit_max_envc = 1 },
	  1,
	  ARGGUARD_LIMIT_AUDIT_ENVP_BYTES,
	  ARGGUARD_VERDICT_WOULD_DENY },
	{ "over a limit and the tier: the limit decides",
	  { DENY, .max_envc = 19, .audit_max_argv_bytes = 1 },
	  19,
	  ARGGUARD_LIMIT_ENVC,
	  ARGGUARD_VERDICT_DENY },
	{ "an allow rule has no would-deny tier",
	  { ALLOW, .audit_max_total_bytes = 1 },
	  0,
	  ARGGUARD_LIMIT_NONE,
	  ARGGUARD_VERDICT_ALLOW },
};

static void test_judge(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct decision d = { .limit = 12345 };
		__u64 want = cases[i].kind == ARGGUARD_LIMIT_NONE ? 12345 : cases[i].limit;

		judge(&cases[i].rule, &sizes, &d);
		CHECK(d.limit_kind == cases[i].kind && d.limit == want &&
			      d.verdict == cases[i].verdict,
		      "%s: limit kind %u (want %u), limit %llu (want %llu), verdict %u (want %u)",
		      cases[i].what, d.limit_kind, cases[i].kind, (unsigned long long)d.limit,
		      (unsigned long long)want, d.verdict, cases[i].verdict);
	}
}

static void test_deny_errno(void)
{
	static const int kept[] = { E2BIG, EPERM, EACCES, ENOMEM };

	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		CHECK(safe_errno(kept[i]) == kept[i], "a deny rule may fail an exec with %d",
		      kept[i]);
	CHECK(safe_errno(0) == E2BIG && safe_errno(EINVAL) == E2BIG && safe_errno(-1) == E2BIG,
	      "any other errno (0, EINVAL, -1) denies with E2BIG");
}

/* The next of a fixed sequence (xorshift): the same cases at every run. */
static unsigned int next_random(unsigned int *seed)
{
	*seed ^= *seed << 13;
	*seed ^= *seed >> 17;
	*seed ^= *seed << 5;
	return *seed;
}

/* A small value or none, so that limits and sizes meet often. */
static __u64 some(unsigned int *seed)
{
	return next_random(seed) % 3 ? (__u64)(next_random(seed) % 8) : 0;
}

static struct argguard_rule random_rule(unsigned int *seed)
{
	static const __u32 actions[] = { ARGGUARD_ACTION_ALLOW, ARGGUARD_ACTION_AUDIT,
					 ARGGUARD_ACTION_DENY, 99 };
	struct argguard_rule r = { .action = actions[next_random(seed) % 4] };

	for (enum policy_limit l = 0; l < POLICY_NR_LIMITS; l++)
		policy_limit_set(&r, l, some(seed));
	return r;
}

/*
 * The rule a cgroup the index missed is judged by: no exec is judged more
 * mildly by it than by any rule of the policy. Random policies and execs,
 * judged by the very code the BPF program judges with.
 */
static void test_strictest_rule(void)
{
	unsigned int seed = 38, milder = 0, checked = 0;
	struct argguard_rule strict, rules[4];
	struct decision mine, theirs;
	struct exec_sizes sz;
	struct policy p;

	for (int round = 0; round < 20000; round++) {
		policy_init(&p);
		for (int i = 0; i < 4; i++)
			rules[i] = random_rule(&seed);
		p.global = rules[0];
		p.uids = &(struct uid_rule){ .uid = 1000, .rule = rules[1] };
		p.n_uids = 1;
		p.cgroups = (struct cgroup_rule[]){ { .path = "/a", .rule = rules[2] },
						    { .path = "/b/*", .rule = rules[3] } };
		p.n_cgroups = 2;
		strict = policy_strictest_rule(&p);
		sz = (struct exec_sizes){ .argv_bytes = some(&seed),
					  .envp_bytes = some(&seed),
					  .argc = some(&seed),
					  .envc = some(&seed) };
		sz.total_bytes = sz.argv_bytes + sz.envp_bytes;
		judge(&strict, &sz, &mine);
		for (int i = 0; i < 4; i++) {
			judge(&rules[i], &sz, &theirs);
			checked++;
			milder += mine.verdict < theirs.verdict;
		}
	}
	CHECK(milder == 0,
	      "the strictest rule judges no exec more mildly than a rule of the "
	      "policy: %u of %u judgments milder",
	      milder, checked);
	policy_init(&p);
	p.global = (struct argguard_rule){ .action = ARGGUARD_ACTION_ALLOW };
	strict = policy_strictest_rule(&p);
	sz = (struct exec_sizes){ .total_bytes = 1 << 30 };
	judge(&strict, &sz, &mine);
	CHECK(mine.verdict == ARGGUARD_VERDICT_ALLOW,
	      "a policy that only allows is no stricter when a cgroup is missed: verdict %u",
	      mine.verdict);
}

int main(void)
{
	test_judge();
	test_deny_errno();
	test_strictest_rule();
	return check_done();
}
