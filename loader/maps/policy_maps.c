// SPDX-License-Identifier: GPL-2.0
/*
 * The pinned maps: open them, read the live settings and counters, and read
 * the live policy back (its apply is policy_maps_write.c).
 */
#include "policy_maps.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "names.h"
#include "policy_diff.h"

int policy_maps_open(struct policy_maps *m)
{
	char path[256];
	int err;

	for (int i = 0; i < NR_MAP_PINS; i++)
		m->fd[i] = -1;
	for (int i = 0; i < NR_MAP_PINS; i++) {
		pin_path(i, path, sizeof(path));
		m->fd[i] = bpf_obj_get(path);
		if (m->fd[i] < 0) {
			err = -errno;
			log_error("failed to open %s: %s (is argguard loaded?)", path,
				  strerror(-err));
			policy_maps_close(m);
			return err;
		}
	}
	return 0;
}

void policy_maps_close(struct policy_maps *m)
{
	for (int i = 0; i < NR_MAP_PINS; i++) {
		if (m->fd[i] >= 0)
			close(m->fd[i]);
		m->fd[i] = -1;
	}
}

int read_live_settings(int config_fd, int settings_fd, __u32 *set,
		       struct argguard_settings *settings)
{
	struct argguard_config cfg;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(config_fd, &zero, &cfg))
		return -errno;
	*set = cfg.active_set & 1;
	return bpf_map_lookup_elem(settings_fd, set, settings) ? -errno : 0;
}

uint64_t counter_sum(int fd, __u32 key)
{
	int ncpus = libbpf_num_possible_cpus();
	__u64 values[ncpus > 0 ? ncpus : 1];
	uint64_t sum = 0;

	if (ncpus <= 0 || bpf_map_lookup_elem(fd, &key, values))
		return 0;
	for (int i = 0; i < ncpus; i++)
		sum += values[i];
	return sum;
}

int read_policy_state(int config_fd, enum argguard_policy_state *state)
{
	struct argguard_config cfg;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(config_fd, &zero, &cfg))
		return -errno;
	*state = cfg.policy_state < ARGGUARD_NR_POLICY_STATES ? cfg.policy_state
							      : ARGGUARD_POLICY_UNSET;
	return 0;
}

/* Entries one batch read asks for: far more than a hash bucket holds. */
#define READ_BATCH 256

/*
 * Each entry of the hash map fd the slow way, two syscalls an entry: for a
 * map that takes no batch read. A key deleted under the walk restarts it
 * from the first key, and some entries are met again.
 */
static int map_walk(int fd, size_t key_size, size_t value_size, map_entry_fn *each, void *ctx)
{
	unsigned char *key = malloc(2 * key_size + value_size), *next, *value;
	bool first = true;
	int err = 0;

	if (!key)
		return -ENOMEM;
	next = key + key_size;
	value = next + key_size;
	while (!bpf_map_get_next_key(fd, first ? NULL : key, next)) {
		first = false;
		memcpy(key, next, key_size);
		if (bpf_map_lookup_elem(fd, key, value))
			continue; /* deleted under us */
		err = each(key, value, ctx);
		if (err)
			break;
	}
	if (!err && errno != ENOENT)
		err = -errno;
	free(key);
	return err;
}

int map_read_entries(int fd, size_t key_size, size_t value_size, map_entry_fn *each, void *ctx)
{
	/* A hash map's batch token is a bucket index; an array's, a key. */
	size_t token_size = key_size > sizeof(__u64) ? key_size : sizeof(__u64);
	unsigned char *keys = malloc(READ_BATCH * (key_size + value_size) + 2 * token_size);
	DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, opts);
	unsigned char *values, *in, *out;
	bool first = true;
	int err;

	if (!keys)
		return -ENOMEM;
	values = keys + READ_BATCH * key_size;
	in = values + READ_BATCH * value_size;
	out = in + token_size;
	for (;;) {
		__u32 count = READ_BATCH;

		err = bpf_map_lookup_batch(fd, first ? NULL : in, out, keys, values, &count, &opts);
		if (err && err != -ENOENT) {
			if (!first)
				break;
			/* No batch here (or a bucket past READ_BATCH): entry by entry. */
			free(keys);
			return map_walk(fd, key_size, value_size, each, ctx);
		}
		for (__u32 i = 0; i < count; i++) {
			int add_err = each(keys + i * key_size, values + i * value_size, ctx);

			if (add_err) {
				free(keys);
				return add_err;
			}
		}
		if (err == -ENOENT) { /* the map's end */
			err = 0;
			break;
		}
		first = false;
		memcpy(in, out, token_size);
	}
	free(keys);
	return err;
}

struct set_reader {
	size_t set_offset;
	__u32 set;
	int (*add)(struct set_reader *r, const void *key, const struct argguard_rule *rule);
	struct policy *p;
	size_t room; /* the uid rules p->uids has room for */
};

