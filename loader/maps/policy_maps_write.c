// SPDX-License-Identifier: GPL-2.0
/*
 * A policy written into the rule set that execs are not reading, then made
 * live with one update of the config map (policy_maps_apply()).
 */
#include "policy_maps.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cgroup_pattern.h"
#include "cgroup_walk.h"
#include "log.h"
#include "map_memory.h"
#include "size_slots.h"

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

/*
 * cgroup_ids had no room for cgroup_id in set: count it in the set's
 * cgroup_index entry, as index_failed() in the BPF program does, with the
 * same atomics on the same memory, which the programs may be writing too.
 */
static int count_unindexed(int index_fd, __u32 set, __u64 cgroup_id)
{
	size_t len = 2 * sizeof(struct argguard_cgroup_index);
	struct argguard_cgroup_index *index;
	__u64 old;

	index = map_memory(index_fd, len);
	if (index == MAP_FAILED) {
		log_error("failed to map the cgroup index's counts: %s", strerror(errno));
		return -errno;
	}
	/* Once a set: an attacker's thousands of cgroups are not a warning each. */
	if (!__atomic_fetch_add(&index[set].failed_inserts, 1, __ATOMIC_SEQ_CST))
		log_warning(
			"the cgroup index is full (%d entries): cgroup %llu and those made "
			"after it are judged by the strictest rule; argguard status counts them",
			ARGGUARD_CGROUP_IDS_MAX, (unsigned long long)cgroup_id);
	old = __atomic_load_n(&index[set].first_unindexed, __ATOMIC_SEQ_CST);
	while ((!old || cgroup_id < old) &&
	       !__atomic_compare_exchange_n(&index[set].first_unindexed, &old, cgroup_id, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	map_memory_release(index, len);
	return 0;
}

/*
 * Index cgroup_id under key, the set's mark first. A full index is no
 * failed apply: the cgroup is counted, and judged by the set's
 * unindexed_rule (argguard.h, cgroup_index).
 */
static int index_insert(const struct policy_maps *m, const struct argguard_cgroup_key *key,
			__u64 cgroup_id)
{
	struct argguard_cgroup_id_key id = { .set = key->set,
					     .cgroup_id = ARGGUARD_CGROUP_IDS_USED };

	if (!bpf_map_update_elem(m->fd[PIN_CGROUP_IDS], &id, key, BPF_ANY)) {
		id.cgroup_id = cgroup_id;
		if (!bpf_map_update_elem(m->fd[PIN_CGROUP_IDS], &id, key, BPF_ANY))
			return 0;
	}
	if (errno != E2BIG)
		return -errno;
	return count_unindexed(m->fd[PIN_CGROUP_INDEX], key->set, cgroup_id);
}

/*
 * Index the cgroup at key's path, if it exists now. Any made from here on
 * is indexed by the cgroup_mkdir program, as the rule is already in place.
 */
static int index_cgroup(const struct policy_maps *m, const struct argguard_cgroup_key *key,
			const char *cgroup_root)
{
	char full[PATH_MAX];
	struct stat st;

	snprintf(full, sizeof(full), "%s%s", cgroup_root, key->path);
	if (stat(full, &st) || !S_ISDIR(st.st_mode))
		return 0;
	return index_insert(m, key, st.st_ino);
}

/* The cgroup_rules key of path in set: the whole key is hashed, padding too. */
static void rule_key(struct argguard_cgroup_key *key, __u32 set, const char *path)
{
	memset(key, 0, sizeof(*key));
	key->set = set;
	snprintf(key->path, sizeof(key->path), "%s", path);
}

/* The policy whose patterns index the cgroups walked. */
struct indexing {
	const struct policy *p;
	const struct policy_maps *m;
	__u32 set;
};

/* A cgroup that exists, judged by its pattern if no literal path names it. */
static int index_by_pattern(const char *path, ino_t ino, void *data)
{
	const struct indexing *x = data;
	struct argguard_cgroup_id_key id = { .set = x->set };
	struct argguard_cgroup_key key;
	long r = cgroup_rule_for(x->p, path);

	if (r < 0) {
		/*
		 * A cgroup_mkdir program that read the old patterns before they
		 * were cleared may have indexed it after the ids were: that key
		 * has no rule in this set, and would stop an exec's walk short
		 * of the rules of the cgroup's ancestors.
		 */
		id.cgroup_id = ino;
		if (bpf_map_delete_elem(x->m->fd[PIN_CGROUP_IDS], &id) && errno != ENOENT)
			return -errno;
		return 0;
	}
	if (!cgroup_is_pattern(x->p->cgroups[r].path))
		return 0; /* its literal rule's, indexed already */
	rule_key(&key, x->set, x->p->cgroups[r].path);
	return index_insert(x->m, &key, ino);
}

/*
 * The set's patterns into their slots, highest rank first, an empty path
 * after the last. The slots are written last to first: slot 0, emptied by
 * clear_patterns(), hides the rest until it is written, so the
 * cgroup_mkdir program never sees new patterns followed by the ones this
 * set held two applies ago. Returns how many, or a negative errno.
 */
static long write_pattern_slots(const struct policy_maps *m, const struct policy *p, __u32 set)
{
	size_t *order = malloc((p->n_cgroups + 1) * sizeof(*order)), n;
	struct argguard_cgroup_key key;
	__u32 slot;

	if (!order)
		return -ENOMEM;
	n = cgroup_patterns_ranked(p, order);
	for (size_t i = ARGGUARD_MAX_CGROUP_PATTERNS; i-- > 0;) {
		memset(&key, 0, sizeof(key));
		key.set = set;
		if (i < n)
			snprintf(key.path, sizeof(key.path), "%s", p->cgroups[order[i]].path);
		slot = set * ARGGUARD_MAX_CGROUP_PATTERNS + i;
		if (bpf_map_update_elem(m->fd[PIN_CGROUP_PATTERNS], &slot, &key, BPF_ANY)) {
			free(order);
			return -errno;
		}
	}
	free(order);
	return (long)n;
}

/*
 * Return once every cgroup whose cgroup_mkdir program ran before now can be
 * seen by a walk. The program runs under cgroup_mutex, just before the new
 * cgroup becomes visible (kernel/cgroup/cgroup.c, cgroup_mkdir():
 * TRACE_CGROUP_PATH(mkdir), then kernfs_activate(), in 6.1 as in 6.12).
 * A mkdir and rmdir of our own take the mutex too, so they return after
 * every such mkdir has finished. Else a program that read the rules and
 * slots before they were written would leave its cgroup unindexed, and a
 * walk that read its parent just before it became visible would miss it.
 */
static void wait_for_mkdirs(const char *cgroup_root)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/argguard-apply.%d", cgroup_root, (int)getpid());
	if (mkdir(path, 0700) && errno != EEXIST)
		log_warning("failed to make %s to wait for cgroups being made: %s; one made "
			    "during this apply may be judged by the rule above it until the next",
			    path, strerror(errno));
	rmdir(path);
}

/*
 * The set's cgroup rules, then its pattern slots; then, once every cgroup
 * made before them is visible, the cgroups that exist, indexed by their
 * literal paths and by the patterns. A cgroup made from then on is indexed
 * by the cgroup_mkdir program, which reads the rules and slots in place.
 */
static int write_cgroup_rules(const struct policy_maps *m, const struct policy *p, __u32 set,
			      const char *cgroup_root)
{
	struct indexing x = { .p = p, .m = m, .set = set };
	struct argguard_cgroup_key key;
	struct argguard_rule rule;
	long patterns;
	int err;

	for (size_t i = 0; i < p->n_cgroups; i++) {
		rule_key(&key, set, p->cgroups[i].path);
		rule = p->cgroups[i].rule;
		rule.flags &= ~ARGGUARD_RULE_TIGHTENS;
		if (cgroup_is_pattern(key.path))
			rule.flags |= ARGGUARD_RULE_TIGHTENS;
		if (bpf_map_update_elem(m->fd[PIN_CGROUP_RULES], &key, &rule, BPF_ANY))
			return -errno;
	}
	patterns = write_pattern_slots(m, p, set);
	if (patterns < 0)
		return (int)patterns;
	if (!p->n_cgroups)
		return 0;
	wait_for_mkdirs(cgroup_root);
	for (size_t i = 0; i < p->n_cgroups; i++) {
		if (cgroup_is_pattern(p->cgroups[i].path))
			continue;
		rule_key(&key, set, p->cgroups[i].path);
		err = index_cgroup(m, &key, cgroup_root);
		if (err)
			return err;
	}
	if (!patterns)
		return 0;
	/*
	 * The programs match no path of sizeof(key.path) - 1 bytes or more:
	 * a cgroup there takes its nearest shorter ancestor's rule, so what is
	 * below needs no index.
	 */
	return cgroup_walk(cgroup_root, sizeof(key.path) - 2, index_by_pattern, &x);
}

/* No pattern in the set: from here, the cgroup_mkdir program judges by none of its old ones. */
static int clear_patterns(const struct policy_maps *m, __u32 set)
{
	struct argguard_cgroup_key key = { .set = set };
	__u32 slot = set * ARGGUARD_MAX_CGROUP_PATTERNS;

	return bpf_map_update_elem(m->fd[PIN_CGROUP_PATTERNS], &slot, &key, BPF_ANY) ? -errno : 0;
}

/*
 * Return once every BPF program running when it was called has returned:
 * the kernel waits for an RCU grace period after each update of a map of
 * maps (kernel/bpf/syscall.c, maybe_wait_bpf_programs(), in 6.1 as in
 * 6.12), and the cgroup_mkdir program, a tp_btf one, runs inside
 * rcu_read_lock(). Two maps of our own, made and closed here.
 */
static int wait_for_programs(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int inner, outer, err = 0;
	__u32 zero = 0;

	inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, "argguard_wait", sizeof(__u32), sizeof(__u32), 1,
			       NULL);
	if (inner < 0)
		return -errno;
	opts.inner_map_fd = inner;
	outer = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "argguard_wait", sizeof(__u32),
			       sizeof(__u32), 1, &opts);
	if (outer < 0) {
		err = -errno;
		goto out_inner;
	}
	if (bpf_map_update_elem(outer, &zero, &inner, BPF_ANY))
		err = -errno;
	close(outer);
