// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON-lines log: one record a line, appended whole. While the file
 * cannot be written (a full disk, or a file at the size limit the unit sets,
 * RLIMIT_FSIZE), records are held back, oldest first, and written as soon
 * as it can; past MAX_PENDING of them, they are given up on and counted.
 */
#define _GNU_SOURCE /* asprintf() */
#include "json_log.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event_json.h"
#include "log.h"
#include "log_ledger.h"

#define MAX_PENDING 4096 /* records held while the log cannot be written */
#define BATCH_BYTES 65536 /* lines gathered for one write while more are queued */

/*
 * What a summary settles once its line is in the file: the drop counters'
 * totals it brings the log up to, and the records it counts lost.
 */
struct log_mark {
	bool summary;
	uint64_t suppressed, ring_full;
	uint64_t counted_lost;
};

struct json_log {
	struct sink sink; /* sink.gave_up: records given up on because pending was full */
	const char *path;
	int fd;
	struct log_item *pending[MAX_PENDING]; /* oldest first, waiting for space */
	unsigned int n_pending;
	uint64_t write_errors; /* failed writes, each retried later */
	/*
	 * Lines not yet written, while more records are queued behind them:
	 * written once the queue is empty (flush), or when full. Empty while
	 * anything is pending.
	 */
	char batch[BATCH_BYTES];
	size_t batch_len, batch_lines;
	/* The batch's summary, if any (one at most), and where its line ends. */
	struct log_mark batch_mark;
	size_t summary_end;
	struct log_ledger *ledger; /* what it took and settled; NULL if it could not be mapped */
	const char *reported; /* where its summaries' mark is saved */
	/* The lines' envelope: the boot's id, read once, and the sequence without a ledger. */
	char boot_id[37]; /* empty if unreadable */
	uint64_t unledgered_seq;
};

/* A record's line, newline included. */
struct log_item {
	struct log_mark mark;
	size_t len;
	char line[];
};

static struct log_item *new_item(const char *line, size_t len, const struct log_mark *mark)
{
	struct log_item *item = malloc(sizeof(*item) + len + 1);

	if (!item)
		return NULL;
	*item = (struct log_item){ .mark = *mark, .len = len };
	memcpy(item->line, line, len);
	item->line[len] = '\0';
	return item;
}

/*
 * lines records are in the file, mark's summary among them or not: the
 * ledger settles them, and the next daemon's summaries start from the
 * summary's totals.
 */
static void written(const struct json_log *log, uint64_t lines, const struct log_mark *mark)
{
	if (mark && mark->summary)
		log_ledger_save_mark(log->reported, &(struct log_ledger_mark){ mark->suppressed,
									       mark->ring_full });
	log_ledger_wrote(log->ledger, lines, mark ? mark->counted_lost : 0);
}

/*
 * Tell the ledger, before a write of lines (len bytes; mark's summary line
 * ending summary_end bytes in, or 0), what the next daemon is to settle
 * should this one be killed in it.
 */
static void announce_write(const struct json_log *log, size_t lines, size_t len, size_t summary_end,
			   const struct log_mark *mark)
{
	log_ledger_begin_write(log->ledger, log->fd, lines, len, summary_end, mark->counted_lost,
			       &(struct log_ledger_mark){ mark->suppressed, mark->ring_full });
}

/*
 * argguard's own log directory, root:adm 0750, made if it is missing. Not
 * the unit's LogsDirectory=: for a service with no User=, systemd gives
 * that directory and all in it to root:root at each start (unless it is
 * root:root already), and so takes rotated logs from group adm.
 */
static void make_log_dir(const struct group *adm)
{
	int dir;

	if (mkdir(ARGGUARD_LOG_DIR, 0750) && errno != EEXIST)
		log_error("failed to make %s: %s", ARGGUARD_LOG_DIR, strerror(errno));
	/* Through an fd, never by path: a symbolic link there is refused. */
	dir = open(ARGGUARD_LOG_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0) {
		log_error("failed to open %s: %s", ARGGUARD_LOG_DIR, strerror(errno));
		return;
	}
	if (adm && fchown(dir, 0, adm->gr_gid))
		log_error("failed to give %s to group adm: %s", ARGGUARD_LOG_DIR, strerror(errno));
	if (fchmod(dir, 0750))
		log_error("failed to make %s mode 0750: %s", ARGGUARD_LOG_DIR, strerror(errno));
	close(dir);
}

