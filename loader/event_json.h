/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_EVENT_JSON_H
#define ARGGUARD_EVENT_JSON_H

#include <stdint.h>
#include <linux/types.h>

#include "argguard.h"

/*
 * Format one event as a single-line JSON object, without a newline.
 * realtime_offset_ns is CLOCK_REALTIME minus CLOCK_MONOTONIC, to turn the
 * event's monotonic stamp into wall-clock time. Returns a string to free(),
 * or NULL when out of memory.
 */
char *event_to_json(const struct argguard_event *e, int64_t realtime_offset_ns);

#endif /* ARGGUARD_EVENT_JSON_H */
