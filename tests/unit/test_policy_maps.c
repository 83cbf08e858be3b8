// SPDX-License-Identifier: GPL-2.0
/*
 * policy_maps_apply() against maps in memory: libbpf's map calls are
 * stubbed here, so no BPF reaches the kernel. A cgroup_mkdir program that
 * read a rule set's old pattern just before an apply cleared it, and
 * indexes its cgroup when it is done, must leave no index in the new set
 * whose key has no rule: an exec's walk would stop at that cgroup, short of
 * the rules of its ancestors. The apply waits for such programs (a map of
 * maps' update, which the kernel makes wait for every running program)
 * before it clears the set's ids; the stub runs the program's late write
 * at that wait, or, if none comes, just after the ids are cleared.
 *
 * An index with no room for more fails no apply: each cgroup left out is
 * counted, and the lowest id of them marked, where the programs look.
 *
 * The apply waits for the cgroups being made (a mkdir of its own, which
 * the kernel serializes with theirs) after it wrote the rules and the
 * slots, and before it indexes a cgroup: an inotify watch on the cgroup
 * root sees that mkdir.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "check.h"
#include "map_memory.h"
#include "policy_diff.h"
#include "policy_maps.h"
#include "size_maps.h"
#include "tree.h"

#define MAX_MAPS 256
#define MAX_ENTRIES 512
/* Past any fd the test opens: policy_maps.c closes the maps it makes itself. */
#define FIRST_FD 1000

struct fake_map {
	enum bpf_map_type type;
	size_t key_size, value_size;
	unsigned int max_entries, n;
	unsigned char *keys, *values; /* a hash's entries in order; an array's values */
};

static struct fake_map maps[MAX_MAPS];
static int n_maps;
static struct policy_maps pm;

/* The cgroup_mkdir program in flight: its late write to cgroup_ids, if pending. */
static struct {
	bool armed, pending, done_at_wait;
	struct argguard_cgroup_id_key id;
	struct argguard_cgroup_key key;
} late;

static struct fake_map *map_of(int fd)
{
	return fd >= FIRST_FD && fd < FIRST_FD + n_maps ? &maps[fd - FIRST_FD] : NULL;
}

static bool is_array(const struct fake_map *m)
{
	return m->type == BPF_MAP_TYPE_ARRAY || m->type == BPF_MAP_TYPE_PERCPU_ARRAY ||
	       m->type == BPF_MAP_TYPE_ARRAY_OF_MAPS;
}

static int fail_with(int err)
{
	errno = err;
	return -err;
}

static int fake_map(enum bpf_map_type type, size_t key_size, size_t value_size,
		    unsigned int max_entries)
{
	struct fake_map *m = &maps[n_maps];

	if (n_maps == MAX_MAPS)
		return fail_with(EMFILE);

	m->type = type;
	m->key_size = key_size;
	m->value_size = value_size;
	m->max_entries = max_entries;
	m->n = 0;
	m->keys = calloc(max_entries, key_size);
	m->values = calloc(max_entries, value_size);
	if (is_array(m))
		m->n = max_entries;
	return FIRST_FD + n_maps++;
}

static long find(const struct fake_map *m, const void *key)
{
	if (is_array(m)) {
		__u32 i;

		memcpy(&i, key, sizeof(i));
		return i < m->max_entries ? (long)i : -1;
	}
	for (unsigned int i = 0; i < m->n; i++)
		if (!memcmp(m->keys + i * m->key_size, key, m->key_size))
			return i;
	return -1;
}

/*
 * What the maps held when the apply indexed its first cgroup, and whether
 * it had made its own cgroup to wait for the others by then (an inotify
 * watch on the cgroup root, read at that first index).
 */
static struct {
	int watch; /* -1: not watching */
	bool indexing, waited;
	unsigned int rules, slots; /* of the set, then */
	__u32 set;
} first_index = { .watch = -1 };

/* Count the set's entries in a hash map keyed by (set, ...) at set_offset. */
static unsigned int set_entries(int fd, size_t set_offset, __u32 set)
{
	const struct fake_map *m = map_of(fd);
	unsigned int n = 0;
	__u32 key_set;

	for (unsigned int i = 0; i < m->n; i++) {
		memcpy(&key_set, m->keys + i * m->key_size + set_offset, sizeof(key_set));
		n += key_set == set;
	}
	return n;
}

