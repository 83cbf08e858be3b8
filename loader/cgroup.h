/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_CGROUP_H
#define ARGGUARD_CGROUP_H

#include <stdint.h>

/*
 * The path, relative to root (the cgroup v2 mount), of the cgroup whose id
 * (its directory's inode number) is id; "/" for root itself. Returns a
 * string to free(), or NULL if no such cgroup exists now.
 */
char *cgroup_path(const char *root, uint64_t id);

#endif /* ARGGUARD_CGROUP_H */
