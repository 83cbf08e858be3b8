// SPDX-License-Identifier: GPL-2.0
#include "policy_maps.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cgroup.h"
#include "log.h"

static const char *const map_names[] = {
	[MAP_CONFIG] = "config",
	[MAP_GLOBAL_RULES] = "global_rules",
	[MAP_SETUID_RULES] = "setuid_rules",
	[MAP_UID_RULES] = "uid_rules",
	[MAP_CGROUP_RULES] = "cgroup_rules",
	[MAP_COUNTERS] = "counters",
	[MAP_DROPS] = "drops",
};

int policy_maps_open(struct policy_maps *m, char *err, size_t err_len)
{
	char path[256];

	for (int i = 0; i < NR_POLICY_MAPS; i++)
		m->fd[i] = -1;
	for (int i = 0; i < NR_POLICY_MAPS; i++) {
		snprintf(path, sizeof(path), "%s/%s", ARGGUARD_PIN_DIR, map_names[i]);
		m->fd[i] = bpf_obj_get(path);
		if (m->fd[i] < 0) {
			snprintf(err, err_len, "failed to open %s: %s (is argguard loaded?)", path,
				 strerror(errno));
			policy_maps_close(m);
			return -1;
		}
	}
	return 0;
}

void policy_maps_close(struct policy_maps *m)
{
	for (int i = 0; i < NR_POLICY_MAPS; i++) {
		if (m->fd[i] >= 0)
			close(m->fd[i]);
		m->fd[i] = -1;
	}
}

int policy_maps_config(const struct policy_maps *m, struct argguard_config *cfg)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(m->fd[MAP_CONFIG], &zero, cfg) ? -errno : 0;
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

/*
 * Delete every key of one rule set from a hash map keyed by (set, ...): walk
 * once to collect them, then delete, as a delete may reorder the walk.
 */
static int clear_set(int fd, size_t key_size, size_t set_offset, __u32 set)
{
	unsigned char key[sizeof(struct argguard_cgroup_key)];
	unsigned char *keys = NULL, *more;
	size_t n = 0, cap = 0;
	void *prev = NULL;
	__u32 key_set;
	int err = 0;

	while (!bpf_map_get_next_key(fd, prev, key)) {
		prev = key;
		memcpy(&key_set, key + set_offset, sizeof(key_set));
		if (key_set != set)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			more = realloc(keys, cap * key_size);
			if (!more) {
				err = -ENOMEM;
				goto out;
			}
			keys = more;
		}
		memcpy(keys + n++ * key_size, key, key_size);
	}
	if (errno != ENOENT) {
		err = -errno;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (bpf_map_delete_elem(fd, keys + i * key_size) && errno != ENOENT) {
			err = -errno;
			break;
		}
	}
out:
	free(keys);
	return err;
}

static int write_set(const struct policy_maps *m, const struct policy *p, __u32 set)
{
	int err;

	err = clear_set(m->fd[MAP_UID_RULES], sizeof(struct argguard_uid_key),
			offsetof(struct argguard_uid_key, set), set);
	if (!err)
		err = clear_set(m->fd[MAP_CGROUP_RULES], sizeof(struct argguard_cgroup_key),
				offsetof(struct argguard_cgroup_key, set), set);
	if (err)
		return err;
	if (bpf_map_update_elem(m->fd[MAP_GLOBAL_RULES], &set, &p->global, BPF_ANY) ||
	    bpf_map_update_elem(m->fd[MAP_SETUID_RULES], &set, &p->setuid, BPF_ANY))
		return -errno;
	for (size_t i = 0; i < p->n_uids; i++) {
		struct argguard_uid_key key = { .set = set, .uid = p->uids[i].uid };

		if (bpf_map_update_elem(m->fd[MAP_UID_RULES], &key, &p->uids[i].rule, BPF_ANY))
			return -errno;
	}
	for (size_t i = 0; i < p->n_cgroups; i++) {
		struct argguard_cgroup_key key = { .set = set, .cgroup_id = p->cgroups[i].id };

		if (bpf_map_update_elem(m->fd[MAP_CGROUP_RULES], &key, &p->cgroups[i].rule,
					BPF_ANY))
			return -errno;
	}
	return 0;
}

