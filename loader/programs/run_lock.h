/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One argguard run at a time: a second would attach a second set of
 * programs and fight over the pins. The lock is a flock on a file in /run,
 * held for the life of the process.
 */
#ifndef ARGGUARD_RUN_LOCK_H
#define ARGGUARD_RUN_LOCK_H

#include <stdbool.h>

#define ARGGUARD_RUN_LOCK "/run/argguard.lock"

/*
 * Take the run lock for the life of the process. Returns the lock's fd,
 * left open, or a negative errno (-EWOULDBLOCK while another run holds
 * it) with the reason logged (naming the live run's pid).
 */
int run_lock_take(void);

/* Whether another process holds the run lock: an argguard run is live. */
bool run_lock_held(void);

#endif /* ARGGUARD_RUN_LOCK_H */
