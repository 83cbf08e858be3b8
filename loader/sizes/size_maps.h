/* SPDX-License-Identifier: GPL-2.0 */
/* The size distributions from the pinned maps, summed over CPUs, with their scopes. */
#ifndef ARGGUARD_SIZE_MAPS_H
#define ARGGUARD_SIZE_MAPS_H

#include "policy_maps.h"
#include "size_data.h"

/*
 * Read the "sizes", "largest" and "cgroup_sizes" (if cgroup_sizes_fd >= 0)
 * maps into d, and which scope each slot stands for from the live policy
 * live (read by policy_maps_read()); the largest execs' cgroups, and the
 * cgroups patterns judged, are named as cgroup_root has them now. Returns
 * 0 or a negative errno; free d with size_data_free() either way.
 */
int sizes_maps_read(int sizes_fd, int largest_fd, int cgroup_sizes_fd, const struct policy *live,
		    const char *cgroup_root, struct size_data *d);

/*
 * The live policy from maps into live, then the distributions into d as
 * sizes_maps_read() reads them. Returns 0, or a negative errno with live
 * empty.
 */
int sizes_maps_read_live(const struct policy_maps *maps, const char *cgroup_root,
			 struct policy *live, struct size_data *d);

#endif /* ARGGUARD_SIZE_MAPS_H */
