// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON log sink, driven as its thread drives it (prepare, send, flush),
 * against a file whose size RLIMIT_FSIZE caps: lines gathered into one
 * write, a short write cut back to whole lines, the rest held and written
 * in order once the file can grow, and a summary's mark saved only once
 * its line is in the file.
 */
#define _GNU_SOURCE /* mkdtemp() */
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check.h"
#include "json_log.h"
#include "log_ledger.h"
#include "record_pipeline.h"
#include "sample_event.h"

/* The pipeline's: here, what the log asked to save. */
static unsigned int marks_saved;
static uint64_t mark_suppressed;

void record_pipeline_save_reported(uint64_t suppressed, uint64_t ring_full)
{
	(void)ring_full;
	marks_saved++;
	mark_suppressed = suppressed;
}

static void send(struct sink *s, const struct record *r)
{
	void *item = s->ops->prepare(s, r);

	CHECK(item && s->ops->send(s, item) == 0, "record %d is taken",
	      r->event ? (int)r->event->pid : -1);
	s->ops->release(item);
}

/* The file's lines: each must parse, and their pids go into pids. */
static int read_pids(const char *path, int *pids, int max)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	int n = 0;

	while (f && fgets(line, sizeof(line), f)) {
		json_object *obj = json_tokener_parse(line), *pid;

		CHECK(obj && strchr(line, '\n'), "line %d is a whole record", n + 1);
		if (obj && n < max)
			pids[n] = json_object_object_get_ex(obj, "pid", &pid)
					  ? json_object_get_int(pid)
					  : -1; /* the summary */
		json_object_put(obj);
		n++;
	}
	if (f)
		fclose(f);
	return n;
}

static void set_file_limit(rlim_t bytes)
{
	struct rlimit lim = { .rlim_cur = bytes, .rlim_max = RLIM_INFINITY };

	CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "RLIMIT_FSIZE set to %llu",
	      (unsigned long long)bytes);
}

static void short_writes_hold_whole_lines_in_order(void)
{
	char dir[] = "/tmp/argguard-json-log-XXXXXX", path[64], ledger_path[64];
	struct argguard_event e[10];
	struct record summary = { .kind = RECORD_SUMMARY,
				  .losses = { .suppressed = 5, .log_backlog = 2 },
				  .mark_suppressed = 77 };
	struct log_ledger *ledger;
	uint64_t unsettled;
	int pids[16], n;
	struct sink *log;

	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "%s/events.jsonl", dir);
	snprintf(ledger_path, sizeof(ledger_path), "%s/ledger", dir);
	ledger = log_ledger_open(ledger_path, &unsettled);
	CHECK(ledger && unsettled == 0, "a new ledger carries nothing over");
	if (!ledger)
		return;
	summary.ledger = ledger;
	log_ledger_took(ledger, 2); /* the two the summary counts lost */
	log = json_log_open(path);
	CHECK(log != NULL, "the log opens");
	if (!log)
		return;
	signal(SIGXFSZ, SIG_IGN); /* past the limit, write() fails with EFBIG */
	set_file_limit(2500); /* room for a few lines of about 600 bytes */
	for (int i = 0; i < 10; i++) {
		e[i] = sample_event();
		e[i].pid = 100 + i;
		log_ledger_took(ledger, 1);
		send(log,
		     &(struct record){ .kind = RECORD_EXEC, .event = &e[i], .ledger = ledger });
		if (i == 1) {
			log_ledger_took(ledger, 1);
			send(log, &summary);
		}
	}
	CHECK(read_pids(path, pids, 16) == 0, "nothing is written while records are queued");
	log->ops->flush(log); /* the queue emptied */
	n = read_pids(path, pids, 16);
	CHECK(n > 0 && n < 11, "the capped file holds some whole lines: %d", n);
	CHECK(marks_saved == (n > 2),
	      "the summary's mark is saved only if its line is in: %d lines, %u saves", n,
	      marks_saved);
	set_file_limit(RLIM_INFINITY);
	log->ops->flush(log);
	n = read_pids(path, pids, 16);
	CHECK(n == 11, "every record is in the file once the limit is lifted: %d of 11", n);
	for (int i = 0, want = 100; i < n && n == 11; i++) {
		int expect = i == 2 ? -1 : want++;

		CHECK(pids[i] == expect, "line %d is record %d: %d", i + 1, expect, pids[i]);
	}
	log_ledger_close(ledger);
	ledger = log_ledger_open(ledger_path, &unsettled);
	CHECK(ledger && unsettled == 0, "once all is written, nothing is carried over: %llu",
	      (unsigned long long)unsettled);
	log_ledger_close(ledger);
	log->ops->close(log);
	unlink(ledger_path);
	unlink(path);
	rmdir(dir);
}

/* A daemon killed with records unsettled: the next carries them until a summary counts them. */
static void unsettled_records_carry_over_until_counted(void)
{
	char path[] = "/tmp/argguard-ledger-XXXXXX";
	int fd = mkstemp(path);
	struct log_ledger *l;
	uint64_t unsettled;

	if (fd < 0)
		return;
	close(fd);
	l = log_ledger_open(path, &unsettled);
	CHECK(l && unsettled == 0, "an empty file carries nothing over");
	if (!l)
		return;
	log_ledger_took(l, 5);
	log_ledger_wrote(l, 2, 1);
	log_ledger_close(l); /* killed: 2 records never settled */
	l = log_ledger_open(path, &unsettled);
	CHECK(l && unsettled == 2 && l->carried == 2, "the next daemon carries 2: %llu",
	      (unsigned long long)unsettled);
	if (!l)
		return;
	log_ledger_took(l, 1); /* its first summary, which counts the 2 */
	log_ledger_wrote(l, 1, 2);
	log_ledger_close(l);
	l = log_ledger_open(path, &unsettled);
	CHECK(l && unsettled == 0, "once a written summary counted them, nothing: %llu",
	      (unsigned long long)unsettled);
	log_ledger_close(l);
	unlink(path);
}

int main(void)
{
	short_writes_hold_whole_lines_in_order();
	unsettled_records_carry_over_until_counted();
	return check_done();
}
