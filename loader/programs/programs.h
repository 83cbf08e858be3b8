/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A start of argguard's BPF programs, and the maps the daemon runs with:
 * the pins taken as they are, or a full load (program_load.h) first. What
 * is pinned, and where, is the pin table's (pins.h); the pin directory's
 * making and emptying, and the run lock, are pin_dir.h's.
 */
#ifndef ARGGUARD_PROGRAMS_H
#define ARGGUARD_PROGRAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "pins.h"

/* The pinned load the daemon runs with: its maps, opened from their pins. */
struct programs;

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

/* The fd of a map pin (pin < NR_MAP_PINS). */
int programs_map_fd(const struct programs *p, enum pin pin);

/* Close the programs: the pinned links, and enforcement, stay in place. */
void programs_close(struct programs *p);

/*
 * Whether the kernel the load was made for counts an exec's argv and envp
 * bytes apart (kernel_features.h): as the load recorded it, so the daemon
 * never reads the kernel's BTF itself.
 */
bool programs_exact_sizes(const struct programs *p);

/* The id of the BPF object this build loads: bpf/build-id.sh's ARGGUARD_BUILD_ID. */
uint64_t programs_build_id(void);

#endif /* ARGGUARD_PROGRAMS_H */
