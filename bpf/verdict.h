/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict on one exec under one rule: which limit its sizes cross
 * first (the rule's limits, then its would-deny tier), what the rule's
 * action makes of that, and the errno of a denial. Pure, with no helper
 * and no map: the BPF program (exec.bpf.c) judges with it, and the host
 * test tests/unit/test_verdict.c checks every branch of the very same code.
 * The includer brings the kernel types and the errnos of
 * ARGGUARD_DENY_ERRNOS first: prog.h, with vmlinux.h and its enum of
 * them, or <linux/types.h>, <stdbool.h> and <errno.h>.
 */
#ifndef ARGGUARD_VERDICT_H
#define ARGGUARD_VERDICT_H

#include "argguard.h"

#ifndef __maybe_unused /* the host's build */
#define __maybe_unused __attribute__((__unused__))
#endif

/* What an exec copied, as the program reads it (kernel-patches/ or derived). */
struct exec_sizes {
	__u64 argv_bytes;
	__u64 envp_bytes;
	__u64 total_bytes;
	__s32 argc;
	__s32 envc;
	__s32 orig_argc;
	__u32 flags;
};

/* What the program decided of an exec, and under which rule and limit. */
struct decision {
	__u64 limit;
	__u64 rule_id;
	__u32 verdict;
	__u32 scope;
	__u32 limit_kind;
	__s32 deny_errno;
	__u32 flags; /* ARGGUARD_EV_* that the choice of the rule adds to a record */
};

static __s32 safe_errno(__s32 err)
{
#define ARGGUARD_ERRNO_CASE(name, nr) case name:
	switch (err) {
		ARGGUARD_DENY_ERRNOS(ARGGUARD_ERRNO_CASE)
		return err;
	}
	return E2BIG;
}

/*
 * Which of a rule's five limits, if any, the exec crosses: first is the
 * ARGGUARD_LIMIT_ of the argv one, the others follow in their order.
 */
static __u32 crossed_limit(__u64 argv_bytes, __u64 envp_bytes, __u64 total_bytes, __u64 argc,
			   __u64 envc, __u32 first, const struct exec_sizes *sz, __u64 *limit)
{
	if (argv_bytes && sz->argv_bytes > argv_bytes) {
		*limit = argv_bytes;
		return first;
	}
	if (envp_bytes && sz->envp_bytes > envp_bytes) {
		*limit = envp_bytes;
		return first + 1;
	}
	if (total_bytes && sz->total_bytes > total_bytes) {
		*limit = total_bytes;
		return first + 2;
	}
	if (argc && (__u64)sz->argc > argc) {
		*limit = argc;
		return first + 3;
	}
	if (envc && (__u64)sz->envc > envc) {
		*limit = envc;
		return first + 4;
	}
	return ARGGUARD_LIMIT_NONE;
}

static __u32 verdict_for(__u32 action, bool over)
{
	if (action == ARGGUARD_ACTION_ALLOW || !over)
		return ARGGUARD_VERDICT_ALLOW;
	if (action == ARGGUARD_ACTION_AUDIT)
		return ARGGUARD_VERDICT_AUDIT;
	return ARGGUARD_VERDICT_DENY;
}

/* The rule's limits first; within them, its would-deny tier. */
static __maybe_unused void judge(const struct argguard_rule *rule, const struct exec_sizes *sz,
				 struct decision *d)
{
	d->limit_kind = crossed_limit(rule->max_argv_bytes, rule->max_envp_bytes,
				      rule->max_total_bytes, rule->max_argc, rule->max_envc,
				      ARGGUARD_LIMIT_ARGV_BYTES, sz, &d->limit);
	d->verdict = verdict_for(rule->action, d->limit_kind != ARGGUARD_LIMIT_NONE);
	d->deny_errno = safe_errno(rule->deny_errno);
	if (d->limit_kind != ARGGUARD_LIMIT_NONE || rule->action == ARGGUARD_ACTION_ALLOW)
		return;
	d->limit_kind =
		crossed_limit(rule->audit_max_argv_bytes, rule->audit_max_envp_bytes,
			      rule->audit_max_total_bytes, rule->audit_max_argc,
			      rule->audit_max_envc, ARGGUARD_LIMIT_AUDIT_ARGV_BYTES, sz, &d->limit);
	if (d->limit_kind != ARGGUARD_LIMIT_NONE)
		d->verdict = ARGGUARD_VERDICT_WOULD_DENY;
}

#endif /* ARGGUARD_VERDICT_H */
