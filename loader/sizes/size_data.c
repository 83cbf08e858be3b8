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
	d->scopes = calloc(ARGGUARD_SIZE_SLOTS, sizeof(*d->scopes));
	if (!d->hist || !d->scopes) {
		size_data_free(d);
		return -ENOMEM;
	}
	d->n_scopes = ARGGUARD_SIZE_SLOTS;
	return 0;
}

void size_data_add_exec(struct size_data *d, struct size_exec *e)
{
	const size_t room = sizeof(d->largest) / sizeof(d->largest[0]);
	size_t at;

	for (at = d->n_largest; at > 0 && d->largest[at - 1].total_bytes < e->total_bytes; at--)
		;
	if (at >= room) {
		free(e->cgroup);
		return;
	}
	if (d->n_largest == room) {
		free(d->largest[room - 1].cgroup);
		d->n_largest--;
	}
	memmove(&d->largest[at + 1], &d->largest[at], (d->n_largest - at) * sizeof(d->largest[0]));
	d->largest[at] = *e;
	d->n_largest++;
}

void size_data_add_largest(struct size_data *d, const struct argguard_largest *cpu)
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
		size_data_add_exec(d, &e);
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

int size_data_scope(struct size_data *d, const struct size_scope *s)
{
	struct size_scope *scopes;
	struct size_hist *hist;
	char *path = NULL, **paths;

	for (size_t i = 0; i < d->n_scopes; i++)
		if (size_scope_same(&d->scopes[i], s))
			return (int)i;
	if (d->n_scopes >= INT32_MAX)
		return -ENOMEM;
	if (s->ruled && !s->other && s->scope == ARGGUARD_SCOPE_CGROUP) {
		paths = realloc(d->paths, (d->n_paths + 1) * sizeof(*paths));
		if (!paths)
			return -ENOMEM;
		d->paths = paths;
		path = strdup(s->path);
		if (!path)
			return -ENOMEM;
		d->paths[d->n_paths++] = path;
	}
	scopes = realloc(d->scopes, (d->n_scopes + 1) * sizeof(*scopes));
	if (!scopes)
		return -ENOMEM;
	d->scopes = scopes;
	hist = realloc(d->hist, (d->n_scopes + 1) * sizeof(*hist));
	if (!hist)
		return -ENOMEM;
	d->hist = hist;
	d->scopes[d->n_scopes] = *s;
	d->scopes[d->n_scopes].path = path;
	memset(&d->hist[d->n_scopes], 0, sizeof(*hist));
	return (int)d->n_scopes++;
}

int size_data_add(struct size_data *into, const struct size_data *from)
{
	int at;

	for (size_t s = 0; s < from->n_scopes; s++) {
		if (!size_scope_shown(&from->scopes[s]) ||
		    !size_hist_execs(&from->hist[s], ARGGUARD_SIZE_TOTAL_BYTES))
			continue;
		at = size_data_scope(into, &from->scopes[s]);
		if (at < 0)
			return at;
		size_hist_merge(&into->hist[at], &from->hist[s]);
	}
	for (size_t i = 0; i < from->n_largest; i++) {
		struct size_exec e = from->largest[i];

		if (e.slot >= from->n_scopes)
			continue;
		at = size_data_scope(into, &from->scopes[e.slot]);
		if (at < 0)
			return at;
		e.slot = at;
		e.cgroup = NULL;
		if (from->largest[i].cgroup) {
			e.cgroup = strdup(from->largest[i].cgroup);
			if (!e.cgroup)
				return -ENOMEM;
		}
		size_data_add_exec(into, &e);
	}
	return 0;
}

void size_data_keep_ruled(struct size_data *d, const struct policy *p)
{
	size_t kept = 0;

	for (size_t s = 0; s < d->n_scopes; s++)
		if (size_scope_shown(&d->scopes[s]) && !d->scopes[s].other &&
		    !size_slots_rule(p, &d->scopes[s]))
			memset(&d->hist[s], 0, sizeof(d->hist[s]));
	for (size_t i = 0; i < d->n_largest; i++) {
		struct size_exec *e = &d->largest[i];

		if (e->slot < d->n_scopes && size_scope_shown(&d->scopes[e->slot]) &&
		    !d->scopes[e->slot].other && !size_slots_rule(p, &d->scopes[e->slot])) {
			free(e->cgroup);
			continue;
		}
		d->largest[kept++] = *e;
	}
	d->n_largest = kept;
}

