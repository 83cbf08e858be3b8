// SPDX-License-Identifier: GPL-2.0
/*
 * The global functions of records.h: the rate limits, and the fields of a
 * judged exec's record. The verifier checks each on its own, once in each
 * program that calls it.
 */
#include "records.h"

/*
 * Take a token from the bucket whose next token is due at *tat: at most one
 * each interval ns, at most burst at once (GCRA).
 */
static bool take_token(__u64 *tat, __u64 interval, __u64 burst)
{
	__u64 now = bpf_ktime_get_ns(), old, due;

	for (int i = 0; i < 4; i++) {
		old = *tat;
		due = old > now ? old : now;
		if (due - now >= burst * interval)
			return false;
		if (__sync_val_compare_and_swap(tat, old, due + interval) == old)
			return true;
	}
	return false;
}

/* A bpftool-written rate over 1e9/s gives an interval of 1 ns: as many as a bucket can give. */
static __u64 interval_of(__u32 rate)
{
	__u64 interval = 1000000000ULL / rate;

	return interval ? interval : 1;
}

/*
 * For root: the container it is in, by the inode number of its user
 * namespace, else of the pid namespace it makes children in, where either
 * is not the initial one; 0 for the host's root. The namespace one level
 * below the initial one: a container's root that makes namespaces inside
 * it (each at most 32 levels deep) gets no bucket of its own for each.
 */
static __u32 root_container(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct user_namespace *userns = task->cred->user_ns;
	struct pid_namespace *pidns = task->nsproxy->pid_ns_for_children;

	if (userns->level) {
		for (int i = 0; i < 32 && userns->level > 1; i++)
			userns = userns->parent;
		return userns->ns.inum;
	}
	for (int i = 0; i < 32 && pidns->level > 1; i++)
		pidns = pidns->parent;
	return pidns->level ? pidns->ns.inum : 0;
}

/*
 * The caller's uid bucket, made on its first record: its namespace user's
 * if it has one, so that a user's subordinate uids share the user's bucket;
 * a container's root has one of its own. NULL if the map fails us.
 */
static struct argguard_uid_bucket *uid_bucket(void)
{
	long user = namespace_user();
	struct argguard_uid_bucket_key key = { .uid = user >= 0
							      ? user
							      : (__u32)bpf_get_current_uid_gid() };
	struct argguard_uid_bucket fresh = {}, *b;

	if (user < 0 && !key.uid)
		key.container = root_container();
	b = bpf_map_lookup_elem(&argguard_uid_buckets, &key);
	if (b)
		return b;
	bpf_map_update_elem(&argguard_uid_buckets, &key, &fresh, BPF_NOEXIST);
	return bpf_map_lookup_elem(&argguard_uid_buckets, &key);
}

/*
 * A token of event_rate_total for b's uid. Half the total is a reserve that
 * a uid draws on only within its share, 1/ARGGUARD_RECORD_SHARE of the
 * total; the other half all uids compete for. Together, never more than
 * the total.
 */
static bool take_total_token(struct argguard_uid_bucket *b, __u32 total)
{
	__u32 key = RECORD_RESERVE, reserve = total / 2, share = total / ARGGUARD_RECORD_SHARE;
	__u64 *tat;

	if (reserve && b && take_token(&b->share_tat, interval_of(share ? share : 1), 1)) {
		tat = bpf_map_lookup_elem(&argguard_record_bucket, &key);
		if (tat && take_token(tat, interval_of(reserve), reserve))
			return true;
	}
	key = RECORD_TOTAL;
	tat = bpf_map_lookup_elem(&argguard_record_bucket, &key);
	return !tat || take_token(tat, interval_of(total - reserve), total - reserve);
}

/*
 * May one more record go out? First the caller's uid bucket (event_rate),
 * then the ones for all (event_rate_total). The decision is always made and
 * counted; only its record is held back, and counted as suppressed, in all
 * and for the uid. A global function, verified once, like fill_record().
 */
__noinline int rate_allows(const struct argguard_settings *settings)
{
	struct argguard_uid_bucket *b = NULL;

	if (!settings)
		return true;
	if (settings->event_rate || settings->event_rate_total)
		b = uid_bucket();
	if (settings->event_rate && b &&
	    !take_token(&b->tat, interval_of(settings->event_rate),
			settings->event_burst ? settings->event_burst : 1))
		goto held;
	if (settings->event_rate_total && !take_total_token(b, settings->event_rate_total))
		goto held;
	return true;
held:
	if (b || (b = uid_bucket()))
		__sync_fetch_and_add(&b->suppressed, 1);
	drop(ARGGUARD_DROP_RATE_LIMITED);
	return false;
}

/*
 * The record of a judged exec, but for what needs its linux_binprm: the
 * filename, the shebang and the argv head. A global function, verified
 * once on its own: inlined, it was verified again for each mix of scope,
 * verdict, limit and errno that can reach it, most of bprm_check's load.
 */
__noinline int fill_record(struct argguard_event *e, const struct exec_sizes *sz,
			   const struct decision *d, __u32 flags)
{
	if (!e || !sz || !d)
		return 0;
	e->ktime_ns = bpf_ktime_get_ns();
	e->argv_bytes = sz->argv_bytes;
	e->envp_bytes = sz->envp_bytes;
	e->total_bytes = sz->total_bytes;
	e->limit = d->limit;
	e->rule_id = d->rule_id;
	e->verdict = d->verdict;
	e->scope = d->scope;
	e->limit_kind = d->limit_kind;
	e->flags = sz->flags | d->flags | flags;
	fill_caller(e);
	e->argc = sz->argc;
	e->envc = sz->envc;
	e->orig_argc = sz->orig_argc;
	e->err = d->verdict == ARGGUARD_VERDICT_DENY ? d->deny_errno : 0;
	return 0;
}
