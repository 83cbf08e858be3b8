/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_JSON_LOG_H
#define ARGGUARD_JSON_LOG_H

#include "sink.h"

#define ARGGUARD_LOG_DIR "/var/log/argguard"
#define DEFAULT_LOG ARGGUARD_LOG_DIR "/events.jsonl"

/*
 * The JSON-lines sink: each record's JSON as one line of the file at path,
 * opened for appending, root:adm 0640. On SIGUSR1 (reopen), after logrotate
 * moved the file away, it writes to a new one. NULL, with the reason logged,
 * if the file cannot be opened.
 */
struct sink *json_log_open(const char *path);

#endif /* ARGGUARD_JSON_LOG_H */
