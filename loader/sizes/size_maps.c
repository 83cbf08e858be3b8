// SPDX-License-Identifier: GPL-2.0
#include "size_maps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cgroup.h"

static int by_slot_then_id(const void *a, const void *b)
{
	const struct size_cgroup *x = a, *y = b;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	return x->cgroup_id < y->cgroup_id ? -1 : x->cgroup_id > y->cgroup_id;
}

/*
 * The "cgroup_sizes" entries into d->cgroups, each named as cgroup_root has
 * its cgroup now. The programs may add or drop entries as this reads: an
 * entry gone between its key and its value is left out.
 */
static int read_cgroup_sizes(int fd, const char *cgroup_root, struct size_data *d)
{
	struct argguard_cgroup_sizes_key key, next;
	struct argguard_cgroup_sizes_key *prev = NULL;
	struct argguard_sizes value;
	struct size_cgroup *c;
	int cerr;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &value))
			continue;
		c = realloc(d->cgroups, (d->n_cgroups + 1) * sizeof(*c));
		if (!c)
			return -ENOMEM;
		d->cgroups = c;
		c = &d->cgroups[d->n_cgroups++];
		memset(c, 0, sizeof(*c));
		c->cgroup_id = key.cgroup_id;
		c->slot = key.size_slot % ARGGUARD_SIZE_SLOTS;
		size_hist_add(&c->hist, &value);
		c->cgroup = cgroup_path(cgroup_root, key.cgroup_id, &cerr);
	}
	if (errno != ENOENT)
		return -errno;
	if (d->n_cgroups)
		qsort(d->cgroups, d->n_cgroups, sizeof(*d->cgroups), by_slot_then_id);
	return 0;
}

/* The "sizes_by_uid" entries into d->uids; as with cgroup_sizes, one gone as this reads is left out. */
static int read_sizes_by_uid(int fd, struct size_data *d)
{
	struct argguard_sizes_by_uid_key key, next, *prev = NULL;
	struct argguard_sizes value;
	struct size_uid *u;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &value))
			continue;
		u = realloc(d->uids, (d->n_uids + 1) * sizeof(*u));
		if (!u)
			return -ENOMEM;
		d->uids = u;
		u = &d->uids[d->n_uids++];
		memset(u, 0, sizeof(*u));
		u->slot = key.size_slot % ARGGUARD_SIZE_SLOTS;
		u->uid = key.uid;
		size_hist_add(&u->hist, &value);
	}
	if (errno != ENOENT)
		return -errno;
	size_data_sort_uids(d);
	return 0;
}

/*
 * The maps into d, and which scope each slot stands for from live (read by
 * policy_maps_read()): "sizes" (what ran and what was denied), "largest"
 * (the same, each slot's table), "sizes_by_uid" and "cgroup_sizes".
 */
static int sizes_maps_read(const struct policy_maps *maps, const struct policy *live,
			   const char *cgroup_root, struct size_data *d)
{
	int ncpus = libbpf_num_possible_cpus();
	struct argguard_largest *top = NULL;
	struct argguard_sizes *cpus;
	int err;

	err = size_data_init(d);
	if (err)
		return err;
	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	cpus = calloc(ncpus, sizeof(*cpus));
	top = calloc(ncpus, sizeof(*top));
	if (!cpus || !top) {
		err = -ENOMEM;
		goto out;
	}
	size_slots_scopes(live, d->scopes);
	for (__u32 at = 1; at < ARGGUARD_SIZE_ENTRIES; at++) {
		struct size_hist *h = at < ARGGUARD_SIZE_DENIED
					      ? &d->hist[at]
					      : &d->denied[at - ARGGUARD_SIZE_DENIED];

		if (bpf_map_lookup_elem(maps->fd[PIN_SIZES], &at, cpus)) {
			err = -errno;
			goto out;
		}
		for (int c = 0; c < ncpus; c++)
			size_hist_add(h, &cpus[c]);
	}
	for (__u32 at = 1; at < ARGGUARD_SIZE_ENTRIES; at++) {
		if (bpf_map_lookup_elem(maps->fd[PIN_LARGEST], &at, top)) {
			err = -errno;
			goto out;
		}
		for (int c = 0; c < ncpus; c++)
			size_data_add_largest(d, &top[c], at >= ARGGUARD_SIZE_DENIED);
	}
	for (size_t i = 0; i < d->n_largest; i++) {
		int cerr;

		d->largest[i].cgroup = cgroup_path(cgroup_root, d->largest[i].cgroup_id, &cerr);
	}
	for (size_t i = 0; i < d->n_largest_denied; i++) {
		int cerr;

		d->largest_denied[i].cgroup =
			cgroup_path(cgroup_root, d->largest_denied[i].cgroup_id, &cerr);
	}
	err = read_sizes_by_uid(maps->fd[PIN_SIZES_BY_UID], d);
	if (!err)
		err = read_cgroup_sizes(maps->fd[PIN_CGROUP_SIZES], cgroup_root, d);
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
	err = sizes_maps_read(maps, live, cgroup_root, d);
	if (err) {
		size_data_free(d);
		policy_free(live);
	}
	return err;
}
