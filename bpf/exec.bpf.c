// SPDX-License-Identifier: GPL-2.0
/*
 * argguard's LSM programs, on the path of every exec: judge the exec by the
 * size of its argument and environment strings against the site policy in
 * pinned maps, count the decision, and report offending execs. The steps,
 * as check_exec() at the end of the file takes them: the scope's rule
 * (scope_rule(): the cgroup's, found by ancestors.h, else the uid's, else
 * the global one), the verdict (verdict.h's judge(), and judge_above() for
 * what a pattern's rule tightens), learn(): the size distributions
 * (learn.h: the exec's, as what ran or what argguard denied), and
 * decide(): the mode, the count and the record (records.h).
 *
 * bprm_check_security judges the scope rule (cgroup, uid, global) and an
 * empty argv. bprm_creds_from_file judges the setuid rule: only there are the
 * new credentials, and so bprm->secureexec, known.
 */
#include "maps.h"
#include "ancestors.h"
#include "learn.h"
#include "records.h"

/* The fields kernel-patches/ adds to linux_binprm; absent on a stock kernel. */
struct linux_binprm___argguard {
	unsigned long argv_bytes;
	unsigned long envp_bytes;
} __attribute__((preserve_access_index));

/*
 * bprm is the hook's own argument, a pointer the verifier knows by its BTF
 * type: its fields are read by plain loads, which cost an instruction each,
 * not a helper call each as BPF_CORE_READ() would.
 */
static void read_sizes(struct linux_binprm *bprm, struct exec_sizes *sz)
{
	struct linux_binprm___argguard *patched = (void *)bprm;

	sz->argc = bprm->argc;
	sz->envc = bprm->envc;
	if (bpf_core_field_exists(patched->argv_bytes)) {
		sz->argv_bytes = patched->argv_bytes;
		sz->envp_bytes = patched->envp_bytes;
		/*
		 * The kernel keeps no orig_argc: every argument string has
		 * at least its NUL, so the caller passed an empty argv if and
		 * only if it copied no argv bytes (argc is then the 1 of the
		 * "" placeholder). Otherwise, on the first pass, the only one
		 * judged, argc is the caller's own.
		 */
		sz->orig_argc = sz->argv_bytes ? sz->argc : 0;
		sz->total_bytes = sz->argv_bytes + sz->envp_bytes;
		sz->flags = ARGGUARD_EV_EXACT_SIZES;
		return;
	}
	/*
	 * Stock kernel: on the first pass, the strings copied since the
	 * filename are exactly argv and envp (plus the one-byte "" that an
	 * empty argv gains). The split is unknown, so argv and envp limits
	 * are judged against the total: never laxer than the exact figure.
	 */
	sz->total_bytes = bprm->exec - bprm->p;
	sz->argv_bytes = sz->total_bytes;
	sz->envp_bytes = sz->total_bytes;
	sz->orig_argc = -1;
	sz->flags = 0;
}

/* The caller's uid rule, its own else its namespace user's; with none, the global rule. */
static const struct argguard_rule *user_rule(__u32 set, struct decision *d)
{
	struct argguard_uid_key uk = { .set = set };
	const struct argguard_rule *rule;
	long user;

	uk.uid = (__u32)bpf_get_current_uid_gid();
	rule = bpf_map_lookup_elem(&argguard_uid_rules, &uk);
	if (!rule && (user = namespace_user()) >= 0) {
		uk.uid = user;
		rule = bpf_map_lookup_elem(&argguard_uid_rules, &uk);
	}
	if (rule) {
		d->scope = ARGGUARD_SCOPE_UID;
		d->rule_id = uk.uid;
		return rule;
	}
	d->scope = ARGGUARD_SCOPE_GLOBAL;
	d->rule_id = 0;
	return bpf_map_lookup_elem(&argguard_global_rules, &uk.set);
}

/*
 * The most specific rule for the caller: nearest cgroup, then uid, then
 * global; and in *walk, the cgroup's ruled ancestors.
 */
static const struct argguard_rule *scope_rule(const struct argguard_config *live,
					      struct decision *d, struct cgroup_walk *walk)
{
	const struct argguard_rule *rule = lookup_cgroup_rule(live, d, walk);

	if (rule) {
		d->scope = ARGGUARD_SCOPE_CGROUP;
		return rule;
	}
	walk->n = 0;
	return user_rule(live->active_set, d);
}

