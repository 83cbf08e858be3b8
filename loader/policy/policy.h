/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The site policy in memory: parsed from the policy file, written to and read
 * back from the pinned maps, and printed as a policy file again.
 */
#ifndef ARGGUARD_POLICY_H
#define ARGGUARD_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>

#include "argguard.h"

#define DEFAULT_POLICY_FILE "/etc/argguard/argguard.conf"
/* A policy file PATH's fragments: PATH.d/NAME.conf, read after it in strcmp() order of NAME. */
#define POLICY_FRAGMENT_DIR_SUFFIX ".d"
#define POLICY_FRAGMENT_SUFFIX ".conf"
#define DEFAULT_CGROUP_ROOT "/sys/fs/cgroup"

/*
 * The longest line a policy file may have, in bytes, its line ending not
 * counted. A longer line is an error, never cut in two. Far more than the
 * longest line policy_print() writes: "[cgroup PATH]" with a PATH of 254
 * bytes, the most the maps hold. (A plain number: argguard --help prints it.)
 */
#define POLICY_LINE_MAX 4096
_Static_assert(
	sizeof("[cgroup ]") - 1 + ARGGUARD_CGROUP_PATH_LEN - 2 <= POLICY_LINE_MAX,
	"policy_print() writes a cgroup rule's header on one line that policy_parse() reads");

/* The most records per second event_rate(_total) can ask for, and the largest event_burst. */
#define POLICY_EVENT_RATE_MAX 1000000U
#define POLICY_EVENT_BURST_MAX 1000000U

/*
 * A rule that root's shell or sudo would meet locks admins out when it
 * denies, in enforce mode, with a byte limit under LOCKOUT_MIN_BYTES or an
 * argc or envc limit under LOCKOUT_MIN_COUNT.
 */
#define LOCKOUT_MIN_BYTES (32 << 10)
#define LOCKOUT_MIN_COUNT 64

/*
 * The limits a rule sets, one row each: X(KEY, UNIT, LOCKOUT_FLOOR). KEY is
 * the policy file's key and the struct argguard_rule member it sets. UNIT
 * is BYTES (0 to 2^64 - 1) or COUNT (0 to 2^32 - 1), either written with
 * K, M or G, 0 meaning no limit. A deny rule that admins meet, with the
 * limit set under LOCKOUT_FLOOR, locks them out; the audit_ limits (the
 * would-deny tier) deny nothing, so their floor is 0. The reader, the
 * printer and the lockout gate walk this table, in this order; each KEY is
 * also the name the records give the limit crossed (ARGGUARD_LIMITS).
 */
#define POLICY_LIMITS(X)                             \
	X(max_argv_bytes, BYTES, LOCKOUT_MIN_BYTES)  \
	X(max_envp_bytes, BYTES, LOCKOUT_MIN_BYTES)  \
	X(max_total_bytes, BYTES, LOCKOUT_MIN_BYTES) \
	X(max_argc, COUNT, LOCKOUT_MIN_COUNT)        \
	X(max_envc, COUNT, LOCKOUT_MIN_COUNT)        \
	X(audit_max_argv_bytes, BYTES, 0)            \
	X(audit_max_envp_bytes, BYTES, 0)            \
	X(audit_max_total_bytes, BYTES, 0)           \
	X(audit_max_argc, COUNT, 0)                  \
	X(audit_max_envc, COUNT, 0)

enum policy_unit { POLICY_BYTES, POLICY_COUNT };

#define POLICY_LIMIT_ENUMERATOR(key, unit, floor) POLICY_LIMIT_##key,
enum policy_limit { POLICY_LIMITS(POLICY_LIMIT_ENUMERATOR) POLICY_NR_LIMITS };

/* One row of POLICY_LIMITS, and the largest value its unit allows. */
struct policy_limit_info {
	const char *key;
	enum policy_unit unit;
	uint64_t max;
	uint64_t lockout_floor;
};

extern const struct policy_limit_info policy_limits[POLICY_NR_LIMITS];

/* A rule's limit l, and the same set to value (at most policy_limits[l].max). */
uint64_t policy_limit_get(const struct argguard_rule *r, enum policy_limit l);
void policy_limit_set(struct argguard_rule *r, enum policy_limit l, uint64_t value);

/*
 * The groups whose members administer the machine when a file has no
 * admin_groups: those of them that exist.
 */
#define POLICY_DEFAULT_ADMIN_GROUPS "sudo", "adm", "wheel"

struct uid_rule {
	uint32_t uid;
	unsigned int line; /* of the section in the policy file; 0 if not from a file */
	struct argguard_rule rule;
};

/* A rule for whichever cgroup has path, now or later. */
struct cgroup_rule {
	char *path; /* below the cgroup v2 root, as cgroup_path_canonical() spells it */
	unsigned int line;
	struct argguard_rule rule;
};

/*
 * One of the files a policy was read from: the main file, then its
 * fragments. The reader numbers lines on across them: line L of the policy
 * is line L - first of the last file whose first is below L
 * (policy_where()). Each file has one number at least, empty or not.
 */
