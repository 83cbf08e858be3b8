// SPDX-License-Identifier: GPL-2.0
#include "size_data.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "size_bucket.h"

#define SIZE_METRIC_NAME(id, name) [id] = name,
static const char *const metric_names[] = { ARGGUARD_SIZE_METRICS(SIZE_METRIC_NAME) };

const char *size_metric_name(enum argguard_size_metric m)
{
	return m < ARGGUARD_NR_SIZE_METRICS ? metric_names[m] : "?";
}

bool size_metric_bytes(enum argguard_size_metric m)
{
	return m <= ARGGUARD_SIZE_TOTAL_BYTES;
}

void size_hist_add(struct size_hist *h, const struct argguard_sizes *cpu)
{
	for (int m = 0; m < ARGGUARD_NR_SIZE_METRICS; m++) {
		if (cpu->max[m] > h->max[m])
			h->max[m] = cpu->max[m];
		h->sum[m] += cpu->sum[m];
		for (int b = 0; b < ARGGUARD_SIZE_BUCKETS; b++)
			h->count[m][b] += cpu->count[m][b];
	}
	if (cpu->since && (!h->since || cpu->since < h->since))
		h->since = cpu->since;
}

uint64_t size_hist_execs(const struct size_hist *h, enum argguard_size_metric m)
{
	uint64_t n = 0;

	for (int b = 0; b < ARGGUARD_SIZE_BUCKETS; b++)
		n += h->count[m][b];
	return n;
}

void size_hist_over(const struct size_hist *h, enum argguard_size_metric m, uint64_t limit,
		    uint64_t *least, uint64_t *most)
{
	*least = *most = 0;
	if (!limit || h->max[m] <= limit)
		return;
	for (__u32 b = 0; b < ARGGUARD_SIZE_BUCKETS; b++) {
		if (size_bucket_low(b) > limit)
			*least += h->count[m][b];
		else if (size_bucket_high(b) > limit)
			*most += h->count[m][b]; /* the bucket the limit splits */
	}
	*most += *least;
	/* The largest value seen is over the limit: at least it is. */
	if (!*least)
		*least = 1;
}

uint64_t size_hist_keep(const struct size_hist *h, enum argguard_size_metric m, double keep_share)
{
	uint64_t n = size_hist_execs(h, m), need, seen = 0;

	if (!n)
		return 0;
	if (keep_share >= 1)
		return h->max[m];
	need = (uint64_t)(keep_share * (double)n);
	if ((double)need < keep_share * (double)n)
		need++;
	if (!need)
		need = 1;
	for (__u32 b = 0; b < ARGGUARD_SIZE_BUCKETS; b++) {
		seen += h->count[m][b];
		if (seen >= need)
			return size_bucket_high(b) < h->max[m] ? size_bucket_high(b) : h->max[m];
	}
	return h->max[m];
}

int size_data_init(struct size_data *d)
{
	memset(d, 0, sizeof(*d));
	d->hist = calloc(ARGGUARD_SIZE_SLOTS, sizeof(*d->hist));
	d->denied = calloc(ARGGUARD_SIZE_SLOTS, sizeof(*d->denied));
	d->slot_largest = calloc(ARGGUARD_SIZE_SLOTS, sizeof(*d->slot_largest));
	d->scopes = calloc(ARGGUARD_SIZE_SLOTS, sizeof(*d->scopes));
	if (!d->hist || !d->denied || !d->slot_largest || !d->scopes) {
		size_data_free(d);
		return -ENOMEM;
	}
	d->n_scopes = ARGGUARD_SIZE_SLOTS;
	return 0;
}

void size_data_add_exec(struct size_data *d, struct size_exec *e, bool denied)
{
	struct size_exec *list = denied ? d->largest_denied : d->largest;
	size_t *n = denied ? &d->n_largest_denied : &d->n_largest;
	const size_t room = sizeof(d->largest) / sizeof(d->largest[0]);
	size_t at;

	for (at = *n; at > 0 && list[at - 1].total_bytes < e->total_bytes; at--)
		;
	if (at >= room) {
		free(e->cgroup);
		return;
	}
	if (*n == room) {
		free(list[room - 1].cgroup);
		(*n)--;
	}
	memmove(&list[at + 1], &list[at], (*n - at) * sizeof(list[0]));
	list[at] = *e;
	(*n)++;
}

void size_data_add_largest(struct size_data *d, const struct argguard_largest *cpu, bool denied)
{
	for (int i = 0; i < ARGGUARD_LARGEST; i++) {
		struct size_exec e = {
			.total_bytes = cpu->total_bytes[i],
			.argv_bytes = cpu->argv_bytes[i],
			.envp_bytes = cpu->envp_bytes[i],
			.cgroup_id = cpu->cgroup_id[i],
			.argc = cpu->argc[i],
			.envc = cpu->envc[i],
			.uid = cpu->uid[i],
			.slot = cpu->slot[i],
			.exact = cpu->flags[i] & ARGGUARD_EV_EXACT_SIZES,
		};

		if (!e.total_bytes && !e.argc)
			continue; /* an empty entry */
		memcpy(e.comm, &cpu->comm[i * ARGGUARD_COMM_LEN], ARGGUARD_COMM_LEN);
		e.slot %= ARGGUARD_SIZE_SLOTS;
		if (!denied && e.total_bytes > d->slot_largest[e.slot].total_bytes)
			d->slot_largest[e.slot] = e;
		size_data_add_exec(d, &e, denied);
	}
}

