/* SPDX-License-Identifier: GPL-2.0 */
/*
 * argguard preflight: before enforcement, the units and the running
 * processes whose stack limit lets an exec through that the policy's deny
 * limits would deny. The kernel caps an exec's strings at a quarter of the
 * caller's soft RLIMIT_STACK (at most 6M, at least 128K, and under
 * fs.exec_arg_max where the kernel series has it): under Debian's 8M stack,
 * 2M, which the shipped policy denies nothing below. Read-only, from
 * /proc and systemctl; no BPF.
 */
#ifndef ARGGUARD_PREFLIGHT_H
#define ARGGUARD_PREFLIGHT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "policy.h"

/* The kernel's cap with no stack limit: 3/4 of _STK_LIM (8 MiB). */
#define PREFLIGHT_CAP_MAX (6ULL << 20)
/* And with the smallest: ARG_MAX, the 32 pages exec has always allowed. */
#define PREFLIGHT_CAP_MIN (128ULL << 10)

/*
 * The most string bytes the kernel lets an exec copy under a soft stack
 * limit of soft bytes (unlimited: none) and an fs.exec_arg_max of
 * arg_max (0: none).
 */
uint64_t preflight_kernel_cap(uint64_t soft, bool unlimited, uint64_t arg_max);

/*
 * The soft and hard "Max stack size" of a /proc/PID/limits text. 0, or
 * -EINVAL if it has no such line.
 */
int preflight_parse_limits(const char *text, uint64_t *soft, bool *soft_unlimited, uint64_t *hard,
			   bool *hard_unlimited);

/* One byte limit that an exec under the cap can cross, and the rule that sets it. */
struct preflight_denial {
	enum policy_limit limit; /* max_argv_bytes, max_envp_bytes or max_total_bytes */
	uint64_t bytes;
	char scope[300]; /* "[global]", "[uid 1000]", "[cgroup /PATH]" */
};

#define PREFLIGHT_MAX_DENIALS 3

/*
 * The deny limits of p that an exec by uid (uid_known false: a uid rule
 * cannot be found) in the cgroup at path can cross under cap, the rule
 * that judges it as the programs find it: its nearest ruled cgroup (a
 * pattern's rule, and the rules above it up to a literal one, tighten each
 * other), else its uid's rule, else [global]. Into out; returns how many.
 * The [setuid] rule, which judges privilege-gaining execs whatever the
 * stack, and the would-deny tier, which denies nothing, are left out.
 */
int preflight_judge(const struct policy *p, const char *cgroup, bool uid_known, uint32_t uid,
		    uint64_t cap, struct preflight_denial out[PREFLIGHT_MAX_DENIALS]);

/*
 * Where preflight reads: the proc file system, the directory whose
 * presence says systemd runs (/run/systemd/system), systemctl, and
 * fs.exec_arg_max. Each a path; tests give their own.
 */
struct preflight_sources {
	const char *proc;
	const char *systemd_dir;
	const char *systemctl;
	const char *exec_arg_max;
};

extern const struct preflight_sources preflight_system;

/*
 * Judge every unit systemd knows (services and sockets) and every process
 * in src->proc against p (read from policy_path), and print what an exec
 * could cross: text, or one JSON object. Returns 0 if nothing was found, 1
 * if something was, or a negative errno, logged, if a source could not be
 * read (a process that ends meanwhile is no error).
 */
int preflight_run(FILE *out, const struct policy *p, const char *policy_path,
		  const struct preflight_sources *src, bool json);

/* preflight [--format text|json] [--policy FILE]: 0, 1, or 2 on an error. */
int preflight_command(int argc, char **argv);

#endif /* ARGGUARD_PREFLIGHT_H */
