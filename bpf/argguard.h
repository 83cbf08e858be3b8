/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF program and the loader share: map layouts and the event
 * record. Fixed-width types only, so both sides agree byte for byte.
 */
#ifndef ARGGUARD_H
#define ARGGUARD_H

#define ARGGUARD_COMM_LEN 16
#define ARGGUARD_FILENAME_LEN 256
#define ARGGUARD_MAX_UID_RULES 4096 /* per rule set */
#define ARGGUARD_MAX_CGROUP_RULES 1024 /* per rule set */
#define ARGGUARD_MAX_CGROUP_PATTERNS 128 /* per rule set, of its cgroup rules */
#define ARGGUARD_MAX_RATED_UIDS 1024 /* record buckets, least recently used ones dropped */
#define ARGGUARD_CGROUP_PATH_LEN 256 /* a cgroup rule's path: 254 bytes at most, then NULs */
#define ARGGUARD_CGROUP_IDS_MAX 16384 /* cgroup_ids: live ruled cgroups, both sets together */
#define ARGGUARD_HEAD_MAX 1024 /* most command-line bytes a record can carry */
#define ARGGUARD_HEAD_DEFAULT 256 /* config.head_bytes 0 reads as this */
#define ARGGUARD_HEAD_MAX_ARGS 64
#define ARGGUARD_SHEBANG_LEN 254 /* a script's "#!" line after the "#!": BINPRM_BUF_SIZE - 2 */

/*
 * The names the BPF program and userspace share: one table per enum, in
 * enum order, X(ENUMERATOR, "name"). An enumerator's value is its place in
 * its table, and records and pinned maps hold these values, so entries are
 * never reordered. The names are how the policy file, the records, argguard
 * status and the metrics spell them (loader/names.c).
 */
#define ARGGUARD_ENUMERATOR(id, name) id,

/* config.mode. Any other value reads as enforce. */
#define ARGGUARD_MODES(X)                                                          \
	X(ARGGUARD_MODE_OFF, "off")                                                \
	X(ARGGUARD_MODE_AUDIT, "audit") /* never deny; log what would be denied */ \
	X(ARGGUARD_MODE_ENFORCE, "enforce")

/* rule.action and config.empty_argv_action. Any other value reads as deny. */
#define ARGGUARD_ACTIONS(X)                                                         \
	X(ARGGUARD_ACTION_ALLOW, "allow") /* exempt: allowed whatever the limits */ \
	X(ARGGUARD_ACTION_AUDIT, "audit") /* over a limit: allowed and logged */    \
	X(ARGGUARD_ACTION_DENY, "deny") /* over a limit: refused with the rule's errno */

/* Where the deciding rule came from. */
#define ARGGUARD_SCOPES(X)                         \
	X(ARGGUARD_SCOPE_GLOBAL, "global")         \
	X(ARGGUARD_SCOPE_UID, "uid")               \
	X(ARGGUARD_SCOPE_CGROUP, "cgroup")         \
	X(ARGGUARD_SCOPE_SETUID, "setuid")         \
	X(ARGGUARD_SCOPE_EMPTY_ARGV, "empty_argv") \
	X(ARGGUARD_SCOPE_KERNEL, "kernel") /* refused by the kernel, before bprm_check */

/* The outcome of an exec, mildest first. */
#define ARGGUARD_VERDICTS(X)                         \
	X(ARGGUARD_VERDICT_ALLOW, "allow")           \
	X(ARGGUARD_VERDICT_AUDIT, "audit")           \
	X(ARGGUARD_VERDICT_WOULD_DENY, "would-deny") \
	X(ARGGUARD_VERDICT_DENY, "deny")             \
	X(ARGGUARD_VERDICT_KERNEL_REFUSED, "kernel-refused") /* E2BIG from the kernel itself */