static uint64_t add_at_most_max(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void size_hist_merge(struct size_hist *into, const struct size_hist *h)
{
	for (int m = 0; m < ARGGUARD_NR_SIZE_METRICS; m++) {
		if (h->max[m] > into->max[m])
			into->max[m] = h->max[m];
		into->sum[m] = add_at_most_max(into->sum[m], h->sum[m]);
		for (int b = 0; b < ARGGUARD_SIZE_BUCKETS; b++)
			into->count[m][b] = add_at_most_max(into->count[m][b], h->count[m][b]);
	}
	if (h->since && (!into->since || h->since < into->since))
		into->since = h->since;
}

bool size_scope_same(const struct size_scope *a, const struct size_scope *b)
{
	if (a->other || b->other)
		return a->other && b->other;
	if (!a->ruled || !b->ruled)
		return !a->ruled && !b->ruled;
	if (a->scope != b->scope)
		return false;
	if (a->scope == ARGGUARD_SCOPE_UID)
		return a->uid == b->uid;
	if (a->scope == ARGGUARD_SCOPE_CGROUP)
		return !strcmp(a->path, b->path);
	return true;
}

/* *array, of n elements of size each, with room for one more. */
static int grow(void *array, size_t n, size_t size)
{
	void *more = realloc(*(void **)array, (n + 1) * size);

	if (!more)
		return -ENOMEM;
	*(void **)array = more;
	return 0;
}

int size_data_scope(struct size_data *d, const struct size_scope *s)
{
	char *path = NULL;
	size_t n = d->n_scopes;

	for (size_t i = 0; i < n; i++)
		if (size_scope_same(&d->scopes[i], s))
			return (int)i;
	if (n >= INT32_MAX)
		return -ENOMEM;
	if (s->ruled && !s->other && s->scope == ARGGUARD_SCOPE_CGROUP) {
		if (grow(&d->paths, d->n_paths, sizeof(*d->paths)))
			return -ENOMEM;
		path = strdup(s->path);
		if (!path)
			return -ENOMEM;
		d->paths[d->n_paths++] = path;
	}
	if (grow(&d->scopes, n, sizeof(*d->scopes)) || grow(&d->hist, n, sizeof(*d->hist)) ||
	    grow(&d->denied, n, sizeof(*d->denied)) ||
	    grow(&d->slot_largest, n, sizeof(*d->slot_largest)))
		return -ENOMEM;
	d->scopes[n] = *s;
	d->scopes[n].path = path;
	memset(&d->hist[n], 0, sizeof(d->hist[n]));
	memset(&d->denied[n], 0, sizeof(d->denied[n]));
	memset(&d->slot_largest[n], 0, sizeof(d->slot_largest[n]));
	d->n_scopes++;
	return (int)n;
}

struct size_uid *size_data_uid(struct size_data *d, uint32_t at, uint32_t uid)
{
	struct size_uid *u;

	if (grow(&d->uids, d->n_uids, sizeof(*d->uids)))
		return NULL;
	u = &d->uids[d->n_uids++];
	memset(u, 0, sizeof(*u));
	u->slot = at;
	u->uid = uid;
	return u;
}

static int by_slot_then_uid(const void *a, const void *b)
{
	const struct size_uid *x = a, *y = b;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

bool size_data_sort_uids(struct size_data *d)
{
	size_t kept = 0;
	bool twice = false;

	if (!d->n_uids)
		return false;
	qsort(d->uids, d->n_uids, sizeof(*d->uids), by_slot_then_uid);
	for (size_t i = 1; i < d->n_uids; i++) {
		if (!by_slot_then_uid(&d->uids[kept], &d->uids[i])) {
			size_hist_merge(&d->uids[kept].hist, &d->uids[i].hist);
			twice = true;
			continue;
		}
		d->uids[++kept] = d->uids[i];
	}
	d->n_uids = kept + 1;
	return twice;
}

bool size_data_counted(const struct size_data *d, size_t s)
{
	return size_hist_execs(&d->hist[s], ARGGUARD_SIZE_TOTAL_BYTES) ||
	       size_hist_execs(&d->denied[s], ARGGUARD_SIZE_TOTAL_BYTES);
}

/* from's largest execs (denied: those denied) among into's, each in its scope of into. */
static int add_execs(struct size_data *into, const struct size_data *from, bool denied)
{
	const struct size_exec *list = denied ? from->largest_denied : from->largest;
	size_t n = denied ? from->n_largest_denied : from->n_largest;
	int at;

	for (size_t i = 0; i < n; i++) {
		struct size_exec e = list[i];

		if (e.slot >= from->n_scopes)
			continue;
		at = size_data_scope(into, &from->scopes[e.slot]);
		if (at < 0)
			return at;
		e.slot = at;
		e.cgroup = NULL;
		if (list[i].cgroup) {
			e.cgroup = strdup(list[i].cgroup);
			if (!e.cgroup)
				return -ENOMEM;
		}
		size_data_add_exec(into, &e, denied);
	}
	return 0;
}

int size_data_add(struct size_data *into, const struct size_data *from)
{
	struct size_uid *u;
	int at, err;

	for (size_t s = 0; s < from->n_scopes; s++) {
		if (!size_scope_shown(&from->scopes[s]) || !size_data_counted(from, s))
			continue;
		at = size_data_scope(into, &from->scopes[s]);
		if (at < 0)
			return at;
		size_hist_merge(&into->hist[at], &from->hist[s]);
		size_hist_merge(&into->denied[at], &from->denied[s]);
		if (from->slot_largest[s].total_bytes > into->slot_largest[at].total_bytes) {
			into->slot_largest[at] = from->slot_largest[s];
			into->slot_largest[at].slot = at;
			into->slot_largest[at].cgroup = NULL;
		}
	}
	for (size_t i = 0; i < from->n_uids; i++) {
		const struct size_uid *f = &from->uids[i];

		if (f->slot >= from->n_scopes || !size_scope_shown(&from->scopes[f->slot]) ||
		    !size_data_counted(from, f->slot))
			continue;
		at = size_data_scope(into, &from->scopes[f->slot]);
		if (at < 0)
			return at;
		u = size_data_uid(into, (uint32_t)at, f->uid);
		if (!u)
			return -ENOMEM;
		size_hist_merge(&u->hist, &f->hist);
	}
	size_data_sort_uids(into);
	err = add_execs(into, from, false);
	return err ? err : add_execs(into, from, true);
}

/* Whether scope s of d is one p has no rule for, whose counts go with the rule. */
static bool unruled(const struct size_data *d, uint32_t s, const struct policy *p)
{
	return s < d->n_scopes && size_scope_shown(&d->scopes[s]) && !d->scopes[s].other &&
	       !size_slots_rule(p, &d->scopes[s]);
}

/* Of list's *n execs, those of a scope p has a rule for. */
static void keep_ruled_execs(const struct size_data *d, struct size_exec *list, size_t *n,
			     const struct policy *p)
{
	size_t kept = 0;

	for (size_t i = 0; i < *n; i++) {
		if (unruled(d, list[i].slot, p)) {
			free(list[i].cgroup);
			continue;
		}
		list[kept++] = list[i];
	}
	*n = kept;
}

void size_data_keep_ruled(struct size_data *d, const struct policy *p)
{
	size_t kept = 0;

	for (size_t s = 0; s < d->n_scopes; s++) {
		if (!unruled(d, (uint32_t)s, p))
			continue;
		memset(&d->hist[s], 0, sizeof(d->hist[s]));
		memset(&d->denied[s], 0, sizeof(d->denied[s]));
		memset(&d->slot_largest[s], 0, sizeof(d->slot_largest[s]));
	}
	for (size_t i = 0; i < d->n_uids; i++)
		if (!unruled(d, d->uids[i].slot, p))
			d->uids[kept++] = d->uids[i];
	d->n_uids = kept;
	keep_ruled_execs(d, d->largest, &d->n_largest, p);
	keep_ruled_execs(d, d->largest_denied, &d->n_largest_denied, p);
}

bool size_data_empty(const struct size_data *d)
{
	for (size_t s = 0; s < d->n_scopes; s++)
		if (size_data_counted(d, s))
			return false;
	return !d->n_largest && !d->n_largest_denied;
}

void size_data_free(struct size_data *d)
{
	for (size_t i = 0; i < d->n_largest; i++)
		free(d->largest[i].cgroup);
	d->n_largest = 0;
	for (size_t i = 0; i < d->n_largest_denied; i++)
		free(d->largest_denied[i].cgroup);
	d->n_largest_denied = 0;
	for (size_t i = 0; i < d->n_cgroups; i++)
		free(d->cgroups[i].cgroup);
	free(d->cgroups);
	d->cgroups = NULL;
	d->n_cgroups = 0;
	free(d->uids);
	d->uids = NULL;
	d->n_uids = 0;
	for (size_t i = 0; i < d->n_paths; i++)
		free(d->paths[i]);
	free(d->paths);
	d->paths = NULL;
	d->n_paths = 0;
	free(d->hist);
	free(d->denied);
	free(d->slot_largest);
	free(d->scopes);
	d->hist = NULL;
	d->denied = NULL;
	d->slot_largest = NULL;
	d->scopes = NULL;
	d->n_scopes = 0;
}
