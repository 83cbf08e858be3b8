/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_NOTIFY_H
#define ARGGUARD_NOTIFY_H

/*
 * Tell the service manager how the daemon is doing ("READY=1",
 * "STATUS=...", newline-separated), as sd_notify(3) does: one datagram to
 * the socket that $NOTIFY_SOCKET names. Nothing to do, and 0, when run
 * outside systemd; else 0 or a negative errno.
 */
int notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* ARGGUARD_NOTIFY_H */