/* Whether the watch saw a cgroup named argguard-apply.* made. */
static bool saw_wait(int watch)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	bool seen = false;
	ssize_t n;

	while ((n = read(watch, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			seen |= ev->len && !strncmp(ev->name, "argguard-apply.", 15);
		}
	return seen;
}

/* Note what the maps hold as the apply indexes its first cgroup. */
static void note_first_index(int fd, const void *key)
{
	const struct fake_map *slots = map_of(pm.fd[PIN_CGROUP_PATTERNS]);
	const struct argguard_cgroup_id_key *id = key;

	if (first_index.watch < 0 || first_index.indexing || fd != pm.fd[PIN_CGROUP_IDS] ||
	    id->set != first_index.set)
		return;
	first_index.indexing = true;
	first_index.waited = saw_wait(first_index.watch);
	first_index.rules = set_entries(pm.fd[PIN_CGROUP_RULES],
					offsetof(struct argguard_cgroup_key, set), id->set);
	for (unsigned int i = 0; i < ARGGUARD_MAX_CGROUP_PATTERNS; i++) {
		const struct argguard_cgroup_key *k =
			(const void *)(slots->values + (id->set * ARGGUARD_MAX_CGROUP_PATTERNS +
							i) * slots->value_size);
		first_index.slots += k->path[0] != '\0';
	}
}

/* An update, as the kernel makes it for m. */
static int store(struct fake_map *m, const void *key, const void *value, __u64 flags)
{
	long i = find(m, key);

	if (i < 0 && is_array(m))
		return fail_with(E2BIG);
	if (i >= 0 && flags == BPF_NOEXIST)
		return fail_with(EEXIST);
	if (i < 0) {
		if (m->n == m->max_entries)
			return fail_with(E2BIG);
		i = m->n++;
		memcpy(m->keys + i * m->key_size, key, m->key_size);
	}
	memcpy(m->values + i * m->value_size, value, m->value_size);
	return 0;
}

/* The write the in-flight program makes once it is done. */
static void finish_late_write(void)
{
	struct fake_map *ids = map_of(pm.fd[PIN_CGROUP_IDS]);
	struct argguard_cgroup_id_key mark = late.id;

	if (!late.pending)
		return;
	late.pending = false;
	mark.cgroup_id = ARGGUARD_CGROUP_IDS_USED;
	store(ids, &mark, &late.key, BPF_ANY);
	store(ids, &late.id, &late.key, BPF_ANY);
}

int bpf_map_update_elem(int fd, const void *key, const void *value, __u64 flags)
{
	struct fake_map *m = map_of(fd);

	if (!m)
		return fail_with(EBADF);
	note_first_index(fd, key);
	if (m->type == BPF_MAP_TYPE_ARRAY_OF_MAPS) {
		/* The kernel waits for every running program: the one in flight is done. */
		late.done_at_wait = late.pending;
		finish_late_write();
		return 0;
	}
	/* With no wait, the program is done just after the apply cleared the ids. */
	if (fd == pm.fd[PIN_SETTINGS])
		finish_late_write();
	/* The program reads the set's old pattern just as the apply starts to clear it. */
	if (late.armed && fd == pm.fd[PIN_CGROUP_PATTERNS]) {
		late.armed = false;
		late.pending = true;
	}
	return store(m, key, value, flags);
}

int bpf_map_lookup_elem(int fd, const void *key, void *value)
{
	struct fake_map *m = map_of(fd);
	long i;

	if (!m)
		return fail_with(EBADF);
	i = find(m, key);
	if (i < 0)
		return fail_with(ENOENT);
	memcpy(value, m->values + i * m->value_size, m->value_size);
	return 0;
}

int bpf_map_delete_elem(int fd, const void *key)
{
	struct fake_map *m = map_of(fd);
	long i;

	if (!m)
		return fail_with(EBADF);
	if (is_array(m))
		return fail_with(EINVAL);
	i = find(m, key);
	if (i < 0)
		return fail_with(ENOENT);
	m->n--;
	memmove(m->keys + i * m->key_size, m->keys + (i + 1) * m->key_size,
		(m->n - i) * m->key_size);
	memmove(m->values + i * m->value_size, m->values + (i + 1) * m->value_size,
		(m->n - i) * m->value_size);
	return 0;
}

int bpf_map_get_next_key(int fd, const void *key, void *next_key)
{
	struct fake_map *m = map_of(fd);
	long i;

	if (!m)
		return fail_with(EBADF);
	i = key ? find(m, key) : -1;
	if (is_array(m)) {
		__u32 next = key ? (__u32)i + 1 : 0;

		if (next >= m->max_entries)
			return fail_with(ENOENT);
		memcpy(next_key, &next, sizeof(next));
		return 0;
	}
	/* As the kernel's hash: a key not found starts the walk again. */
	if ((unsigned long)(i + 1) >= m->n)
		return fail_with(ENOENT);
	memcpy(next_key, m->keys + (i + 1) * m->key_size, m->key_size);
	return 0;
}

/* Whether bpf_map_lookup_batch() refuses, as a kernel without it does; and its calls. */
static bool no_batch;
static unsigned int batch_calls;

/*
 * As the kernel's: from the position in_batch holds (the start if NULL),
 * up to *count entries, the next position into out_batch; -ENOENT with
 * the entries it did copy once it reached the end.
 */
int bpf_map_lookup_batch(int fd, void *in_batch, void *out_batch, void *keys, void *values,
			 __u32 *count, const struct bpf_map_batch_opts *opts)
{
	struct fake_map *m = map_of(fd);
	__u32 at = 0, n = 0;

	(void)opts;
	if (!m)
		return fail_with(EBADF);
	batch_calls++;
	if (no_batch)
		return fail_with(EINVAL);
	if (in_batch)
		memcpy(&at, in_batch, sizeof(at));
	for (; at < m->n && n < *count; at++, n++) {
		if (is_array(m))
			memcpy((unsigned char *)keys + n * m->key_size, &at, sizeof(at));
		else
			memcpy((unsigned char *)keys + n * m->key_size, m->keys + at * m->key_size,
			       m->key_size);
		memcpy((unsigned char *)values + n * m->value_size, m->values + at * m->value_size,
		       m->value_size);
	}
	*count = n;
	memcpy(out_batch, &at, sizeof(at));
	return at < m->n ? 0 : fail_with(ENOENT);
}

int bpf_map_create(enum bpf_map_type type, const char *name, __u32 key_size, __u32 value_size,
		   __u32 max_entries, const struct bpf_map_create_opts *opts)
{
	(void)name;
	(void)opts;
	return fake_map(type, key_size, value_size, max_entries);
}

int libbpf_num_possible_cpus(void)
{
	return 1;
}

int bpf_obj_get(const char *pathname)
{
	(void)pathname;
	return fail_with(ENOENT);
}

int bpf_obj_get_info_by_fd(int bpf_fd, void *info, __u32 *info_len)
{
	(void)bpf_fd;
	(void)info;
	(void)info_len;
	return fail_with(EINVAL);
}

/* A mappable map's memory, as the kernel maps it: its values, one after the other. */
void *map_memory(int fd, size_t len)
{
	struct fake_map *m = map_of(fd);

	if (!m || len > m->max_entries * m->value_size) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	return m->values;
}

void map_memory_release(void *mem, size_t len)
{
	(void)mem;
	(void)len;
}

static void make_maps(void)
{
	for (int i = 0; i < n_maps; i++) {
		free(maps[i].keys);
		free(maps[i].values);
	}
	n_maps = 0;
	for (int p = 0; p < NR_MAP_PINS; p++)
		pm.fd[p] = fake_map(BPF_MAP_TYPE_ARRAY, 4, 8, 1);
	pm.fd[PIN_CONFIG] = fake_map(BPF_MAP_TYPE_ARRAY, 4, sizeof(struct argguard_config), 1);
	pm.fd[PIN_SETTINGS] = fake_map(BPF_MAP_TYPE_ARRAY, 4, sizeof(struct argguard_settings), 2);
	pm.fd[PIN_GLOBAL_RULES] = fake_map(BPF_MAP_TYPE_ARRAY, 4, sizeof(struct argguard_rule), 2);
	pm.fd[PIN_SETUID_RULES] = fake_map(BPF_MAP_TYPE_ARRAY, 4, sizeof(struct argguard_rule), 2);
	pm.fd[PIN_UID_RULES] = fake_map(BPF_MAP_TYPE_HASH, sizeof(struct argguard_uid_key),
					sizeof(struct argguard_rule), 2 * MAX_ENTRIES);
	pm.fd[PIN_CGROUP_RULES] = fake_map(BPF_MAP_TYPE_HASH, sizeof(struct argguard_cgroup_key),
					   sizeof(struct argguard_rule), MAX_ENTRIES);
	pm.fd[PIN_CGROUP_IDS] = fake_map(BPF_MAP_TYPE_HASH, sizeof(struct argguard_cgroup_id_key),
					 sizeof(struct argguard_cgroup_key), MAX_ENTRIES);
	pm.fd[PIN_CGROUP_PATTERNS] =
		fake_map(BPF_MAP_TYPE_ARRAY, 4, sizeof(struct argguard_cgroup_key),
			 2 * ARGGUARD_MAX_CGROUP_PATTERNS);
	pm.fd[PIN_CGROUP_INDEX] =
		fake_map(BPF_MAP_TYPE_ARRAY, 4, sizeof(struct argguard_cgroup_index), 2);
	pm.fd[PIN_SIZES] = fake_map(BPF_MAP_TYPE_PERCPU_ARRAY, 4, sizeof(struct argguard_sizes),
				    ARGGUARD_SIZE_ENTRIES);
	pm.fd[PIN_CGROUP_SIZES] =
		fake_map(BPF_MAP_TYPE_HASH, sizeof(struct argguard_cgroup_sizes_key),
			 sizeof(struct argguard_sizes), MAX_ENTRIES);
	pm.fd[PIN_SIZES_BY_UID] =
		fake_map(BPF_MAP_TYPE_HASH, sizeof(struct argguard_sizes_by_uid_key),
			 sizeof(struct argguard_sizes), MAX_ENTRIES);
	pm.fd[PIN_LARGEST] = fake_map(BPF_MAP_TYPE_PERCPU_ARRAY, 4, sizeof(struct argguard_largest),
				      ARGGUARD_SIZE_ENTRIES);
}

static void parse(const char *text, struct policy *p)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	CHECK(!policy_parse(in, "test.conf", p), "the test's policy parses (its error is logged)");
	fclose(in);
}

