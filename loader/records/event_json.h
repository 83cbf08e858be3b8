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

#endif /* ARGGUARD_EVENT_JSON_H */