/*
 * Open the log for appending: root:adm 0640, so admins in group adm can
 * read it, as with the rest of /var/log. The daemon, root, takes what it
 * opens for its own (fchown, fchmod), so it opens only a file that is the
 * log and nothing else: never a symbolic link, which whoever can write the
 * log's directory (or a world-writable one that --log names) could point at
 * /etc/shadow; nor a file of more than one name (a hard link), nor a FIFO
 * or a device (O_NONBLOCK: an open of a FIFO fails rather than waits). Its
 * directories are followed: those are root's to make. The fd, or a negative
 * errno with the reason logged.
 */
static int open_log(const char *path)
{
	struct group *adm = getgrnam("adm");
	struct stat st;
	int fd, err;

	/* Only argguard's own directory: --log may point anywhere. */
	if (!strncmp(path, ARGGUARD_LOG_DIR "/", strlen(ARGGUARD_LOG_DIR "/")))
		make_log_dir(adm);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0640);
	if (fd < 0) {
		err = -errno;
		/* ELOOP, or EACCES where fs.protected_symlinks guards a sticky directory */
		if (!lstat(path, &st) && S_ISLNK(st.st_mode))
			log_error("refusing to open log %s: it is a symbolic link; the log must be "
				  "a file of its own",
				  path);
		else
			log_error("failed to open log %s: %s", path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		log_error("failed to open log %s: %s", path, strerror(-err));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1) {
		log_error("refusing to open log %s: it is %s; the log must be a file of its own",
			  path,
			  S_ISREG(st.st_mode) ? "a file with other names (hard links)"
					      : "not a regular file");
		err = -EINVAL;
		goto out_close;
	}
	if (adm && fchown(fd, 0, adm->gr_gid))
		log_error("failed to give %s to group adm: %s", path, strerror(errno));
	if (fchmod(fd, 0640))
		log_error("failed to make %s mode 0640: %s", path, strerror(errno));
	return fd;

out_close:
	close(fd);
	return err;
}

static void write_batch(struct json_log *log);

/* SIGUSR1: after logrotate moved the log away, write to a new one. */
static void json_log_reopen(struct sink *s)
{
	struct json_log *log = sink_container(s, struct json_log);
	int fd = open_log(log->path);

	if (fd < 0)
		return; /* keep writing where we were */
	write_batch(log); /* those records came before the rotation */
	close(log->fd);
	log->fd = fd;
}

/*
 * Say why a write of the log failed (n: what write() returned, err: its
 * errno, end: the file's end after it, or -1), once as records start to be
 * held back. At the size limit (RLIMIT_FSIZE: the unit's LimitFSIZE=), a
 * write falls short at the limit, and the next fails with EFBIG.
 */
static void write_failed(struct json_log *log, ssize_t n, int err, off_t end)
{
	struct rlimit lim;

	if (log->write_errors++ && log->n_pending)
		return;
	if (!getrlimit(RLIMIT_FSIZE, &lim) && lim.rlim_cur != RLIM_INFINITY &&
	    ((n < 0 && err == EFBIG) || (n >= 0 && end >= 0 && (rlim_t)end >= lim.rlim_cur)))
		log_error("failed to write %s: it has reached the size limit of %llu bytes "
			  "(LimitFSIZE= of argguard.service); holding records until logrotate "
			  "moves it away",
			  log->path, (unsigned long long)lim.rlim_cur);
	else
		log_error("failed to write %s: %s; holding records until it can be written",
			  log->path, n < 0 ? strerror(err) : "short write");
}

/*
 * Append one line whole, or not at all: a short write (disk full, or the
 * size limit) is cut back so that the file never holds half a record.
 */
static bool append_line(struct json_log *log, const struct log_item *item)
{
	ssize_t n;
	off_t after;
	int err;

	announce_write(log, 1, item->len, item->mark.summary ? item->len : 0, &item->mark);
	n = write(log->fd, item->line, item->len);
	err = errno;
	if (n == (ssize_t)item->len) {
		written(log, 1, &item->mark);
		log_ledger_end_write(log->ledger);
		return true;
	}
	/* O_APPEND: the short write ended at the end of the file. */
	after = n >= 0 ? lseek(log->fd, 0, SEEK_CUR) : -1;
	if (n > 0 && after >= n && ftruncate(log->fd, after - n))
		log_error("failed to cut a partial record from %s: %s", log->path, strerror(errno));
	log_ledger_end_write(log->ledger);
	write_failed(log, n, err, after);
	return false;
}

