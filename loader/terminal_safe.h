/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Strings another account chose (a comm, a cgroup path, a line of a policy
 * file quoted in an error), made safe to print where a terminal may read
 * them: each byte outside printable ASCII as \xHH and a backslash as \\, so
 * an ESC, a BEL or a newline in them can neither drive root's terminal nor
 * forge a line. Every byte of 0x80 and above is escaped too, UTF-8 or not:
 * 0x9b is a CSI to a terminal set to 8-bit controls. The JSON log, JSON
 * output and journald's fields keep the exact bytes; this is for text.
 */
#ifndef ARGGUARD_TERMINAL_SAFE_H
#define ARGGUARD_TERMINAL_SAFE_H

#include <stddef.h>
#include <stdio.h>

/* The room terminal_safe() needs for a string of len bytes, the NUL included. */
#define TERMINAL_SAFE_SIZE(len) (4 * (len) + 1)

/*
 * s, escaped, into buf (size > 0): cut before an escape that does not fit,
 * never inside one. Returns buf, for a printf argument.
 */
const char *terminal_safe(char *buf, size_t size, const char *s);

/* s, escaped, to out. */
void terminal_safe_fputs(const char *s, FILE *out);

#endif /* ARGGUARD_TERMINAL_SAFE_H */