/* Keep in *d the harsher of two decisions; of equals, *d, the nearer rule's. */
static void keep_harsher(struct decision *d, const struct decision *other)
{
	__u32 flags = d->flags;

	if (other->verdict <= d->verdict)
		return;
	*d = *other;
	d->flags |= flags;
}

/*
 * A pattern's rule tightens (ARGGUARD_RULE_TIGHTENS): judge the exec by
 * what is above it too. Each further ruled ancestor of walk; then, if the
 * last of them tightens as well, the uid or global rule; or, past what a
 * walk keeps, the set's unindexed_rule, stricter than any. The harshest
 * verdict stands in *d. A global function, verified once.
 */
__noinline int judge_above(const struct cgroup_walk *walk, __u32 set, const struct exec_sizes *sz,
			   struct decision *d)
{
	const struct argguard_cgroup_index *index;
	const struct argguard_rule *rule;
	struct decision other;

	if (!walk || !sz || !d)
		return 0;
	set &= 1;
	for (__u32 i = 1; i < CGROUP_CHAIN && i < walk->n; i++) {
		rule = rule_of(set, walk->ruled[i]);
		if (!rule)
			continue;
		other = (struct decision){ .scope = ARGGUARD_SCOPE_CGROUP,
					   .rule_id = walk->ruled[i] };
		judge(rule, sz, &other);
		keep_harsher(d, &other);
	}
	other = (struct decision){ .scope = ARGGUARD_SCOPE_CGROUP };
	if (walk->overflow) {
		index = bpf_map_lookup_elem(&argguard_cgroup_index, &set);
		if (!index)
			return 0;
		rule = &index->unindexed_rule;
		other.rule_id = bpf_get_current_cgroup_id();
		other.flags = ARGGUARD_EV_CGROUP_UNINDEXED;
	} else if (walk->open) {
		rule = user_rule(set, &other);
		if (!rule)
			return 0;
	} else {
		return 0;
	}
	judge(rule, sz, &other);
	keep_harsher(d, &other);
	return 0;
}

/*
 * Count an exec in the size distributions of the rule that judged it, on
 * the path every judged exec takes: one per-CPU array lookup by the slot
 * the rule carries, no hash, and its table of the largest; denied
 * (argguard refuses it), in the slot's other entries. Plain adds, not
 * atomic ones: a program preempted in the middle of one (maps.h, bump())
 * can lose one count of a distribution, never a decision. On a stock
 * kernel the split of argv and envp is unknown: only the total and the
 * counts are kept. cgroup_id: the ruled cgroup that judged the exec, for
 * a pattern's rule.
 */
static __always_inline void learn(const struct argguard_rule *rule, const struct exec_sizes *sz,
				  __u64 cgroup_id, bool denied)
{
	__u32 slot = rule->size_slot, at;
	struct argguard_largest *l;
	struct argguard_sizes *h;

	/* 0 is not counted; a slot past the table (bpftool's) neither. */
	if (slot - 1 >= ARGGUARD_SIZE_SLOTS - 1)
		return;
	/* Only a pattern's rule has the flag: no other exec does more than this test. */
	if ((rule->flags & ARGGUARD_RULE_SIZES_BY_CGROUP) && !denied)
		learn_cgroup(cgroup_id, slot, sz);
	at = denied ? slot + ARGGUARD_SIZE_DENIED : slot;
	h = bpf_map_lookup_elem(&argguard_sizes, &at);
	if (!h)
		return;
	tally_exec(h, sz, false);
	l = bpf_map_lookup_elem(&argguard_largest, &at);
	if (l && sz->total_bytes > l->least)
		note_largest(l, sz, slot);
	/* Under every floor suggest keeps: no uid's weight to count. */
	if (sz->total_bytes >= ARGGUARD_SIZES_BY_UID_FROM && !denied)
		learn_by_uid(slot, sz);
}

/*
 * A script's interpreter, as binfmt_script will find it: the kernel has
 * already read the file's first bytes into bprm->buf. Only the first level
 * is known here; an interpreter that is itself a script shows as that script.
 */
static void read_shebang(struct argguard_event *e, struct linux_binprm *bprm)
{
	char magic[2];

	if (bpf_probe_read_kernel(magic, sizeof(magic), bprm->buf) || magic[0] != '#' ||
	    magic[1] != '!')
		return;
	if (bpf_probe_read_kernel(e->shebang, sizeof(e->shebang), bprm->buf + 2))
		return;
	e->flags |= ARGGUARD_EV_SCRIPT;
}

