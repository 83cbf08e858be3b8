// SPDX-License-Identifier: GPL-2.0
/*
 * argguard's LSM programs: judge each exec by the size of its argument and
 * environment strings against the site policy in pinned maps, count the
 * decision, and report offending execs.
 *
 * bprm_check_security judges the scope rule (cgroup, uid, global) and an
 * empty argv. bprm_creds_from_file judges the setuid rule: only there are the
 * new credentials, and so bprm->secureexec, known.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "argguard.h"
#include "cgroup_glob.h"
#include "arch.h"

#define RLIMIT_STACK 3

/* vmlinux.h has no errno macros: E2BIG and the rest, from the shared table. */
#define ARGGUARD_ERRNO_VALUE(name, nr) name = nr,
enum { ARGGUARD_DENY_ERRNOS(ARGGUARD_ERRNO_VALUE) };

#include "verdict.h" /* after the errnos: a denial's errno is one of them */

char LICENSE[] SEC("license") = "GPL";

/*
 * Set by the loader before the load: which build loaded these programs, and
 * what it chose for this kernel. A later start reads them back from the
 * programs' own .rodata, which the kernel froze at load, to tell whether the
 * pinned programs are exactly the ones it would load (loader/programs/programs.c).
 */
const volatile __u64 argguard_build_id = 0;
const volatile __u32 argguard_build_features = 0;

/*
 * The maps carry argguard_ in their names: a newer kernel's vmlinux.h can
 * bring a type of any plain name (recent ones have a "config"). The loader
 * pins them under /sys/fs/bpf/argguard by the file names of its pin table
 * (loader/pins.h), which admins use with bpftool and which stay as they were.
 */

/* A map as libbpf reads it: name, type, max_entries, and the key and value types. */
#define ARGGUARD_MAP(name, type_, entries, key_, value_) \
	struct {                                         \
		__uint(type, type_);                     \
		__uint(max_entries, entries);            \
		__type(key, key_);                       \
		__type(value, value_);                   \
	} name SEC(".maps")

ARGGUARD_MAP(argguard_config, BPF_MAP_TYPE_ARRAY, 1, __u32, struct argguard_config);

/* The settings, one entry per set. */
ARGGUARD_MAP(argguard_settings, BPF_MAP_TYPE_ARRAY, 2, __u32, struct argguard_settings);

ARGGUARD_MAP(argguard_probe, BPF_MAP_TYPE_ARRAY, 1, __u32, struct argguard_probe);

/* The global rule, one per set. */
ARGGUARD_MAP(argguard_global_rules, BPF_MAP_TYPE_ARRAY, 2, __u32, struct argguard_rule);

ARGGUARD_MAP(argguard_setuid_rules, BPF_MAP_TYPE_ARRAY, 2, __u32, struct argguard_rule);

ARGGUARD_MAP(argguard_uid_rules, BPF_MAP_TYPE_HASH, 2 * ARGGUARD_MAX_UID_RULES,
	     struct argguard_uid_key, struct argguard_rule);

ARGGUARD_MAP(argguard_cgroup_rules, BPF_MAP_TYPE_HASH, 2 * ARGGUARD_MAX_CGROUP_RULES,
	     struct argguard_cgroup_key, struct argguard_rule);

/*
 * The live cgroups at ruled paths, literal or matched by a pattern, and a
 * mark per set. Preallocated: an insert allocated as the map fills fails
 * with ENOMEM when a burst of new cgroups outruns the allocator's refill
 * (seen in the guest: 1 of 4,200), and would judge a cgroup by the
 * strictest rule for no attack at all.
 */
ARGGUARD_MAP(argguard_cgroup_ids, BPF_MAP_TYPE_HASH, ARGGUARD_CGROUP_IDS_MAX,
	     struct argguard_cgroup_id_key, struct argguard_cgroup_key);

/* Mappable: an apply counts its own failed inserts with the same atomics as the programs. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct argguard_cgroup_index);
} argguard_cgroup_index SEC(".maps");

ARGGUARD_MAP(argguard_cgroup_patterns, BPF_MAP_TYPE_ARRAY, 2 * ARGGUARD_MAX_CGROUP_PATTERNS, __u32,
	     struct argguard_cgroup_key);

/*
 * Where the match of a new cgroup's path with a pattern stands. In a map,
 * not on the stack: 6.1's verifier follows a bpf_loop() callback through
 * one call, and would take the state's first values, all zero, for its
 * values at every step, and drop the code that moves a '*' back as dead.
 * Per CPU: the cgroup_mkdir tracepoint runs with preemption off.
 */
