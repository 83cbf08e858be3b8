// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON log sink, driven as its thread drives it (prepare, send, flush),
 * against a file whose size RLIMIT_FSIZE caps: lines gathered into one
 * write, a short write cut back to whole lines, the rest held and written
 * in order once the file can grow, and a summary's mark saved only once
 * its line is in the file; a log path that is a link is refused.
 */
#define _GNU_SOURCE /* mkdtemp() */
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
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
	free(item);
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

/* Send stderr to a new temporary file (its fd returned) until stderr_back(). */
static int stderr_to_file(int *saved)
{
	char path[] = "/tmp/argguard-stderr-XXXXXX";
	int fd = mkstemp(path);

	fflush(stderr);
	*saved = dup(2);
	if (fd >= 0) {
		unlink(path);
		dup2(fd, 2);
	}
	return fd;
}

/* stderr back where it was; what went to fd, into buf. */
static void stderr_back(int fd, int saved, char *buf, size_t len)
{
	ssize_t n = -1;

	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	if (fd >= 0) {
		n = pread(fd, buf, len - 1, 0);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
}

static void short_writes_hold_whole_lines_in_order(void)
{
	char dir[] = "/tmp/argguard-json-log-XXXXXX", log_path[64], ledger_path[64];
	struct argguard_event e[10];
	struct record summary = { .kind = RECORD_SUMMARY,
				  .losses = { .suppressed = 5, .log_backlog = 2 },
				  .mark_suppressed = 77 };
	struct log_ledger *ledger;
	struct log_ledger_carry carry;
	int pids[16], n, err_fd, saved;
	char said[4096];
	struct sink *log;

	if (!mkdtemp(dir))
		return;
	snprintf(log_path, sizeof(log_path), "%s/events.jsonl", dir);
	snprintf(ledger_path, sizeof(ledger_path), "%s/ledger", dir);
	ledger = log_ledger_open(ledger_path, log_path, &carry);
	CHECK(ledger && carry.unsettled == 0, "a new ledger carries nothing over");
	if (!ledger)
		return;
	summary.ledger = ledger;
	log_ledger_took(ledger, 2); /* the two the summary counts lost */
	log = json_log_open(log_path);
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
	CHECK(read_pids(log_path, pids, 16) == 0, "nothing is written while records are queued");
	err_fd = stderr_to_file(&saved);
	log->ops->flush(log); /* the queue emptied */
	stderr_back(err_fd, saved, said, sizeof(said));
	CHECK(strstr(said, "it has reached the size limit of 2500 bytes (LimitFSIZE="),
	      "the daemon says the log met its size limit: %s", said);
	n = read_pids(log_path, pids, 16);
	CHECK(n > 0 && n < 11, "the capped file holds some whole lines: %d", n);
	CHECK(marks_saved == (n > 2),
	      "the summary's mark is saved only if its line is in: %d lines, %u saves", n,
	      marks_saved);
	set_file_limit(RLIM_INFINITY);
	log->ops->flush(log);
	n = read_pids(log_path, pids, 16);
	CHECK(n == 11, "every record is in the file once the limit is lifted: %d of 11", n);
	for (int i = 0, want = 100; i < n && n == 11; i++) {
		int expect = i == 2 ? -1 : want++;

		CHECK(pids[i] == expect, "line %d is record %d: %d", i + 1, expect, pids[i]);
	}
	log_ledger_close(ledger);
	ledger = log_ledger_open(ledger_path, log_path, &carry);
	CHECK(ledger && carry.unsettled == 0, "once all is written, nothing is carried over: %llu",
	      (unsigned long long)carry.unsettled);
	log_ledger_close(ledger);
	log->ops->close(log);
	unlink(ledger_path);
	unlink(log_path);
	rmdir(dir);
}

/* A daemon killed with records unsettled: the next carries them until a summary counts them. */
static void unsettled_records_carry_over_until_counted(void)
{
	char path[] = "/tmp/argguard-ledger-XXXXXX";
	int fd = mkstemp(path);
	struct log_ledger *l;
	struct log_ledger_carry carry;

	if (fd < 0)
		return;
	close(fd);
	l = log_ledger_open(path, "/nonexistent", &carry);
	CHECK(l && carry.unsettled == 0, "an empty file carries nothing over");
	if (!l)
		return;
	log_ledger_took(l, 5);
	log_ledger_wrote(l, 2, 1);
	log_ledger_close(l); /* killed: 2 records never settled */
	l = log_ledger_open(path, "/nonexistent", &carry);
	CHECK(l && carry.unsettled == 2 && l->carried == 2, "the next daemon carries 2: %llu",
	      (unsigned long long)carry.unsettled);
	if (!l)
		return;
	log_ledger_took(l, 1); /* its first summary, which counts the 2 */
	log_ledger_wrote(l, 1, 2);
	log_ledger_close(l);
	l = log_ledger_open(path, "/nonexistent", &carry);
	CHECK(l && carry.unsettled == 0, "once a written summary counted them, nothing: %llu",
	      (unsigned long long)carry.unsettled);
	log_ledger_close(l);
	unlink(path);
}

/*
 * A daemon killed in a write to the log: it took 6 records, 2 of them
 * lost and counted by the summary that is line 2 of a 3-line write; the
 * sixth was still queued. write_bytes of the write reach the file; counted:
 * whether the daemon counted the write before it died. What the next
 * daemon carries over, from the ledger and the file.
 */
static struct log_ledger_carry killed_in_a_write(size_t write_bytes, bool counted,
						 const char **left)
{
	static char file[4096];
	static const char lines[] = "{\"n\":1}\n{\"summary\":1}\n{\"n\":3}\n";
	const size_t summary_end = sizeof("{\"n\":1}\n{\"summary\":1}\n") - 1;
	char dir[] = "/tmp/argguard-ledger-XXXXXX", path[64], log_path[64];
	struct log_ledger_carry carry = { .unsettled = ~0ULL };
	struct log_ledger *l;
	struct sink *log;
	FILE *f;
	int fd;

	if (!mkdtemp(dir))
		return carry;
	snprintf(path, sizeof(path), "%s/ledger", dir);
	snprintf(log_path, sizeof(log_path), "%s/events.jsonl", dir);
	fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT, 0600);
	l = log_ledger_open(path, log_path, &carry);
	if (fd < 0 || !l || write(fd, "{\"n\":0}\n", 8) != 8)
		return carry;
	log_ledger_took(l, 6);
	log_ledger_begin_write(l, fd, 3, sizeof(lines) - 1, summary_end, 2,
			       &(struct log_ledger_mark){ .suppressed = 9, .ring_full = 8 });
	if (write(fd, lines, write_bytes) != (ssize_t)write_bytes)
		return carry;
	if (counted)
		log_ledger_wrote(l, 3, 2); /* and killed before it ended the write */
	close(fd);
	log_ledger_close(l);
	log = json_log_open(log_path); /* the next daemon */
	l = log_ledger_open(path, log_path, &carry);
	f = fopen(log_path, "r");
	file[f ? fread(file, 1, sizeof(file) - 1, f) : 0] = '\0';
	*left = file;
	if (f)
		fclose(f);
	if (log)
		log->ops->close(log);
	log_ledger_close(l);
	unlink(path);
	unlink(log_path);
	rmdir(dir);
	return carry;
}

