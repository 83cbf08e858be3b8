/* SPDX-License-Identifier: GPL-2.0 */
/*
 * argguard's BPF programs from load to unload: the run lock, bpffs and the
 * pin directory, the load with every map at its pin, each link adopted or
 * attached and pinned, and the unpinning that ends enforcement. What is
 * pinned, and where, is the pin table's (pins.h).
 */
#ifndef ARGGUARD_PROGRAMS_H
#define ARGGUARD_PROGRAMS_H

#include <stdbool.h>

#include "pins.h"

#define ARGGUARD_RUN_LOCK "/run/argguard.lock"

/* The pinned load the daemon runs with: its maps, opened from their pins. */
struct programs;

/*
 * Take the run lock for the life of the process: a second `argguard run`
 * would attach a second set of programs and fight over the pins. Returns
 * the lock's fd, left open, or -1 with the reason logged.
 */
int programs_lock(void);

/*
 * Mount bpffs if need be and make the pin directory, load the BPF object
 * with each map at its pin (a pinned map is reused: the policy and the
 * counters carry on), call before_attach (which must leave the maps
 * holding a policy, or fail the start), then adopt each pinned link that
 * runs the very same program, or attach the program and pin its link. Pins that hold one
 * whole load of this very build are taken as they are; any other start
 * loads in a child process, and takes what it pinned. *earlier_pins says
 * whether maps were pinned before: a restart, not a fresh start. Returns
 * the programs, or NULL with the reason logged.
 */
struct programs *programs_start(bool *earlier_pins, int (*before_attach)(void));

/*
 * Tell the programs where fs.exec_arg_max lives, for the limit of the
 * records of execs the kernel refuses: a scan of /proc/kallsyms, done once
 * enforcing, and once a boot. Until then such records give the RLIMIT_STACK
 * limit. Failures are logged.
 */
void programs_find_exec_arg_max(const struct programs *p);

/* The fd of a map pin (pin < NR_MAP_PINS). */
int programs_map_fd(const struct programs *p, enum pin pin);

/* Close the programs: the pinned links, and enforcement, stay in place. */
void programs_close(struct programs *p);

/*
 * Remove every pin and the pin directory: the programs detach as their
 * links' pins go, and nothing enforces. Returns 0, or -1 with the reason
 * logged.
 */
int programs_unpin(void);

/* argguard unload: programs_unpin(), unless an argguard run is live. 0 or -1. */
int programs_unload(void);

#endif /* ARGGUARD_PROGRAMS_H */