out_inner:
	close(inner);
	return err;
}

static int write_set(const struct policy_maps *m, const struct policy *p, __u32 set,
		     const char *cgroup_root)
{
	struct argguard_settings settings = {
		.mode = p->mode,
		.empty_argv_action = p->empty_argv_action,
		.head_bytes = p->head_bytes,
		.event_rate = p->event_rate,
		.event_burst = p->event_burst,
		.event_rate_total = p->event_rate_total,
	};
	struct argguard_cgroup_index index = { .unindexed_rule = policy_strictest_rule(p) };
	int err;

	/*
	 * The rules before the ids: once the old rules are gone, a cgroup made
	 * meanwhile is indexed by none of them, to stay in cgroup_ids stale.
	 * But a cgroup_mkdir program that read an old rule or pattern before
	 * they went can still be matching, and index its cgroup after the ids
	 * are cleared, under a key this set will not have: an exec's walk
	 * would stop there, short of the rules of the cgroup's ancestors. An
	 * apply whose set has patterns deletes such an index in its walk of
	 * the cgroups; one with none has no walk. So wait for every program
	 * that may have read the old ones to return, then clear the ids.
	 */
	err = clear_set(m->fd[PIN_UID_RULES], sizeof(struct argguard_uid_key),
			offsetof(struct argguard_uid_key, set), set);
	if (!err)
		err = clear_patterns(m, set);
	if (!err)
		err = clear_set(m->fd[PIN_CGROUP_RULES], sizeof(struct argguard_cgroup_key),
				offsetof(struct argguard_cgroup_key, set), set);
	if (!err)
		err = wait_for_programs();
	if (!err)
		err = clear_set(m->fd[PIN_CGROUP_IDS], sizeof(struct argguard_cgroup_id_key),
				offsetof(struct argguard_cgroup_id_key, set), set);
	if (err)
		return err;
	/* Its ids are gone: so are the misses they had, and the rule the next ones meet is p's. */
	if (bpf_map_update_elem(m->fd[PIN_CGROUP_INDEX], &set, &index, BPF_ANY) ||
	    bpf_map_update_elem(m->fd[PIN_SETTINGS], &set, &settings, BPF_ANY) ||
	    bpf_map_update_elem(m->fd[PIN_GLOBAL_RULES], &set, &p->global, BPF_ANY) ||
	    bpf_map_update_elem(m->fd[PIN_SETUID_RULES], &set, &p->setuid, BPF_ANY))
		return -errno;
	for (size_t i = 0; i < p->n_uids; i++) {
		struct argguard_uid_key key = { .set = set, .uid = p->uids[i].uid };

		if (bpf_map_update_elem(m->fd[PIN_UID_RULES], &key, &p->uids[i].rule, BPF_ANY))
			return -errno;
	}
	return write_cgroup_rules(m, p, set, cgroup_root);
}

