// SPDX-License-Identifier: GPL-2.0
#include "size_data.h"

#include <errno.h>
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

void size_data_add_largest(struct size_data *d, const struct argguard_largest *cpu, bool denied)
{
	struct size_exec *list = denied ? d->largest_denied : d->largest;
	size_t *n = denied ? &d->n_largest_denied : &d->n_largest;
	const size_t room = sizeof(d->largest) / sizeof(d->largest[0]);

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
		size_t at;

		if (!e.total_bytes && !e.argc)
			continue; /* an empty entry */
		memcpy(e.comm, &cpu->comm[i * ARGGUARD_COMM_LEN], ARGGUARD_COMM_LEN);
		if (!denied &&
		    e.total_bytes > d->slot_largest[e.slot % ARGGUARD_SIZE_SLOTS].total_bytes)
			d->slot_largest[e.slot % ARGGUARD_SIZE_SLOTS] = e;
		/* Insert in order, the largest first; the smallest falls off the end. */
		for (at = *n; at > 0 && list[at - 1].total_bytes < e.total_bytes; at--)
			;
		if (at >= room)
			continue;
		if (*n == room) {
			free(list[room - 1].cgroup);
			(*n)--;
		}
		memmove(&list[at + 1], &list[at], (*n - at) * sizeof(list[0]));
		list[at] = e;
		(*n)++;
	}
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
}