ARGGUARD_MAP(argguard_glob, BPF_MAP_TYPE_PERCPU_ARRAY, 1, __u32, struct cgroup_glob);

/* Most ruled ancestors a walk keeps: the nearest, and those above it while each tightens. */
#define CGROUP_CHAIN 8

/*
 * A walk's result, as of a generation: the caller's ruled ancestors,
 * nearest first, up to and with the first whose rule does not tighten
 * (ARGGUARD_RULE_TIGHTENS), CGROUP_CHAIN at most; none if no ancestor has
 * a rule.
 */
struct cgroup_walk {
	__u64 ruled[CGROUP_CHAIN];
	__u32 generation;
	__u32 n;
	bool open; /* the last of them tightens: the uid or global rule judges too */
	bool overflow; /* more tighten past the last: the set's unindexed_rule judges too */
};

/*
 * The walks from each cgroup that exec'd lately, by set and cgroup id.
 * Not pinned: only the programs use it, and a stale entry is never read
 * (argguard.h, cgroup_ids).
 */
ARGGUARD_MAP(argguard_cgroup_walks, BPF_MAP_TYPE_LRU_HASH, 4096, struct argguard_cgroup_id_key,
	     struct cgroup_walk);

ARGGUARD_MAP(argguard_counters, BPF_MAP_TYPE_PERCPU_ARRAY, ARGGUARD_NR_COUNTERS, __u32, __u64);

ARGGUARD_MAP(argguard_drops, BPF_MAP_TYPE_PERCPU_ARRAY, ARGGUARD_NR_DROPS, __u32, __u64);

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);
} argguard_events SEC(".maps");

/*
 * The token buckets for all records, as the time the next token is due
 * (GCRA): RECORD_TOTAL, which every uid competes for, and RECORD_RESERVE,
 * which a uid draws on only within its share (ARGGUARD_RECORD_SHARE).
 */
enum { RECORD_TOTAL, RECORD_RESERVE };
ARGGUARD_MAP(argguard_record_bucket, BPF_MAP_TYPE_ARRAY, 2, __u32, __u64);

/* One bucket per uid, and per container for root: one user's flood cannot spend another's records. */
ARGGUARD_MAP(argguard_uid_buckets, BPF_MAP_TYPE_LRU_HASH, ARGGUARD_MAX_RATED_UIDS,
	     struct argguard_uid_bucket_key, struct argguard_uid_bucket);

/*
 * Execs that argguard itself denied, until their syscall returns. An LRU:
 * an entry that no exit deletes (an ABI with no fexit here, such as x32)
 * cannot fill it for good. By pid_tgid.
 */
ARGGUARD_MAP(argguard_denied_execs, BPF_MAP_TYPE_LRU_HASH, 4096, __u64, __u8);

/* The fields kernel-patches/ adds to linux_binprm; absent on a stock kernel. */
struct linux_binprm___argguard {
	unsigned long argv_bytes;
	unsigned long envp_bytes;
} __attribute__((preserve_access_index));