/*
 * Zero the entries of the slots in mask, what ran and what was denied, on
 * every CPU, of a per-CPU array by the index of "sizes" whose values are
 * size bytes: the distributions and the tables of the largest.
 */
static int clear_sizes(int fd, uint64_t mask, size_t size)
{
	int ncpus = libbpf_num_possible_cpus();
	void *zeros;
	int err = 0;

	if (!mask)
		return 0;
	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	zeros = calloc(ncpus, size);
	if (!zeros)
		return -ENOMEM;
	for (__u32 at = 0; at < ARGGUARD_SIZE_ENTRIES && !err; at++)
		if ((mask & (1ULL << (at % ARGGUARD_SIZE_SLOTS))) &&
		    bpf_map_update_elem(fd, &at, zeros, BPF_ANY))
			err = -errno;
	free(zeros);
	return err;
}

/*
 * Drop the entries of a map keyed by a struct whose __u32 at slot_offset
 * is a size slot, for the slots in mask: they were another rule's.
 */
static int clear_slot_keys(int fd, uint64_t mask, size_t key_size, size_t slot_offset)
{
	unsigned char key[sizeof(struct argguard_cgroup_sizes_key)] = { 0 }, next[sizeof(key)];
	bool walking = false;
	__u32 slot;

	if (!mask || fd < 0)
		return 0;
	while (!bpf_map_get_next_key(fd, walking ? key : NULL, next)) {
		memcpy(key, next, key_size);
		memcpy(&slot, key + slot_offset, sizeof(slot));
		if (slot < ARGGUARD_SIZE_SLOTS && (mask & (1ULL << slot)) &&
		    !bpf_map_delete_elem(fd, key)) {
			walking = false; /* the walk starts again without it */
			continue;
		}
		walking = true;
	}
	return errno == ENOENT ? 0 : -errno;
}