struct policy_part {
	char *name;
	unsigned int first;
};

struct policy {
	uint32_t mode; /* enum argguard_mode */
	uint32_t empty_argv_action; /* enum argguard_action */
	uint32_t head_bytes; /* command-line bytes per record; 0: the default */
	uint32_t event_rate; /* records per second for each uid; 0: no limit */
	uint32_t event_burst;
	uint32_t event_rate_total; /* records per second for all uids; 0: no limit */
	bool allow_lockout; /* the file says the daemon may apply it even if it locks admins out */
	/*
	 * Count the sizes of the execs each rule judges (argguard report);
	 * the default. In the maps: a global rule with a size slot.
	 */
	bool learn_sizes;
	/*
	 * admin_groups: the groups whose members the lockout gate protects as
	 * it protects root; NULL (n_admin_groups 0) for the defaults. Only in
	 * a policy read from a file: the maps do not hold them.
	 */
	char **admin_groups;
	size_t n_admin_groups;
	/*
	 * unknown_names = error: a [user NAME] or an admin group that this
	 * host does not know is an error, not a warning. The file's own word.
	 */
	bool unknown_names_error;
	/*
	 * The [user NAME] sections and admin groups this host did not know
	 * when the file was read, skipped with a warning, and the line of the
	 * first. Only in a policy read from a file.
	 */
	unsigned int unknown_names, unknown_line;
	unsigned int global_line, setuid_line; /* of the first such section; 0 if none */
	/*
	 * The line of the [global] or [setuid] header above each limit set
	 * there: the files may each have one. 0 for a limit no file set.
	 */
	unsigned int global_limit_line[POLICY_NR_LIMITS], setuid_limit_line[POLICY_NR_LIMITS];
	struct argguard_rule global;
	struct argguard_rule setuid;
	struct uid_rule *uids;
	size_t n_uids;
	struct cgroup_rule *cgroups;
	size_t n_cgroups;
	struct policy_part *parts; /* the files read, in order; none if not from a file */
	size_t n_parts;
};

/*
 * An empty policy: mode off, no limits, deny actions. A policy file must set
 * the mode itself: policy_parse() refuses a file without one.
 */
void policy_init(struct policy *p);
void policy_free(struct policy *p);

/* What a rule is before its keys: no limits, and deny with E2BIG. */
struct argguard_rule policy_rule_default(void);

/*
 * A rule at least as strict as each of p's global, uid and cgroup rules:
 * whatever an exec, it judges it no milder than any of them does. What a
 * cgroup the index had no room for is judged by (argguard.h, cgroup_index).
 */
struct argguard_rule policy_strictest_rule(const struct policy *p);

/*
 * Parse a policy file. User names are resolved with getpwnam(), and
 * admin_groups with getgrnam(): one this host does not know is skipped
 * with a warning "FILE:LINE: ...; rule skipped" (counted in
 * unknown_names), or is an error if the file says unknown_names = error.
 * A skipped admin group stays in admin_groups: the lockout gate reads it
 * (policy_admins_lookup()). Cgroup paths are kept, in one spelling,
 * whether or not such a cgroup exists. Returns 0; or, with p left empty
 * and the first error logged as "FILE:LINE: what was expected" (log.h),
 * -EINVAL (-EIO if the file could not be read). Errors include a line
 * longer than POLICY_LINE_MAX, a section or key given twice, a value out
 * of its range and a file with no mode.
 *
 * policy_parse_file() reads the file at path, then its fragments
 * (policy_fragments()) as if each followed it: a section ends with its
 * file; [global] and [setuid] may each appear once in each file, each of
 * their keys once in all; a second rule for one uid or cgroup, or a key set
 * twice, is an error naming both places. It also returns the -errno of a
 * file or fragment it cannot open, logged as "failed to open FILE: ...",
 * and -EPERM for a fragment or fragment directory that someone other than
 * root (or the caller) could write, logged. policy_parse_one_file() reads
 * the file at path alone (the last good policy, which policy_print() wrote
 * from all of them).
 */
int policy_parse(FILE *in, const char *name, struct policy *p);
int policy_parse_file(const char *path, struct policy *p);
int policy_parse_one_file(const char *path, struct policy *p);

/*
 * The fragments of the policy file at path, into *names (each a path, the
 * array and each to free; policy_fragments_free()): the files in
 * "PATH.d" whose names end in ".conf" and do not start with '.', in
 * strcmp() order. None if there is no such directory. Returns 0 or a
 * negative errno (not logged): the directory cannot be read, or is no
 * directory.
 */
int policy_fragments(const char *path, char ***names, size_t *n);
void policy_fragments_free(char **names, size_t n);

/*
 * Line line of p as "FILE:LINE" into buf, the file one of p's parts, its
 * line counted from that file's start; name:line if p has no parts.
 */
const char *policy_where(const struct policy *p, unsigned int line, const char *name, char *buf,
			 size_t len);