/* fs.exec_arg_max as the exec began: the site-only kernel-patches/ 0005. */
struct linux_binprm___exec_arg_max {
	unsigned long exec_arg_max;
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

/*
 * One more in a per-CPU counter, as one atomic add: a plain n += 1 is a
 * load, an add and a store, and a program preempted between the load and
 * the store loses whatever another program on its CPU counted meanwhile.
 * migrate_disable() keeps a program on its CPU, but only a kernel that
 * cannot preempt it (PREEMPT_NONE or _VOLUNTARY, with no preemption point
 * in BPF code) keeps a second one off that CPU: with preempt=full (Debian's
 * PREEMPT_DYNAMIC kernels take it on the command line) or PREEMPT_RT, the
 * LSM and fexit programs (rcu_read_lock() and migrate_disable(), neither of
 * which stops preemption there) and the sleepable lsm.s ones can all be
 * preempted in it. One locked add on a cache line no other CPU writes costs
 * a few ns an exec.
 */
static void bump(void *map, __u32 index)
{
	__u64 *n = bpf_map_lookup_elem(map, &index);

	if (n)
		__sync_fetch_and_add(n, 1);
}

static void count(__u32 index)
{
	bump(&argguard_counters, index);
}

static void drop(__u32 reason)
{
	bump(&argguard_drops, reason);
}

#include "learn.h" /* learn(): the size distributions */

/* The rule that cgroup_id, a ruled cgroup, is indexed under in set. */
static const struct argguard_rule *rule_of(__u32 set, __u64 cgroup_id)
{
	struct argguard_cgroup_id_key k = { .set = set, .cgroup_id = cgroup_id };
	const struct argguard_cgroup_key *path = bpf_map_lookup_elem(&argguard_cgroup_ids, &k);

	return path ? bpf_map_lookup_elem(&argguard_cgroup_rules, path) : NULL;
}

/*
 * One search up the caller's ancestors for the nearest ruled one. Only
 * scalars go in and out: 6.1's verifier follows a bpf_loop() callback
 * through one call, so what the callback counts must index nothing.
 */
struct ancestor_walk {
	__u64 cgroup_id; /* the ruled ancestor found, or 0 */
	int from; /* the level the search starts at, going up */
	int found; /* the level of cgroup_id */
	__u32 set;
};

/* bpf_loop callback: step i looks at the ancestor i levels above w->from. */
static long ruled_ancestor(__u32 i, void *ctx)
{
	struct ancestor_walk *w = ctx;
	struct argguard_cgroup_id_key k = { .set = w->set };

	k.cgroup_id = bpf_get_current_ancestor_cgroup_id(w->from - (int)i);
	if (!bpf_map_lookup_elem(&argguard_cgroup_ids, &k))
		return 0;
	w->cgroup_id = k.cgroup_id;
	w->found = w->from - (int)i;
	return 1;
}

/* The nearest ruled ancestor at w->from or above, into w->cgroup_id (0: none). */
static long search_up(struct ancestor_walk *w)
{
	long err;

	w->cgroup_id = 0;
	if (w->from < 0)
		return 0;
	err = bpf_loop(w->from + 1, ruled_ancestor, w, 0);
	return err < 0 ? err : 0;
}

/*
 * The ancestors of the caller's cgroup (itself included) that have a rule
 * in set, nearest first, into walk, while each tightens, at any depth:
 * bpf_loop runs up to 2^23 steps, more levels than a machine can hold
 * cgroups. The chain's index is this loop's own, which the verifier
 * follows. < 0 if bpf_loop refuses.
 */
static long walk_ancestors(__u32 set, struct cgroup_walk *walk)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct ancestor_walk w = { .set = set };
	const struct argguard_rule *rule;
	long err;

	w.from = task->cgroups->dfl_cgrp->level;
	for (__u32 c = 0; c < CGROUP_CHAIN; c++) {
		err = search_up(&w);
		if (err || !w.cgroup_id)
			return err;
		walk->ruled[c] = w.cgroup_id;
		walk->n = c + 1;
		rule = rule_of(set, w.cgroup_id);
		walk->open = rule && (rule->flags & ARGGUARD_RULE_TIGHTENS);
		if (!walk->open)
			return 0;
		w.from = w.found - 1;
	}
	/* A full chain whose last rule tightens: one more ruled above it overflows. */
	err = search_up(&w);
	walk->overflow = !err && w.cgroup_id;
	return err;
}

/*
 * The rule of the caller's nearest ruled ancestor cgroup, and in *walk the
 * ancestors that judge with it (judge_above()). The walk's result is kept
 * for the cgroup: a cgroup made later is no ancestor of one that exec'd
 * already, and whatever else changes cgroup_ids moves the generation.
 * Should the walk fail, the exec is denied: nesting never takes a process
 * out of an ancestor's rule.
 */
static const struct argguard_rule *lookup_cgroup_rule(const struct argguard_config *live,
						      struct decision *d, struct cgroup_walk *walk)
{
	static const struct argguard_rule too_deep = { .action = ARGGUARD_ACTION_DENY,
						       .max_total_bytes = 1 };
	struct argguard_cgroup_id_key k = { .set = live->active_set,
					    .cgroup_id = ARGGUARD_CGROUP_IDS_USED };
	struct argguard_cgroup_index *index;
	struct cgroup_walk *seen;

