/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_LINUX_AUDIT_H
#define ARGGUARD_LINUX_AUDIT_H

#include <stddef.h>

#include "sink.h"

/*
 * The Linux audit sink: each record as an AUDIT_TRUSTED_APP message
 * ("op=argguard-exec verdict=deny ..."), so that ausearch -m TRUSTED_APP
 * finds it, with success=no for an exec that failed. NULL, with the reason
 * logged, if the audit netlink socket cannot be opened.
 */
struct sink *linux_audit_open(void);

/*
 * The text of the message for r, in msg: "op=argguard-exec" or
 * "op=argguard-summary", then its fields as key=value, each value quoted or
 * hex-encoded as auditd expects; a field that would not fit is left out.
 * Returns 0, or -ENOMEM.
 */
int linux_audit_message(const struct record *r, char *msg, size_t size);

#endif /* ARGGUARD_LINUX_AUDIT_H */
