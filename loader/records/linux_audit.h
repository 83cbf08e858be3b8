/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_LINUX_AUDIT_H
#define ARGGUARD_LINUX_AUDIT_H

#include <stddef.h>

#include "sink.h"

/*
 * The Linux audit sink: each record as an AUDIT_TRUSTED_APP message
 * ("op=argguard-exec verdict=\"deny\" ..."), so that ausearch -m TRUSTED_APP
 * finds it, with res=failed for an exec that failed, in as many bytes as
 * the kernel logs whole. NULL, with the reason logged, if the audit netlink
 * socket cannot be opened.
 */
struct sink *linux_audit_open(void);

/*
 * The text of the message for r, in msg, of at most size bytes with its
 * NUL: "op=argguard-exec" or "op=argguard-summary", then its fields as
 * key=value, each value as the kernel writes an untrusted string: in double
 * quotes, or as bare hex digits where a byte needs it (a quote, a blank, a
 * control byte, a byte past 0x7e), so that the quotes tell a name that is
 * hex digits from bytes given in hex. A field that would not fit is left
 * out, and the message ends with omitted="KEY,...", naming each one.
 * Returns 0, or -EINVAL if size is below LINUX_AUDIT_MESSAGE_MIN.
 */
#define LINUX_AUDIT_MESSAGE_MIN 128
int linux_audit_message(const struct record *r, char *msg, size_t size);

#endif /* ARGGUARD_LINUX_AUDIT_H */