/*
 * kernel-patches/ 0004: the head of argv from the kernel's copy, which the
 * caller can no longer rewrite. Weak: stock kernels lack it, and only the
 * *_kernel_head programs, loaded where it exists, call it.
 */
extern int bpf_bprm_read_argv(struct linux_binprm *bprm, void *dst, __u32 dst__sz) __ksym __weak;

static __always_inline void read_kernel_head(struct argguard_event *e, struct linux_binprm *bprm,
					     __u32 want)
{
	int n;

	if (!want)
		want = ARGGUARD_HEAD_DEFAULT;
	if (want > ARGGUARD_HEAD_MAX)
		want = ARGGUARD_HEAD_MAX;
	n = bpf_bprm_read_argv(bprm, e->head, want);
	if (n < 0) {
		e->flags |= ARGGUARD_EV_HEAD_UNREADABLE;
		return;
	}
	e->head_len = n;
	e->flags |= ARGGUARD_EV_HEAD_KERNEL;
}

/*
 * Where a record's argv head comes from: the kernel's copy (a sleepable
 * program on a kernel with bpf_bprm_read_argv()) or the caller's memory.
 * Always a constant, so that a caller_head program holds no call to the
 * kfunc, which a stock kernel would refuse to load.
 */
enum head_source { CALLER_HEAD, KERNEL_HEAD };

static __always_inline void report(struct linux_binprm *bprm, const struct exec_sizes *sz,
				   const struct decision *d, __u32 flags,
				   const struct argguard_settings *settings, enum head_source head)
{
	struct argguard_event *e;

	if (!rate_allows(settings))
		return;
	e = bpf_ringbuf_reserve(&argguard_events, sizeof(*e), 0);
	if (!e) {
		drop(ARGGUARD_DROP_RING_FULL);
		return;
	}
	fill_record(e, sz, d, flags);
	bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), BPF_CORE_READ(bprm, filename));
	read_shebang(e, bprm);
	e->head_len = 0;
	if (head == KERNEL_HEAD)
		read_kernel_head(e, bprm, settings->head_bytes);
	else
		read_caller_head(e, settings->head_bytes);
	bpf_ringbuf_submit(e, 0);
}

/*
 * What an LSM program returns to deny with err: a constant on each path.
 * 6.12's verifier proves every return is in [-MAX_ERRNO, 0] and cannot
 * follow a negation it did not see done; 6.1 checks nothing and acts on
 * whatever comes back. safe_errno() has already narrowed err to the table.
 */
static __always_inline int deny_return(__s32 err)
{
#define ARGGUARD_ERRNO_DENIED(name, nr) \
	case name:                      \
		return -name;
	switch (err) {
		ARGGUARD_DENY_ERRNOS(ARGGUARD_ERRNO_DENIED)
	}
	return -E2BIG;
}

/*
 * Apply the mode, count, report: the common end of both hooks. Inlined: on
 * 6.1, an errno that a BPF subprogram computed and the hook returned let the
 * exec through, while the same value computed in the program itself denies
 * it (seen in the guest).
 */
static __always_inline int decide(struct linux_binprm *bprm, const struct exec_sizes *sz,
				  struct decision *d, const struct argguard_settings *settings,
				  __u32 flags, enum head_source head)
{
	if (d->verdict == ARGGUARD_VERDICT_DENY && settings->mode == ARGGUARD_MODE_AUDIT)
		d->verdict = ARGGUARD_VERDICT_WOULD_DENY;
	count(ARGGUARD_COUNTER(d->scope, d->verdict));
	if (d->verdict == ARGGUARD_VERDICT_ALLOW)
		return 0;
	report(bprm, sz, d, flags, settings, head);
	/* Only the exits read this; where the tracepoint reports, none is loaded. */
	if (d->verdict == ARGGUARD_VERDICT_DENY &&
	    !(argguard_build_features & ARGGUARD_FEATURE_EXEC_ARGS_FAILED)) {
		__u64 id = bpf_get_current_pid_tgid();
		__u8 one = 1;

		bpf_map_update_elem(&argguard_denied_execs, &id, &one, BPF_ANY);
	}
	return d->verdict == ARGGUARD_VERDICT_DENY ? deny_return(d->deny_errno) : 0;
}

