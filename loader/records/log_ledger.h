/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the log has taken and settled, kept in a file mapped into memory,
 * so that it outlives the daemon however the daemon ends, SIGKILL
 * included: no system call stands between a count and the file. A record
 * taken for the log is settled once its line is written, or once a written
 * summary has counted it lost. Whatever the last daemon took and never
 * settled, it lost uncounted (queued, gathered or held when it stopped):
 * the next daemon's first summary reports it, as lost_held_at_exit.
 *
 * A SIGKILL that arrives during a write() to the log takes effect as the
 * write returns, before the daemon can count what it wrote (and a write
 * the kill cut short ends mid-line). So each write is announced first, in
 * ->writing: the next daemon reads the log to settle what that write put
 * there, and the summary mark its line carried.
 */
#ifndef ARGGUARD_LOG_LEDGER_H
#define ARGGUARD_LOG_LEDGER_H

#include <stdbool.h>
#include <stdint.h>

#define ARGGUARD_LEDGER "/run/argguard.ledger"
/* The drop counts the last written summary covered: a restarted daemon goes on from there. */
#define ARGGUARD_REPORTED "/run/argguard.reported"

/* The drop counters' totals a written summary brings the log up to. */
struct log_ledger_mark {
	uint64_t suppressed, ring_full;
};

/* A write to the log under way. */
struct log_ledger_write {
	uint64_t lines; /* 0: none */
	uint64_t written_before, counted_before; /* as it began: once they move on, it is counted */
	uint64_t dev, ino, start, len; /* the file, its size before, the bytes */
	uint64_t summary_end; /* bytes into the write just past a summary's line, or 0 */
	uint64_t counted_lost; /* records that summary counts lost */
	struct log_ledger_mark mark;
};

struct log_ledger {
	uint64_t carried; /* unsettled when this daemon started: its first summary reports them */
	uint64_t taken; /* records queued for the log */
	uint64_t written; /* records whose lines the log wrote */
	uint64_t counted; /* records written summaries counted lost */
	struct log_ledger_write writing;
	/*
	 * The last sequence number a record took (a line's "seq"), over the
	 * boot: every daemon goes on from it. Here, at byte LOG_LEDGER_SEQ_AT,
	 * in every layout to come; a ledger shorter than that is an older
	 * argguard's, which gave no sequence numbers.
	 */
	uint64_t seq;
};

#define LOG_LEDGER_SEQ_AT 120

/* What the last daemon left: records it never settled, and a summary mark it wrote but never saved. */
struct log_ledger_carry {
	uint64_t unsettled;
	bool has_mark;
	struct log_ledger_mark mark;
};

/*
 * Map the ledger at path, settle the write the last daemon died in from
 * the log at log_path, carry over what it left unsettled (into *carry, and
 * ->carried) and start this daemon's counts from 0, its sequence going on
 * from the last daemon's (from 0, with a warning, in an older argguard's
 * ledger). NULL, with the reason logged, if the file cannot be mapped:
 * records are then logged as ever, but a SIGKILL's losses go uncounted,
 * and their sequence starts again from 1.
 */
struct log_ledger *log_ledger_open(const char *path, const char *log_path,
				   struct log_ledger_carry *carry);

/*
 * Count, from any thread; l may be NULL. took: the sequence number of the
 * last of the records taken (each takes the next), or 0 when l is NULL.
 */
uint64_t log_ledger_took(struct log_ledger *l, uint64_t records);
void log_ledger_wrote(struct log_ledger *l, uint64_t records, uint64_t counted_lost);

/*
 * From the log's thread, around each write() of lines to fd: begin before
 * (summary_end and what it settles as in struct log_ledger_write), end once
 * the write is counted. l may be NULL.
 */
void log_ledger_begin_write(struct log_ledger *l, int fd, uint64_t lines, uint64_t len,
			    uint64_t summary_end, uint64_t counted_lost,
			    const struct log_ledger_mark *mark);
void log_ledger_end_write(struct log_ledger *l);

void log_ledger_close(struct log_ledger *l);

/*
 * The summary mark in the file at path (ARGGUARD_REPORTED): saved once a
 * summary's line is in the log, read back by the next daemon. Reading,
 * false if there is none (no file, or one that does not parse).
 */
void log_ledger_save_mark(const char *path, const struct log_ledger_mark *mark);
bool log_ledger_read_mark(const char *path, struct log_ledger_mark *mark);

#endif /* ARGGUARD_LOG_LEDGER_H */
