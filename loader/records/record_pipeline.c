// SPDX-License-Identifier: GPL-2.0
/*
 * The record pipeline: each event from the ring buffer becomes a typed
 * record, with the paths of its cgroups (and the CRI's names of its
 * container, cri_names.h), and is queued for every sink,
 * each of which writes from a thread of its own (sink_queue.c). What never
 * reached the log (held back by the rate limits, lost to a full ring
 * buffer, malformed, given up by the log) and what the other sinks lost
 * is summed up in a summary record. The first sink is the log: the one
 * whose records the summaries reconcile.
 */
#include "record_pipeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cgroup.h"
#include "clocks.h"
#include "container.h"
#include "cri_names.h"
#include "event_json.h"
#include "log.h"
#include "policy.h"
#include "policy_maps.h"
#include "sink_queue.h"

/* How often, at most, the counters of lost records are read (and a summary written). */
#define LOSS_CHECK_INTERVAL_NS 500000000ULL
/* How long to wait for a record that is reserved but not yet submitted. */
#define BUSY_RECORD_WAIT_NS 1000000L
/* How long the sinks get at exit to write what they hold. */
#define DRAIN_TIMEOUT_NS 3000000000ULL

/* Records that never reached the log, as of since_ns (CLOCK_MONOTONIC). */
struct losses {
	struct record_losses n;
	uint64_t since_ns;
};

/* The uid buckets' counts of held-back records, sorted by uid. */
struct uid_counts {
	struct uid_suppressed v[ARGGUARD_MAX_RATED_UIDS];
	size_t n;
};

struct record_pipeline {
	struct ring_buffer *rb;
	int drops_fd;
	int uid_buckets_fd;
	struct uid_counts uids; /* as the last summary left them */
	uint64_t malformed; /* records shorter than an event */
	uint64_t held_at_exit; /* what the last daemon's log never settled: reported here */
	int64_t realtime_offset_ns;
	struct cgroup_cache cgroups;
	struct cri_cache cri;
	struct losses reported; /* what the last summary covered */
	uint64_t checked_ns; /* when the counters were last read */
	unsigned int n_sinks;
	struct sink *sinks[]; /* in order: each record goes to the first one first */
};

/* One record, queued for every sink: each writes it as it needs. */
static void write_record(struct record_pipeline *p, struct record *r)
{
	r->realtime_offset_ns = p->realtime_offset_ns;
	for (unsigned int i = 0; i < p->n_sinks; i++)
		sink_queue_push(p->sinks[i], r);
}

static int log_event(void *ctx, void *data, size_t size)
{
	struct record_pipeline *p = ctx;
	const struct argguard_event *e = data;
	struct record r = { .kind = RECORD_EXEC, .event = e };
	struct container c;

	if (size < sizeof(struct argguard_event)) {
		p->malformed++;
		return 0;
	}
	r.cgroup = cgroup_cache_path(&p->cgroups, e->cgroup_id, &r.cgroup_err);
	if (e->scope == ARGGUARD_SCOPE_CGROUP)
		r.rule_cgroup = cgroup_cache_path(&p->cgroups, e->rule_id, &r.rule_cgroup_err);
	if (container_from_cgroup(r.cgroup, &c))
		r.names = cri_cache_names(&p->cri, r.cgroup, &c);
	write_record(p, &r);
	return 0;
}

static void read_losses(const struct record_pipeline *p, struct losses *now)
{
	*now = (struct losses){ 0 };
	now->n.suppressed = counter_sum(p->drops_fd, ARGGUARD_DROP_RATE_LIMITED);
	now->n.ring_full = counter_sum(p->drops_fd, ARGGUARD_DROP_RING_FULL);
	now->n.malformed = p->malformed;
	now->n.held_at_exit = p->held_at_exit;
	for (unsigned int i = 0; i < p->n_sinks && i <= RECORD_OTHER_SINKS; i++) {
		struct sink_losses l = sink_queue_losses(p->sinks[i]);

		if (i == 0) {
			now->n.log_backlog = sink_losses_total(&l);
		} else {
			now->n.other_sinks[i - 1].name = p->sinks[i]->ops->name;
			now->n.other_sinks[i - 1].n = sink_losses_total(&l);
		}
	}
	now->since_ns = monotonic_ns();
}

static int by_uid(const void *a, const void *b)
{
	uint32_t x = ((const struct uid_suppressed *)a)->uid;
	uint32_t y = ((const struct uid_suppressed *)b)->uid;

	return x < y ? -1 : x > y;
}

/* A bucket, by its key: root's are one a container. */
struct bucket_count {
	struct argguard_uid_bucket_key key;
	uint64_t n;
};