/* The limit that decided, in event.limit_kind. */
#define ARGGUARD_LIMITS(X)                                                                         \
	X(ARGGUARD_LIMIT_NONE, "none")                                                             \
	X(ARGGUARD_LIMIT_ARGV_BYTES, "max_argv_bytes")                                             \
	X(ARGGUARD_LIMIT_ENVP_BYTES, "max_envp_bytes")                                             \
	X(ARGGUARD_LIMIT_TOTAL_BYTES, "max_total_bytes")                                           \
	X(ARGGUARD_LIMIT_ARGC, "max_argc")                                                         \
	X(ARGGUARD_LIMIT_ENVC, "max_envc")                                                         \
	X(ARGGUARD_LIMIT_EMPTY_ARGV, "empty_argv")                                                 \
	X(ARGGUARD_LIMIT_KERNEL, "kernel") /* the kernel's own: RLIMIT_STACK / 4, at most 6 MiB */ \
	X(ARGGUARD_LIMIT_EXEC_ARG_MAX,                                                             \
	  "exec_arg_max") /* the kernel's, capped by fs.exec_arg_max */                            \
	X(ARGGUARD_LIMIT_AUDIT_ARGV_BYTES, "audit_max_argv_bytes") /* the would-deny tier's */     \
	X(ARGGUARD_LIMIT_AUDIT_ENVP_BYTES, "audit_max_envp_bytes")                                 \
	X(ARGGUARD_LIMIT_AUDIT_TOTAL_BYTES, "audit_max_total_bytes")                               \
	X(ARGGUARD_LIMIT_AUDIT_ARGC, "audit_max_argc")                                             \
	X(ARGGUARD_LIMIT_AUDIT_ENVC, "audit_max_envc")

/*
 * config.policy_state: how the live set came to hold what it holds. The
 * programs never read it; a start does, to know whether the start that
 * made the maps finished.
 */
#define ARGGUARD_POLICY_STATES(X)                                            \
	X(ARGGUARD_POLICY_UNSET,                                             \
	  "unset") /* maps made afresh: all zero, which reads as mode off */ \
	X(ARGGUARD_POLICY_INTERIM,                                           \
	  "interim") /* the loader's stand-in: the start's apply is due */   \
	X(ARGGUARD_POLICY_APPLIED, "applied") /* a start's apply, or a later one, finished */

/* Why a record never reached the ring buffer: the index of the "drops" map. */
#define ARGGUARD_DROPS(X)                                                                  \
	X(ARGGUARD_DROP_RATE_LIMITED, "rate_limited") /* held back by config.event_rate */ \
	X(ARGGUARD_DROP_RING_FULL, "ring_full") /* bpf_ringbuf_reserve() failed: lost */

/*
 * The errnos a deny rule may fail an exec with, X(NAME, its Linux number),
 * as the policy file names them. A rule holding any other value denies with
 * the first, E2BIG. (The BPF side has no errno.h: it takes the numbers from
 * here, and userspace checks them against its own.)
 */
#define ARGGUARD_DENY_ERRNOS(X) \
	X(E2BIG, 7)             \
	X(EPERM, 1)             \
	X(EACCES, 13)           \
	X(ENOMEM, 12)
#define ARGGUARD_DENY_ERRNO_INDEX(name, nr) ARGGUARD_DENY_ERRNO_##name,

enum argguard_mode { ARGGUARD_MODES(ARGGUARD_ENUMERATOR) ARGGUARD_NR_MODES };
enum argguard_action { ARGGUARD_ACTIONS(ARGGUARD_ENUMERATOR) ARGGUARD_NR_ACTIONS };
enum argguard_scope { ARGGUARD_SCOPES(ARGGUARD_ENUMERATOR) ARGGUARD_NR_SCOPES };
enum argguard_verdict { ARGGUARD_VERDICTS(ARGGUARD_ENUMERATOR) ARGGUARD_NR_VERDICTS };
enum argguard_limit { ARGGUARD_LIMITS(ARGGUARD_ENUMERATOR) ARGGUARD_NR_LIMITS };
enum argguard_drop { ARGGUARD_DROPS(ARGGUARD_ENUMERATOR) ARGGUARD_NR_DROPS };
enum argguard_policy_state {
	ARGGUARD_POLICY_STATES(ARGGUARD_ENUMERATOR) ARGGUARD_NR_POLICY_STATES
};
enum argguard_deny_errno_index {
	ARGGUARD_DENY_ERRNOS(ARGGUARD_DENY_ERRNO_INDEX) ARGGUARD_NR_DENY_ERRNOS
};

