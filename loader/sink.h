/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where records go: the JSON-lines log (json_log.c), journald (journal.c)
 * and the Linux audit log (linux_audit.c), each behind this one interface.
 *
 * A sink writes from a thread of its own, behind a bounded queue
 * (sink_queue.c): the pipeline only prepares a record for it (in memory of
 * the sink's own) and queues it, so a sink that blocks (journald, or the
 * kernel's audit backlog, which may hold a sender for a minute) never
 * stalls the ring buffer or the other sinks. What a sink cannot take is
 * counted, by reason.
 */
#ifndef ARGGUARD_SINK_H
#define ARGGUARD_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct sink;

struct sink_ops {
	const char *name; /* what messages and summaries call it: "log", "journald", "audit" */
	/*
	 * In the pipeline's thread: what send() needs of r, in one malloc()ed
	 * block, whose size the queue counts and which it free()s, sent or
	 * not. NULL when out of memory (the record is counted as failed).
	 */
	void *(*prepare)(struct sink *s, const struct record *r);
	/* In the sink's thread: write one prepared record. 0, or a negative errno. */
	int (*send)(struct sink *s, void *item);
	/*
	 * Optional, in the sink's thread: write what it gathered or held back.
	 * Called whenever the queue has emptied after a send, and when idle.
	 */
	void (*flush)(struct sink *s);
	/* Optional, in the sink's thread: on SIGUSR1, reopen a file that logrotate moved. */
	void (*reopen)(struct sink *s);
	/* Close it and free it. */
	void (*close)(struct sink *s);
};

/* What a sink lost, by reason, since it opened. */
struct sink_losses {
	uint64_t queue_full; /* its queue was full: it had fallen that far behind */
	uint64_t failed; /* prepare() or send() failed */
	uint64_t gave_up; /* the sink's own: the JSON log's backlog while it cannot write */
	uint64_t held_at_exit; /* still queued when the daemon had to stop */
};

static inline uint64_t sink_losses_total(const struct sink_losses *l)
{
	return l->queue_full + l->failed + l->gave_up + l->held_at_exit;
}

struct sink_queue;

/* Each sink embeds one, and finds itself from it with sink_container(). */
struct sink {
	const struct sink_ops *ops;
	uint64_t gave_up; /* the sink's own losses; written only by its thread */
	struct sink_queue *queue; /* sink_queue.c's */
};

#define sink_container(s, type) ((type *)(void *)((char *)(s)-offsetof(type, sink)))

#endif /* ARGGUARD_SINK_H */
