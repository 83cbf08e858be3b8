/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_LINUX_AUDIT_H
#define ARGGUARD_LINUX_AUDIT_H

#include <json-c/json.h>

/* A netlink socket to the Linux audit subsystem, or a negative errno. */
int linux_audit_open(void);

/*
 * Send one record, as event_to_object() or summary_to_object() built it, as
 * an AUDIT_TRUSTED_APP message ("op=argguard-exec verdict=deny ..."), so
 * that ausearch -m TRUSTED_APP finds it. Returns 0 or a negative errno.
 */
int event_to_linux_audit(int fd, json_object *obj);

#endif /* ARGGUARD_LINUX_AUDIT_H */
