/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_LOG_H
#define ARGGUARD_LOG_H

/* "argguard: <message>" and a newline on stderr, which journald keeps. */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* ARGGUARD_LOG_H */