int policy_maps_apply(const struct policy_maps *m, const struct policy *p)
{
	struct argguard_config cfg;
	__u32 zero = 0, next;
	int err;

	err = policy_maps_config(m, &cfg);
	if (err)
		return err;
	next = (cfg.active_set & 1) ^ 1;
	err = write_set(m, p, next);
	if (err)
		return err;
	/* The one update that switches every exec to the new rules at once. */
	cfg = (struct argguard_config){
		.mode = p->mode,
		.active_set = next,
		.empty_argv_action = p->empty_argv_action,
		.head_bytes = p->head_bytes,
		.event_rate = p->event_rate,
		.event_burst = p->event_burst,
	};
	return bpf_map_update_elem(m->fd[MAP_CONFIG], &zero, &cfg, BPF_ANY) ? -errno : 0;
}

static int read_hash_set(int fd, size_t set_offset, __u32 set,
			 int (*add)(struct policy *, const void *, const struct argguard_rule *,
				    const char *),
			 struct policy *p, const char *cgroup_root)
{
	unsigned char key[sizeof(struct argguard_cgroup_key)];
	struct argguard_rule rule;
	void *prev = NULL;
	__u32 key_set;
	int err;

	while (!bpf_map_get_next_key(fd, prev, key)) {
		prev = key;
		memcpy(&key_set, key + set_offset, sizeof(key_set));
		if (key_set != set)
			continue;
		if (bpf_map_lookup_elem(fd, key, &rule))
			continue; /* deleted under us */
		err = add(p, key, &rule, cgroup_root);
		if (err)
			return err;
	}
	return 0;
}

static int add_uid(struct policy *p, const void *key, const struct argguard_rule *rule,
		   const char *cgroup_root)
{
	(void)cgroup_root;
	return policy_add_uid(p, ((const struct argguard_uid_key *)key)->uid, rule) ? 0 : -ENOMEM;
}

static int add_cgroup(struct policy *p, const void *key, const struct argguard_rule *rule,
		      const char *cgroup_root)
{
	uint64_t id = ((const struct argguard_cgroup_key *)key)->cgroup_id;
	char *path = cgroup_path(cgroup_root, id);
	struct argguard_rule *added = policy_add_cgroup(p, id, path, rule);

	free(path);
	return added ? 0 : -ENOMEM;
}

int policy_maps_read(const struct policy_maps *m, const char *cgroup_root, struct policy *p)
{
	struct argguard_config cfg;
	__u32 set;
	int err;

	policy_init(p);
	err = policy_maps_config(m, &cfg);
	if (err)
		return err;
	set = cfg.active_set & 1;
	p->mode = cfg.mode;
	p->empty_argv_action = cfg.empty_argv_action;
	p->head_bytes = cfg.head_bytes;
	p->event_rate = cfg.event_rate;
	p->event_burst = cfg.event_burst;
	if (bpf_map_lookup_elem(m->fd[MAP_GLOBAL_RULES], &set, &p->global) ||
	    bpf_map_lookup_elem(m->fd[MAP_SETUID_RULES], &set, &p->setuid))
		return -errno;
	err = read_hash_set(m->fd[MAP_UID_RULES], offsetof(struct argguard_uid_key, set), set,
			    add_uid, p, cgroup_root);
	if (!err)
		err = read_hash_set(m->fd[MAP_CGROUP_RULES],
				    offsetof(struct argguard_cgroup_key, set), set, add_cgroup, p,
				    cgroup_root);
	if (err)
		policy_free(p);
	return err;
}

/* Apply the policy file; a bad file leaves the policy in force as it was. */
int policy_apply_file(const char *path, bool force)
{
	static const char unchanged[] = "policy not applied, the live policy is unchanged: ";
	struct policy_maps maps;
	struct policy p;
	char err[512], why[POLICY_LOCKOUT_MSG];
	int ret = -1;

	/* Only root may apply: say so before judging the file. */
	if (policy_maps_open(&maps, err, sizeof(err))) {
		log_error("%s", err);
		return -1;
	}
	if (policy_parse_file(path, DEFAULT_CGROUP_ROOT, &p, err, sizeof(err))) {
		log_error("%s%s", unchanged, err);
		goto out_close;
	}
	ret = policy_lockout_gate(&p, path, force, why, sizeof(why));
	if (ret < 0) {
		log_error("%s%s", unchanged, why);
		goto out_free;
	}
	if (ret > 0)
		log_error("warning: %s", why);
	ret = policy_maps_apply(&maps, &p);
	if (ret)
		log_error("failed to apply %s, the live policy is unchanged: %s", path,
			  strerror(-ret));
out_free:
	policy_free(&p);
out_close:
	policy_maps_close(&maps);
	return ret ? -1 : 0;
}
