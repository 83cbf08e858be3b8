/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sink's thread and its bounded queue: records are queued by the
 * pipeline, never waiting, and written by the sink's thread, in order.
 */
#ifndef ARGGUARD_SINK_QUEUE_H
#define ARGGUARD_SINK_QUEUE_H

#include <stdbool.h>

#include "sink.h"

/*
 * How far a sink may fall behind before new records are counted as its
 * queue_full: so many records, or so many bytes of them prepared. The
 * bytes bound the daemon's memory in a storm: journald takes several
 * times the daemon's CPU a record, and its queue would otherwise fill.
 */
#define SINK_QUEUE_LEN 4096
#define SINK_QUEUE_BYTES (512 * 1024)

/* Start s's thread. 0, or a negative errno (logged); s is then closed. */
int sink_queue_start(struct sink *s);

/* Prepare r for s and queue it; never waits for s. */
void sink_queue_push(struct sink *s, const struct record *r);

/* Have s's thread reopen its file (SIGUSR1). */
void sink_queue_reopen(struct sink *s);

/* Its losses so far, by reason. */
struct sink_losses sink_queue_losses(struct sink *s);

/*
 * Wait until s's thread has written everything queued, or until deadline_ns
 * (CLOCK_MONOTONIC). True if it has.
 */
bool sink_queue_drain(struct sink *s, uint64_t deadline_ns);

/*
 * Stop s's thread and close s. A thread still busy (a sink that blocks) is
 * left to the process's exit, and what it still holds counted as
 * held_at_exit, in *losses with the rest.
 */
void sink_queue_stop(struct sink *s, struct sink_losses *losses);

#endif /* ARGGUARD_SINK_QUEUE_H */
