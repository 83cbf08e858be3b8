/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_LOG_H
#define ARGGUARD_LOG_H

#include <syslog.h>

/*
 * "argguard: <message>" and a newline on stderr, at a syslog priority
 * (LOG_ERR ...). When stderr is the daemon's stream to journald, each line
 * starts with its priority (syslog's "<3>" for err, and the rest, as
 * sd-daemon(3) says), which journald takes off and keeps as PRIORITY=; on a
 * terminal, a pipe or a file, the text alone. Leaves errno as it was.
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

#endif /* ARGGUARD_LOG_H */
