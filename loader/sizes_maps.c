// SPDX-License-Identifier: GPL-2.0
#include "sizes_maps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cgroup.h"

int sizes_maps_read(int sizes_fd, int largest_fd, const struct policy *live,
		    const char *cgroup_root, struct size_data *d)
{
	int ncpus = libbpf_num_possible_cpus();
	struct argguard_largest *top = NULL;
	struct argguard_sizes *cpus;
	__u32 zero = 0;
	int err = 0;

	memset(d, 0, sizeof(*d));
	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	cpus = calloc(ncpus, sizeof(*cpus));
	top = calloc(ncpus, sizeof(*top));
	if (!cpus || !top) {
		err = -ENOMEM;
		goto out;
	}
	size_slots_scopes(live, d->scopes);
	for (__u32 slot = 1; slot < ARGGUARD_SIZE_SLOTS; slot++) {
		if (bpf_map_lookup_elem(sizes_fd, &slot, cpus)) {
			err = -errno;
			goto out;
		}
		for (int c = 0; c < ncpus; c++)
			size_hist_add(&d->hist[slot], &cpus[c]);
	}
	if (bpf_map_lookup_elem(largest_fd, &zero, top)) {
		err = -errno;
		goto out;
	}
	for (int c = 0; c < ncpus; c++)
		size_data_add_largest(d, &top[c]);
	for (size_t i = 0; i < d->n_largest; i++) {
		int cerr;

		d->largest[i].cgroup = cgroup_path(cgroup_root, d->largest[i].cgroup_id, &cerr);
	}
out:
	free(cpus);
	free(top);
	return err;
}

int sizes_maps_read_live(const struct policy_maps *maps, const char *cgroup_root,
			 struct policy *live, struct size_data *d)
{
	int err = policy_maps_read(maps, live);

	if (err)
		return err;
	err = sizes_maps_read(maps->fd[PIN_SIZES], maps->fd[PIN_LARGEST], live, cgroup_root, d);
	if (err) {
		size_data_free(d);
		policy_free(live);
	}
	return err;
}
