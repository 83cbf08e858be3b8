/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_EVENT_JSON_H
#define ARGGUARD_EVENT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "argguard.h"
#include "record.h"

struct json_writer;

/*
 * An event's own fields as a single-line JSON object, without a newline.
 * realtime_offset_ns is CLOCK_REALTIME minus CLOCK_MONOTONIC, to turn the
 * event's monotonic stamp into wall-clock time. Returns a string to free(),
 * or NULL when out of memory.
 */
char *event_to_json(const struct argguard_event *e, int64_t realtime_offset_ns);

/*
 * A record as one JSON line, without a newline: an exec's fields with its
 * "cgroup" (and, for a cgroup rule, "rule_cgroup") path, or a summary's.
 * Its length in *len (if len is not NULL); free() it, NULL when out of memory.
 */
char *record_to_json(const struct record *r, size_t *len);

/*
 * The same record as journald's fields, written into w (json_writer.h):
 * NUL-terminated ARGGUARD_<KEY>=<value> for each member that is not null.
 * The caller may add fields of its own, then json_writer_finish() it.
 */
void record_to_fields(const struct record *r, struct json_writer *w);

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