/* Write what is held back, oldest first; stop at the first failure. */
static void flush_pending(struct json_log *log)
{
	unsigned int done = 0;

	while (done < log->n_pending && append_line(log, log->pending[done]))
		free(log->pending[done++]);
	memmove(log->pending, log->pending + done,
		(log->n_pending - done) * sizeof(struct log_item *));
	log->n_pending -= done;
	if (done && !log->n_pending)
		log_info("%s is writable again: wrote %u held records; "
			 "%llu failed writes since start",
			 log->path, done, (unsigned long long)log->write_errors);
}

/*
 * In the pipeline's thread: the record's line. Each record comes here
 * once, whether the queue then has room for it or not: the ledger takes
 * it, to be settled by its line or by a summary that counts it lost, and
 * gives it the next seq, so that a gap in seq is records lost. The host
 * is read each time: a rename shows from the next line on.
 */
static void *json_log_prepare(struct sink *s, const struct record *r)
{
	struct json_log *log = sink_container(s, struct json_log);
	struct log_mark mark = { 0 };
	char host[HOST_NAME_MAX + 1];
	struct record_envelope envelope = {
		.host = gethostname(host, sizeof(host)) ? NULL : host,
		.boot_id = log->boot_id[0] ? log->boot_id : NULL,
		.seq = log_ledger_took(log->ledger, 1),
	};
	struct record own = *r;
	size_t len;
	char *line;
	struct log_item *item = NULL;

	host[sizeof(host) - 1] = '\0';
	if (!envelope.seq)
		envelope.seq = ++log->unledgered_seq;
	own.envelope = &envelope;
	line = record_to_json(&own, &len);
	if (r->kind == RECORD_SUMMARY)
		mark = (struct log_mark){
			.summary = true,
			.suppressed = r->mark_suppressed,
			.ring_full = r->mark_ring_full,
			.counted_lost = r->losses.log_backlog + r->losses.held_at_exit,
		};
	if (line) {
		line[len] = '\n'; /* in place of the NUL: new_item() copies len + 1 */
		item = new_item(line, len + 1, &mark);
	}
	free(line);
	return item;
}

/* Hold a record back until the log can be written; past MAX_PENDING, give it up. */
static void hold(struct json_log *log, struct log_item *item)
{
	if (log->n_pending == MAX_PENDING) {
		__atomic_fetch_add(&log->sink.gave_up, 1, __ATOMIC_RELAXED);
		free(item);
		return;
	}
	log->pending[log->n_pending++] = item;
}

/* A copy of a record's line to hold back; one that cannot be copied is given up. */
static void hold_copy(struct json_log *log, const char *line, size_t len,
		      const struct log_mark *mark)
{
	struct log_item *item = new_item(line, len, mark);

	if (item)
		hold(log, item);
	else
		__atomic_fetch_add(&log->sink.gave_up, 1, __ATOMIC_RELAXED);
}

/*
 * Write the batch in one write(). What a short write (a full disk) left
 * unwritten is held back, a line at a time, after a partial line is cut
 * back: the file never holds half a record.
 */
static void write_batch(struct json_log *log)
{
	size_t done = 0, next, lines;
	ssize_t n;
	off_t after;
	int err;

	if (!log->batch_len)
		return;
	announce_write(log, log->batch_lines, log->batch_len, log->summary_end, &log->batch_mark);
	n = write(log->fd, log->batch, log->batch_len);
	err = errno;
	if (n == (ssize_t)log->batch_len) {
		done = log->batch_len;
	} else {
		for (ssize_t i = 0; i < n; i++)
			if (log->batch[i] == '\n')
				done = i + 1;
		/* O_APPEND: the short write ended at the end of the file. */
		after = n >= 0 ? lseek(log->fd, 0, SEEK_CUR) : -1;
		if (n > (ssize_t)done && after >= n - (ssize_t)done &&
		    ftruncate(log->fd, after - (n - done)))
			log_error("failed to cut a partial record from %s: %s", log->path,
				  strerror(errno));
		write_failed(log, n, err, after);
	}
	lines = log->batch_lines;
	if (done < log->batch_len) /* a short write: count what went in */
		for (size_t i = lines = 0; i < done; i++)
			lines += log->batch[i] == '\n';
	written(log, lines, log->summary_end && done >= log->summary_end ? &log->batch_mark : NULL);
	log_ledger_end_write(log->ledger);
	for (size_t at = done; at < log->batch_len; at = next) {
		next = (char *)memchr(log->batch + at, '\n', log->batch_len - at) - log->batch + 1;
		hold_copy(log, log->batch + at, next - at,
			  next == log->summary_end ? &log->batch_mark : &(struct log_mark){ 0 });
	}
	log->batch_len = 0;
	log->batch_lines = 0;
	log->summary_end = 0;
}

