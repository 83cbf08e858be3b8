/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where records go: the JSON-lines log (json_log.c), journald (journal.c)
 * and the Linux audit log (linux_audit.c), each behind this one interface.
 * A sink reads the typed record it is handed; what it cannot write, it
 * holds back or gives up on, and counts.
 */
#ifndef ARGGUARD_SINK_H
#define ARGGUARD_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct sink;

struct sink_ops {
	const char *name; /* what messages call it: "journald", "the audit log" */
	/* Take one record: 0, or a negative errno that the caller reports. */
	int (*write)(struct sink *s, const struct record *r);
	/* Optional: write what was held back. Called after each poll of the ring buffer. */
	void (*flush)(struct sink *s);
	/* Optional: on SIGUSR1, reopen a file that logrotate moved away. */
	void (*reopen)(struct sink *s);
	/* Close it and free it. */
	void (*close)(struct sink *s);
};

/* Each sink embeds one, and finds itself from it with sink_container(). */
struct sink {
	const struct sink_ops *ops;
	uint64_t lost; /* records it gave up on, since it opened */
};

#define sink_container(s, type) ((type *)(void *)((char *)(s)-offsetof(type, sink)))

#endif /* ARGGUARD_SINK_H */
