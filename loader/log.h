/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_LOG_H
#define ARGGUARD_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <syslog.h>
#include <stdio.h>

/*
 * "argguard: <message>" and a newline on stderr, at a syslog priority
 * (LOG_ERR ...). When stderr is the daemon's stream to journald, each line
 * starts with its priority (syslog's "<3>" for err, and the rest, as
 * sd-daemon(3) says), which journald takes off and keeps as PRIORITY=; on a
 * terminal, a pipe or a file, the text alone. The message is printed as
 * terminal_safe() escapes it, one line whatever it quotes; a capture keeps
 * its exact bytes. Leaves errno as it was.
 */
void log_at(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A fault: err. */
#define log_error(...) log_at(LOG_ERR, __VA_ARGS__)
/* "argguard: warning: <message>", at priority warning. */
#define log_warning(...) log_at(LOG_WARNING, __VA_ARGS__)
/* Worth a look, not a fault (the recovery switch, a fallback that held): notice. */
#define log_notice(...) log_at(LOG_NOTICE, __VA_ARGS__)
/* What the daemon did (applied, adopted, ready): info. */
#define log_info(...) log_at(LOG_INFO, __VA_ARGS__)

/*
 * The error convention: a function that fails logs what is wrong once,
 * where it knows it ("FILE:LINE: ..." in the policy reader), and returns a
 * negative errno; its callers add only what the failure means to them. A
 * caller that must also keep the words (the last apply that argguard status
 * shows, the policy_file check, a test) captures them: from
 * log_capture_start() to log_capture_stop(), the first message this thread
 * logs at priority or above (LOG_ERR: an error; LOG_WARNING: a warning or
 * an error) is also written to buf, without the "argguard: " prefix, and
 * with quiet nothing this thread logs is printed. buf starts empty. A
 * capture started inside another takes the messages until it stops; inside
 * a quiet one it is quiet too.
 */
struct log_capture {
	int priority;
	char *buf;
	size_t size;
	bool quiet;
	bool caught; /* a message is in buf */
	struct log_capture *outer;
};

void log_capture_start(struct log_capture *c, int priority, char *buf, size_t size, bool quiet);
void log_capture_stop(struct log_capture *c);

/*
 * Strings another account chose (a comm, a cgroup path, a line of a policy
 * file quoted in an error), made safe to print where a terminal may read
 * them: each byte outside printable ASCII as \xHH and a backslash as \\, so
 * an ESC, a BEL or a newline in them can neither drive root's terminal nor
 * forge a line. Every byte of 0x80 and above is escaped too, UTF-8 or not:
 * 0x9b is a CSI to a terminal set to 8-bit controls. The JSON log, JSON
 * output and journald's fields keep the exact bytes; this is for text.
 */

/* The room terminal_safe() needs for a string of len bytes, the NUL included. */
#define TERMINAL_SAFE_SIZE(len) (4 * (len) + 1)

/*
 * s, escaped, into buf (size > 0): cut before an escape that does not fit,
 * never inside one. Returns buf, for a printf argument.
 */
const char *terminal_safe(char *buf, size_t size, const char *s);

/* before and after as they are, s escaped between them, to out: a line with one untrusted string. */
void terminal_safe_fputs(FILE *out, const char *before, const char *s, const char *after);

#endif /* ARGGUARD_LOG_H */
