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

/* The drop counts the last summary covered: a restarted daemon goes on from there. */
#define ARGGUARD_REPORTED "/run/argguard.reported"

struct record_pipeline;

/* The maps a pipeline reads, by fd. */
struct record_maps {
	int events; /* the ring buffer */
	int drops; /* the drops counters, for the summaries */
	int uid_buckets; /* the uid buckets, for the uids a summary names */
};

/*
 * Records from the ring buffer to the sinks, in their order; the pipeline
 * takes the sinks over, and closes them when it is freed (or now, if it
 * fails). earlier_pins: the maps were adopted, so the first summary goes
 * on from the last daemon's (ARGGUARD_REPORTED). log_path: the JSON log,
 * where the ledger (ARGGUARD_LEDGER) settles a write the last daemon was
 * killed in. NULL, with the reason logged, if the ring buffer cannot be
 * opened.
 */
struct record_pipeline *record_pipeline_new(const struct record_maps *maps,
					    struct sink *const *sinks, unsigned int n_sinks,
					    bool earlier_pins, const char *log_path);

/*
 * Wait up to timeout_ms for records and pass them on; then have the sinks
 * write what they held back, and sum up any new losses in a summary record.
 * Returns how many records came, or a negative errno (-EINTR: a signal,
 * and nothing else was done).
 */
int record_pipeline_poll(struct record_pipeline *p, int timeout_ms);

/* On SIGUSR1: each sink reopens what logrotate moved away. */
void record_pipeline_reopen(struct record_pipeline *p);

/* At exit: pass on what is left in the ring buffer, then a last summary. */
void record_pipeline_drain(struct record_pipeline *p);

/*
 * Mark the drop counts up to suppressed and ring_full as reported, for a
 * restarted daemon to go on from. The log calls it once a summary is written.
 */
void record_pipeline_save_reported(uint64_t suppressed, uint64_t ring_full);

/* Close the sinks and free p; NULL does nothing. */
void record_pipeline_free(struct record_pipeline *p);

#endif /* ARGGUARD_RECORD_PIPELINE_H */
