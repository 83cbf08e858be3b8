/* SPDX-License-Identifier: GPL-2.0 */
/* The size distributions from the pinned maps, summed over CPUs, with their scopes. */
#ifndef ARGGUARD_SIZES_MAPS_H
#define ARGGUARD_SIZES_MAPS_H

#include "policy_maps.h"
#include "sizes.h"

/*
 * Read the "sizes" and "largest" maps into d, and which scope each slot
 * stands for from the live policy live (read by policy_maps_read()); the
 * largest execs' cgroups are named as cgroup_root has them now. Returns 0
 * or a negative errno.
 */
int sizes_maps_read(int sizes_fd, int largest_fd, const struct policy *live,
		    const char *cgroup_root, struct size_data *d);

#endif /* ARGGUARD_SIZES_MAPS_H */