/*
 * What else each count is written into: a table that grows must grow them
 * too. The counters and drops maps are pinned, so a new scope, verdict or
 * drop reason changes a map that a running argguard has pinned: it must be
 * unloaded (argguard unload) before the new one loads.
 */
_Static_assert(ARGGUARD_NR_MODES == 3 && ARGGUARD_MODE_ENFORCE == ARGGUARD_NR_MODES - 1,
	       "a mode past the table reads as enforce, the last; the policy parser's message, "
	       "argguard.conf(5) and the recovery switch name the modes");
_Static_assert(ARGGUARD_NR_ACTIONS == 3 && ARGGUARD_ACTION_DENY == ARGGUARD_NR_ACTIONS - 1,
	       "an action past the table reads as deny, the last; the policy parser's message, "
	       "argguard --help and argguard.conf(5) name the actions");
_Static_assert(ARGGUARD_NR_SCOPES == 6 && ARGGUARD_NR_VERDICTS == 5,
	       "the pinned counters map holds one counter per scope and verdict");
_Static_assert(ARGGUARD_VERDICT_ALLOW < ARGGUARD_VERDICT_AUDIT &&
		       ARGGUARD_VERDICT_AUDIT < ARGGUARD_VERDICT_DENY,
	       "verdicts go mildest first: the empty-argv check keeps the worse of two");
_Static_assert(ARGGUARD_NR_LIMITS == 14,
	       "each limit a rule can set has its row in POLICY_LIMITS (loader/policy/policy.h: "
	       "its key, unit and lockout floor) and its check in judge(); the tier's limits "
	       "are in the order of the rule's own");
_Static_assert(ARGGUARD_NR_DROPS == 2, "the pinned drops map holds one counter per reason");
_Static_assert(ARGGUARD_NR_DENY_ERRNOS == 4,
	       "the policy parser's message, argguard --help and argguard.conf(5) name the errnos");

/*
 * One rule. A limit of 0 means no limit. deny_errno is a positive errno
 * of ARGGUARD_DENY_ERRNOS (E2BIG, EPERM, EACCES, ENOMEM); anything else
 * reads as E2BIG. The audit_ limits are the would-deny tier: an exec
 * within the rule's limits but over one of them is allowed and recorded
 * as would-deny, so that a tighter limit is tried before it denies.
 */
struct argguard_rule {
	__u64 max_argv_bytes;
	__u64 max_envp_bytes;
	__u64 max_total_bytes;
	__u32 max_argc;
	__u32 max_envc;
	__u32 action;
	__s32 deny_errno;
	__u64 audit_max_argv_bytes;
	__u64 audit_max_envp_bytes;
	__u64 audit_max_total_bytes;
	__u32 audit_max_argc;
	__u32 audit_max_envc;
	/*
	 * Where execs judged by this rule are counted in the "sizes" map: a
	 * slot the loader gives each rule as it writes it (ARGGUARD_SIZE_SLOT_*,
	 * then one per uid or cgroup rule). 0: not counted.
	 */
	__u32 size_slot;
	__u32 flags; /* ARGGUARD_RULE_* */
};

/*
 * A cgroup rule by pattern whose execs are counted per ruled cgroup too
 * ("cgroup_sizes"): each container its pattern matches, a distribution of
 * its own. Only with a size_slot.
 */
#define ARGGUARD_RULE_SIZES_BY_CGROUP (1U << 0)

/*
 * A cgroup rule by pattern, which whoever names a cgroup chooses: it judges
 * on top of what would judge the cgroup without it (the next ruled ancestor
 * up, and so on to the nearest literal rule; with none, the uid or global
 * rule), and the harsher verdict stands. So no name buys a laxer limit.
 * The loader sets it on every pattern's rule.
 */
