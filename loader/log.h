/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_LOG_H
#define ARGGUARD_LOG_H

/*
 * "argguard: <message>" and a newline on stderr. When stderr is the
 * daemon's stream to journald, each line starts with its priority
 * (syslog's "<3>" for err, and the rest, as sd-daemon(3) says), which journald takes
 * off and keeps as PRIORITY=; on a terminal, a pipe or a file, the text alone.
 */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "argguard: warning: <message>", at priority warning. */
void log_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Worth a look, not a fault (the recovery switch, a fallback that held): notice. */
void log_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* What the daemon did (applied, adopted, ready): info. */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* ARGGUARD_LOG_H */
