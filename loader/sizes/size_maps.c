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
	size_t key_size;
	const char *cgroup_root;
	int (*add)(struct sizes_reader *r, const union sizes_key *key,
		   const struct argguard_sizes *value);
};

static int add_sizes_entry(const void *key, const void *value, void *ctx)
{
	struct sizes_reader *r = ctx;
	union sizes_key k = { 0 };

	memcpy(&k, key, r->key_size);
	return r->add(r, &k, value);
}

/*
 * Each entry of the hash map fd, its keys key_size bytes, to r->add(). The
 * programs may add or drop entries as this reads: one dropped is left out.
 */
static int read_sizes_entries(int fd, size_t key_size, struct sizes_reader *r)
{
	r->key_size = key_size;
	return map_read_entries(fd, key_size, sizeof(struct argguard_sizes), add_sizes_entry, r);
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
	int err = read_sizes_entries(fd, sizeof(struct argguard_cgroup_sizes_key), &r);

	if (!err && d->n_cgroups)
		qsort(d->cgroups, d->n_cgroups, sizeof(*d->cgroups), by_slot_then_id);
	return err;
}

static int read_sizes_by_uid(int fd, struct size_data *d)
{
	struct sizes_reader r = { .d = d, .add = add_sizes_by_uid };
	int err = read_sizes_entries(fd, sizeof(struct argguard_sizes_by_uid_key), &r);

	if (!err)
		size_data_sort_uids(d);
	return err;
}

/* A per-CPU array's entries to sizes_maps_read(): the entry at key, each CPU's. */
struct per_cpu_reader {
	struct size_data *d;
	int ncpus;
};

static int add_sizes(const void *key, const void *value, void *ctx)
{
	const struct per_cpu_reader *r = ctx;
	const struct argguard_sizes *cpus = value;
	__u32 at;

	memcpy(&at, key, sizeof(at));
	if (!at || at >= ARGGUARD_SIZE_ENTRIES)
		return 0;
	for (int c = 0; c < r->ncpus; c++)
		size_hist_add(at < ARGGUARD_SIZE_DENIED ? &r->d->hist[at]
							: &r->d->denied[at - ARGGUARD_SIZE_DENIED],
			      &cpus[c]);
	return 0;
}

static int add_largest(const void *key, const void *value, void *ctx)
{
	const struct per_cpu_reader *r = ctx;
	const struct argguard_largest *top = value;
	__u32 at;

	memcpy(&at, key, sizeof(at));
	if (!at || at >= ARGGUARD_SIZE_ENTRIES)
		return 0;
	for (int c = 0; c < r->ncpus; c++)
		size_data_add_largest(r->d, &top[c], at >= ARGGUARD_SIZE_DENIED);
	return 0;
}

/* A per-CPU value is a value a CPU, each rounded up to 8 bytes: these are already. */
_Static_assert(sizeof(struct argguard_sizes) % 8 == 0 && sizeof(struct argguard_largest) % 8 == 0,
	       "a per-CPU value as the kernel lays it out");

int sizes_maps_read(const struct policy_maps *maps, const struct policy *live,
		    const char *cgroup_root, struct size_data *d)
{
	struct per_cpu_reader r = { .d = d, .ncpus = libbpf_num_possible_cpus() };
	int err;

	err = size_data_init(d);
	if (err)
		return err;
	if (r.ncpus <= 0) {
		size_data_free(d);
		return r.ncpus ? r.ncpus : -EINVAL;
	}
	size_slots_scopes(live, d->scopes);
	err = map_read_entries(maps->fd[PIN_SIZES], sizeof(__u32),
			       r.ncpus * sizeof(struct argguard_sizes), add_sizes, &r);
	if (!err)
		err = map_read_entries(maps->fd[PIN_LARGEST], sizeof(__u32),
				       r.ncpus * sizeof(struct argguard_largest), add_largest, &r);
	if (err)
		goto fail;
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
	if (!err)
		return 0;
fail:
	size_data_free(d);
	return err;
}

int sizes_maps_read_live(const struct policy_maps *maps, const char *cgroup_root,
			 struct policy *live, struct size_data *d)
{
	int err = policy_maps_read(maps, live);

	if (err)
		return err;
	err = sizes_maps_read(maps, live, cgroup_root, d);
	if (err)
		policy_free(live);
	return err;
}
