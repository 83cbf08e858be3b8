/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A report's JSON (size_report.c writes it) read back into size_data: the
 * state file's counts, and the reports of other hosts that suggest --from
 * merges. Another host's report is data, not trusted: every member is
 * checked against what the writer writes (a bucket the program has, a
 * count that adds up, a largest value inside its bucket, a scope once), and
 * anything else refuses the whole file, with why. Pure: no file is opened
 * but by size_json_read_file().
 */
#ifndef ARGGUARD_SIZE_JSON_H
#define ARGGUARD_SIZE_JSON_H

#include <stddef.h>

#include "json_reader.h"
#include "size_data.h"

/* The room for why a report is refused. */
#define SIZE_JSON_WHY_MAX 256

/*
 * The envelope of the report root into *o: "schema" (SIZE_REPORT_SCHEMA,
 * else refused), "sizes", "host", "boot_id" and "window". 0, or -EINVAL
 * with why.
 */
int size_json_origin(const struct json_value *root, struct size_origin *o, char *why, size_t len);

/*
 * The "scopes" and "largest" of obj into d, which size_data_init() made and
 * which holds nothing from obj yet: each scope added after d's slots. The
 * cgroups a pattern's rule judged are not read: their ids name cgroups of
 * one boot. 0, or -EINVAL with why, or -ENOMEM; d then holds part of obj.
 */
int size_json_counts(const struct json_value *obj, struct size_data *d, char *why, size_t len);

/*
 * The report in the file at path into d (made here: size_data_free() it),
 * its envelope in d->origin. 0, or a negative errno with why.
 */
int size_json_read_file(const char *path, struct size_data *d, char *why, size_t len);

/*
 * The whole of the file open at fd, a regular one of at most
 * JSON_READER_MAX_TEXT bytes, into *text (malloc'd), *n bytes. 0, or a
 * negative errno with why.
 */
int size_json_slurp(int fd, char **text, size_t *n, char *why, size_t len);

/* "2026-05-01T10:00:00Z", all of text, into *t (seconds since the epoch). */
bool size_time_parse(const char *text, int64_t *t);

#endif /* ARGGUARD_SIZE_JSON_H */