#define ARGGUARD_RULE_TIGHTENS (1U << 1)

/*
 * The one entry of the "config" map: which rule set execs read. A policy
 * lives whole in one of two sets (its settings and every rule); execs read
 * set active_set (0 or 1; other values read as active_set & 1), and a policy
 * apply writes the other set, then flips active_set with this one update.
 * The same update counts cgroup_generation up: what the programs remember
 * of earlier walks up a cgroup's ancestors holds for one generation, and
 * sets policy_state (enum argguard_policy_state; a value past the table
 * reads as unset). No program is attached over maps whose policy_state is
 * unset: the loader writes the interim policy first.
 */
struct argguard_config {
	__u32 active_set;
	__u32 cgroup_generation;
	__u32 policy_state;
};

/* The "settings" map, one entry per set: what a policy says besides its rules. */
struct argguard_settings {
	__u32 mode;
	__u32 empty_argv_action;
	__u32 head_bytes; /* command-line bytes per record; 0: 256, above 1024: 1024 */
	__u32 event_rate; /* records per second for each uid, token bucket; 0: no limit */
	__u32 event_burst; /* records a uid is let through at once; 0 reads as 1 */
	__u32 event_rate_total; /* records per second for all uids, in bursts of as many; 0: no limit */
};

/*
 * The "uid_buckets" map, by uid (and container, for root): the uid's token bucket for records (the
 * time its next token is due, GCRA), its share of event_rate_total (the
 * same, at ARGGUARD_RECORD_SHARE of the total's rate), and how many of its
 * records the rate limits held back, for the summaries.
 */
/*
 * Its key: the uid, and for root in a container (a user or pid namespace
 * other than the initial one) that namespace's inode number, so that a
 * container's root does not spend the host root's records; else 0.
 */
struct argguard_uid_bucket_key {
	__u32 uid;
	__u32 container;
};

struct argguard_uid_bucket {
	__u64 tat;
	__u64 suppressed;
	__u64 share_tat;
};

/*
 * Half of event_rate_total is a reserve, from which each uid may take
 * 1/ARGGUARD_RECORD_SHARE of the total (at least one a second) before it
 * competes for the other half: fewer than half this many uids, flooding
 * together, cannot hold back another uid's record (fewer than total / 2,
 * where the total is under ARGGUARD_RECORD_SHARE).
 */
#define ARGGUARD_RECORD_SHARE 64

/*
 * The one entry of the "probe" map: the daemon's enforcement probe. An exec
 * by this process (tgid) is denied with EPERM whatever the policy, and the
 * program sets this back to 0, proving that its denials take effect. 0 the
 * rest of the time. A map of its own, so that the probe never rewrites
 * active_set behind a policy apply.
 */
struct argguard_probe {
	__u32 tgid;
};

struct argguard_uid_key {
	__u32 set;
	__u32 uid;
};

/*
 * cgroup_rules: a rule for whichever cgroup has this path below the cgroup v2
 * root, now or later. The bytes after the path's NUL are all NUL.
 */
struct argguard_cgroup_key {
	__u32 set;
	char path[ARGGUARD_CGROUP_PATH_LEN];
};

/*
 * cgroup_ids: the live cgroups that have a ruled path, each mapped to its
 * rule's key. A policy apply fills it for the cgroups that exist; the
 * cgroup_mkdir tracepoint adds each one created later, before any process
 * can enter it, and cgroup_rmdir takes it out again.
 *
 * Whoever adds an id to a set first adds that set's mark: the key with
 * cgroup_id ARGGUARD_CGROUP_IDS_USED, which no cgroup has. An exec looks for
 * the mark before it walks its cgroup's ancestors; without it, no cgroup of
 * the set has a rule, and the walk is skipped. The walk's result is kept
 * for the cgroup until config.cgroup_generation moves: so only the loader
 * and the programs write cgroup_ids, and an admin writes cgroup_rules.
 */
struct argguard_cgroup_id_key {
	__u64 cgroup_id;
	__u32 set;
	__u32 pad;
};

