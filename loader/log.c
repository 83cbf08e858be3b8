// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* vasprintf() */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Is stderr the stream systemd connected to journald? JOURNAL_STREAM holds
 * that stream's device and inode ("DEV:INO", sd_journal_stream_fd(3)); a
 * child that inherited the variable but writes to a terminal, a pipe or a
 * file has another. Checked on every line: logging is rare, and stderr may
 * be redirected after start.
 */
static bool stderr_is_journal(void)
{
	const char *stream = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char *end;

	if (!stream)
		return false;
	errno = 0;
	dev = strtoull(stream, &end, 10);
	if (end == stream || *end != ':')
		return false;
	stream = end + 1;
	ino = strtoull(stream, &end, 10);
	if (end == stream || *end || errno)
		return false;
	if (fstat(STDERR_FILENO, &st))
		return false;
	return st.st_dev == (dev_t)dev && st.st_ino == (ino_t)ino;
}

/* This thread's innermost capture, or NULL. */
static __thread struct log_capture *capture;

void log_capture_start(struct log_capture *c, int priority, char *buf, size_t size, bool quiet)
{
	*c = (struct log_capture){
		.priority = priority,
		.buf = buf,
		.size = size,
		.quiet = quiet || (capture && capture->quiet),
		.outer = capture,
	};
	if (size)
		buf[0] = '\0';
	capture = c;
}

void log_capture_stop(struct log_capture *c)
{
	capture = c->outer;
}

/*
 * Leaves errno as it was: a caller may log and then return -errno. The words
 * may quote a cgroup path or a policy file's line; escaped, they can drive no
 * terminal, nor start a journal entry that argguard did not write.
 */
void log_at(int priority, const char *fmt, ...)
{
	int saved = errno;
	char *msg;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL; /* out of memory: the format alone, which is ours */
	va_end(ap);
	if (capture && priority <= capture->priority && !capture->caught && capture->size) {
		snprintf(capture->buf, capture->size, "%s", msg ? msg : fmt);
		capture->caught = true;
	}
	if (!capture || !capture->quiet) {
		if (stderr_is_journal())
			fprintf(stderr, "<%d>", priority); /* which journald takes off the line */
		terminal_safe_fputs(stderr,
				    priority == LOG_WARNING ? "argguard: warning: " : "argguard: ",
				    msg ? msg : fmt, "\n");
	}
	free(msg);
	errno = saved;
}

/* c as it prints: itself, "\\", or "\xHH". Returns its length. */
static size_t escape(unsigned char c, char out[5])
{
	if (c == '\\')
		return (size_t)snprintf(out, 5, "\\\\");
	if (c >= 0x20 && c < 0x7f) {
		out[0] = (char)c;
		out[1] = '\0';
		return 1;
	}
	return (size_t)snprintf(out, 5, "\\x%02x", c);
}

const char *terminal_safe(char *buf, size_t size, const char *s)
{
	size_t n = 0;
	char e[5];

	for (; *s; s++) {
		size_t len = escape((unsigned char)*s, e);

		if (n + len >= size)
			break;
		memcpy(buf + n, e, len);
		n += len;
	}
	buf[n] = '\0';
	return buf;
}

void terminal_safe_fputs(FILE *out, const char *before, const char *s, const char *after)
{
	char e[5];

	fputs(before, out);
	for (; *s; s++) {
		escape((unsigned char)*s, e);
		fputs(e, out);
	}
	fputs(after, out);
}
