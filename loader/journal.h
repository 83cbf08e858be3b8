/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_JOURNAL_H
#define ARGGUARD_JOURNAL_H

#include <json-c/json.h>

/*
 * Send one event, as event_to_object() built it, to journald: every field as
 * ARGGUARD_<NAME>= (null fields left out), a MESSAGE, and a PRIORITY by
 * verdict. Returns 0 or a negative errno.
 */
int event_to_journal(json_object *obj);

#endif /* ARGGUARD_JOURNAL_H */
