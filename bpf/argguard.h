/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF program and the loader share: map layouts and the event
 * record. Fixed-width types only, so both sides agree byte for byte.
 */
#ifndef ARGGUARD_H
#define ARGGUARD_H

#define ARGGUARD_PIN_DIR "/sys/fs/bpf/argguard"
#define ARGGUARD_COMM_LEN 16
#define ARGGUARD_FILENAME_LEN 256
#define ARGGUARD_MAX_UID_RULES 4096 /* per rule set */
#define ARGGUARD_MAX_CGROUP_RULES 1024 /* per rule set */
#define ARGGUARD_CGROUP_PATH_LEN 256 /* a cgroup rule's path: 254 bytes at most, then NULs */
#define ARGGUARD_HEAD_MAX 1024 /* most command-line bytes a record can carry */
#define ARGGUARD_HEAD_DEFAULT 256 /* config.head_bytes 0 reads as this */
#define ARGGUARD_HEAD_MAX_ARGS 64
#define ARGGUARD_SHEBANG_LEN 254 /* a script's "#!" line after the "#!": BINPRM_BUF_SIZE - 2 */

/* config.mode. Any other value reads as enforce. */
enum argguard_mode {
	ARGGUARD_MODE_OFF,
	ARGGUARD_MODE_AUDIT, /* never deny; log what would be denied */
	ARGGUARD_MODE_ENFORCE,
};

/* rule.action and config.empty_argv_action. Any other value reads as deny. */
enum argguard_action {
	ARGGUARD_ACTION_ALLOW, /* exempt: allowed whatever the limits */
	ARGGUARD_ACTION_AUDIT, /* over a limit: allowed and logged */
	ARGGUARD_ACTION_DENY, /* over a limit: refused with the rule's errno */
};

/* Where the deciding rule came from. */
enum argguard_scope {
	ARGGUARD_SCOPE_GLOBAL,
	ARGGUARD_SCOPE_UID,
	ARGGUARD_SCOPE_CGROUP,
	ARGGUARD_SCOPE_SETUID,
	ARGGUARD_SCOPE_EMPTY_ARGV,
	ARGGUARD_SCOPE_KERNEL, /* the kernel refused the exec before any LSM ran */
	ARGGUARD_NR_SCOPES,
};

enum argguard_verdict {
	ARGGUARD_VERDICT_ALLOW,
	ARGGUARD_VERDICT_AUDIT,
	ARGGUARD_VERDICT_WOULD_DENY,
	ARGGUARD_VERDICT_DENY,
	ARGGUARD_VERDICT_KERNEL_REFUSED, /* E2BIG from the kernel itself */
	ARGGUARD_NR_VERDICTS,
};

/* The limit that decided, in event.limit_kind. */
enum argguard_limit {
	ARGGUARD_LIMIT_NONE,
	ARGGUARD_LIMIT_ARGV_BYTES,
	ARGGUARD_LIMIT_ENVP_BYTES,
	ARGGUARD_LIMIT_TOTAL_BYTES,
	ARGGUARD_LIMIT_ARGC,
	ARGGUARD_LIMIT_ENVC,
	ARGGUARD_LIMIT_EMPTY_ARGV,
	ARGGUARD_LIMIT_KERNEL, /* the kernel's own: RLIMIT_STACK / 4, at most 6 MiB */
	ARGGUARD_LIMIT_EXEC_ARG_MAX, /* the kernel's, capped lower by fs.exec_arg_max */
};

/*
 * One rule. A limit of 0 means no limit. deny_errno is a positive errno
 * from a short list (E2BIG, EPERM, EACCES, ENOMEM); anything else reads as
 * E2BIG.
 */
struct argguard_rule {
	__u64 max_argv_bytes;
	__u64 max_envp_bytes;
	__u64 max_total_bytes;
	__u32 max_argc;
	__u32 max_envc;
	__u32 action;
	__s32 deny_errno;
};

/*
 * The one entry of the "config" map. Rules live in two sets; execs read
 * set active_set (0 or 1; other values read as active_set & 1), and a policy
 * apply writes the other set, then flips active_set with this one update.
 */
struct argguard_config {
	__u32 mode;
	__u32 active_set;
	__u32 empty_argv_action;
	__u32 head_bytes; /* command-line bytes per record; 0: 256, above 1024: 1024 */
	__u32 event_rate; /* records per second, token bucket; 0: no limit */
	__u32 event_burst; /* records let through at once; 0 reads as 1 */
	/*
	 * The daemon's enforcement probe: an exec by this process is denied
	 * with EPERM whatever the policy, and the program sets this back to 0,
	 * proving that its denials take effect. 0 the rest of the time.
	 */
	__u32 probe_tgid;
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
 */
struct argguard_cgroup_id_key {
	__u64 cgroup_id;
	__u32 set;
	__u32 pad;
};

/* Per-CPU decision counters: index scope * ARGGUARD_NR_VERDICTS + verdict. */
#define ARGGUARD_COUNTER(scope, verdict) ((scope)*ARGGUARD_NR_VERDICTS + (verdict))
#define ARGGUARD_NR_COUNTERS (ARGGUARD_NR_SCOPES * ARGGUARD_NR_VERDICTS)

/* Why a record never reached the ring buffer: the index of the "drops" map. */
enum argguard_drop {
	ARGGUARD_DROP_RATE_LIMITED, /* held back by config.event_rate: suppressed */
	ARGGUARD_DROP_RING_FULL, /* bpf_ringbuf_reserve() failed: lost */
	ARGGUARD_NR_DROPS,
};

/* Event flags. */
#define ARGGUARD_EV_EXACT_SIZES (1U << 0) /* patched kernel: argv/envp split and orig_argc known */
#define ARGGUARD_EV_SECUREEXEC (1U << 1) /* setuid, setgid or file-capability gain */
#define ARGGUARD_EV_HEAD_TRUNCATED (1U << 2) /* the command line goes on past head */
#define ARGGUARD_EV_HEAD_UNREADABLE (1U << 3) /* the caller's argv could not be read */
#define ARGGUARD_EV_SCRIPT (1U << 4) /* the file starts "#!": shebang holds the rest */

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
	__u32 head_len; /* bytes in head: head_args NUL-terminated arguments */
	__u32 head_args;
	char comm[ARGGUARD_COMM_LEN];
	char filename[ARGGUARD_FILENAME_LEN];
	/* With ARGGUARD_EV_SCRIPT, the bytes after "#!" as the kernel read them. */
	char shebang[ARGGUARD_SHEBANG_LEN];
	/* The head of argv, read from the caller's memory. Twice the size the
	 * verifier needs to see every bounded copy fit. */
	char head[2 * ARGGUARD_HEAD_MAX];
};

#endif /* ARGGUARD_H */
