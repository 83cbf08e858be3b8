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

union sizes_key {
	struct argguard_cgroup_sizes_key cgroup;
	struct argguard_sizes_by_uid_key uid;
};

struct sizes_reader {
	struct size_data *d;
	const char *cgroup_root;
	int (*add)(struct sizes_reader *r, const union sizes_key *key,
		   const struct argguard_sizes *value);
};

/*
 * Each entry of the hash map fd to r->add(). The programs may add or drop
 * entries as this reads: an entry gone between its key and its value is
 * left out.
 */
static int read_sizes_entries(int fd, struct sizes_reader *r)
{
	union sizes_key key, next, *prev = NULL;
	struct argguard_sizes value;
	int err;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &value))
			continue;
		err = r->add(r, &key, &value);
		if (err)
			return err;
	}
	return errno == ENOENT ? 0 : -errno;
}

/* A "cgroup_sizes" entry into d->cgroups, named as cgroup_root has its cgroup now. */
static int add_cgroup_sizes(struct sizes_reader *r, const union sizes_key *key,
			    const struct argguard_sizes *value)
{
	struct size_data *d = r->d;
	struct size_cgroup *c;
	int cerr;

	c = realloc(d->cgroups, (d->n_cgroups + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	d->cgroups = c;
	c = &d->cgroups[d->n_cgroups++];
	memset(c, 0, sizeof(*c));
	c->cgroup_id = key->cgroup.cgroup_id;
	c->slot = key->cgroup.size_slot % ARGGUARD_SIZE_SLOTS;
	size_hist_add(&c->hist, value);
	c->cgroup = cgroup_path(r->cgroup_root, c->cgroup_id, &cerr);
	return 0;
}

/* A "sizes_by_uid" entry into d->uids. */
static int add_sizes_by_uid(struct sizes_reader *r, const union sizes_key *key,
			    const struct argguard_sizes *value)
{
	struct size_uid *u;

	u = size_data_uid(r->d, key->uid.size_slot % ARGGUARD_SIZE_SLOTS, key->uid.uid);
	if (!u)
		return -ENOMEM;
	size_hist_add(&u->hist, value);
	return 0;
}

static int read_cgroup_sizes(int fd, const char *cgroup_root, struct size_data *d)
{
	struct sizes_reader r = { .d = d, .cgroup_root = cgroup_root, .add = add_cgroup_sizes };
	int err = read_sizes_entries(fd, &r);

	if (!err && d->n_cgroups)
		qsort(d->cgroups, d->n_cgroups, sizeof(*d->cgroups), by_slot_then_id);
	return err;
}

static int read_sizes_by_uid(int fd, struct size_data *d)
{
	struct sizes_reader r = { .d = d, .add = add_sizes_by_uid };
	int err = read_sizes_entries(fd, &r);

	if (!err)
		size_data_sort_uids(d);
	return err;
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