bool size_data_empty(const struct size_data *d)
{
	for (size_t s = 0; s < d->n_scopes; s++)
		if (size_hist_execs(&d->hist[s], ARGGUARD_SIZE_TOTAL_BYTES))
			return false;
	return !d->n_largest;
}

void size_data_free(struct size_data *d)
{
	for (size_t i = 0; i < d->n_largest; i++)
		free(d->largest[i].cgroup);
	d->n_largest = 0;
	for (size_t i = 0; i < d->n_cgroups; i++)
		free(d->cgroups[i].cgroup);
	free(d->cgroups);
	d->cgroups = NULL;
	d->n_cgroups = 0;
	for (size_t i = 0; i < d->n_paths; i++)
		free(d->paths[i]);
	free(d->paths);
	d->paths = NULL;
	d->n_paths = 0;
	free(d->hist);
	free(d->scopes);
	d->hist = NULL;
	d->scopes = NULL;
	d->n_scopes = 0;
}

static int copy_policy(const struct policy *base, struct policy *out)
{
	policy_init(out);
	*out = *base;
	out->uids = NULL;
	out->n_uids = 0;
	out->cgroups = NULL;
	out->n_cgroups = 0;
	out->admin_groups = NULL;
	out->n_admin_groups = 0;
	out->parts = NULL;
	out->n_parts = 0;
	for (size_t i = 0; i < base->n_uids; i++) {
		struct argguard_rule *r =
			policy_add_uid(out, base->uids[i].uid, &base->uids[i].rule, 0);

		if (!r)
			goto out_free;
		out->uids[out->n_uids - 1].line = base->uids[i].line;
	}
	for (size_t i = 0; i < base->n_cgroups; i++) {
		if (!policy_add_cgroup(out, base->cgroups[i].path, &base->cgroups[i].rule, 0))
			goto out_free;
		out->cgroups[out->n_cgroups - 1].line = base->cgroups[i].line;
	}
	if (base->n_admin_groups) {
		out->admin_groups = calloc(base->n_admin_groups, sizeof(*out->admin_groups));
		if (!out->admin_groups)
			goto out_free;
		for (size_t i = 0; i < base->n_admin_groups; i++) {
			out->admin_groups[i] = strdup(base->admin_groups[i]);
			out->n_admin_groups = i + 1;
			if (!out->admin_groups[i])
				goto out_free;
		}
	}
	if (base->n_parts) {
		/* The files the lines are in. */
		out->parts = calloc(base->n_parts, sizeof(*out->parts));
		if (!out->parts)
			goto out_free;
		for (size_t i = 0; i < base->n_parts; i++) {
			out->parts[i].first = base->parts[i].first;
			out->parts[i].name = strdup(base->parts[i].name);
			out->n_parts = i + 1;
			if (!out->parts[i].name)
				goto out_free;
		}
	}
	return 0;
out_free:
	policy_free(out);
	return -ENOMEM;
}

/* The limit for metric m of one slot, or 0 to keep the base's. */
static uint64_t suggested(const struct size_hist *h, enum argguard_size_metric m,
			  const struct suggest_options *o)
{
	const struct policy_limit_info *info = &policy_limits[m];
	uint64_t v = size_hist_keep(h, m, o->keep_share);
	uint64_t add;

	if (!size_hist_execs(h, m))
		return 0;
	add = v / 100 * o->margin + (v % 100 * o->margin + 99) / 100;
	v = v > info->max - add ? info->max : v + add;
	if (size_metric_bytes(m) && v <= info->max - 1023)
		v = (v + 1023) & ~1023ULL;
	if (v < info->lockout_floor)
		v = info->lockout_floor;
	return v ? v : 1;
}

_Static_assert(POLICY_LIMIT_max_argv_bytes == (int)ARGGUARD_SIZE_ARGV_BYTES &&
		       POLICY_LIMIT_max_envc == (int)ARGGUARD_SIZE_ENVC,
	       "a metric is the index of its rule limit in POLICY_LIMITS");

int size_suggest(const struct policy *base, const struct size_data *d,
		 const struct suggest_options *o, struct policy *out)
{
	int err = copy_policy(base, out);

	if (err)
		return err;
	out->mode = o->mode;
	for (size_t s = 0; s < d->n_scopes; s++) {
		struct argguard_rule *r =
			(struct argguard_rule *)size_slots_rule(out, &d->scopes[s]);

		if (!r)
			continue;
		for (int m = 0; m < ARGGUARD_NR_SIZE_METRICS; m++) {
			uint64_t v = suggested(&d->hist[s], m, o);

			if (v)
				policy_limit_set(r, (enum policy_limit)m, v);
		}
	}
	return 0;
}