/* Every id the set indexes (but its mark) has a key with a rule in the set. */
static unsigned int ids_without_rule(__u32 set)
{
	struct fake_map *ids = map_of(pm.fd[PIN_CGROUP_IDS]);
	struct argguard_rule rule;
	unsigned int n = 0;

	for (unsigned int i = 0; i < ids->n; i++) {
		const struct argguard_cgroup_id_key *id =
			(const void *)(ids->keys + i * ids->key_size);
		const void *key = ids->values + i * ids->value_size;

		if (id->set == set && id->cgroup_id != ARGGUARD_CGROUP_IDS_USED &&
		    bpf_map_lookup_elem(pm.fd[PIN_CGROUP_RULES], key, &rule))
			n++;
	}
	return n;
}

static void late_mkdir_leaves_no_stale_index(const char *next_text, const char *what)
{
	static const char with_pattern[] =
		"[global]\nmode = enforce\n"
		"[cgroup /system.slice]\nmax_total_bytes = 64K\n"
		"[cgroup /system.slice/docker-*.scope]\nmax_total_bytes = 1M\n";
	char root[] = "/tmp/argguard-test-maps.XXXXXX", dir[64];
	struct policy before, next;
	struct argguard_config cfg = { 0 };
	__u32 zero = 0, set;

	CHECK(mkdtemp(root) != NULL, "a cgroup root of our own");
	snprintf(dir, sizeof(dir), "%s/system.slice", root);
	mkdir(dir, 0755);
	make_maps();
	parse(with_pattern, &before);
	parse(next_text, &next);
	/* Both sets hold the pattern: the next apply writes over one that has it. */
	CHECK(!policy_maps_apply(&pm, &before, root, ARGGUARD_POLICY_APPLIED) &&
		      !policy_maps_apply(&pm, &before, root, ARGGUARD_POLICY_APPLIED),
	      "the policy with a pattern is applied to both sets");
	CHECK(!bpf_map_lookup_elem(pm.fd[PIN_CONFIG], &zero, &cfg), "the config is read back");
	set = (cfg.active_set & 1) ^ 1;
	memset(&late, 0, sizeof(late));
	late.armed = true;
	late.id = (struct argguard_cgroup_id_key){ .cgroup_id = 4242, .set = set };
	late.key.set = set;
	snprintf(late.key.path, sizeof(late.key.path), "/system.slice/docker-*.scope");
	CHECK(!policy_maps_apply(&pm, &next, root, ARGGUARD_POLICY_APPLIED), "%s: applied", what);
	CHECK(!late.armed && !late.pending, "%s: the program in flight wrote its index", what);
	CHECK(late.done_at_wait, "%s: the apply waited for the program before it cleared the ids",
	      what);
	CHECK(ids_without_rule(set) == 0,
	      "%s: no cgroup is indexed under a key with no rule in the new set (%u are)", what,
	      ids_without_rule(set));
	policy_free(&before);
	policy_free(&next);
	rmdir(dir);
	rmdir(root);
}

