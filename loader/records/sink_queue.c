// SPDX-License-Identifier: GPL-2.0
#include "sink_queue.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clocks.h"
#include "log.h"

/* How often an idle sink's thread writes what its sink held back. */
#define FLUSH_INTERVAL_NS 1000000000ULL

struct sink_queue {
	struct sink *sink;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* records queued, a reopen, or stop */
	pthread_cond_t idle; /* nothing queued and nothing being sent */
	void *items[SINK_QUEUE_LEN]; /* prepared records, oldest at head */
	unsigned int head, n;
	size_t bytes; /* the heap the queued items hold */
	bool sending, reopen, stopping;
	bool failing; /* the last send failed, and said so */
	bool unflushed; /* sent since the sink's last flush */
	struct sink_losses losses; /* but gave_up, which is the sink's */
};

static void timespec_at(uint64_t ns, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ns / 1000000000ULL);
	ts->tv_nsec = (long)(ns % 1000000000ULL);
}

/* Every sink's prepared record is one malloc()ed block (sink.h): free() releases it. */
static size_t item_bytes(void *item)
{
	return malloc_usable_size(item);
}

/* Called with q->lock held; drops it while the sink writes. */
static void send_one(struct sink_queue *q)
{
	struct sink *s = q->sink;
	void *item = q->items[q->head];
	int err;

	q->head = (q->head + 1) % SINK_QUEUE_LEN;
	q->n--;
	q->bytes -= item_bytes(item);
	q->sending = true;
	pthread_mutex_unlock(&q->lock);
	err = s->ops->send(s, item);
	free(item);
	pthread_mutex_lock(&q->lock);
	q->sending = false;
	q->unflushed = s->ops->flush != NULL;
	if (err) {
		q->losses.failed++;
		if (!q->failing)
			log_error(
				"failed to send a record to %s: %s; counting the records it loses",
				s->ops->name, strerror(-err));
	} else if (q->failing) {
		log_info("%s takes records again", s->ops->name);
	}
	q->failing = err != 0;
}

/* Called with q->lock held: op (flush or reopen, if the sink has it) without it. */
static void call_unlocked(struct sink_queue *q, void (*op)(struct sink *s))
{
	if (!op)
		return;
	pthread_mutex_unlock(&q->lock);
	op(q->sink);
	pthread_mutex_lock(&q->lock);
}

static void *sink_thread(void *arg)
{
	struct sink_queue *q = arg;
	struct sink *s = q->sink;
	struct timespec until;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		if (!q->n && q->unflushed) {
			/* What the sink gathered while records were queued: out now. */
			q->unflushed = false;
			call_unlocked(q, s->ops->flush);
			continue;
		}
		if (!q->n && !q->sending)
			pthread_cond_broadcast(&q->idle);
		if (!q->n && !q->reopen && !q->stopping) {
			timespec_at(monotonic_ns() + FLUSH_INTERVAL_NS, &until);
			if (pthread_cond_timedwait(&q->wake, &q->lock, &until) == ETIMEDOUT)
				call_unlocked(q, s->ops->flush);
			continue;
		}
		if (q->reopen) {
			q->reopen = false;
			call_unlocked(q, s->ops->reopen);
			continue;
		}
		if (!q->n)
			break; /* stopping, and all written */
		send_one(q);
	}
	pthread_cond_broadcast(&q->idle);
	pthread_mutex_unlock(&q->lock);
	if (s->ops->flush)
		s->ops->flush(s);
	return NULL;
}

