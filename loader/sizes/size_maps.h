/* SPDX-License-Identifier: GPL-2.0 */
/* The size distributions from the pinned maps, summed over CPUs, with their scopes. */
#ifndef ARGGUARD_SIZE_MAPS_H
#define ARGGUARD_SIZE_MAPS_H

#include "policy_maps.h"
#include "size_data.h"

/*
 * The live policy from maps into live, then the "sizes", "largest",
 * "sizes_by_uid" and "cgroup_sizes" maps into d, summed over CPUs, with which scope each slot stands for; the largest execs' cgroups,
 * and the cgroups patterns judged, are named as cgroup_root has them now.
 * Returns 0 (free d with size_data_free()), or a negative errno with live
 * and d empty.
 */
int sizes_maps_read_live(const struct policy_maps *maps, const char *cgroup_root,
			 struct policy *live, struct size_data *d);

/*
 * The same maps into d, with the scopes of live, a policy the caller read
 * (policy_maps_read_live()). 0 (free d with size_data_free()), or a
 * negative errno with d empty.
 */
int sizes_maps_read(const struct policy_maps *maps, const struct policy *live,
		    const char *cgroup_root, struct size_data *d);

#endif /* ARGGUARD_SIZE_MAPS_H */