	index = bpf_map_lookup_elem(&argguard_cgroup_index, &k.set);
	if (index && index->first_unindexed &&
	    bpf_get_current_cgroup_id() >= index->first_unindexed) {
		d->rule_id = bpf_get_current_cgroup_id();
		d->flags |= ARGGUARD_EV_CGROUP_UNINDEXED;
		return &index->unindexed_rule;
	}
	if (!bpf_map_lookup_elem(&argguard_cgroup_ids, &k))
		return NULL; /* no cgroup of this set has a rule: nothing to walk */
	k.cgroup_id = bpf_get_current_cgroup_id();
	seen = bpf_map_lookup_elem(&argguard_cgroup_walks, &k);
	if (seen && seen->generation == live->cgroup_generation) {
		*walk = *seen;
	} else {
		walk->generation = live->cgroup_generation;
		if (walk_ancestors(k.set, walk)) {
			walk->n = 0;
			d->rule_id = k.cgroup_id;
			return &too_deep;
		}
		/* Kept only if the caller stayed put: a walk half in another cgroup is not its. */
		if (bpf_get_current_cgroup_id() == k.cgroup_id)
			bpf_map_update_elem(&argguard_cgroup_walks, &k, walk, BPF_ANY);
	}
	if (!walk->n)
		return NULL;
	d->rule_id = walk->ruled[0];
	return rule_of(k.set, walk->ruled[0]);
}

/*
 * User namespaces. A user given subordinate uids (subuid(5)) runs processes
 * as those uids in a namespace it made (rootless containers, unshare
 * --map-users): uids of the initial namespace, 100000 and up, that name
 * nobody. Such a caller answers to the user who made the namespace.
 */

/* Whether the caller is in the initial user namespace: the common case, three loads. */
static __always_inline bool in_initial_userns(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return !task->cred->user_ns->level;
}

/*
 * Who made the caller's user namespace: the owner, a uid of the initial
 * namespace, of its ancestor one level below the initial one (itself at
 * level 1). A namespace made inside another, by a subordinate uid, is so
 * still its user's. The kernel nests at most 32 levels below level 1
 * (create_user_ns()), so 32 steps up reach it from any. -1 in the initial
 * namespace. A global function, verified once, and called only when
 * in_initial_userns() says no.
 */
__noinline long userns_owner(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct user_namespace *ns = task->cred->user_ns;

	if (!ns->level)
		return -1;
	for (int i = 0; i < 32 && ns->level > 1; i++)
		ns = ns->parent;
	/* Cannot be (a namespace is one level below its parent); if it were, as for root's. */
	if (ns->level != 1)
		return 0;
	return ns->owner.val;
}

/*
 * The uid whose rule and record bucket stand in for the caller's when it
 * is in a user namespace: the namespace's owner. -1 for none: the caller is
 * in the initial namespace, or root made its namespace. A namespace that
 * root made is a container's (userns remapping), and root's rule, often the
 * loosest, is not the container's.
 */