int sink_queue_start(struct sink *s)
{
	struct sink_queue *q = calloc(1, sizeof(*q));
	pthread_condattr_t monotonic;
	sigset_t all, was;
	int err = q ? 0 : ENOMEM;

	if (!err) {
		q->sink = s;
		pthread_mutex_init(&q->lock, NULL);
		pthread_condattr_init(&monotonic);
		pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
		pthread_cond_init(&q->wake, &monotonic);
		pthread_cond_init(&q->idle, &monotonic);
		pthread_condattr_destroy(&monotonic);
		/*
		 * The daemon's signals go to its main thread, whose poll of the
		 * ring buffer they interrupt: a reopen must come before the next
		 * record, not after it.
		 */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &was);
		err = pthread_create(&q->thread, NULL, sink_thread, q);
		pthread_sigmask(SIG_SETMASK, &was, NULL);
	}
	if (err) {
		log_error("failed to start a thread for %s: %s", s->ops->name, strerror(err));
		free(q);
		sink_close(s);
		return -err;
	}
	s->queue = q;
	return 0;
}

void sink_queue_push(struct sink *s, const struct record *r)
{
	struct sink_queue *q = s->queue;
	void *item = s->ops->prepare(s, r);
	size_t bytes = item ? item_bytes(item) : 0;

	pthread_mutex_lock(&q->lock);
	if (!item) {
		q->losses.failed++;
	} else if (q->n == SINK_QUEUE_LEN || q->bytes + bytes > SINK_QUEUE_BYTES) {
		q->losses.queue_full++;
	} else {
		q->bytes += bytes;
		q->items[(q->head + q->n++) % SINK_QUEUE_LEN] = item;
		item = NULL;
		if (q->n == 1) /* the thread sleeps only on an empty queue */
			pthread_cond_signal(&q->wake);
	}
	pthread_mutex_unlock(&q->lock);
	if (item)
		free(item);
}

void sink_queue_reopen(struct sink *s)
{
	struct sink_queue *q = s->queue;

	pthread_mutex_lock(&q->lock);
	q->reopen = true;
	pthread_cond_signal(&q->wake);
	pthread_mutex_unlock(&q->lock);
}

struct sink_losses sink_queue_losses(struct sink *s)
{
	struct sink_queue *q = s->queue;
	struct sink_losses l;

	pthread_mutex_lock(&q->lock);
	l = q->losses;
	pthread_mutex_unlock(&q->lock);
	l.gave_up = __atomic_load_n(&s->gave_up, __ATOMIC_RELAXED);
	return l;
}

bool sink_queue_drain(struct sink *s, uint64_t deadline_ns)
{
	struct sink_queue *q = s->queue;
	struct timespec until;
	bool drained;

	timespec_at(deadline_ns, &until);
	pthread_mutex_lock(&q->lock);
	while ((q->n || q->sending) &&
	       pthread_cond_timedwait(&q->idle, &q->lock, &until) != ETIMEDOUT)
		;
	drained = !q->n && !q->sending;
	pthread_mutex_unlock(&q->lock);
	return drained;
}

void sink_queue_stop(struct sink *s, struct sink_losses *losses)
{
	struct sink_queue *q = s->queue;
	unsigned int head, n;
	bool busy;

	pthread_mutex_lock(&q->lock);
	busy = q->n || q->sending;
	head = q->head;
	n = q->n;
	if (busy) {
		/* Left to the process's exit: what it holds is lost. */
		q->losses.held_at_exit += q->n + q->sending;
		q->n = 0;
		q->bytes = 0;
	}
	q->stopping = true;
	pthread_cond_signal(&q->wake);
	pthread_mutex_unlock(&q->lock);
	if (busy) {
		for (unsigned int i = 0; i < n; i++)
			free(q->items[(head + i) % SINK_QUEUE_LEN]);
		pthread_detach(q->thread);
		*losses = q->losses;
		losses->gave_up = __atomic_load_n(&s->gave_up, __ATOMIC_RELAXED);
		log_error("%s did not take its last %llu records before the daemon stopped",
			  s->ops->name, (unsigned long long)losses->held_at_exit);
		return; /* the thread may still use s and q: neither is freed */
	}
	pthread_join(q->thread, NULL);
	*losses = sink_queue_losses(s);
	sink_close(s);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->wake);
	pthread_cond_destroy(&q->idle);
	free(q);
}
