// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON log sink, driven as its thread drives it (prepare, send, flush),
 * against a file whose size RLIMIT_FSIZE caps: lines gathered into one
 * write, a short write cut back to whole lines, the rest held and written
 * in order once the file can grow, and a summary's mark saved only once
 * its line is in the file; the log's ledger, and what it leaves the next
 * daemon; a log path that is a link is refused; each line's envelope
 * (schema, host, boot_id, seq), and seq going on over the boot.
 */
#define _GNU_SOURCE /* mkdtemp() */
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "event_json.h"
#include "json_log.h"
#include "log_ledger.h"
#include "sample_event.h"

/* A log's files, in a temporary directory of the test's. */
struct log_files {
	char log[64], ledger[64], reported[64];
	int watch; /* an inotify fd: each save of the mark renames a file to reported */
};

static void name_files(struct log_files *f, const char *dir)
{
	snprintf(f->log, sizeof(f->log), "%s/events.jsonl", dir);
	snprintf(f->ledger, sizeof(f->ledger), "%s/ledger", dir);
	snprintf(f->reported, sizeof(f->reported), "%s/reported", dir);
	f->watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	CHECK(f->watch >= 0 && inotify_add_watch(f->watch, dir, IN_MOVED_TO) >= 0,
	      "watching %s for saved marks", dir);
}

static struct sink *open_in(const struct log_files *f, struct json_log_left *left)
{
	return json_log_open(&(struct json_log_files){ .log = f->log,
						       .ledger = f->ledger,
						       .reported = f->reported },
			     left);
}

/* How many times the mark was saved since the last call. */
static unsigned int marks_saved(const struct log_files *f)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	unsigned int n = 0;
	ssize_t len;

	while ((len = read(f->watch, buf, sizeof(buf))) > 0) {
		for (char *at = buf; at < buf + len;) {
			const struct inotify_event *ev = (const struct inotify_event *)at;

			n += ev->len && !strcmp(ev->name, "reported");
			at += sizeof(*ev) + ev->len;
		}
	}
	return n;
}

/* The saved mark's suppressed count, or -1 if there is none. */
static long long saved_suppressed(const struct log_files *f)
{
	struct log_ledger_mark mark;

	return log_ledger_read_mark(f->reported, &mark) ? (long long)mark.suppressed : -1;
}