static int add_if_in_set(const void *key, const void *value, void *ctx)
{
	struct set_reader *r = ctx;
	__u32 key_set;

	memcpy(&key_set, (const unsigned char *)key + r->set_offset, sizeof(key_set));
	return key_set == r->set ? r->add(r, key, value) : 0;
}

static int read_hash_set(int fd, size_t key_size, size_t set_offset, __u32 set,
			 int (*add)(struct set_reader *, const void *,
				    const struct argguard_rule *),
			 struct policy *p)
{
	struct set_reader r = { .set_offset = set_offset, .set = set, .add = add, .p = p };

	return map_read_entries(fd, key_size, sizeof(struct argguard_rule), add_if_in_set, &r);
}

/*
 * The uid rules grow by doubling: a realloc() for each of 1,000 rules cost
 * the daemon's tick more than reading them from the map.
 */
static int add_uid(struct set_reader *r, const void *key, const struct argguard_rule *rule)
{
	struct policy *p = r->p;

	if (p->n_uids == r->room) {
		size_t room = r->room ? 2 * r->room : 64;
		struct uid_rule *more = realloc(p->uids, room * sizeof(*more));

		if (!more)
			return -ENOMEM;
		p->uids = more;
		r->room = room;
	}
	p->uids[p->n_uids++] =
		(struct uid_rule){ .uid = ((const struct argguard_uid_key *)key)->uid,
				   .rule = *rule };
	return 0;
}

static int add_cgroup(struct set_reader *r, const void *key, const struct argguard_rule *rule)
{
	struct policy *p = r->p;
	const struct argguard_cgroup_key *k = key;
	char path[sizeof(k->path) + 1];

	/* A bpftool-written key need not end in a NUL. */
	snprintf(path, sizeof(path), "%.*s", (int)sizeof(k->path), k->path);
	return policy_add_cgroup(p, path, rule, 0) ? 0 : -ENOMEM;
}

int policy_maps_read(const struct policy_maps *m, struct policy *p)
{
	struct argguard_settings settings = { 0 };
	__u32 set;
	int err;

	policy_init(p);
	err = read_live_settings(m->fd[PIN_CONFIG], m->fd[PIN_SETTINGS], &set, &settings);
	if (err)
		return err;
	p->mode = settings.mode;
	p->empty_argv_action = settings.empty_argv_action;
	p->head_bytes = settings.head_bytes;
	p->event_rate = settings.event_rate;
	p->event_burst = settings.event_burst;
	p->event_rate_total = settings.event_rate_total;
	if (bpf_map_lookup_elem(m->fd[PIN_GLOBAL_RULES], &set, &p->global) ||
	    bpf_map_lookup_elem(m->fd[PIN_SETUID_RULES], &set, &p->setuid))
		return -errno;
	p->learn_sizes = p->global.size_slot != ARGGUARD_SIZE_SLOT_NONE;
	err = read_hash_set(m->fd[PIN_UID_RULES], sizeof(struct argguard_uid_key),
			    offsetof(struct argguard_uid_key, set), set, add_uid, p);
	if (!err)
		err = read_hash_set(m->fd[PIN_CGROUP_RULES], sizeof(struct argguard_cgroup_key),
				    offsetof(struct argguard_cgroup_key, set), set, add_cgroup, p);
	if (err)
		policy_free(p);
	return err;
}

/*
 * Does sorted p hold a rule twice? A hash map walk that meets a key deleted
 * under it (an apply clearing the other set) starts again from the first
 * key, and reads some rules again.
 */
static bool has_duplicates(const struct policy *p)
{
	for (size_t i = 1; i < p->n_uids; i++)
		if (p->uids[i].uid == p->uids[i - 1].uid)
			return true;
	for (size_t i = 1; i < p->n_cgroups; i++)
		if (!strcmp(p->cgroups[i].path, p->cgroups[i - 1].path))
			return true;
	return false;
}

int policy_maps_read_live(const struct policy_maps *m, struct policy *p)
{
	struct argguard_config before, after;
	__u32 zero = 0;
	int err;

	/*
	 * An apply clears and writes the other set, then flips active_set and
	 * counts cgroup_generation up: a read it overlapped is made again.
	 */
	for (int tries = 0; tries < 10; tries++) {
		if (bpf_map_lookup_elem(m->fd[PIN_CONFIG], &zero, &before))
			return -errno;
		err = policy_maps_read(m, p);
		if (err)
			return err;
		if (bpf_map_lookup_elem(m->fd[PIN_CONFIG], &zero, &after)) {
			err = -errno;
			policy_free(p);
			return err;
		}
		policy_sort(p);
		if (before.active_set == after.active_set &&
		    before.cgroup_generation == after.cgroup_generation && !has_duplicates(p))
			return 0;
		policy_free(p);
	}
	return -EAGAIN;
}

char *policy_maps_live_text(const struct policy_maps *m, int *err)
{
	struct policy p;
	char *text;

	*err = policy_maps_read_live(m, &p);
	if (*err)
		return NULL;
	text = policy_canonical_text(&p);
	policy_free(&p);
	*err = text ? 0 : -ENOMEM;
	return text;
}
