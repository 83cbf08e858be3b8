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

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
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
	/* Close what it holds: sink_close() calls it, then frees the sink. */
	void (*close)(struct sink *s);
};

/*
 * The ops of a sink whose functions are named PREFIX_prepare, PREFIX_send
 * and PREFIX_close; the optional ones, if any, after the name.
 */
#define SINK_OPS(prefix, sink_name, ...)                                               \
	{                                                                              \
		.name = sink_name, .prepare = prefix##_prepare, .send = prefix##_send, \
		.close = prefix##_close, __VA_ARGS__                                   \
	}

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
	void *mem; /* what sink_new() allocated: sink_close() frees it */
	uint64_t gave_up; /* the sink's own losses; written only by its thread */
	struct sink_queue *queue; /* sink_queue.c's */
};

#define sink_container(s, type) ((type *)(void *)((char *)(s)-offsetof(type, sink)))

/*
 * A sink's own struct of size bytes, zeroed, with the struct sink at offset
 * running ops; NULL, and said, when out of memory. sink_new() for a type
 * that embeds "struct sink sink".
 */
static inline void *sink_alloc(size_t size, size_t offset, const struct sink_ops *ops)
{
	char *mem = calloc(1, size);

	if (!mem) {
		log_error("failed to open the %s sink: %s", ops->name, strerror(ENOMEM));
		return NULL;
	}
	*(struct sink *)(void *)(mem + offset) = (struct sink){ .ops = ops, .mem = mem };
	return mem;
}

#define sink_new(type, ops) ((type *)sink_alloc(sizeof(type), offsetof(type, sink), ops))

/* Close s and free it. */
static inline void sink_close(struct sink *s)
{
	void *mem = s->mem;

	s->ops->close(s);
	free(mem);
}

#endif /* ARGGUARD_SINK_H */