static int by_key(const void *a, const void *b)
{
	const struct argguard_uid_bucket_key *x = &((const struct bucket_count *)a)->key;
	const struct argguard_uid_bucket_key *y = &((const struct bucket_count *)b)->key;

	if (x->uid != y->uid)
		return x->uid < y->uid ? -1 : 1;
	return x->container < y->container ? -1 : x->container > y->container;
}

/*
 * Every uid's count, summed over its buckets, sorted by uid. A walk of an
 * LRU map starts again when the key it stands on is dropped: a bucket met
 * twice counts once.
 */
static void read_uid_counts(int fd, struct uid_counts *out)
{
	static struct bucket_count seen[ARGGUARD_MAX_RATED_UIDS];
	struct argguard_uid_bucket_key key, *prev = NULL;
	struct argguard_uid_bucket b;
	size_t n = 0;

	while (n < ARGGUARD_MAX_RATED_UIDS && !bpf_map_get_next_key(fd, prev, &key)) {
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &b))
			continue;
		seen[n].key = key;
		seen[n++].n = b.suppressed;
	}
	qsort(seen, n, sizeof(seen[0]), by_key);
	out->n = 0;
	for (size_t i = 0; i < n; i++) {
		if (i && !by_key(&seen[i - 1], &seen[i]))
			continue;
		if (out->n && out->v[out->n - 1].uid == seen[i].key.uid)
			out->v[out->n - 1].n += seen[i].n;
		else
			out->v[out->n++] =
				(struct uid_suppressed){ .uid = seen[i].key.uid, .n = seen[i].n };
	}
}

/* Put (uid, n) among the top, most first, if it belongs there. */
static void rank(struct uid_suppressed *top, uint32_t uid, uint64_t n)
{
	int i = RECORD_TOP_UIDS;

	while (i > 0 && top[i - 1].n < n) {
		if (i < RECORD_TOP_UIDS)
			top[i] = top[i - 1];
		i--;
	}
	if (i < RECORD_TOP_UIDS)
		top[i] = (struct uid_suppressed){ .uid = uid, .n = n };
}

/*
 * The uids that lost the most records since the last summary, into top. A
 * bucket that was dropped and made again since counts from 0.
 */
static void top_uids_since(struct record_pipeline *p, struct uid_suppressed *top)
{
	struct uid_counts *now = malloc(sizeof(*now));
	const struct uid_suppressed *was;

	if (!now)
		return;
	read_uid_counts(p->uid_buckets_fd, now);
	for (size_t i = 0; i < now->n; i++) {
		uint64_t n = now->v[i].n;

		was = bsearch(&now->v[i], p->uids.v, p->uids.n, sizeof(p->uids.v[0]), by_uid);
		if (was && was->n <= n)
			n -= was->n;
		if (n)
			rank(top, now->v[i].uid, n);
	}
	p->uids = *now;
	free(now);
}

/*
 * Where an adopted daemon's summaries start: the drop counts the last
 * daemon's summaries covered, kept across restarts, so that drops while no
 * daemon ran go into the next daemon's first summary. None (or counts that
 * do not fit the maps) means no summary has covered the pinned counters
 * yet: all of their drops are still to be reported.
 */
static void go_on_from(struct record_pipeline *p, const struct record_start *start)
{
	uint64_t suppressed = start->mark_suppressed, ring_full = start->mark_ring_full;

	if (suppressed > p->reported.n.suppressed || ring_full > p->reported.n.ring_full)
		suppressed = ring_full = 0;
	p->reported.n.suppressed = suppressed;
	p->reported.n.ring_full = ring_full;
}

/* A summary record for what was held back or lost since the last one. */
static void report_losses(struct record_pipeline *p)
{
	struct record r = { .kind = RECORD_SUMMARY };
	struct losses now;
	bool any;

	read_losses(p, &now);
	r.losses = (struct record_losses){
		.suppressed = now.n.suppressed - p->reported.n.suppressed,
		.ring_full = now.n.ring_full - p->reported.n.ring_full,
		.log_backlog = now.n.log_backlog - p->reported.n.log_backlog,
		.malformed = now.n.malformed - p->reported.n.malformed,
		.held_at_exit = now.n.held_at_exit - p->reported.n.held_at_exit,
	};
	any = r.losses.suppressed || r.losses.ring_full || r.losses.log_backlog ||
	      r.losses.malformed || r.losses.held_at_exit;
	for (int i = 0; i < RECORD_OTHER_SINKS; i++) {
		r.losses.other_sinks[i].name = now.n.other_sinks[i].name;
		r.losses.other_sinks[i].n = now.n.other_sinks[i].n - p->reported.n.other_sinks[i].n;
		any = any || r.losses.other_sinks[i].n;
	}
	if (!any)
		return;
	if (r.losses.suppressed)
		top_uids_since(p, r.losses.top_uids);
	r.interval_ns = now.since_ns - p->reported.since_ns;
	r.end_ns = now.since_ns;
	/* The log saves the mark once it has written the summary: a crash before loses neither. */
	r.mark_suppressed = now.n.suppressed;
	r.mark_ring_full = now.n.ring_full;
	write_record(p, &r);
	p->reported = now;
}