/* Whether cgroup_id is indexed in set. */
static bool indexed(__u32 set, __u64 cgroup_id)
{
	struct argguard_cgroup_id_key id = { .cgroup_id = cgroup_id, .set = set };
	struct argguard_cgroup_key key;

	return !bpf_map_lookup_elem(pm.fd[PIN_CGROUP_IDS], &id, &key);
}

static void full_index_is_counted_not_failed(void)
{
	static const char policy[] = "[global]\nmode = enforce\nmax_total_bytes = 1M\n"
				     "[cgroup /system.slice/docker-*.scope]\n"
				     "max_total_bytes = 100K\n";
	enum { N = MAX_ENTRIES + 88 };
	char root[] = "/tmp/argguard-test-full.XXXXXX", dir[128];
	struct argguard_cgroup_index index = { 0 };
	__u64 ino[N], missed = 0, lowest = 0;
	struct argguard_config cfg = { 0 };
	struct stat st;
	struct policy p;
	__u32 zero = 0;
	bool below = false;

	CHECK(mkdtemp(root) != NULL, "a cgroup root of our own");
	snprintf(dir, sizeof(dir), "%s/system.slice", root);
	mkdir(dir, 0755);
	for (int i = 0; i < N; i++) {
		snprintf(dir, sizeof(dir), "%s/system.slice/docker-%d.scope", root, i);
		mkdir(dir, 0755);
		ino[i] = stat(dir, &st) ? 0 : st.st_ino;
	}
	make_maps();
	memset(&late, 0, sizeof(late));
	parse(policy, &p);
	CHECK(!policy_maps_apply(&pm, &p, root, ARGGUARD_POLICY_APPLIED),
	      "a policy whose pattern matches more cgroups than the index holds is applied");
	bpf_map_lookup_elem(pm.fd[PIN_CONFIG], &zero, &cfg);
	bpf_map_lookup_elem(pm.fd[PIN_CGROUP_INDEX], &cfg.active_set, &index);
	for (int i = 0; i < N; i++) {
		if (indexed(cfg.active_set, ino[i]))
			continue;
		missed++;
		lowest = !lowest || ino[i] < lowest ? ino[i] : lowest;
	}
	for (int i = 0; i < N; i++)
		below |= !indexed(cfg.active_set, ino[i]) && ino[i] < index.first_unindexed;
	CHECK(missed > 0 && index.failed_inserts == missed,
	      "each cgroup left out is counted: %llu counted, %llu left out",
	      (unsigned long long)index.failed_inserts, (unsigned long long)missed);
	CHECK(index.first_unindexed == lowest && !below,
	      "the lowest id left out is marked: %llu marked, %llu the lowest",
	      (unsigned long long)index.first_unindexed, (unsigned long long)lowest);
	CHECK(index.unindexed_rule.action == ARGGUARD_ACTION_DENY &&
		      index.unindexed_rule.max_total_bytes == 100 << 10,
	      "a cgroup left out meets the strictest rule: %llu bytes",
	      (unsigned long long)index.unindexed_rule.max_total_bytes);
	CHECK(!policy_maps_apply(&pm, &p, root, ARGGUARD_POLICY_APPLIED),
	      "the next apply is applied too");
	policy_free(&p);
	for (int i = 0; i < N; i++) {
		snprintf(dir, sizeof(dir), "%s/system.slice/docker-%d.scope", root, i);
		rmdir(dir);
	}
	snprintf(dir, sizeof(dir), "%s/system.slice", root);
	rmdir(dir);
	rmdir(root);
}

