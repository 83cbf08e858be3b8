// SPDX-License-Identifier: GPL-2.0
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <syslog.h>
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

/* Leaves errno as it was: a caller may log and then return -errno. */
static void log_line(int priority, const char *what, const char *fmt, va_list ap)
{
	int saved = errno;

	if (stderr_is_journal())
		fprintf(stderr, "<%d>", priority); /* which journald takes off the line */
	fputs("argguard: ", stderr);
	fputs(what, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	errno = saved;
}

void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(LOG_ERR, "", fmt, ap);
	va_end(ap);
}

void log_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(LOG_WARNING, "warning: ", fmt, ap);
	va_end(ap);
}

void log_notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(LOG_NOTICE, "", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(LOG_INFO, "", fmt, ap);
	va_end(ap);
}