struct record_pipeline *record_pipeline_new(const struct record_maps *maps,
					    struct sink *const *sinks, unsigned int n_sinks,
					    struct record_start *start)
{
	struct record_pipeline *p = calloc(1, sizeof(*p) + n_sinks * sizeof(struct sink *));

	if (!p) {
		log_error("failed to start the record pipeline: %s", strerror(ENOMEM));
		for (unsigned int i = 0; i < n_sinks; i++)
			sink_close(sinks[i]);
		return NULL;
	}
	p->drops_fd = maps->drops;
	p->uid_buckets_fd = maps->uid_buckets;
	p->realtime_offset_ns = realtime_offset_ns();
	p->cgroups.root = DEFAULT_CGROUP_ROOT;
	p->cri.cgroup_root = DEFAULT_CGROUP_ROOT;
	p->cri.tasks_dir = CRI_TASKS_DIR;
	memcpy(p->sinks, sinks, n_sinks * sizeof(struct sink *));
	for (; p->n_sinks < n_sinks; p->n_sinks++) {
		if (sink_queue_start(sinks[p->n_sinks])) { /* which closed it */
			for (unsigned int j = p->n_sinks + 1; j < n_sinks; j++)
				sink_close(sinks[j]);
			record_pipeline_free(p);
			return NULL;
		}
	}
	p->rb = ring_buffer__new(maps->events, log_event, p, NULL);
	if (!p->rb) {
		log_error("failed to open the event ring buffer: %s", strerror(errno));
		record_pipeline_free(p);
		return NULL;
	}
	read_losses(p, &p->reported);
	read_uid_counts(p->uid_buckets_fd, &p->uids);
	/* Reported in the first summary: what the last daemon's log never settled. */
	p->held_at_exit = start->held_at_exit;
	if (start->earlier_pins)
		go_on_from(p, start);
	start->mark_suppressed = p->reported.n.suppressed;
	start->mark_ring_full = p->reported.n.ring_full;
	return p;
}

int record_pipeline_poll(struct record_pipeline *p, int timeout_ms)
{
	uint64_t start = monotonic_ns();
	int n = ring_buffer__poll(p->rb, timeout_ms);

	if (n < 0)
		return n;
	/*
	 * Ready, yet nothing to read: the next record is reserved but not yet
	 * submitted, by a sleepable program that sleeps (reading the new
	 * stack). Wait a little rather than spin until it is.
	 */
	if (!n && monotonic_ns() - start < (uint64_t)timeout_ms * 1000000 / 2)
		nanosleep(&(struct timespec){ .tv_nsec = BUSY_RECORD_WAIT_NS }, NULL);
	/*
	 * At most once an interval: reading the counters takes system calls,
	 * and a summary is a record too, which a sink that loses every record
	 * loses again, to be summed up in the next.
	 */
	if (monotonic_ns() - p->checked_ns >= LOSS_CHECK_INTERVAL_NS) {
		report_losses(p);
		p->checked_ns = monotonic_ns();
	}
	return n;
}

unsigned int record_pipeline_sink_losses(struct record_pipeline *p, const char **names,
					 uint64_t *lost, unsigned int max)
{
	unsigned int i;

	for (i = 0; i < p->n_sinks && i < max; i++) {
		struct sink_losses l = sink_queue_losses(p->sinks[i]);

		names[i] = p->sinks[i]->ops->name;
		lost[i] = sink_losses_total(&l) + (i == 0 ? p->held_at_exit : 0);
	}
	return i;
}

void record_pipeline_reopen(struct record_pipeline *p)
{
	for (unsigned int i = 0; i < p->n_sinks; i++)
		sink_queue_reopen(p->sinks[i]);
}

void record_pipeline_drain(struct record_pipeline *p)
{
	uint64_t deadline = monotonic_ns() + DRAIN_TIMEOUT_NS;

	ring_buffer__consume(p->rb);
	report_losses(p);
	for (unsigned int i = 0; i < p->n_sinks; i++)
		sink_queue_drain(p->sinks[i], deadline);
}

void record_pipeline_free(struct record_pipeline *p)
{
	struct sink_losses l;

	if (!p)
		return;
	ring_buffer__free(p->rb);
	/* What the log still holds stays unsettled: the next daemon's first summary reports it. */
	for (unsigned int i = 0; i < p->n_sinks; i++)
		sink_queue_stop(p->sinks[i], &l);
	cgroup_cache_free(&p->cgroups);
	cri_cache_free(&p->cri);
	free(p);
}