_Static_assert(sizeof(struct argguard_sizes_by_uid_key) <= sizeof(struct argguard_cgroup_sizes_key),
	       "clear_slot_keys() holds either key");

/*
 * Date the slots in fresh, cleared for a new rule, and those the policy p
 * counts in that were never dated (maps made afresh), from now, in each
 * CPU's "sizes" entry: where suggest's window for each begins. Neither
 * kind has counts a program is adding to.
 */
static int date_slots(int fd, const struct policy *p, uint64_t fresh)
{
	int ncpus = libbpf_num_possible_cpus(), err = 0;
	__u64 now = (__u64)time(NULL);
	struct argguard_sizes *cpus;
	uint64_t used = 0;

	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	used |= 1ULL << (p->global.size_slot % ARGGUARD_SIZE_SLOTS);
	used |= 1ULL << (p->setuid.size_slot % ARGGUARD_SIZE_SLOTS);
	for (size_t i = 0; i < p->n_uids; i++)
		used |= 1ULL << (p->uids[i].rule.size_slot % ARGGUARD_SIZE_SLOTS);
	for (size_t i = 0; i < p->n_cgroups; i++)
		used |= 1ULL << (p->cgroups[i].rule.size_slot % ARGGUARD_SIZE_SLOTS);
	used &= ~(1ULL << ARGGUARD_SIZE_SLOT_NONE);
	cpus = calloc(ncpus, sizeof(*cpus));
	if (!cpus)
		return -ENOMEM;
	for (__u32 slot = 0; slot < ARGGUARD_SIZE_SLOTS && !err; slot++) {
		if (!((used | fresh) & (1ULL << slot)))
			continue;
		if (bpf_map_lookup_elem(fd, &slot, cpus)) {
			err = -errno;
			break;
		}
		if (!(fresh & (1ULL << slot)) && cpus[0].since)
			continue;
		for (int c = 0; c < ncpus; c++)
			cpus[c].since = now;
		if (bpf_map_update_elem(fd, &slot, cpus, BPF_ANY))
			err = -errno;
	}
	free(cpus);
	return err;
}

