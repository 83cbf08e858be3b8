/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How records spell what the sinks pass on: the text that the record's
 * fields (record_fields.h) and journald's message are made of.
 */
#ifndef ARGGUARD_RECORD_SPELL_H
#define ARGGUARD_RECORD_SPELL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

/* Whether the len bytes at s are UTF-8: valid, no overlong form, no surrogate. */
bool record_is_utf8(const char *s, size_t len);

/*
 * A record in one line of text, as journald shows it: "deny exec of
 * /bin/true (global max_total_bytes, limit 1048576)", or a summary's
 * message. free() it; NULL when out of memory.
 */
char *record_message(const struct record *r);

/*
 * How records spell what the sinks pass on. record_errno(): an errno's name ("E2BIG"), or its number, in buf, where it
 * has none. record_interpreter(): a script's interpreter as binfmt_script
 * finds it in the "#!" line, the len bytes at *name; false for no script.
 * record_sizes(): where argv_bytes and the rest came from: "exact" (a
 * patched kernel's counts), "derived" (from the total) or "unknown".
 */
const char *record_errno(int32_t err, char *buf, size_t len);
bool record_interpreter(const struct argguard_event *e, const char **name, size_t *len);
const char *record_sizes(const struct argguard_event *e);

/*
 * For summaries. record_lost(): the records lost, all reasons together.
 * record_top_uids(): the uids that lost the most, as "uid:count,...", in buf.
 */
uint64_t record_lost(const struct record_losses *n);
void record_top_uids(const struct record_losses *n, char *buf, size_t len);

/* A summary's message, in buf: what was held back and lost, and over how long. */
void record_summary_message(const struct record_losses *n, uint64_t interval_ns, char *buf,
			    size_t len);

#endif /* ARGGUARD_RECORD_SPELL_H */
