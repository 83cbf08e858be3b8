/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_JOURNAL_H
#define ARGGUARD_JOURNAL_H

#include <stddef.h>

#include "sink.h"

/*
 * The journald sink: each record as one journal entry, with every field of
 * its JSON as ARGGUARD_<NAME>= (null fields left out), a MESSAGE, and a
 * PRIORITY by verdict (warning for deny and kernel-refused, else notice).
 */
struct sink *journal_open(void);

/*
 * The entry's fields for r, each NUL-terminated, one after the other, in
 * *len bytes (len may be NULL), then an empty one; free() it, NULL when out
 * of memory.
 */
char *journal_fields(const struct record *r, size_t *len);

/* One journal entry, as journald's native protocol sends it. */
struct journal_datagram {
	size_t len;
	char bytes[];
};

/*
 * The entry of fields (as journal_fields() makes them); free() it. NULL
 * when out of memory, or when a field is no NAME=value.
 */
struct journal_datagram *journal_datagram(const char *fields);

#endif /* ARGGUARD_JOURNAL_H */