static __always_inline long namespace_user(void)
{
	long owner;

	if (in_initial_userns())
		return -1;
	owner = userns_owner();
	return owner > 0 ? owner : -1;
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

struct head_copy {
	struct argguard_event *e;
	__u64 argv;
	__u32 want;
	__u32 ptr_size;
	__u32 off;
	bool stopped;
};

/* bpf_loop callback: step i appends the caller's argv[i] to the head; 1 ends the walk. */
static long copy_arg(__u32 i, void *ctx)
{
	struct head_copy *c = ctx;
	struct argguard_event *e = c->e;
	__u32 arg32 = 0, off = c->off;
	__u64 arg = 0;
	long n;

	c->stopped = true;
	/* A 32-bit caller's argv holds 4-byte pointers. */
	if (c->ptr_size == 4 ? bpf_probe_read_user(&arg32, 4, (void *)(c->argv + 4 * (__u64)i))
			     : bpf_probe_read_user(&arg, 8, (void *)(c->argv + 8 * (__u64)i))) {
		e->flags |= ARGGUARD_EV_HEAD_UNREADABLE;
		return 1;
	}
	if (c->ptr_size == 4)
		arg = arg32;
	if (!arg)
		return 1;
	if (off >= c->want) {
		e->flags |= ARGGUARD_EV_HEAD_TRUNCATED;
		return 1;
	}
	/* Masks the verifier can follow; off < want <= HEAD_MAX, so they change nothing. */
	n = bpf_probe_read_user_str(&e->head[off & (ARGGUARD_HEAD_MAX - 1)],
				    ((c->want - off - 1) & (ARGGUARD_HEAD_MAX - 1)) + 1,
				    (const void *)arg);
	if (n <= 0) {
		e->flags |= ARGGUARD_EV_HEAD_UNREADABLE;
		return 1;
	}
	if (n == c->want - off) { /* filled the head: cut here, or just fits */
		c->off = c->want;
		e->flags |= ARGGUARD_EV_HEAD_TRUNCATED;
		return 1;
	}
	c->off = off + n;
	c->stopped = false;
	return 0;
}

/*
 * Copy the first head_bytes of the caller's argv into the record. The
 * kernel has just read these pages, so they are resident; another thread
 * could have changed them since, so the head is what the record shows of
 * the command line, while the sizes stay the kernel's own. A global
 * function, verified once per program; and a bpf_loop, whose step the
 * verifier checks as a function, not once per unrolled iteration.
 */
__noinline int read_head(struct argguard_event *e, __u64 argv_addr, __u32 want, __u32 ptr_size)
{
	struct head_copy c = { .e = e, .argv = argv_addr, .want = want, .ptr_size = ptr_size };

	if (!e)
		return 0;
	if (!c.want)
		c.want = ARGGUARD_HEAD_DEFAULT;
	if (c.want > ARGGUARD_HEAD_MAX)
		c.want = ARGGUARD_HEAD_MAX;
	bpf_loop(ARGGUARD_HEAD_MAX_ARGS, copy_arg, &c, 0);
	if (!c.stopped) /* ARGGUARD_HEAD_MAX_ARGS arguments, and maybe more */
		e->flags |= ARGGUARD_EV_HEAD_TRUNCATED;
	e->head_len = c.off;
	return 0;
}

/*
 * The address of the argv the caller passed to execve() or execveat(), or
 * 0; and the size of its pointers (4 for a 32-bit caller).
 */
static __u64 caller_argv(__u32 *ptr_size)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	long nr = ARGGUARD_SYSCALL_NR(regs);

	*ptr_size = 8;
	if (BPF_CORE_READ(task, thread_info.status) & ARGGUARD_TS_COMPAT) {
		*ptr_size = 4;
		if (nr == ARGGUARD_NR_COMPAT_EXECVE)
			return BPF_CORE_READ(regs, cx);
		if (nr == ARGGUARD_NR_COMPAT_EXECVEAT)
			return BPF_CORE_READ(regs, dx);
		return 0;
	}
	if (nr == ARGGUARD_NR_EXECVE)
		return PT_REGS_PARM2_CORE(regs);
	if (nr == ARGGUARD_NR_EXECVEAT)
		return PT_REGS_PARM3_CORE(regs);
	return 0; /* kernel_execve(): nothing of the caller's to read */
}

/* The head of the argv the caller passed, or the flag that it has none to read. */
static void read_caller_head(struct argguard_event *e, __u32 want)
{
	__u32 ptr_size;
	__u64 argv = caller_argv(&ptr_size);

	if (argv)
		read_head(e, argv, want, ptr_size);
	else
		e->flags |= ARGGUARD_EV_HEAD_UNREADABLE;
}

/* Who is exec'ing: the fields every record carries about the caller. */
static void fill_caller(struct argguard_event *e)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 uid_gid = bpf_get_current_uid_gid();

	e->pid = bpf_get_current_pid_tgid() >> 32;
	e->ppid = BPF_CORE_READ(task, real_parent, tgid);
	e->uid = (__u32)uid_gid;
	e->euid = BPF_CORE_READ(task, cred, euid.val);
	e->gid = uid_gid >> 32;
	e->userns_owner = ARGGUARD_NO_USERNS_OWNER;
	if (!in_initial_userns()) {
		e->userns_owner = userns_owner();
		e->flags |= ARGGUARD_EV_USERNS;
	}
	e->cgroup_id = bpf_get_current_cgroup_id();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
}

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

/*
 * The live set, and its settings: the config is read once, so that an exec
 * judges by one whole policy even while an apply flips it.
 */
