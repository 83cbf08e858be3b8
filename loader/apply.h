/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Applying a policy file to the live maps, the one way every caller does it:
 * one apply at a time, the recovery switch on the kernel command line obeyed,
 * the last policy that applied kept for the next fresh start, and the outcome
 * recorded for argguard status.
 */
#ifndef ARGGUARD_APPLY_H
#define ARGGUARD_APPLY_H

#include <stdbool.h>
#include <sys/types.h>

#include "policy_maps.h"

#define ARGGUARD_STATE_DIR "/var/lib/argguard"
#define ARGGUARD_LAST_GOOD ARGGUARD_STATE_DIR "/last-good.conf"
#define ARGGUARD_APPLY_LOCK "/run/argguard.apply.lock"
#define ARGGUARD_APPLY_STATUS "/run/argguard.apply-status"
/*
 * Present while the policy in force skipped names this host did not know
 * when it was applied: argguard-names.service applies the file again once
 * name services are up (loader/system/).
 */
#define ARGGUARD_NAMES_UNKNOWN "/run/argguard.names-unknown"
/* How long argguard reload waits for the daemon, by default. */
#define RELOAD_TIMEOUT_S 60

/*
 * Take the apply lock: applies, and the daemon's enforcement probe, never
 * interleave. Blocks until it is free. Returns an fd to pass to
 * apply_unlock(), or a negative errno with the reason logged.
 */
int apply_lock(void);
void apply_unlock(int fd);

/*
 * Parse the policy file at path, and its fragments, and apply it,
 * reporting on stderr. A file
 * with an error, a policy that would lock admins out (unless force, or the
 * file's own allow_lockout = yes), or a failed apply leaves the live policy
 * as it was. The daemon never forces. Returns 0 or a negative errno.
 */
int policy_apply_file(const char *path, bool force);

/*
 * policy_apply_file() for argguard run's SIGHUP: never forced, and its
 * status says when it began, so that policy_reload_daemon() can tell its
 * outcome from an earlier one's.
 */
int policy_reload_file(const char *path);

/*
 * argguard reload: signal argguard run (pid) to apply its policy file, and
 * wait until an apply that began after the signal has finished, at most
 * timeout_s seconds. Its outcome is logged, the error's FILE:LINE
 * included. 0 once the file is live; -EINVAL if it was refused (the policy
 * in force is unchanged); another negative errno if pid is not argguard
 * run, or it ended or did not answer in time.
 */
int policy_reload_daemon(pid_t pid, unsigned int timeout_s);

/*
 * At a fresh start, or one whose predecessor died before it got here: apply
 * path, else the last policy that applied, else the built-in default (the
 * shipped file's: enforce over 2M, would-deny over 1M, and its record
 * rates; DEFAULT_POLICY_TEXT in apply.c), and mark the live set applied. Never leaves the
 * maps at mode off unless a policy that applied says so. Returns 0 when
 * path itself applied, 1 when a fallback is in force, -1 when nothing could
 * be applied.
 */
int policy_apply_at_start(const char *path);

/*
 * The policy file (argguard run's) whose mode the interim built-in default
 * takes, below. NULL, as before any call: mode enforce.
 */
void policy_interim_mode_from(const char *path);

/*
 * Before any program is attached over maps made afresh (policy_state
 * unset, which reads as mode off): write the last policy that applied, else
 * the built-in default, marked interim: in the mode of the file
 * policy_interim_mode_from() named, if it parses, so that a file in audit
 * mode (an install in audit mode) is never enforced before its own apply;
 * reading it is the one read of the file before the programs attach, and
 * only where no policy ever applied. Maps that hold a policy already are
 * left alone. If the start dies before policy_apply_at_start(), the pins
 * enforce this, and the next start applies the file. Returns 0, or a
 * negative errno with the reason logged: then nothing may be attached.
 */
int policy_hold_interim(void);

#endif /* ARGGUARD_APPLY_H */