static void a_write_a_daemon_was_killed_in_is_settled_from_the_file(void)
{
	const char *left = "";
	struct log_ledger_carry c;

	c = killed_in_a_write(30, false, &left);
	CHECK(c.unsettled == 1 && c.has_mark && c.mark.suppressed == 9 && c.mark.ring_full == 8,
	      "a whole write, uncounted: 1 record unsettled and the summary's mark, not %llu%s",
	      (unsigned long long)c.unsettled, c.has_mark ? "" : " and no mark");
	c = killed_in_a_write(30, true, &left);
	CHECK(c.unsettled == 1 && c.has_mark,
	      "a whole write, counted: settled once, not twice: 1 unsettled, not %llu",
	      (unsigned long long)c.unsettled);
	c = killed_in_a_write(12, false, &left);
	CHECK(c.unsettled == 5 && !c.has_mark,
	      "a write cut in its second line: 5 unsettled and no mark, not %llu%s",
	      (unsigned long long)c.unsettled, c.has_mark ? " and a mark" : "");
	CHECK(!strcmp(left, "{\"n\":0}\n{\"n\":1}\n"),
	      "the next daemon cuts the half line, keeping whole ones: '%s'", left);
}

/* What must stay as it was: the file a planted link or name points at. */
static const char victim_text[] = "not the daemon's\n";

static bool victim_untouched(const char *path, const struct stat *before)
{
	char text[64] = "";
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(victim_text) && !strcmp(text, victim_text) &&
	       !stat(path, &st) && st.st_uid == before->st_uid && st.st_gid == before->st_gid &&
	       st.st_mode == before->st_mode;
}

/*
 * The daemon, root, takes the log it opens for its own: a symbolic link or
 * a second name (a hard link) where the log goes is refused, and its
 * target is neither written, nor given away, nor made readable.
 */
static void log_that_is_a_link_is_refused(void)
{
	char dir[] = "/tmp/argguard-json-log-XXXXXX", victim[64], log_path[64], fifo[64];
	struct stat before = { 0 };
	struct sink *s;
	int fd;

	if (!mkdtemp(dir)) {
		CHECK(0, "made a temporary directory");
		return;
	}
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(log_path, sizeof(log_path), "%s/events.jsonl", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	fd = open(victim, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	CHECK(fd >= 0 && write(fd, victim_text, strlen(victim_text)) > 0 && !fstat(fd, &before),
	      "made the file a link will point at");
	if (fd >= 0)
		close(fd);

	CHECK(symlink(victim, log_path) == 0, "planted a symbolic link at the log's path");
	s = json_log_open(log_path);
	CHECK(!s, "a log that is a symbolic link is refused");
	CHECK(victim_untouched(victim, &before),
	      "the link's target keeps its bytes, owner and mode");
	if (s)
		s->ops->close(s);
	unlink(log_path);

	CHECK(link(victim, log_path) == 0, "planted a hard link at the log's path");
	s = json_log_open(log_path);
	CHECK(!s, "a log that is another name of a file is refused");
	CHECK(victim_untouched(victim, &before), "the file keeps its bytes, owner and mode");
	if (s)
		s->ops->close(s);
	unlink(log_path);

	/* With a reader, so that an open for writing does not wait for one. */
	fd = mkfifo(fifo, 0600) ? -1 : open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	CHECK(fd >= 0, "made a FIFO, and opened it for reading");
	s = json_log_open(fifo);
	CHECK(!s, "a log that is a FIFO is refused");
	if (s)
		s->ops->close(s);
	if (fd >= 0)
		close(fd);

	s = json_log_open(log_path);
	CHECK(s, "a log that is not there yet is made");
	if (s)
		s->ops->close(s);
	unlink(log_path);
	unlink(fifo);
	unlink(victim);
	rmdir(dir);
}

int main(void)
{
	short_writes_hold_whole_lines_in_order();
	unsettled_records_carry_over_until_counted();
	a_write_a_daemon_was_killed_in_is_settled_from_the_file();
	log_that_is_a_link_is_refused();
	return check_done();
}