static const struct argguard_settings *live_settings(struct argguard_config *live)
{
	__u32 zero = 0;
	struct argguard_config *cfg = bpf_map_lookup_elem(&argguard_config, &zero);

	if (!cfg)
		return NULL;
	live->active_set = *(volatile __u32 *)&cfg->active_set & 1;
	live->cgroup_generation = *(volatile __u32 *)&cfg->cgroup_generation;
	return bpf_map_lookup_elem(&argguard_settings, &live->active_set);
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
	learn(rule, &sz, &d);
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
	learn(rule, &sz, &d);
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

/*
 * The kernel's own argument limit for an exec, as bprm_arg_limit() works it
 * out: a quarter of RLIMIT_STACK, at most 3/4 of _STK_LIM, at least ARG_MAX;
 * then capped by fs.exec_arg_max where the kernel has it and it was set. With
 * the tracepoint's bprm, from the limits that exec took when it began (the
 * cap is in bprm only on a kernel with kernel-patches/ 0005); with none (the
 * fexit fallback, on a kernel without the tracepoint), from the caller's
 * RLIMIT_STACK now.
 */
static __always_inline __u64 kernel_arg_limit(struct linux_binprm *bprm, __u32 *kind)
{
	struct linux_binprm___exec_arg_max *capped = (void *)bprm;
	struct task_struct *task;
	unsigned long cap = 0;
	__u64 limit;

	if (bprm) {
		limit = BPF_CORE_READ(bprm, rlim_stack.rlim_cur) / 4;
		if (bpf_core_field_exists(capped->exec_arg_max))
			cap = BPF_CORE_READ(capped, exec_arg_max);
	} else {
		task = (struct task_struct *)bpf_get_current_task();
		limit = BPF_CORE_READ(task, signal, rlim[RLIMIT_STACK].rlim_cur) / 4;
	}
	if (limit > 6 << 20)
		limit = 6 << 20;
	if (limit < 32 * 4096)
		limit = 32 * 4096;
	*kind = ARGGUARD_LIMIT_KERNEL;
	if (cap && cap < limit) {
		*kind = ARGGUARD_LIMIT_EXEC_ARG_MAX;
		return cap;
	}
	return limit;
}

/* The exec syscalls whose exit is watched, each with its arguments where it has them. */
enum exec_call { EXECVE, EXECVEAT, COMPAT_EXECVE, COMPAT_EXECVEAT };

/* The caller's filename and argv, and the size of its argv's pointers. */
static void call_args(const struct pt_regs *regs, enum exec_call call, __u64 *filename, __u64 *argv,
		      __u32 *ptr_size)
{
	*ptr_size = 8;
	switch (call) {
	case EXECVE:
		*filename = PT_REGS_PARM1_CORE(regs);
		*argv = PT_REGS_PARM2_CORE(regs);
		return;
	case EXECVEAT:
		*filename = PT_REGS_PARM2_CORE(regs);
		*argv = PT_REGS_PARM3_CORE(regs);
		return;
	case COMPAT_EXECVE:
		*filename = BPF_CORE_READ(regs, bx);
		*argv = BPF_CORE_READ(regs, cx);
		break;
	case COMPAT_EXECVEAT:
		*filename = BPF_CORE_READ(regs, cx);
		*argv = BPF_CORE_READ(regs, dx);
		break;
	}
	*ptr_size = 4;
}

/*
 * The start of the record of an exec that the kernel refused with E2BIG
 * while copying its arguments: the 2010 exploit, a pointer flood, a breach
 * of fs.exec_arg_max, an interpreter's strings that no longer fit. bprm is
 * the tracepoint's, or NULL. NULL where nothing is to be logged. The caller
 * fills in the filename and the head, whose size it gets in *head_bytes.
 */
static __always_inline struct argguard_event *start_kernel_refusal(struct linux_binprm *bprm,
								   __u32 *head_bytes)
{
	struct decision d = {
		.verdict = ARGGUARD_VERDICT_KERNEL_REFUSED,
		.scope = ARGGUARD_SCOPE_KERNEL,
	};
	const struct argguard_settings *settings;
	struct argguard_event *e;
	struct argguard_config live;

	settings = live_settings(&live);
	if (!settings || settings->mode == ARGGUARD_MODE_OFF)
		return NULL;
	count(ARGGUARD_COUNTER(d.scope, d.verdict));
	if (!rate_allows(settings))
		return NULL;
	e = bpf_ringbuf_reserve(&argguard_events, sizeof(*e), 0);
	if (!e) {
		drop(ARGGUARD_DROP_RING_FULL);
		return NULL;
	}
	e->argv_bytes = 0;
	e->envp_bytes = 0;
	e->total_bytes = 0;
	e->rule_id = 0;
	e->flags = 0;
	e->ktime_ns = bpf_ktime_get_ns();
	e->limit = kernel_arg_limit(bprm, &e->limit_kind);
	e->verdict = d.verdict;
	e->scope = d.scope;
	fill_caller(e);
	e->argc = -1;
	e->envc = -1;
	e->orig_argc = -1;
	e->err = E2BIG;
	e->head_len = 0;
	*head_bytes = settings->head_bytes;
	return e;
}

/*
 * Where the kernel has the series' bare tracepoint (kernel-patches/ 0004),
 * the record comes from there. It fires only for an exec whose arguments
 * the kernel failed to count or copy: in do_execveat_common(), before the
 * bprm hooks, or in binfmt_script or binfmt_misc adding an interpreter's
 * strings, after argguard's own hooks allowed the exec. Nothing runs on an
 * exec that succeeds, and argguard's own denials never get here.
 */
SEC("tp_btf/sched_process_exec_args_failed_tp")
int BPF_PROG(argguard_exec_args_failed, struct linux_binprm *bprm, int err)
{
	struct argguard_event *e;
	__u32 head_bytes;

	if (err != -E2BIG)
		return 0;
	e = start_kernel_refusal(bprm, &head_bytes);
	if (!e)
		return 0;
	bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), BPF_CORE_READ(bprm, filename));
	read_caller_head(e, head_bytes);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * Elsewhere, from the exec syscalls' exit, where the caller's filename is
 * still readable: an exec that failed with E2BIG without argguard denying
 * it. Every exec passes here, and nearly all of them succeed: nothing is
 * read before ret says this one failed.
 */