#define ARGGUARD_CGROUP_IDS_USED 0

/*
 * The "cgroup_index" map, one entry per set: whether cgroup_ids holds every
 * cgroup it should. It is bounded (ARGGUARD_CGROUP_IDS_MAX), and anyone who
 * may make cgroups, a login user in the subtree systemd delegates to it
 * among them, can fill it with cgroups a pattern matches. An insert that
 * fails counts in failed_inserts and lowers first_unindexed to the cgroup's
 * id. Cgroup ids only grow (kernfs), so a cgroup whose id is below it was
 * indexed if it should be, and one at or above it may have been missed:
 * its execs are judged by unindexed_rule, which the loader makes at least
 * as strict as every rule of the set, rather than by a looser one. An
 * apply writes the set's entry afresh, and counts its own failures too.
 */
struct argguard_cgroup_index {
	struct argguard_rule unindexed_rule;
	__u64 first_unindexed; /* 0: every insert so far succeeded */
	__u64 failed_inserts;
};

/*
 * cgroup_patterns: each set's cgroup rules by pattern, in the order the
 * cgroup_mkdir program tries them, the highest rank first: slot
 * set * ARGGUARD_MAX_CGROUP_PATTERNS + i holds the i-th, as its
 * cgroup_rules key; the first slot with an empty path ends the set's. A
 * cgroup made at a path with no literal rule is indexed in cgroup_ids by
 * the first pattern that matches it (cgroup_glob.h), so an exec costs the
 * same whether its cgroup was judged by a path or by a pattern. An apply
 * writes the slots, then indexes the cgroups that exist by them.
 */

/* Per-CPU decision counters: index scope * ARGGUARD_NR_VERDICTS + verdict. */
#define ARGGUARD_COUNTER(scope, verdict) ((scope)*ARGGUARD_NR_VERDICTS + (verdict))
#define ARGGUARD_NR_COUNTERS (ARGGUARD_NR_SCOPES * ARGGUARD_NR_VERDICTS)

/*
 * What of kernel-patches/ the kernel carries, as the loader found it and
 * recorded it in the programs' .rodata (argguard_build_features).
 */
#define ARGGUARD_FEATURE_EXACT_SIZES (1U << 0) /* linux_binprm.argv_bytes and envp_bytes */
#define ARGGUARD_FEATURE_KERNEL_HEAD (1U << 1) /* bpf_bprm_read_argv() */
#define ARGGUARD_FEATURE_COMPAT (1U << 2) /* 32-bit execs: __ia32_compat_sys_execve() */
#define ARGGUARD_FEATURE_EXEC_ARGS_FAILED (1U << 3) /* the refusal tracepoint, patch 4 */

/* Event flags. */
#define ARGGUARD_EV_EXACT_SIZES \
	(1U << 0) /* patched kernel: argv/envp split known, orig_argc derived */
#define ARGGUARD_EV_SECUREEXEC (1U << 1) /* setuid, setgid or file-capability gain */
#define ARGGUARD_EV_HEAD_TRUNCATED (1U << 2) /* the command line goes on past head */
#define ARGGUARD_EV_HEAD_UNREADABLE (1U << 3) /* the caller's argv could not be read */
#define ARGGUARD_EV_SCRIPT (1U << 4) /* the file starts "#!": shebang holds the rest */
#define ARGGUARD_EV_HEAD_KERNEL (1U << 5) /* head is the kernel's copy, not the caller's memory */
#define ARGGUARD_EV_USERNS (1U << 6) /* the caller is in a user namespace: userns_owner is valid */
#define ARGGUARD_EV_CGROUP_UNINDEXED \
	(1U << 7) /* judged by cgroup_index.unindexed_rule: the cgroup index was full */

/* userns_owner of a caller in the initial user namespace. */
#define ARGGUARD_NO_USERNS_OWNER ((__u32)-1)

