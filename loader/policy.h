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
#define DEFAULT_CGROUP_ROOT "/sys/fs/cgroup"

struct uid_rule {
	uint32_t uid;
	struct argguard_rule rule;
};

/* A rule for whichever cgroup has path, now or later. */
struct cgroup_rule {
	char *path; /* relative to the cgroup v2 root, in canonical form */
	struct argguard_rule rule;
};

struct policy {
	uint32_t mode; /* enum argguard_mode */
	uint32_t empty_argv_action; /* enum argguard_action */
	uint32_t head_bytes; /* command-line bytes per record; 0: the default */
	uint32_t event_rate; /* records per second; 0: no limit */
	uint32_t event_burst;
	struct argguard_rule global;
	struct argguard_rule setuid;
	struct uid_rule *uids;
	size_t n_uids;
	struct cgroup_rule *cgroups;
	size_t n_cgroups;
};

/* The policy that an empty file gives: mode off, no limits, deny actions. */
void policy_init(struct policy *p);
void policy_free(struct policy *p);

/*
 * Parse a policy file. User names are resolved with getpwnam(); cgroup paths
 * are kept as written, whether or not such a cgroup exists. On error, returns -1 with a message of the form
 * "FILE:LINE: what was expected" in err, and leaves p empty.
 */
int policy_parse(FILE *in, const char *name, struct policy *p, char *err, size_t err_len);
int policy_parse_file(const char *path, struct policy *p, char *err, size_t err_len);

/*
 * Append a rule to p (the cgroup path is copied). Returns the stored rule,
 * or NULL when out of memory.
 */
struct argguard_rule *policy_add_uid(struct policy *p, uint32_t uid,
				     const struct argguard_rule *rule);
struct argguard_rule *policy_add_cgroup(struct policy *p, const char *path,
					const struct argguard_rule *rule);

/*
 * Whether path is a cgroup rule's path in canonical form: "/" or "/a/b",
 * no empty, "." or ".." component, and short enough for the maps.
 */
bool cgroup_path_valid(const char *path);

/* Print p as a policy file that policy_parse() reads back to the same policy. */
void policy_print(FILE *out, const struct policy *p);

const char *mode_name(uint32_t mode);
const char *action_name(uint32_t action);
const char *verdict_name(uint32_t verdict);
const char *drop_name(uint32_t reason);
const char *scope_name(uint32_t scope);
const char *limit_name(uint32_t limit);

#endif /* ARGGUARD_POLICY_H */
