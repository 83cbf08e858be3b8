/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_EVENT_JSON_H
#define ARGGUARD_EVENT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "argguard.h"
#include "record.h"

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

/*
 * A summary record of losses over interval_ns, ending at end_ns
 * (CLOCK_MONOTONIC). json_object_put() it; NULL when out of memory.
 */
json_object *summary_to_object(const struct record_losses *n, uint64_t interval_ns, uint64_t end_ns,
			       int64_t realtime_offset_ns);

/* The single-line text of an object from event_to_object(); free() it. */
char *event_object_to_line(json_object *obj);

/*
 * A record as one JSON object: an exec's event_to_object() with its
 * "cgroup" (and, for a cgroup rule, "rule_cgroup") path, or a summary's
 * summary_to_object(). json_object_put() it; NULL when out of memory.
 */
json_object *record_to_object(const struct record *r);

/*
 * A record in one line of text, as journald shows it: "deny exec of
 * /bin/true (global max_total_bytes, limit 1048576)", or a summary's
 * message. free() it; NULL when out of memory.
 */
char *record_message(const struct record *r);

/*
 * How records spell what the sinks pass on. record_string(): a kernel
 * string of at most max bytes, the bytes themselves if they are UTF-8, else
 * their hex digits (and *hex is true); free() it, NULL when out of memory.
 * record_errno(): an errno's name ("E2BIG"), or its number, in buf, where it
 * has none. record_interpreter(): a script's interpreter as binfmt_script
 * finds it in the "#!" line, the len bytes at *name; false for no script.
 * record_sizes(): where argv_bytes and the rest came from: "exact" (a
 * patched kernel's counts), "derived" (from the total) or "unknown".
 */
char *record_string(const char *buf, size_t max, bool *hex);
const char *record_errno(int32_t err, char *buf, size_t len);
bool record_interpreter(const struct argguard_event *e, const char **name, size_t *len);
const char *record_sizes(const struct argguard_event *e);

/*
 * For summaries. record_lost(): the records lost, all reasons together.
 * record_top_uids(): the uids that lost the most, as "uid:count,...", in buf.
 */
uint64_t record_lost(const struct record_losses *n);
void record_top_uids(const struct record_losses *n, char *buf, size_t len);

#endif /* ARGGUARD_EVENT_JSON_H */