struct argguard_event {
	__u64 ktime_ns; /* CLOCK_MONOTONIC */
	__u64 argv_bytes; /* valid with ARGGUARD_EV_EXACT_SIZES */
	__u64 envp_bytes; /* valid with ARGGUARD_EV_EXACT_SIZES */
	__u64 total_bytes; /* argv + envp string bytes, always valid */
	__u64 limit; /* the value of the limit that was crossed */
	__u64 rule_id; /* uid or cgroup id for those scopes, else 0 */
	__u64 cgroup_id; /* the caller's cgroup v2 */
	__u32 verdict; /* enum argguard_verdict */
	__u32 scope; /* enum argguard_scope */
	__u32 limit_kind; /* enum argguard_limit */
	__u32 flags;
	__u32 pid;
	__u32 ppid;
	__u32 uid;
	__u32 euid;
	__u32 gid;
	__s32 argc;
	__s32 envc;
	__s32 orig_argc; /* valid with ARGGUARD_EV_EXACT_SIZES */
	__s32 err; /* the errno the exec failed with, or 0 */
	__u32 head_len; /* bytes in head: arguments one after the other, each ending in NUL */
	/*
	 * With ARGGUARD_EV_USERNS, who made the caller's user namespace (its
	 * ancestor one level below the initial one): a uid of the initial
	 * namespace, as uid is. Else ARGGUARD_NO_USERNS_OWNER.
	 */
	__u32 userns_owner;
	char comm[ARGGUARD_COMM_LEN];
	char filename[ARGGUARD_FILENAME_LEN];
	/* With ARGGUARD_EV_SCRIPT, the bytes after "#!" as the kernel read them. */
	char shebang[ARGGUARD_SHEBANG_LEN];
	/* The head of argv, from the kernel's copy (ARGGUARD_EV_HEAD_KERNEL) or
	 * the caller's memory; the last argument may be cut short, its NUL too.
	 * Twice the size the verifier needs to see every bounded copy fit. */
	char head[2 * ARGGUARD_HEAD_MAX];
};

/*
 * The size distributions of the execs each rule judged (the "sizes" map):
 * for each metric, a log2 histogram (bpf/size_bucket.h), the largest value and
 * the sum, per CPU. Slot 0 is never counted; global and setuid have fixed
 * slots; each uid and cgroup rule takes one of the rest while it has a
 * rule, and the rules past them share the last.
 *
 * Entry slot counts the slot's execs that ran: allowed, audit, and
 * would-deny (over a limit in mode audit, or over the would-deny tier);
 * entry slot + ARGGUARD_SIZE_DENIED, those argguard denied. Apart, so that
 * what anyone can make denied, as large as the kernel lets an exec be,
 * never counts as seen: suggest reads only what ran.
 */
#define ARGGUARD_SIZE_METRICS(X)                    \
	X(ARGGUARD_SIZE_ARGV_BYTES, "argv_bytes")   \
	X(ARGGUARD_SIZE_ENVP_BYTES, "envp_bytes")   \
	X(ARGGUARD_SIZE_TOTAL_BYTES, "total_bytes") \
	X(ARGGUARD_SIZE_ARGC, "argc")               \
	X(ARGGUARD_SIZE_ENVC, "envc")

enum argguard_size_metric { ARGGUARD_SIZE_METRICS(ARGGUARD_ENUMERATOR) ARGGUARD_NR_SIZE_METRICS };

#define ARGGUARD_SIZE_BUCKETS 32
#define ARGGUARD_SIZE_SLOTS 64
#define ARGGUARD_SIZE_SLOT_NONE 0 /* not counted */
#define ARGGUARD_SIZE_SLOT_GLOBAL 1
#define ARGGUARD_SIZE_SLOT_SETUID 2
#define ARGGUARD_SIZE_SLOT_FIRST_RULE 3 /* the first of the uid and cgroup rules' */
#define ARGGUARD_SIZE_SLOT_OTHER (ARGGUARD_SIZE_SLOTS - 1) /* the rules past the slots */
#define ARGGUARD_SIZE_DENIED ARGGUARD_SIZE_SLOTS /* slot + this: the slot's denied execs */
#define ARGGUARD_SIZE_ENTRIES (2 * ARGGUARD_SIZE_SLOTS)

