/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the log has taken and settled, kept in a file mapped into memory,
 * so that it outlives the daemon however the daemon ends, SIGKILL
 * included: no system call stands between a count and the file. A record
 * taken for the log is settled once its line is written, or once a written
 * summary has counted it lost. Whatever the last daemon took and never
 * settled, it lost uncounted (queued, gathered or held when it stopped):
 * the next daemon's first summary reports it, as lost_held_at_exit.
 */
#ifndef ARGGUARD_LOG_LEDGER_H
#define ARGGUARD_LOG_LEDGER_H

#include <stdint.h>

#define ARGGUARD_LEDGER "/run/argguard.ledger"

struct log_ledger {
	uint64_t carried; /* unsettled when this daemon started: its first summary reports them */
	uint64_t taken; /* records queued for the log */
	uint64_t written; /* records whose lines the log wrote */
	uint64_t counted; /* records written summaries counted lost */
};

/*
 * Map the ledger at path, carry over what the last daemon left unsettled
 * (into *unsettled, and ->carried) and start this daemon's counts from 0.
 * NULL, with the reason logged, if the file cannot be mapped: records are
 * then logged as ever, but a SIGKILL's losses go uncounted.
 */
struct log_ledger *log_ledger_open(const char *path, uint64_t *unsettled);

/* Count, from any thread; l may be NULL. */
void log_ledger_took(struct log_ledger *l, uint64_t records);
void log_ledger_wrote(struct log_ledger *l, uint64_t records, uint64_t counted_lost);

void log_ledger_close(struct log_ledger *l);

#endif /* ARGGUARD_LOG_LEDGER_H */
