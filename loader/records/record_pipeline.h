/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record pipeline: ring buffer, typed record (the event and the paths
 * of its cgroups), sinks; and the accounting of what never reached them.
 */
#ifndef ARGGUARD_RECORD_PIPELINE_H
#define ARGGUARD_RECORD_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "sink.h"

struct record_pipeline;

/* The maps a pipeline reads, by fd. */
struct record_maps {
	int events; /* the ring buffer */
	int drops; /* the drops counters, for the summaries */
	int uid_buckets; /* the uid buckets, for the uids a summary names */
};

/* Where the summaries start: what the last daemon's log left (json_log.h). */
struct record_start {
	uint64_t held_at_exit; /* records it never settled: the first summary reports them */
	bool earlier_pins; /* the maps were adopted: their counters go on */
	/*
	 * With earlier_pins, the drop counts the last daemon's summaries covered
	 * (0: none); counts that do not fit the maps count as none. The pipeline
	 * puts here those its own summaries start from.
	 */
	uint64_t mark_suppressed, mark_ring_full;
};

/*
 * Records from the ring buffer to the sinks, in their order; the pipeline
 * takes the sinks over, and closes them when it is freed (or now, if it
 * fails). The first sink is the log, whose records the summaries
 * reconcile. NULL, with the reason logged, if the ring buffer cannot be
 * opened.
 */
struct record_pipeline *record_pipeline_new(const struct record_maps *maps,
					    struct sink *const *sinks, unsigned int n_sinks,
					    struct record_start *start);

/*
 * Wait up to timeout_ms for records and pass them on; then have the sinks
 * write what they held back, and sum up any new losses in a summary record.
 * Returns how many records came, or a negative errno (-EINTR: a signal,
 * and nothing else was done).
 */
int record_pipeline_poll(struct record_pipeline *p, int timeout_ms);

/*
 * Each sink's name and what it lost since the pipeline started (the log's
 * with what the last daemon left unsettled), into names and lost, at most
 * max of them, in the sinks' order. Returns how many.
 */
unsigned int record_pipeline_sink_losses(struct record_pipeline *p, const char **names,
					 uint64_t *lost, unsigned int max);

/* On SIGUSR1: each sink reopens what logrotate moved away. */
void record_pipeline_reopen(struct record_pipeline *p);

/* At exit: pass on what is left in the ring buffer, then a last summary. */
void record_pipeline_drain(struct record_pipeline *p);

/* Close the sinks and free p; NULL does nothing. */
void record_pipeline_free(struct record_pipeline *p);

#endif /* ARGGUARD_RECORD_PIPELINE_H */
