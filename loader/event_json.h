/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_EVENT_JSON_H
#define ARGGUARD_EVENT_JSON_H

#include <stdint.h>
#include <linux/types.h>

#include "argguard.h"

#include <json-c/json.h>

/*
 * One event as a JSON object (json_object_put() it), or NULL when out of
 * memory. realtime_offset_ns as for event_to_json().
 */
json_object *event_to_object(const struct argguard_event *e, int64_t realtime_offset_ns);

/*
 * Format one event as a single-line JSON object, without a newline.
 * realtime_offset_ns is CLOCK_REALTIME minus CLOCK_MONOTONIC, to turn the
 * event's monotonic stamp into wall-clock time. Returns a string to free(),
 * or NULL when out of memory.
 */
char *event_to_json(const struct argguard_event *e, int64_t realtime_offset_ns);

/* Records that never reached the log, by reason. */
struct record_losses {
	uint64_t suppressed; /* held back by the rate limit */
	uint64_t ring_full; /* lost: no room in the ring buffer */
	uint64_t log_backlog; /* lost: the log unwritable while the daemon's backlog was full */
};

/*
 * A summary record of losses over interval_ns, ending at end_ns
 * (CLOCK_MONOTONIC). json_object_put() it; NULL when out of memory.
 */
json_object *summary_to_object(const struct record_losses *n, uint64_t interval_ns, uint64_t end_ns,
			       int64_t realtime_offset_ns);

/* The single-line text of an object from event_to_object(); free() it. */
char *event_object_to_line(json_object *obj);

#endif /* ARGGUARD_EVENT_JSON_H */