/* The index in p->parts of the file line is in; p->n_parts if none. */
size_t policy_part_of(const struct policy *p, unsigned int line);

/* Room for policy_where(): a path, a colon and a line number. */
#define POLICY_WHERE_MAX 4200

/*
 * Append a rule to p (the cgroup path is copied), from line of the policy
 * file (0: from no file). Returns the stored rule, or NULL when out of memory.
 */
struct argguard_rule *policy_add_uid(struct policy *p, uint32_t uid,
				     const struct argguard_rule *rule, unsigned int line);
struct argguard_rule *policy_add_cgroup(struct policy *p, const char *path,
					const struct argguard_rule *rule, unsigned int line);

/*
 * A cgroup path in one spelling into out: no empty or '.' parts, '..' taken
 * back, no trailing '/'. Nothing is looked up. Returns 0; -EINVAL if path
 * does not start with '/' or leads above the root; -ENAMETOOLONG if it does
 * not fit out_len.
 */
int cgroup_path_canonical(const char *path, char *out, size_t out_len);

/*
 * A uid that administers the machine, and the group that makes it one; or,
 * maybe, one that a group this host does not know would make one.
 */
struct policy_admin {
	uint32_t uid;
	char user[64]; /* its name; "uid N" if this host does not know it */
	char group[64];
	bool maybe; /* group is an admin group this host does not know: it may be a member */
};

/* The uids that administer the machine, as policy_admins_lookup() finds them. */
struct policy_admins {
	struct policy_admin *list;
	size_t n;
};

/*
 * Look up the members of p's admin groups (or, without admin_groups, of
 * those of POLICY_DEFAULT_ADMIN_GROUPS that exist): each uid a group names
 * in its member list, and those that have the group as their primary group
 * among the uids that p's uid rules name, whose slice ("user-UID.slice") a
 * cgroup rule's path names, or that have a slice under
 * cgroup_root/user.slice now (cgroup_root NULL: none). Root is not looked
 * up: it is always an admin. A group that p's admin_groups names and this
 * host does not know (a directory service not up yet, say) could have any
 * of those uids as a member: then each of them that no known group makes
 * an admin is one, maybe (the gate judges its rules as an admin's). Returns
 * 0, or -ENOMEM with out empty.
 */
int policy_admins_lookup(const struct policy *p, const char *cgroup_root,
			 struct policy_admins *out);
void policy_admins_free(struct policy_admins *a);

/*
 * The gate that policy check, policy apply and the daemon share, admins
 * as policy_admins_lookup() found them: would p lock admins out, deny, in
 * enforce mode, commands as common as "argguard policy apply FILE" from
 * root's shell or through sudo? The rules that count are [global] (sudo
 * runs as the admin's own uid), [setuid] (sudo, su), [uid 0], the uid rule
 * of each admin in admins (NULL: none), and each [cgroup] rule, a path or
 * a pattern, that holds where root or an admin works: in their slice
 * "/user.slice/user-UID.slice", its session scopes (those under cgroup_root
 * now, cgroup_root NULL for none, and "session-1.scope" and
 * "session-c1.scope" always), their "user@UID.service" and its app.slice,
 * session.slice and init.scope; and on "/", "/init.scope",
 * "/system.slice", "/user.slice" and below it, and on ssh and getty units
 * below "/system.slice" (for a pattern, the sample cgroups there that
 * admin_cgroup() lists). Returns 0 if none does; 1 if one does but force
 * (--force) or the file's own "allow_lockout = yes" lets it through, with a
 * warning logged; -EPERM if it is refused, with an error logged; -ENOMEM,
 * logged. Either message starts "NAME:LINE: [section] key = value", names
 * the first such rule, for an admin's rule the group that makes it one, for
 * a cgroup rule that holds in a session the admin's uid and that cgroup,
 * and says what to do.
 */
int policy_lockout_gate(const struct policy *p, const struct policy_admins *admins,
			const char *cgroup_root, const char *name, bool force);

/* Room for the message policy_lockout_gate() logs, for a caller that captures it. */
#define POLICY_LOCKOUT_MSG 5120

/*
 * policy_lockout_gate() with the admins that policy_admins_lookup() finds
 * on this machine: what policy check, policy apply and the daemon call. It
 * also returns -ENOMEM, logged, if the lookup fails.
 */
int policy_lockout_gate_here(const struct policy *p, const char *name, bool force);

/* Print p as a policy file that policy_parse() reads back to the same policy. */
void policy_print(FILE *out, const struct policy *p);

/*
 * What policy_print_noted() asks before each section: the scope's comment
 * lines, printed just above its header (scope global, setuid, uid with
 * uid, or cgroup with path). ctx is the caller's.
 */
typedef void (*policy_note_fn)(FILE *out, enum argguard_scope scope, uint32_t uid, const char *path,
			       void *ctx);

/* policy_print(), with note's comment above each section, [setuid] always printed. */
void policy_print_noted(FILE *out, const struct policy *p, policy_note_fn note, void *ctx);

#endif /* ARGGUARD_POLICY_H */
