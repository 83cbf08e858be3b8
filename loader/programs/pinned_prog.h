/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a pinned link runs, and which build loaded it: the program behind
 * the link, its load's BTF object and maps, and the build id and kernel
 * features that load recorded in its .rodata.
 */
#ifndef ARGGUARD_PINNED_PROG_H
#define ARGGUARD_PINNED_PROG_H

#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/types.h>

#include "pins.h"

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
 * The map named name that one of the n programs uses, opened, with its
 * info; -ENOENT if none of them has one that holds at least value_size bytes.
 */
int pinned_prog_open_map(const struct pinned_prog *progs, unsigned int n, const char *name,
			 __u32 value_size, struct bpf_map_info *info);

/*
 * Whether the bprm_check link pinned now runs a program this very build
 * loaded; if so, fills *pp with that program and *features with what its
 * load recorded.
 */
bool pinned_by_this_build(struct pinned_prog *pp, __u32 *features);

/* Whether one of the n programs uses the map map_id. */
bool pinned_progs_use_map(const struct pinned_prog *progs, unsigned int n, __u32 map_id);

#endif /* ARGGUARD_PINNED_PROG_H */