/* One line, into the batch, or held back behind those already held. */
static int json_log_send(struct sink *s, void *it)
{
	struct json_log *log = sink_container(s, struct json_log);
	const struct log_item *item = it;

	flush_pending(log);
	/* Full, or a second summary, whose mark would take the first's place. */
	if (!log->n_pending &&
	    (log->batch_len + item->len > BATCH_BYTES || (item->mark.summary && log->summary_end)))
		write_batch(log);
	if (!log->n_pending && item->len > BATCH_BYTES && append_line(log, item))
		return 0;
	if (log->n_pending || item->len > BATCH_BYTES) { /* behind what waits for space */
		hold_copy(log, item->line, item->len, &item->mark);
		return 0;
	}
	memcpy(log->batch + log->batch_len, item->line, item->len);
	log->batch_len += item->len;
	log->batch_lines++;
	if (item->mark.summary) {
		log->summary_end = log->batch_len;
		log->batch_mark = item->mark;
	}
	return 0;
}

/* The queue is empty, or the log has been idle a while. */
static void json_log_flush(struct sink *s)
{
	struct json_log *log = sink_container(s, struct json_log);

	write_batch(log);
	flush_pending(log);
}

static void json_log_close(struct sink *s)
{
	struct json_log *log = sink_container(s, struct json_log);

	close(log->fd);
	for (unsigned int i = 0; i < log->n_pending; i++)
		free(log->pending[i]);
	/* What it still held stays unsettled: the next daemon's first summary reports it. */
	log_ledger_close(log->ledger);
}

static const struct sink_ops json_log_ops =
	SINK_OPS(json_log, "log", .flush = json_log_flush, .reopen = json_log_reopen);

/*
 * This boot's id, as the kernel gives it: 36 characters of a UUID. Left
 * empty (null in the lines), with the reason logged, if it cannot be read.
 */
static void read_boot_id(char id[37])
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	size_t n = f ? fread(id, 1, 36, f) : 0;

	id[n] = '\0';
	if (n != 36 || strspn(id, "0123456789abcdef-") != 36)
		id[0] = '\0';
	if (f)
		fclose(f);
	if (!id[0])
		log_error("failed to read the boot's id from /proc/sys/kernel/random/boot_id: "
			  "the log's boot_id is null");
}

/*
 * Map the ledger, settle what the last daemon left in it, and read back
 * the mark its summaries reached: a summary it wrote as it was killed, its
 * line in the file, has its mark saved now.
 */
static void open_ledger(struct json_log *log, const char *path, struct json_log_left *left)
{
	struct log_ledger_carry carry;
	struct log_ledger_mark mark = { 0 };

	log->ledger = log_ledger_open(path, log->path, &carry);
	if (carry.has_mark)
		log_ledger_save_mark(log->reported, &carry.mark);
	log_ledger_read_mark(log->reported, &mark); /* else none: 0 */
	*left = (struct json_log_left){
		.unsettled = carry.unsettled,
		.mark_suppressed = mark.suppressed,
		.mark_ring_full = mark.ring_full,
	};
}

struct sink *json_log_open(const struct json_log_files *files, struct json_log_left *left)
{
	const char *path = files->log ? files->log : DEFAULT_LOG;
	struct json_log *log = sink_new(struct json_log, &json_log_ops);

	*left = (struct json_log_left){ 0 };
	if (!log)
		return NULL;
	log->fd = open_log(path);
	if (log->fd < 0) {
		free(log);
		return NULL;
	}
	log->path = path;
	log->reported = files->reported ? files->reported : ARGGUARD_REPORTED;
	read_boot_id(log->boot_id);
	open_ledger(log, files->ledger ? files->ledger : ARGGUARD_LEDGER, left);
	return &log->sink;
}

void json_log_save_mark(struct sink *s, uint64_t suppressed, uint64_t ring_full)
{
	struct json_log *log = sink_container(s, struct json_log);

	log_ledger_save_mark(log->reported, &(struct log_ledger_mark){ .suppressed = suppressed,
								       .ring_full = ring_full });
}