_Static_assert(ARGGUARD_NR_SIZE_METRICS == 5,
	       "the metrics are the limits a rule sets, in POLICY_LIMITS order");

struct argguard_sizes {
	__u64 max[ARGGUARD_NR_SIZE_METRICS];
	__u64 sum[ARGGUARD_NR_SIZE_METRICS];
	__u64 count[ARGGUARD_NR_SIZE_METRICS][ARGGUARD_SIZE_BUCKETS];
	/*
	 * In a slot's entry (what ran), on every CPU: when its counts began
	 * (CLOCK_REALTIME seconds), which the loader writes as it clears the
	 * slot for a new rule, or first gives it a rule; 0 elsewhere. The
	 * programs never write it.
	 */
	__u64 since;
};

/*
 * The "cgroup_sizes" map: the distributions of the execs each cgroup that a
 * pattern rule with ARGGUARD_RULE_SIZES_BY_CGROUP judged (its ruled
 * ancestor: the container's cgroup), keyed by its id and the rule's
 * size_slot. One entry for all CPUs, counted with atomic adds (the largest
 * value with a plain compare and store, which a race can leave one exec
 * low). An LRU hash of ARGGUARD_CGROUP_SIZES entries: past that many
 * cgroups, the one counted least recently is dropped, and a cgroup counted
 * again starts from zero.
 */
#define ARGGUARD_CGROUP_SIZES 1024

struct argguard_cgroup_sizes_key {
	__u64 cgroup_id;
	__u32 size_slot;
	__u32 pad;
};

/*
 * The "sizes_by_uid" map: the distributions of each uid's execs of at
 * least ARGGUARD_SIZES_BY_UID_FROM string bytes that ran, by the judging
 * rule's size_slot and the uid (a subordinate uid's as its namespace's
 * user's, as a rule judges it). Every limit suggest proposes is at least
 * its floor, which only such an exec can reach (each string takes a byte
 * at least, so argc and envc are under the total too): these are the
 * execs whose share suggest weighs by uid, each uid as one, however many
 * it ran. Only they do this work, one hash lookup and atomic adds. A hash
 * of ARGGUARD_SIZES_BY_UID entries, allocated as they are used: once it
 * is full, a new uid's execs are counted in "sizes" alone, where suggest
 * finds them as one uid, the others.
 */
#define ARGGUARD_SIZES_BY_UID 4096
#define ARGGUARD_SIZES_BY_UID_FROM (32U << 10)

struct argguard_sizes_by_uid_key {
	__u32 size_slot;
	__u32 uid;
};

/*
 * The "largest" map, per CPU, by the index of "sizes" (a slot, and the
 * slot + ARGGUARD_SIZE_DENIED of its denied execs): the ARGGUARD_LARGEST
 * execs with the most string bytes that this CPU saw there, in no order,
 * a column per field. least is the smallest total_bytes among them: an
 * exec must pass it to get in, in place of entry least_at. By slot and
 * apart, so that no flood, denied or in another scope, crowds a scope's
 * largest exec that ran out of its table.
 */
#define ARGGUARD_LARGEST 8

struct argguard_largest {
	__u64 least;
	__u32 least_at;
	__u32 pad;
	__u64 total_bytes[ARGGUARD_LARGEST];
	__u64 argv_bytes[ARGGUARD_LARGEST];
	__u64 envp_bytes[ARGGUARD_LARGEST];
	__u64 cgroup_id[ARGGUARD_LARGEST];
	__u32 argc[ARGGUARD_LARGEST];
	__u32 envc[ARGGUARD_LARGEST];
	__u32 uid[ARGGUARD_LARGEST];
	__u32 slot[ARGGUARD_LARGEST];
	__u32 flags[ARGGUARD_LARGEST]; /* ARGGUARD_EV_EXACT_SIZES: argv and envp are known */
	char comm[ARGGUARD_LARGEST * ARGGUARD_COMM_LEN];
};

#endif /* ARGGUARD_H */
