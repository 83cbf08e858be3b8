// SPDX-License-Identifier: GPL-2.0
#include "log_ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "units.h"

_Static_assert(offsetof(struct log_ledger, seq) == LOG_LEDGER_SEQ_AT,
	       "seq stays where every ledger since it has it");

/*
 * Whole lines in the log file's bytes [from, to); *whole_end: just past
 * the last of them, or from if none.
 */
static uint64_t count_lines(int fd, uint64_t from, uint64_t to, uint64_t *whole_end)
{
	char buf[16384];
	uint64_t lines = 0;
	ssize_t n;

	*whole_end = from;
	for (; from < to; from += n) {
		n = pread(fd, buf, to - from < sizeof(buf) ? to - from : sizeof(buf), from);
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n')
				continue;
			lines++;
			*whole_end = from + i + 1;
		}
	}
	return lines;
}

/*
 * The last daemon died in a write to the log, before counting it: what of
 * the write is in the file now is written, and a summary line that made it
 * in settles what it counted and brings its mark. A kill can cut the write
 * short mid-line: the half line at the file's end is cut, so that the next
 * record starts a line of its own (its record counts as lost). A file that
 * is gone or another (rotated away, or a symbolic link put in its place)
 * settles nothing: its records count as lost, more than were, rather than
 * fewer.
 */
static void settle_cut_write(struct log_ledger *l, const char *log_path,
			     struct log_ledger_carry *carry)
{
	const struct log_ledger_write *w = &l->writing;
	int fd = open(log_path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	uint64_t lines, end, whole_end;

	if (fd < 0)
		return;
	if (!fstat(fd, &st) && (uint64_t)st.st_dev == w->dev && (uint64_t)st.st_ino == w->ino) {
		end = (uint64_t)st.st_size < w->start + w->len ? (uint64_t)st.st_size
							       : w->start + w->len;
		lines = count_lines(fd, w->start, end, &whole_end);
		if (lines > w->lines)
			lines = w->lines;
		if (l->written == w->written_before)
			l->written += lines;
		if (w->summary_end && end >= w->start + w->summary_end) {
			if (l->counted == w->counted_before)
				l->counted += w->counted_lost;
			carry->has_mark = true; /* saved again, if it was: the same mark */
			carry->mark = w->mark;
		}
		log_info("%s: the last daemon was killed in a write of %llu lines, %llu of which "
			 "are in",
			 log_path, (unsigned long long)w->lines, (unsigned long long)lines);
		if (whole_end < end && (uint64_t)st.st_size <= w->start + w->len) { /* at the end */
			if (ftruncate(fd, (off_t)whole_end))
				log_error("failed to cut a partial record from %s: %s", log_path,
					  strerror(errno));
			else
				log_info("%s: cut the %llu bytes of a record it left half-written",
					 log_path, (unsigned long long)(end - whole_end));
		}
	}
	close(fd);
}

struct log_ledger *log_ledger_open(const char *path, const char *log_path,
				   struct log_ledger_carry *carry)
{
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct log_ledger *l = MAP_FAILED;
	uint64_t settled;
	struct stat st = { 0 };

	*carry = (struct log_ledger_carry){ 0 };
	/*
	 * A ledger from an older build grows by zeros: without ->writing, no
	 * write under way; without ->seq, a sequence that starts from 0.
	 */
	if (fd >= 0 && !fstat(fd, &st) && !ftruncate(fd, sizeof(*l)))
		l = mmap(NULL, sizeof(*l), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (l == MAP_FAILED) {
		log_error("failed to map %s: %s; records a crash loses will go uncounted, and the "
			  "log's seq starts again from 1",
			  path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	close(fd);
	if (st.st_size > 0 && st.st_size < LOG_LEDGER_SEQ_AT + (off_t)sizeof(l->seq))
		log_warning("%s is an older argguard's ledger (%lld bytes), with no sequence "
			    "number in it: the log's seq starts again from 1",
			    path, (long long)st.st_size);
	if (l->writing.lines)
		settle_cut_write(l, log_path, carry);
	settled = l->written + l->counted;
	if (l->carried + l->taken > settled) /* else nothing, or a file that does not add up */
		carry->unsettled = l->carried + l->taken - settled;
	*l = (struct log_ledger){ .carried = carry->unsettled, .seq = l->seq };
	return l;
}

uint64_t log_ledger_took(struct log_ledger *l, uint64_t records)
{
	if (!l)
		return 0;
	__atomic_fetch_add(&l->taken, records, __ATOMIC_RELAXED);
	return __atomic_add_fetch(&l->seq, records, __ATOMIC_RELAXED);
}

void log_ledger_wrote(struct log_ledger *l, uint64_t records, uint64_t counted_lost)
{
	if (!l)
		return;
	__atomic_fetch_add(&l->written, records, __ATOMIC_RELAXED);
	__atomic_fetch_add(&l->counted, counted_lost, __ATOMIC_RELAXED);
}

void log_ledger_begin_write(struct log_ledger *l, int fd, uint64_t lines, uint64_t len,
			    uint64_t summary_end, uint64_t counted_lost,
			    const struct log_ledger_mark *mark)
{
	struct stat st;

	if (!l || fstat(fd, &st))
		return;
	l->writing = (struct log_ledger_write){
		.written_before = __atomic_load_n(&l->written, __ATOMIC_RELAXED),
		.counted_before = __atomic_load_n(&l->counted, __ATOMIC_RELAXED),
		.dev = st.st_dev,
		.ino = st.st_ino,
		.start = st.st_size, /* O_APPEND, and the log's only writer */
		.len = len,
		.summary_end = summary_end,
		.counted_lost = counted_lost,
		.mark = mark ? *mark : (struct log_ledger_mark){ 0 },
	};
	/* Last, once the rest is in place: lines says a write is under way. */
	__atomic_store_n(&l->writing.lines, lines, __ATOMIC_RELEASE);
}

void log_ledger_end_write(struct log_ledger *l)
{
	if (l)
		__atomic_store_n(&l->writing.lines, 0, __ATOMIC_RELEASE);
}

void log_ledger_close(struct log_ledger *l)
{
	if (l)
		munmap(l, sizeof(*l));
}

void log_ledger_save_mark(const char *path, const struct log_ledger_mark *mark)
{
	char tmp[PATH_MAX];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.new", path) >= (int)sizeof(tmp))
		return;
	f = fopen(tmp, "we");
	if (!f)
		return;
	fprintf(f, "%llu %llu\n", (unsigned long long)mark->suppressed,
		(unsigned long long)mark->ring_full);
	if (fclose(f) == 0)
		rename(tmp, path);
}

bool log_ledger_read_mark(const char *path, struct log_ledger_mark *mark)
{
	unsigned long long v[2]; /* suppressed, ring_full */

	if (read_numbers(path, v, 2) < 2)
		return false;
	*mark = (struct log_ledger_mark){ .suppressed = v[0], .ring_full = v[1] };
	return true;
}