/* Whether this exec is the daemon's enforcement probe; if so, the probe is spent. */
static bool is_probe(void)
{
	__u32 zero = 0;
	struct argguard_probe *probe = bpf_map_lookup_elem(&argguard_probe, &zero);

	if (!probe || !probe->tgid || probe->tgid != bpf_get_current_pid_tgid() >> 32)
		return false;
	probe->tgid = 0;
	return true;
}

static __always_inline int check_exec(struct linux_binprm *bprm, enum head_source head)
{
	const struct argguard_settings *settings;
	const struct argguard_rule *rule;
	struct decision d = {}, empty = {};
	struct cgroup_walk walk = {};
	struct exec_sizes sz;
	struct argguard_config live = {};
	__u64 ruled;
	__u32 mode;

	/* A script runs this hook again for its interpreter: judge the exec once. */
	if (bprm->interp != bprm->filename)
		return 0;
	if (is_probe())
		return -EPERM;
	settings = live_settings(&live);
	if (!settings)
		return 0;
	mode = settings->mode;
	rule = scope_rule(&live, &d, &walk);
	if (mode == ARGGUARD_MODE_OFF || !rule) {
		count(ARGGUARD_COUNTER(d.scope, ARGGUARD_VERDICT_ALLOW));
		return 0;
	}
	read_sizes(bprm, &sz);
	judge(rule, &sz, &d);
	ruled = d.rule_id;
	if (walk.n > 1 || walk.open || walk.overflow)
		judge_above(&walk, live.active_set, &sz, &d);

	if ((sz.flags & ARGGUARD_EV_EXACT_SIZES) && sz.orig_argc == 0) {
		empty.scope = ARGGUARD_SCOPE_EMPTY_ARGV;
		empty.limit_kind = ARGGUARD_LIMIT_EMPTY_ARGV;
		empty.verdict = verdict_for(settings->empty_argv_action, true);
		empty.deny_errno = E2BIG;
		if (empty.verdict > d.verdict)
			d = empty;
	}
	learn(rule, &sz, ruled, d.verdict == ARGGUARD_VERDICT_DENY && mode != ARGGUARD_MODE_AUDIT);
	return decide(bprm, &sz, &d, settings, 0, head);
}

SEC("lsm/bprm_check_security")
int BPF_PROG(argguard_bprm_check, struct linux_binprm *bprm, int ret)
{
	return ret ? ret : check_exec(bprm, CALLER_HEAD);
}

SEC("lsm.s/bprm_check_security")
int BPF_PROG(argguard_bprm_check_kernel_head, struct linux_binprm *bprm, int ret)
{
	return ret ? ret : check_exec(bprm, KERNEL_HEAD);
}

/* A privilege-gaining exec, judged by the setuid rule on top of the others. */
static __always_inline int check_secureexec(struct linux_binprm *bprm, enum head_source head)
{
	const struct argguard_settings *settings;
	const struct argguard_rule *rule;
	struct decision d = { .scope = ARGGUARD_SCOPE_SETUID };
	struct exec_sizes sz;
	struct argguard_config live = {};

	/* The capability LSM ran first and set secureexec for any privilege gain. */
	if (!BPF_CORE_READ_BITFIELD(bprm, secureexec))
		return 0;
	settings = live_settings(&live);
	if (!settings || settings->mode == ARGGUARD_MODE_OFF)
		return 0;
	rule = bpf_map_lookup_elem(&argguard_setuid_rules, &live.active_set);
	if (!rule)
		return 0;
	read_sizes(bprm, &sz);
	judge(rule, &sz, &d);
	learn(rule, &sz, 0,
	      d.verdict == ARGGUARD_VERDICT_DENY && settings->mode != ARGGUARD_MODE_AUDIT);
	return decide(bprm, &sz, &d, settings, ARGGUARD_EV_SECUREEXEC, head);
}

SEC("lsm/bprm_creds_from_file")
int BPF_PROG(argguard_bprm_creds, struct linux_binprm *bprm, struct file *file, int ret)
{
	return ret ? ret : check_secureexec(bprm, CALLER_HEAD);
}

SEC("lsm.s/bprm_creds_from_file")
int BPF_PROG(argguard_bprm_creds_kernel_head, struct linux_binprm *bprm, struct file *file, int ret)
{
	return ret ? ret : check_secureexec(bprm, KERNEL_HEAD);
}
