/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_JSON_LOG_H
#define ARGGUARD_JSON_LOG_H

#include <stdint.h>

#include "sink.h"

#define ARGGUARD_LOG_DIR "/var/log/argguard"
#define DEFAULT_LOG ARGGUARD_LOG_DIR "/events.jsonl"

/* The log's files; NULL for the default. */
struct json_log_files {
	const char *log; /* DEFAULT_LOG */
	const char *ledger; /* what it took and settled: ARGGUARD_LEDGER (log_ledger.h) */
	const char *reported; /* its summaries' mark: ARGGUARD_REPORTED (log_ledger.h) */
};

/* What the last daemon's log left to this one. */
struct json_log_left {
	uint64_t unsettled; /* records it took and never settled: lost, and not yet reported */
	/* The drop counts its last written summary covered; 0 if it saved none. */
	uint64_t mark_suppressed, mark_ring_full;
};

/*
 * The JSON-lines sink: each record's JSON as one line of the file
 * files->log, opened for appending, root:adm 0640. On SIGUSR1 (reopen),
 * after logrotate moved the file away, it writes to a new one. It keeps
 * its ledger (log_ledger.h), settling from it and from the file what the
 * last daemon left (into *left), and saves each summary's mark once the
 * summary's line is in the file. NULL, with the reason logged, if the file
 * cannot be opened.
 */
struct sink *json_log_open(const struct json_log_files *files, struct json_log_left *left);

/*
 * Save the mark the summaries go on from, before the first summary is
 * queued (the log's thread saves the rest): for new drop counters, where
 * the first summary starts.
 */
void json_log_save_mark(struct sink *s, uint64_t suppressed, uint64_t ring_full);

#endif /* ARGGUARD_JSON_LOG_H */