/*
 * p with each rule's size slot (size_slots_assign()): a copy whose rule
 * arrays are its own, the cgroup paths p's. The slots taken afresh are
 * cleared here, before any rule counts in them.
 */
static int with_size_slots(const struct policy_maps *m, const struct policy *p, struct policy *out)
{
	struct policy live;
	uint64_t fresh;
	bool have_live;
	int err;

	*out = *p;
	out->uids = p->n_uids ? malloc(p->n_uids * sizeof(*p->uids)) : NULL;
	out->cgroups = p->n_cgroups ? malloc(p->n_cgroups * sizeof(*p->cgroups)) : NULL;
	if ((p->n_uids && !out->uids) || (p->n_cgroups && !out->cgroups)) {
		free(out->uids);
		free(out->cgroups);
		out->uids = NULL;
		out->cgroups = NULL;
		return -ENOMEM;
	}
	if (p->n_uids)
		memcpy(out->uids, p->uids, p->n_uids * sizeof(*p->uids));
	if (p->n_cgroups)
		memcpy(out->cgroups, p->cgroups, p->n_cgroups * sizeof(*p->cgroups));
	have_live = !policy_maps_read(m, &live);
	fresh = size_slots_assign(out, have_live ? &live : NULL, p->learn_sizes);
	if (have_live)
		policy_free(&live);
	err = clear_sizes(m->fd[PIN_SIZES], fresh, sizeof(struct argguard_sizes));
	if (!err)
		err = clear_sizes(m->fd[PIN_LARGEST], fresh, sizeof(struct argguard_largest));
	if (!err)
		err = clear_slot_keys(m->fd[PIN_CGROUP_SIZES], fresh,
				      sizeof(struct argguard_cgroup_sizes_key),
				      offsetof(struct argguard_cgroup_sizes_key, size_slot));
	if (!err)
		err = clear_slot_keys(m->fd[PIN_SIZES_BY_UID], fresh,
				      sizeof(struct argguard_sizes_by_uid_key),
				      offsetof(struct argguard_sizes_by_uid_key, size_slot));
	return err ? err : date_slots(m->fd[PIN_SIZES], out, fresh);
}

int policy_maps_apply(const struct policy_maps *m, const struct policy *p, const char *cgroup_root,
		      enum argguard_policy_state state)
{
	struct argguard_config cfg;
	struct policy slotted;
	__u32 zero = 0;
	int err;

	if (bpf_map_lookup_elem(m->fd[PIN_CONFIG], &zero, &cfg))
		return -errno;
	cfg.active_set = (cfg.active_set & 1) ^ 1;
	err = with_size_slots(m, p, &slotted);
	if (!err)
		err = write_set(m, &slotted, cfg.active_set, cgroup_root);
	free(slotted.uids);
	free(slotted.cgroups);
	if (err)
		return err;
	/* The one update that switches every exec to the new policy at once. */
	cfg.cgroup_generation++;
	cfg.policy_state = state;
	return bpf_map_update_elem(m->fd[PIN_CONFIG], &zero, &cfg, BPF_ANY) ? -errno : 0;
}