static __always_inline int report_kernel_refusal(const struct pt_regs *regs, enum exec_call call,
						 long ret)
{
	struct argguard_event *e;
	__u64 id, filename, argv;
	__u32 head_bytes, ptr_size;

	if (ret >= 0)
		return 0;
	id = bpf_get_current_pid_tgid();
	if (!bpf_map_delete_elem(&argguard_denied_execs, &id) || ret != -E2BIG)
		return 0; /* argguard's own denial, or not about sizes */
	e = start_kernel_refusal(NULL, &head_bytes);
	if (!e)
		return 0;
	call_args(regs, call, &filename, &argv, &ptr_size);
	bpf_probe_read_user_str(e->filename, sizeof(e->filename), (const void *)filename);
	read_head(e, argv, head_bytes, ptr_size);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* The program prog, at the exit of the syscall sys (with its prefix), for call. */
#define EXEC_EXIT(prog, sys, call)                               \
	SEC("fexit/" sys)                                        \
	int BPF_PROG(prog, const struct pt_regs *regs, long ret) \
	{                                                        \
		return report_kernel_refusal(regs, call, ret);   \
	}

EXEC_EXIT(argguard_execve_exit, ARGGUARD_SYSCALL_PREFIX "sys_execve", EXECVE)
EXEC_EXIT(argguard_execveat_exit, ARGGUARD_SYSCALL_PREFIX "sys_execveat", EXECVEAT)

/*
 * The same for 32-bit callers (IA32_EMULATION); loaded only where the kernel
 * has these entry points and not the tracepoint. Without them, argguard's
 * own denials of 32-bit execs would stay in denied_execs.
 */
EXEC_EXIT(argguard_compat_execve_exit, ARGGUARD_COMPAT_SYSCALL_PREFIX "sys_execve", COMPAT_EXECVE)
EXEC_EXIT(argguard_compat_execveat_exit, ARGGUARD_COMPAT_SYSCALL_PREFIX "sys_execveat",
	  COMPAT_EXECVEAT)

/* The cgroup being made, and the pattern its path is matched with. */
struct pattern_match {
	struct argguard_cgroup_key key; /* its path, as a cgroup_rules key */
	__u32 slot;
	int ret; /* cgroup_glob_step()'s last */
	bool matched; /* the pattern in slot matches */
};

/* bpf_loop callback: one step of the match of a pattern and the new cgroup's path. */
static long pattern_step(__u32 i, void *ctx)
{
	struct pattern_match *m = ctx;
	const struct argguard_cgroup_key *pat;
	struct cgroup_glob *g;
	__u32 zero = 0;

	pat = bpf_map_lookup_elem(&argguard_cgroup_patterns, &m->slot);
	g = bpf_map_lookup_elem(&argguard_glob, &zero);
	if (!pat || !g) {
		m->ret = -1;
		return 1;
	}
	m->ret = cgroup_glob_step(g, pat->path, m->key.path);
	return m->ret != 0;
}

/*
 * bpf_loop callback: the match of m->key.set's i-th pattern and the path; 1
 * to stop, at a match or at the set's end. A loop of callbacks rather than
 * a plain one: 6.12's verifier walks a plain loop's every turn, and refused
 * one of 128 turns, each with a bpf_loop() inside.
 */
static long pattern_try(__u32 i, void *ctx)
{
	struct pattern_match *m = ctx;
	const struct argguard_cgroup_key *pat;
	struct cgroup_glob *g;
	__u32 zero = 0;

	m->slot = m->key.set * ARGGUARD_MAX_CGROUP_PATTERNS + i;
	pat = bpf_map_lookup_elem(&argguard_cgroup_patterns, &m->slot);
	g = bpf_map_lookup_elem(&argguard_glob, &zero);
	if (!pat || !pat->path[0] || !g)
		return 1;
	__builtin_memset(g, 0, sizeof(*g));
	m->ret = -1;
	bpf_loop(CGROUP_GLOB_MAX_STEPS, pattern_step, m, 0);
	m->matched = m->ret == 1;
	return m->matched;
}

/*
 * The first of m->key.set's patterns, the highest rank first, that matches
 * m->key.path: its cgroup_rules key, or NULL. A match that would take more
 * than CGROUP_GLOB_MAX_STEPS (none of a pattern and a path the maps can
 * hold, tests/unit/test_cgroup_pattern.c) is no match.
 */
static const struct argguard_cgroup_key *pattern_for(struct pattern_match *m)
{
	m->matched = false;
	bpf_loop(ARGGUARD_MAX_CGROUP_PATTERNS, pattern_try, m, 0);
	if (!m->matched)
		return NULL;
	return bpf_map_lookup_elem(&argguard_cgroup_patterns, &m->slot);
}

/*
 * cgroup_ids had no room for the cgroup in set: from it on, cgroups are
 * judged by the set's unindexed_rule (argguard.h, cgroup_index). The
 * lowest id wins a race; should the race outlast the tries, every cgroup
 * is judged so, which is never looser.
 */
static void index_failed(__u32 set, __u64 cgroup_id)
{
	struct argguard_cgroup_index *index = bpf_map_lookup_elem(&argguard_cgroup_index, &set);
	__u64 old;

	if (!index)
		return;
	__sync_fetch_and_add(&index->failed_inserts, 1);
	for (int i = 0; i < 4; i++) {
		old = index->first_unindexed;
		if (old && old <= cgroup_id)
			return;
		if (__sync_val_compare_and_swap(&index->first_unindexed, old, cgroup_id) == old)
			return;
	}
	*(volatile __u64 *)&index->first_unindexed = 1;
}

/*
 * A cgroup v2 directory is being made, and not yet visible: if a rule names
 * its path, in either rule set, or else a pattern matches it, index it by
 * its id before any process can enter it. Paths longer than a rule's cannot
 * match. The path is the cgroup's from the root of the hierarchy, whatever
 * cgroup namespace the caller is in.
 */
SEC("tp_btf/cgroup_mkdir")
int BPF_PROG(argguard_cgroup_mkdir, struct cgroup *cgrp, const char *path)
{
	struct pattern_match m = {};
	struct argguard_cgroup_id_key id = {};
	const struct argguard_cgroup_key *rule_key;
	__u64 cgroup_id = BPF_CORE_READ(cgrp, kn, id);
	long n;

	if (BPF_CORE_READ(cgrp, root, hierarchy_id) != 0) /* cgroup v1 */
		return 0;
	n = bpf_probe_read_kernel_str(m.key.path, sizeof(m.key.path), path);
	if (n <= 0 || n >= (long)sizeof(m.key.path))
		return 0;
	for (__u32 set = 0; set < 2; set++) {
		m.key.set = set;
		id.set = set;
		rule_key = &m.key;
		if (!bpf_map_lookup_elem(&argguard_cgroup_rules, &m.key))
			rule_key = pattern_for(&m);
		if (!rule_key)
			continue;
		/* The mark first: an id without it would never be looked at. */
		id.cgroup_id = ARGGUARD_CGROUP_IDS_USED;
		if (bpf_map_update_elem(&argguard_cgroup_ids, &id, rule_key, BPF_ANY)) {
			index_failed(set, cgroup_id);
			continue;
		}
		id.cgroup_id = cgroup_id;
		if (bpf_map_update_elem(&argguard_cgroup_ids, &id, rule_key, BPF_ANY))
			index_failed(set, cgroup_id);
	}
	return 0;
}

SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(argguard_cgroup_rmdir, struct cgroup *cgrp, const char *path)
{
	struct argguard_cgroup_id_key id = { .cgroup_id = BPF_CORE_READ(cgrp, kn, id) };

	for (__u32 set = 0; set < 2; set++) {
		id.set = set;
		bpf_map_delete_elem(&argguard_cgroup_ids, &id);
	}
	return 0;
}
