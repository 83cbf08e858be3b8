/* SPDX-License-Identifier: GPL-2.0 */
/*
 * argguard report: the window the counts cover, the size distributions by
 * scope with a bar chart each, the largest execs, and what each limit of a
 * policy would have denied; as text for a terminal or one JSON object,
 * which the state file and suggest --from read back (size_json.c). Pure:
 * prints size_data.
 */
#ifndef ARGGUARD_SIZE_REPORT_H
#define ARGGUARD_SIZE_REPORT_H

#include <stdio.h>

#include "json_writer.h"
#include "policy.h"
#include "size_data.h"

/*
 * The version of the report's JSON: its members and what they mean. A
 * reader refuses JSON of another (argguard(8), REPORT JSON).
 */
#define SIZE_REPORT_SCHEMA 2

/*
 * Print d. Each limit is judged from policy's rule for the slot's scope
 * (policy: the live one, or a file's); policy_name says which. json: one
 * JSON object, else text. Returns 0 or -ENOMEM.
 */
int size_report_print(FILE *out, const struct size_data *d, const struct policy *policy,
		      const char *policy_name, bool json);

/* t (seconds since the epoch) as RFC 3339 in UTC, "2026-05-01T10:00:00Z"; "unknown" for 0. */
void size_time_format(char *buf, size_t len, int64_t t);

/* The envelope's members, into the object open in w: "schema", "host", "boot_id", "window", "sizes". */
void size_report_write_envelope(struct json_writer *w, const struct size_origin *o);

/* "scopes" and "largest", into the object open in w; limits judged from policy. */
void size_report_write_counts(struct json_writer *w, const struct size_data *d,
			      const struct policy *policy);

#endif /* ARGGUARD_SIZE_REPORT_H */
