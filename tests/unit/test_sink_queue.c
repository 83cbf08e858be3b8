// SPDX-License-Identifier: GPL-2.0
/*
 * A sink that blocks (the Linux audit log with the kernel's backlog full)
 * stalls neither the pipeline nor the other sinks: its queue fills, and it
 * counts what it could not take; the other sink gets every record. Its
 * queue holds at most SINK_QUEUE_BYTES of records, however few they are.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "check.h"
#include "clocks.h"
#include "sink_queue.h"

struct fake_sink {
	struct sink sink;
	pthread_mutex_t lock;
	pthread_cond_t go;
	bool blocked; /* send() waits while this is true */
	bool entered; /* send() has been called */
	unsigned long sent;
	bool closed;
};

static size_t item_size = 1; /* what each prepared record takes */

static void *fake_prepare(struct sink *s, const struct record *r)
{
	(void)s;
	(void)r;
	return malloc(item_size);
}

static int fake_send(struct sink *s, void *item)
{
	struct fake_sink *f = sink_container(s, struct fake_sink);

	(void)item;
	pthread_mutex_lock(&f->lock);
	f->entered = true;
	pthread_cond_broadcast(&f->go);
	while (f->blocked)
		pthread_cond_wait(&f->go, &f->lock);
	f->sent++;
	pthread_mutex_unlock(&f->lock);
	return 0;
}

static void fake_close(struct sink *s)
{
	sink_container(s, struct fake_sink)->closed = true;
}

static const struct sink_ops fake_ops = {
	.name = "fake",
	.prepare = fake_prepare,
	.send = fake_send,
	.close = fake_close,
};

static void init(struct fake_sink *f, bool blocked)
{
	*f = (struct fake_sink){ .sink = { .ops = &fake_ops }, .blocked = blocked };
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->go, NULL);
}

static void unblock(struct fake_sink *f)
{
	pthread_mutex_lock(&f->lock);
	f->blocked = false;
	pthread_cond_broadcast(&f->go);
	pthread_mutex_unlock(&f->lock);
}

/* Globals: a thread left running at the end still reaches them. */
static struct fake_sink fast, stuck, stuck_big;

/* Records of 4 KiB for a stuck sink: its bytes fill before its count does. */
static void bytes_bound_the_queue(void)
{
	enum { N = 1000 };
	struct record r = { .kind = RECORD_SUMMARY };
	struct sink_losses l;
	void *one;
	size_t fit;

	item_size = 4096;
	one = malloc(item_size);
	fit = SINK_QUEUE_BYTES / malloc_usable_size(one);
	free(one);
	init(&stuck_big, true);
	CHECK(sink_queue_start(&stuck_big.sink) == 0, "the stuck sink of big records starts");
	sink_queue_push(&stuck_big.sink, &r);
	pthread_mutex_lock(&stuck_big.lock);
	while (!stuck_big.entered)
		pthread_cond_wait(&stuck_big.go, &stuck_big.lock);
	pthread_mutex_unlock(&stuck_big.lock);
	for (int i = 1; i < N; i++)
		sink_queue_push(&stuck_big.sink, &r);
	l = sink_queue_losses(&stuck_big.sink);
	CHECK(fit < N - 1 && l.queue_full == N - 1 - fit,
	      "its queue took %zu records of 4 KiB, SINK_QUEUE_BYTES' worth, and refused %llu", fit,
	      (unsigned long long)l.queue_full);
	unblock(&stuck_big);
	CHECK(sink_queue_drain(&stuck_big.sink, monotonic_ns() + 10000000000ULL),
	      "once unblocked, it drains");
	CHECK(stuck_big.sent == fit + 1, "it sent what it took: %lu", stuck_big.sent);
	sink_queue_push(&stuck_big.sink, &r);
	CHECK(sink_queue_drain(&stuck_big.sink, monotonic_ns() + 10000000000ULL) &&
		      sink_queue_losses(&stuck_big.sink).queue_full == l.queue_full,
	      "drained, its queue takes records again");
	sink_queue_stop(&stuck_big.sink, &l);
	item_size = 1;
}

int main(void)
{
	enum { N = SINK_QUEUE_LEN + 1000 };
	struct record r = { .kind = RECORD_SUMMARY };
	struct sink_losses lf, ls;
	uint64_t start;

	init(&fast, false);
	init(&stuck, true);
	CHECK(sink_queue_start(&fast.sink) == 0 && sink_queue_start(&stuck.sink) == 0,
	      "both sinks start");
	start = monotonic_ns();
	/* The first record: the stuck sink's thread takes it, and blocks. */
	sink_queue_push(&stuck.sink, &r);
	sink_queue_push(&fast.sink, &r);
	pthread_mutex_lock(&stuck.lock);
	while (!stuck.entered)
		pthread_cond_wait(&stuck.go, &stuck.lock);
	pthread_mutex_unlock(&stuck.lock);
	/* The fast sink keeps up (it drains every 1000), the stuck one cannot. */
	for (int i = 1; i < N; i++) {
		sink_queue_push(&stuck.sink, &r);
		sink_queue_push(&fast.sink, &r);
		if (i % 1000 == 0)
			sink_queue_drain(&fast.sink, monotonic_ns() + 10000000000ULL);
	}
	CHECK(monotonic_ns() - start < 10000000000ULL, "pushing never waited on the stuck sink");
	CHECK(sink_queue_drain(&fast.sink, monotonic_ns() + 10000000000ULL),
	      "the other sink drains");
	CHECK(fast.sent == N, "the other sink got every record: %lu of %d", fast.sent, N);
	CHECK(!sink_queue_drain(&stuck.sink, monotonic_ns() + 100000000ULL),
	      "the stuck sink does not drain");
	ls = sink_queue_losses(&stuck.sink);
	CHECK(ls.queue_full == N - SINK_QUEUE_LEN - 1,
	      "the stuck sink counts what its full queue refused: %llu",
	      (unsigned long long)ls.queue_full);
	sink_queue_stop(&stuck.sink, &ls);
	CHECK(ls.held_at_exit == SINK_QUEUE_LEN + 1,
	      "what it still held at the stop is counted: %llu",
	      (unsigned long long)ls.held_at_exit);
	CHECK(ls.queue_full + ls.held_at_exit == N, "its losses account for every record");
	CHECK(!stuck.closed, "a sink still busy is not closed under its thread");
	sink_queue_stop(&fast.sink, &lf);
	CHECK(fast.closed && sink_losses_total(&lf) == 0,
	      "the other sink lost nothing, and closed");
	unblock(&stuck); /* its thread finds the queue emptied, and ends */
	bytes_bound_the_queue();
	return check_done();
}
