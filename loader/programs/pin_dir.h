/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pin directory, ARGGUARD_PIN_DIR on bpffs: made at a start, tidied
 * after a start that was killed while pinning, and emptied, which ends
 * enforcement, at argguard unload; the run lock that keeps it to one
 * argguard run at a time; and what a pinned link runs, and which build
 * loaded it. What is pinned there is the pin table's (pins.h).
 */
#ifndef ARGGUARD_PIN_DIR_H
#define ARGGUARD_PIN_DIR_H

#include <linux/bpf.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "pins.h"

/*
 * Where a start pins a new link before it renames it over the pin: "swap_"
 * and the pin's name (bpffs refuses a '.' in a name).
 */
#define SWAP_PREFIX "swap_"

/* ARGGUARD_PIN_DIR "/" SWAP_PREFIX and the pin's file name, into path. */
void pin_swap_path(enum pin pin, char *path, size_t len);

/* Mount bpffs if need be and make the pin directory. 0, or -errno with the reason logged. */
int pin_dir_make(void);

/*
 * A start killed while it pinned a link may leave the link pinned at its
 * swap path: take it as the pin if nothing is pinned there, else drop it
 * (the pin still enforces, and this start adopts or replaces it). Either
 * way no second program stays attached behind a name no start looks at.
 */
void pin_dir_finish_swaps(void);

/*
 * Remove every pin and the pin directory: the programs detach as their
 * links' pins go, and nothing enforces. Returns 0, or a negative errno
 * (-EBUSY while another process holds a link) with the reason logged.
 */
int pin_dir_remove(void);

/* argguard unload: pin_dir_remove(), unless an argguard run is live (-EBUSY). */
int pin_dir_unload(void);

/*
 * One argguard run at a time: a second would attach a second set of
 * programs and fight over the pins. The lock is a flock on a file in /run,
 * held for the life of the process.
 */

#define ARGGUARD_RUN_LOCK "/run/argguard.lock"

/*
 * Take the run lock for the life of the process. Returns the lock's fd,
 * left open, or a negative errno (-EWOULDBLOCK while another run holds
 * it) with the reason logged (naming the live run's pid).
 */
int run_lock_take(void);

/*
 * What a pinned link runs, and which build loaded it: the program behind
 * the link, its load's BTF object and maps, and the build id and kernel
 * features that load recorded in its .rodata.
 */

#define MAX_PROG_MAPS 32
/* libbpf's name for the object's read-only data map: the object's name, then the section's. */
#define RODATA_MAP_NAME "argguard.rodata"

/* The program behind a pinned link: the BTF object of its load, and its maps. */
struct pinned_prog {
	__u32 prog_id;
	__u32 btf_id;
	__u32 nr_map_ids;
	__u32 map_ids[MAX_PROG_MAPS];
};

/* The tag (a hash of the instructions) of the loaded program at fd. 0 or -errno. */
int prog_tag(int fd, __u8 tag[BPF_TAG_SIZE]);

/* The program behind the link pinned at pin, into *pp. 0, or -errno (-ENOENT: none). */
int pinned_prog_read(enum pin pin, struct pinned_prog *pp);

/*
 * Whether the bprm_check link pinned now runs a program this very build
 * loaded; if so, fills *pp with that program and *features with what its
 * load recorded.
 */
bool pinned_by_this_build(struct pinned_prog *pp, __u32 *features);

/* Whether one of the n programs uses the map map_id. */
bool pinned_progs_use_map(const struct pinned_prog *progs, unsigned int n, __u32 map_id);

#endif /* ARGGUARD_PIN_DIR_H */