/*
 * A user's own tree that glibc's nftw() could not walk (tree.h) fails no
 * apply: the cgroups the pattern matches elsewhere are indexed still.
 */
static void deep_tree_fails_no_apply(void)
{
	static const char text[] = "[global]\nmode = enforce\n"
				   "[cgroup /system.slice/docker-*.scope]\nmax_total_bytes = 1M\n";
	char root[] = "/tmp/argguard-test-maps.XXXXXX", bottom[TREE_DEEP_LEN], full[64];
	struct argguard_cgroup_id_key id = { 0 };
	struct argguard_cgroup_key key = { 0 };
	struct argguard_config cfg = { 0 };
	struct policy p;
	struct stat st;
	__u32 zero = 0;
	int err;

	CHECK(mkdtemp(root) != NULL, "a cgroup root of our own");
	CHECK(tree_make_deep(root, bottom) && tree_make(root, "/system.slice/docker-a.scope"),
	      "a tree %zu bytes deep, and a container's cgroup", strlen(bottom));
	make_maps();
	parse(text, &p);
	err = policy_maps_apply(&pm, &p, root, ARGGUARD_POLICY_APPLIED);
	CHECK(!err, "the policy with a pattern is applied (%d)", err);
	CHECK(!bpf_map_lookup_elem(pm.fd[PIN_CONFIG], &zero, &cfg), "the config is read back");
	snprintf(full, sizeof(full), "%s/system.slice/docker-a.scope", root);
	id.set = cfg.active_set;
	id.cgroup_id = stat(full, &st) ? 0 : st.st_ino;
	CHECK(!bpf_map_lookup_elem(pm.fd[PIN_CGROUP_IDS], &id, &key) &&
		      !strcmp(key.path, "/system.slice/docker-*.scope"),
	      "the container's cgroup is indexed under its pattern (%s)", key.path);
	policy_free(&p);
	tree_remove(root);
}