static void remove_files(const struct log_files *f, const char *dir)
{
	close(f->watch);
	unlink(f->log);
	unlink(f->ledger);
	unlink(f->reported);
	rmdir(dir);
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

/* A record the queue had no room for: prepared (so taken), then dropped, as sink_queue.c does. */
static void drop(struct sink *s, const struct record *r)
{
	free(s->ops->prepare(s, r));
}

static void short_writes_hold_whole_lines_in_order(void)
{
	char dir[] = "/tmp/argguard-json-log-XXXXXX";
	struct argguard_event e[13];
	struct record summary = { .kind = RECORD_SUMMARY,
				  .losses = { .suppressed = 5, .log_backlog = 2 },
				  .mark_suppressed = 77 };
	struct log_files f = { 0 };
	struct json_log_left left = { .unsettled = ~0ULL };
	int pids[16], n, err_fd, saved;
	unsigned int saves;
	char said[4096];
	struct sink *log;

	if (!mkdtemp(dir))
		return;
	name_files(&f, dir);
	log = open_in(&f, &left);
	CHECK(log != NULL, "the log opens");
	if (!log)
		return;
	CHECK(left.unsettled == 0 && left.mark_suppressed == 0 && marks_saved(&f) == 0,
	      "a new log's ledger carries nothing over, and no mark is saved: %llu",
	      (unsigned long long)left.unsettled);
	for (int i = 0; i < 13; i++) {
		e[i] = sample_event();
		e[i].pid = 100 + i;
	}
	/* The two the summary counts lost. */
	drop(log, &(struct record){ .kind = RECORD_EXEC, .event = &e[10] });
	drop(log, &(struct record){ .kind = RECORD_EXEC, .event = &e[11] });
	signal(SIGXFSZ, SIG_IGN); /* past the limit, write() fails with EFBIG */
	set_file_limit(2500); /* room for a few lines of about 600 bytes */
	for (int i = 0; i < 10; i++) {
		send(log, &(struct record){ .kind = RECORD_EXEC, .event = &e[i] });
		if (i == 1)
			send(log, &summary);
	}
	CHECK(read_pids(f.log, pids, 16) == 0, "nothing is written while records are queued");
	CHECK(marks_saved(&f) == 0, "no mark is saved before the summary's line is written");
	err_fd = stderr_to_file(&saved);
	log->ops->flush(log); /* the queue emptied */
	stderr_back(err_fd, saved, said, sizeof(said));
	CHECK(strstr(said, "it has reached the size limit of 2500 bytes (LimitFSIZE="),
	      "the daemon says the log met its size limit: %s", said);
	n = read_pids(f.log, pids, 16);
	CHECK(n > 0 && n < 11, "the capped file holds some whole lines: %d", n);
	saves = marks_saved(&f);
	CHECK(saves == (n > 2) && saved_suppressed(&f) == (n > 2 ? 77 : -1),
	      "the summary's mark is saved only if its line is in: %d lines, %u saves of %lld", n,
	      saves, saved_suppressed(&f));
	set_file_limit(RLIM_INFINITY);
	log->ops->flush(log);
	n = read_pids(f.log, pids, 16);
	CHECK(n == 11, "every record is in the file once the limit is lifted: %d of 11", n);
	for (int i = 0, want = 100; i < n && n == 11; i++) {
		int expect = i == 2 ? -1 : want++;

		CHECK(pids[i] == expect, "line %d is record %d: %d", i + 1, expect, pids[i]);
	}
	saves += marks_saved(&f);
	CHECK(saves == 1 && saved_suppressed(&f) == 77,
	      "the summary's mark is saved once, as its line goes in: %u saves of %lld", saves,
	      saved_suppressed(&f));
	drop(log, &(struct record){ .kind = RECORD_EXEC, .event = &e[12] }); /* and never counted */
	sink_close(log);
	log = open_in(&f, &left); /* the next daemon */
	CHECK(log && left.unsettled == 1 && left.mark_suppressed == 77,
	      "the next daemon carries the one record never settled, not %llu, and goes on "
	      "from the mark, 77, not %llu",
	      (unsigned long long)left.unsettled, (unsigned long long)left.mark_suppressed);
	CHECK(marks_saved(&f) == 0, "opening the log saves no mark of its own");
	if (log)
		sink_close(log);
	remove_files(&f, dir);
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

/* What the next daemon's log found the killed one left. */
struct after_kill {
	struct json_log_left left;
	unsigned int saves; /* of the mark, as the log opened */
	const char *file; /* the log's bytes */
};

/*
 * A daemon killed in a write to the log: it took 6 records, 2 of them
 * lost and counted by the summary that is line 2 of a 3-line write; the
 * sixth was still queued. write_bytes of the write reach the file; counted:
 * whether the daemon counted the write before it died. What the next
 * daemon's log carries over, from the ledger and the file.
 */
static struct after_kill killed_in_a_write(size_t write_bytes, bool counted)
{
	static char file[4096];
	static const char lines[] = "{\"n\":1}\n{\"summary\":1}\n{\"n\":3}\n";
	const size_t summary_end = sizeof("{\"n\":1}\n{\"summary\":1}\n") - 1;
	char dir[] = "/tmp/argguard-ledger-XXXXXX";
	struct after_kill after = { .left.unsettled = ~0ULL, .file = "" };
	struct log_ledger_carry carry;
	struct log_files names = { 0 };
	struct log_ledger *l;
	struct sink *log;
	FILE *f;
	int fd;

	if (!mkdtemp(dir))
		return after;
	name_files(&names, dir);
	fd = open(names.log, O_WRONLY | O_APPEND | O_CREAT, 0600);
	l = log_ledger_open(names.ledger, names.log, &carry);
	if (fd < 0 || !l || write(fd, "{\"n\":0}\n", 8) != 8)
		return after;
	log_ledger_took(l, 6);
	log_ledger_begin_write(l, fd, 3, sizeof(lines) - 1, summary_end, 2,
			       &(struct log_ledger_mark){ .suppressed = 9, .ring_full = 8 });
	if (write(fd, lines, write_bytes) != (ssize_t)write_bytes)
		return after;
	if (counted)
		log_ledger_wrote(l, 3, 2); /* and killed before it ended the write */
	close(fd);
	log_ledger_close(l);
	log = open_in(&names, &after.left); /* the next daemon */
	CHECK(log, "the next daemon's log opens");
	after.saves = marks_saved(&names);
	f = fopen(names.log, "r");
	file[f ? fread(file, 1, sizeof(file) - 1, f) : 0] = '\0';
	after.file = file;
	if (f)
		fclose(f);
	if (log)
		sink_close(log);
	remove_files(&names, dir);
	return after;
}

static void a_write_a_daemon_was_killed_in_is_settled_from_the_file(void)
{
	struct after_kill a;

	a = killed_in_a_write(30, false);
	CHECK(a.left.unsettled == 1 && a.saves == 1 && a.left.mark_suppressed == 9 &&
		      a.left.mark_ring_full == 8,
	      "a whole write, uncounted: 1 record unsettled, not %llu, and the summary's mark "
	      "saved: %u saves, of %llu",
	      (unsigned long long)a.left.unsettled, a.saves,
	      (unsigned long long)a.left.mark_suppressed);
	a = killed_in_a_write(30, true);
	CHECK(a.left.unsettled == 1 && a.saves == 1 && a.left.mark_suppressed == 9,
	      "a whole write, counted: settled once, not twice: 1 unsettled, not %llu",
	      (unsigned long long)a.left.unsettled);
	a = killed_in_a_write(12, false);
	CHECK(a.left.unsettled == 5 && a.saves == 0 && a.left.mark_suppressed == 0,
	      "a write cut in its second line: 5 unsettled, not %llu, and no mark: %u saves",
	      (unsigned long long)a.left.unsettled, a.saves);
	CHECK(!strcmp(a.file, "{\"n\":0}\n{\"n\":1}\n"),
	      "the next daemon cuts the half line, keeping whole ones: '%s'", a.file);
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
	char dir[] = "/tmp/argguard-json-log-XXXXXX", victim[64];
	struct json_log_left left;
	struct log_files names = { 0 }, fifo;
	struct stat before = { 0 };
	struct sink *s;
	int fd;

	if (!mkdtemp(dir)) {
		CHECK(0, "made a temporary directory");
		return;
	}
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	name_files(&names, dir);
	fifo = names;
	snprintf(fifo.log, sizeof(fifo.log), "%s/fifo", dir);
	fd = open(victim, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	CHECK(fd >= 0 && write(fd, victim_text, strlen(victim_text)) > 0 && !fstat(fd, &before),
	      "made the file a link will point at");
	if (fd >= 0)
		close(fd);

	CHECK(symlink(victim, names.log) == 0, "planted a symbolic link at the log's path");
	s = open_in(&names, &left);
	CHECK(!s, "a log that is a symbolic link is refused");
	CHECK(victim_untouched(victim, &before),
	      "the link's target keeps its bytes, owner and mode");
	if (s)
		sink_close(s);
	unlink(names.log);

	CHECK(link(victim, names.log) == 0, "planted a hard link at the log's path");
	s = open_in(&names, &left);
	CHECK(!s, "a log that is another name of a file is refused");
	CHECK(victim_untouched(victim, &before), "the file keeps its bytes, owner and mode");
	if (s)
		sink_close(s);
	unlink(names.log);

	/* With a reader, so that an open for writing does not wait for one. */
	fd = mkfifo(fifo.log, 0600) ? -1 : open(fifo.log, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	CHECK(fd >= 0, "made a FIFO, and opened it for reading");
	s = open_in(&fifo, &left);
	CHECK(!s, "a log that is a FIFO is refused");
	if (s)
		sink_close(s);
	if (fd >= 0)
		close(fd);

	s = open_in(&names, &left);
	CHECK(s, "a log that is not there yet is made");
	if (s)
		sink_close(s);
	unlink(fifo.log);
	unlink(victim);
	remove_files(&names, dir);
}

/* This boot's id, as the log must give it. */
static const char *boot_id(void)
{
	static char id[64];
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	if (!f || !fgets(id, sizeof(id), f))
		id[0] = '\0';
	id[strcspn(id, "\n")] = '\0';
	if (f)
		fclose(f);
	return id;
}

/*
 * The seq of each of the file's lines, into seqs (0 where it is not a
 * number), checking each line's envelope: schema 1, this host's name and
 * this boot's id. The number of lines.
 */
static int read_seqs(const char *path, uint64_t *seqs, int max)
{
	FILE *f = fopen(path, "r");
	char line[8192], host[256] = "";
	int n = 0;

	gethostname(host, sizeof(host) - 1);
	while (f && fgets(line, sizeof(line), f)) {
		json_object *obj = json_tokener_parse(line), *schema = NULL, *h = NULL, *b = NULL,
			    *seq = NULL;
		bool ok = obj && json_object_object_get_ex(obj, "schema", &schema) &&
			  json_object_object_get_ex(obj, "host", &h) &&
			  json_object_object_get_ex(obj, "boot_id", &b) &&
			  json_object_object_get_ex(obj, "seq", &seq);

		CHECK(ok && json_object_is_type(schema, json_type_int) &&
			      json_object_get_int(schema) == 1 &&
			      json_object_is_type(h, json_type_string) &&
			      !strcmp(json_object_get_string(h), host) &&
			      json_object_is_type(b, json_type_string) && boot_id()[0] &&
			      !strcmp(json_object_get_string(b), boot_id()) &&
			      json_object_is_type(seq, json_type_int),
		      "line %d has schema 1, host \"%s\", boot_id \"%s\" and a number seq: %.200s",
		      n + 1, host, boot_id(), line);
		if (n < max)
			seqs[n] = ok && json_object_is_type(seq, json_type_int)
					  ? (uint64_t)json_object_get_int64(seq)
					  : 0;
		json_object_put(obj);
		n++;
	}
	if (f)
		fclose(f);
	return n;
}

/* Whether seqs[from..to) are first, first + 1, ... */
static bool seqs_from(const uint64_t *seqs, int from, int to, uint64_t first)
{
	for (int i = from; i < to; i++)
		if (seqs[i] != first + (i - from))
			return false;
	return true;
}

/* n exec records and a flush, as the log's thread does them. */
static void log_execs(struct sink *s, int n)
{
	struct argguard_event e = sample_event();

	for (int i = 0; i < n; i++) {
		e.pid = 500 + i;
		send(s, &(struct record){ .kind = RECORD_EXEC, .event = &e });
	}
	s->ops->flush(s);
}

/*
 * Every line, an exec's or a summary's, carries the envelope; seq goes on
 * over daemons: a restart, a SIGKILL (what the killed daemon took and never
 * wrote is a gap, counted lost), and a ledger the log could not map.
 */
static void lines_carry_an_envelope_whose_seq_goes_on(void)
{
	char dir[] = "/tmp/argguard-json-log-XXXXXX";
	struct record summary = { .kind = RECORD_SUMMARY, .losses = { .suppressed = 1 } };
	struct log_files f = { 0 }, unmapped;
	struct json_log_left left;
	struct argguard_event e = sample_event();
	uint64_t seqs[16] = { 0 };
	struct sink *log;
	char *plain;
	pid_t pid;
	int n, status = 0;

	if (!mkdtemp(dir)) {
		CHECK(0, "made a temporary directory");
		return;
	}
	name_files(&f, dir);
	log = open_in(&f, &left);
	CHECK(log, "the log opens");
	if (!log)
		return;
	log_execs(log, 2);
	send(log, &summary);
	log->ops->flush(log);
	sink_close(log); /* systemctl restart */
	log = open_in(&f, &left);
	CHECK(log, "the restarted daemon's log opens");
	if (!log)
		return;
	log_execs(log, 2);
	n = read_seqs(f.log, seqs, 16);
	CHECK(n == 5 && seqs_from(seqs, 0, 5, 1),
	      "seq is 1 to 5 over an exec, an exec, a summary, a restart and two execs: %d "
	      "lines, %llu %llu %llu %llu %llu",
	      n, (unsigned long long)seqs[0], (unsigned long long)seqs[1],
	      (unsigned long long)seqs[2], (unsigned long long)seqs[3],
	      (unsigned long long)seqs[4]);
	sink_close(log);

	/* kill -9: one record written, one taken and never written. */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* No CHECK here: the child's output dies with it. */
		log = open_in(&f, &left);
		if (log) {
			void *item = log->ops->prepare(
				log, &(struct record){ .kind = RECORD_EXEC, .event = &e });

			if (item)
				log->ops->send(log, item);
			free(item);
			log->ops->flush(log);
			drop(log, &(struct record){ .kind = RECORD_EXEC, .event = &e });
		}
		raise(SIGKILL); /* does not return */
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
		      WTERMSIG(status) == SIGKILL,
	      "a daemon wrote one record, took another, and was killed");
	log = open_in(&f, &left);
	CHECK(log && left.unsettled == 1, "the next daemon carries the one it took: %llu",
	      (unsigned long long)left.unsettled);
	if (!log)
		return;
	log_execs(log, 1);
	n = read_seqs(f.log, seqs, 16);
	CHECK(n == 7 && seqs[5] == 6 && seqs[6] == 8,
	      "after a SIGKILL seq goes on, past the record the killed daemon took and lost: "
	      "%d lines, 6 and 8, not %llu and %llu",
	      n, (unsigned long long)seqs[5], (unsigned long long)seqs[6]);
	sink_close(log);

	/* No ledger: the sequence starts again, from 1. */
	unmapped = f;
	snprintf(unmapped.ledger, sizeof(unmapped.ledger), "%s/no/such/ledger", dir);
	unlink(f.log);
	log = open_in(&unmapped, &left);
	CHECK(log, "a log whose ledger cannot be mapped opens");
	if (!log)
		return;
	log_execs(log, 2);
	n = read_seqs(f.log, seqs, 16);
	CHECK(n == 2 && seqs_from(seqs, 0, 2, 1),
	      "without a ledger seq starts again from 1: %d lines, %llu %llu", n,
	      (unsigned long long)seqs[0], (unsigned long long)seqs[1]);
	sink_close(log);

	/* Only the log's lines carry it. */
	plain = record_to_json(&(struct record){ .kind = RECORD_EXEC, .event = &e }, NULL);
	CHECK(plain && !strstr(plain, "\"seq\"") && !strstr(plain, "\"host\"") &&
		      !strstr(plain, "\"boot_id\"") && !strstr(plain, "\"schema\""),
	      "a record's JSON outside the log has no envelope: %s", plain ? plain : "(null)");
	free(plain);
	remove_files(&f, dir);
}

/*
 * A ledger an older argguard left, of another size (an upgrade within the
 * boot): read as ever, and seq starts from 1 with a warning that says so;
 * from then on it goes on.
 */
static void an_older_ledger_starts_seq_with_a_warning(size_t size)
{
	char dir[] = "/tmp/argguard-json-log-XXXXXX", said[4096];
	uint64_t old[16] = { [1] = 3, [2] = 2 }; /* took 3, wrote 2 */
	struct log_files f = { 0 };
	struct json_log_left left = { 0 };
	uint64_t seqs[8] = { 0 };
	struct sink *log;
	int fd, err_fd, saved, n;

	if (!mkdtemp(dir)) {
		CHECK(0, "made a temporary directory");
		return;
	}
	name_files(&f, dir);
	fd = open(f.ledger, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && write(fd, old, size) == (ssize_t)size, "an older ledger of %zu bytes",
	      size);
	if (fd >= 0)
		close(fd);
	err_fd = stderr_to_file(&saved);
	log = open_in(&f, &left);
	stderr_back(err_fd, saved, said, sizeof(said));
	CHECK(log && left.unsettled == 1,
	      "the %zu-byte ledger's count is read: 1 record unsettled, not %llu", size,
	      (unsigned long long)left.unsettled);
	CHECK(strstr(said, "older argguard's ledger") && strstr(said, "seq starts again from 1"),
	      "a warning says seq starts again: %s", said);
	if (!log)
		return;
	log_execs(log, 1);
	sink_close(log);
	log = open_in(&f, &left);
	if (!log)
		return;
	log_execs(log, 1);
	sink_close(log);
	n = read_seqs(f.log, seqs, 8);
	CHECK(n == 2 && seqs[0] == 1 && seqs[1] == 2,
	      "seq starts from 1 and goes on over the next restart: %d lines, %llu %llu", n,
	      (unsigned long long)seqs[0], (unsigned long long)seqs[1]);
	remove_files(&f, dir);
}

int main(void)
{
	short_writes_hold_whole_lines_in_order();
	unsettled_records_carry_over_until_counted();
	a_write_a_daemon_was_killed_in_is_settled_from_the_file();
	log_that_is_a_link_is_refused();
	lines_carry_an_envelope_whose_seq_goes_on();
	an_older_ledger_starts_seq_with_a_warning(32); /* before ->writing */
	an_older_ledger_starts_seq_with_a_warning(120); /* before ->seq */
	return check_done();
}