static void apply_waits_for_mkdirs_before_it_indexes(void)
{
	static const char text[] = "[global]\nmode = enforce\n"
				   "[cgroup /system.slice]\nmax_total_bytes = 64K\n"
				   "[cgroup /system.slice/docker-*.scope]\nmax_total_bytes = 1M\n";
	char root[] = "/tmp/argguard-test-wait.XXXXXX", dir[96];
	struct argguard_config cfg = { 0 };
	struct policy p;
	__u32 zero = 0;

	CHECK(mkdtemp(root) != NULL, "a cgroup root of our own");
	snprintf(dir, sizeof(dir), "%s/system.slice", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/system.slice/docker-a.scope", root);
	mkdir(dir, 0755);
	make_maps();
	memset(&late, 0, sizeof(late));
	parse(text, &p);
	bpf_map_lookup_elem(pm.fd[PIN_CONFIG], &zero, &cfg);
	first_index = (__typeof__(first_index)){ .set = (cfg.active_set & 1) ^ 1 };
	first_index.watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	CHECK(first_index.watch >= 0 && inotify_add_watch(first_index.watch, root, IN_CREATE) >= 0,
	      "a watch on the cgroup root");
	CHECK(!policy_maps_apply(&pm, &p, root, ARGGUARD_POLICY_APPLIED), "the policy is applied");
	CHECK(first_index.indexing && first_index.waited,
	      "the apply made a cgroup of its own to wait for the others before it indexed one");
	CHECK(first_index.rules == 2 && first_index.slots == 1,
	      "by then, the set held its 2 rules (%u) and its 1 pattern slot (%u)",
	      first_index.rules, first_index.slots);
	CHECK(set_entries(pm.fd[PIN_CGROUP_IDS], offsetof(struct argguard_cgroup_id_key, set),
			  first_index.set) == 3,
	      "after it, both cgroups and the mark are indexed");
	snprintf(dir, sizeof(dir), "%s/argguard-apply.%d", root, (int)getpid());
	CHECK(access(dir, F_OK) != 0, "the apply's own cgroup is gone");
	close(first_index.watch);
	first_index.watch = -1;
	policy_free(&p);
	snprintf(dir, sizeof(dir), "%s/system.slice/docker-a.scope", root);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/system.slice", root);
	rmdir(dir);
	rmdir(root);
}

/*
 * slot's since, and its total_bytes count there and in its denied entry;
 * their tables of the largest count as one more each.
 */
static void slot_state(__u32 slot, __u64 *since, __u64 *ran, __u64 *denied)
{
	struct argguard_sizes h = { 0 };
	struct argguard_largest l = { 0 };
	__u32 at = slot;

	bpf_map_lookup_elem(pm.fd[PIN_SIZES], &at, &h);
	*since = h.since;
	bpf_map_lookup_elem(pm.fd[PIN_LARGEST], &at, &l);
	*ran = h.count[ARGGUARD_SIZE_TOTAL_BYTES][0] + l.total_bytes[0];
	at = slot + ARGGUARD_SIZE_DENIED;
	bpf_map_lookup_elem(pm.fd[PIN_SIZES], &at, &h);
	bpf_map_lookup_elem(pm.fd[PIN_LARGEST], &at, &l);
	*denied = h.count[ARGGUARD_SIZE_TOTAL_BYTES][0] + l.total_bytes[0];
}

/*
 * An apply dates each slot it first gives a rule, and one it takes afresh
 * for a new rule; that one's counts, what ran and what was denied, and its
 * uids', were another rule's and are cleared. A slot a rule keeps keeps
 * its counts and its date.
 */
static void apply_dates_and_clears_slots(void)
{
	static const char first[] = "[global]\nmode = enforce\n[uid 1000]\nmax_argc = 100\n";
	static const char next[] = "[global]\nmode = enforce\n[uid 2000]\nmax_argc = 100\n";
	struct argguard_sizes one = { 0 };
	struct argguard_largest top = { 0 };
	struct argguard_sizes_by_uid_key uid_key = { .size_slot = 3, .uid = 1000 };
	__u64 since, ran, denied, old = 12345, before = (__u64)time(NULL);
	struct policy p;
	__u32 at;

	make_maps();
	parse(first, &p);
	CHECK(!policy_maps_apply(&pm, &p, "/nonexistent", ARGGUARD_POLICY_APPLIED),
	      "a first apply");
	policy_free(&p);
	slot_state(ARGGUARD_SIZE_SLOT_GLOBAL, &since, &ran, &denied);
	CHECK(since >= before && since <= (__u64)time(NULL), "global's window begins now: %llu",
	      (unsigned long long)since);
	slot_state(3, &since, &ran, &denied);
	CHECK(since >= before, "and the uid rule's, slot 3");
	/* Counts in slot 3, and an old date for global, as a day of execs leaves them. */
	one.count[ARGGUARD_SIZE_TOTAL_BYTES][0] = 6;
	one.since = old;
	top.total_bytes[0] = 1;
	for (at = 0; at < ARGGUARD_SIZE_ENTRIES; at++) {
		bpf_map_update_elem(pm.fd[PIN_SIZES], &at, &one, BPF_ANY);
		bpf_map_update_elem(pm.fd[PIN_LARGEST], &at, &top, BPF_ANY);
	}
	bpf_map_update_elem(pm.fd[PIN_SIZES_BY_UID], &uid_key, &one, BPF_ANY);
	parse(next, &p);
	CHECK(!policy_maps_apply(&pm, &p, "/nonexistent", ARGGUARD_POLICY_APPLIED),
	      "an apply with another uid rule");
	policy_free(&p);
	slot_state(ARGGUARD_SIZE_SLOT_GLOBAL, &since, &ran, &denied);
	CHECK(since == old && ran == 7 && denied == 7, "global keeps its counts and its date");
	slot_state(4, &since, &ran, &denied);
	CHECK(since >= before && !ran && !denied,
	      "the new rule's slot, 4, is cleared, what ran and what was denied, its tables of the "
	      "largest too, and dated");
	slot_state(3, &since, &ran, &denied);
	CHECK(ran == 7, "the dropped rule's slot is left for the next rule to clear");
	parse(first, &p);
	policy_maps_apply(&pm, &p, "/nonexistent", ARGGUARD_POLICY_APPLIED);
	policy_free(&p);
	CHECK(bpf_map_lookup_elem(pm.fd[PIN_SIZES_BY_UID], &uid_key, &one) && errno == ENOENT,
	      "a slot taken afresh loses its uids' counts");
}

/*
 * Issue 42: the daemon reads the live policy every tick, in batches. A
 * policy of more rules than one batch takes reads back as applied, rule
 * for rule, in a few calls, not two an entry; and the same entry by entry
 * where the kernel takes no batch read.
 */
static void live_policy_reads_back_in_batches(void)
{
	char *text = NULL, *applied, *live;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct policy p, back;
	int err;

	fputs("[global]\nmode = enforce\nmax_total_bytes = 1M\n", f);
	for (int i = 0; i < 300; i++)
		fprintf(f, "[uid %d]\nmax_total_bytes = 16M\n", 2000 + i);
	for (int i = 0; i < 40; i++)
		fprintf(f, "[cgroup /bench-rules/cg-%03d]\nmax_argc = %d\n", i, 100 + i);
	fclose(f);
	make_maps();
	parse(text, &p);
	free(text);
	applied = policy_canonical_text(&p);
	/* Twice: the other set holds the same rules, which the read must leave out. */
	CHECK(!policy_maps_apply(&pm, &p, "/nonexistent", ARGGUARD_POLICY_APPLIED) &&
		      !policy_maps_apply(&pm, &p, "/nonexistent", ARGGUARD_POLICY_APPLIED),
	      "300 uid and 40 cgroup rules applied");
	policy_free(&p);
	for (int walk = 0; walk < 2; walk++) {
		no_batch = walk;
		batch_calls = 0;
		err = policy_maps_read_live(&pm, &back);
		CHECK(!err && back.n_uids == 300 && back.n_cgroups == 40,
		      "%s: read back, %zu uid and %zu cgroup rules (%d)",
		      walk ? "entry by entry" : "in batches", err ? 0 : back.n_uids,
		      err ? 0 : back.n_cgroups, err);
		if (err)
			continue;
		live = policy_canonical_text(&back);
		CHECK(live && applied && !strcmp(live, applied),
		      "%s: the live policy's text is the applied one's",
		      walk ? "entry by entry" : "in batches");
		if (!walk) /* 600 uid keys (both sets): 3 batches; 80 cgroup keys: 1 */
			CHECK(batch_calls == 4, "in batches: %u calls for 680 entries",
			      batch_calls);
		else
			CHECK(batch_calls == 2,
			      "entry by entry: each map's batch refused once (%u)", batch_calls);
		free(live);
		policy_free(&back);
	}
	no_batch = false;
	free(applied);
}

/* The size maps read in batches too: a per-CPU array's entries and a hash's, each where it was. */
static void sizes_read_back_in_batches(void)
{
	struct argguard_sizes one = { 0 }, uid_counts = { 0 };
	struct argguard_sizes_by_uid_key uid_key = { .size_slot = 3, .uid = 1000 };
	struct argguard_largest top = { 0 };
	struct size_data d;
	struct policy p;
	__u32 at;

	make_maps();
	parse("[global]\nmode = enforce\n[uid 1000]\nmax_argc = 100\n", &p);
	CHECK(!policy_maps_apply(&pm, &p, "/nonexistent", ARGGUARD_POLICY_APPLIED), "an apply");
	policy_free(&p);
	for (at = 0; at < ARGGUARD_SIZE_ENTRIES; at++) {
		one.count[ARGGUARD_SIZE_TOTAL_BYTES][0] = at;
		top.total_bytes[0] = at == 3 ? 5000 : 0;
		bpf_map_update_elem(pm.fd[PIN_SIZES], &at, &one, BPF_ANY);
		bpf_map_update_elem(pm.fd[PIN_LARGEST], &at, &top, BPF_ANY);
	}
	uid_counts.count[ARGGUARD_SIZE_TOTAL_BYTES][1] = 7;
	bpf_map_update_elem(pm.fd[PIN_SIZES_BY_UID], &uid_key, &uid_counts, BPF_ANY);
	CHECK(!policy_maps_read_live(&pm, &p), "the live policy read");
	batch_calls = 0;
	CHECK(!sizes_maps_read(&pm, &p, "/nonexistent", &d), "the size maps read");
	CHECK(batch_calls == 4, "in 4 batch calls, one a map (%u)", batch_calls);
	CHECK(d.hist[3].count[ARGGUARD_SIZE_TOTAL_BYTES][0] == 3 &&
		      d.denied[5].count[ARGGUARD_SIZE_TOTAL_BYTES][0] == ARGGUARD_SIZE_DENIED + 5,
	      "each slot's counts, what ran and what was denied, from its own entry");
	CHECK(d.n_uids == 1 && d.uids[0].uid == 1000 && d.uids[0].slot == 3 &&
		      d.uids[0].hist.count[ARGGUARD_SIZE_TOTAL_BYTES][1] == 7,
	      "the uid's counts (%zu uids)", d.n_uids);
	CHECK(d.n_largest == 1 && d.largest[0].total_bytes == 5000,
	      "the largest exec, from slot 3's table (%zu)", d.n_largest);
	size_data_free(&d);
	policy_free(&p);
}

int main(void)
{
	live_policy_reads_back_in_batches();
	sizes_read_back_in_batches();
	apply_dates_and_clears_slots();
	apply_waits_for_mkdirs_before_it_indexes();
	full_index_is_counted_not_failed();
	late_mkdir_leaves_no_stale_index("[global]\nmode = enforce\n"
					 "[cgroup /system.slice]\nmax_total_bytes = 64K\n",
					 "a new set with no pattern");
	late_mkdir_leaves_no_stale_index(
		"[global]\nmode = enforce\n"
		"[cgroup /system.slice]\nmax_total_bytes = 64K\n"
		"[cgroup /system.slice/podman-*.scope]\nmax_total_bytes = 1M\n",
		"a new set with another pattern");
	deep_tree_fails_no_apply();
	make_maps(); /* frees the last ones */
	return check_done();
}
