/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_KALLSYMS_H
#define ARGGUARD_KALLSYMS_H

#include <stdint.h>

/*
 * The address of the kernel symbol name (not a module's) in a file in
 * /proc/kallsyms form ("ADDRESS TYPE NAME" lines), read in large chunks:
 * one pass, no per-line parsing until the name is found. Returns 0, or
 * -ENOENT if no line names it, -EACCES if its address reads as 0 (hidden
 * from a reader without CAP_SYSLOG), -errno if the file cannot be read.
 */
int kallsyms_address(const char *path, const char *name, uint64_t *address);

#endif /* ARGGUARD_KALLSYMS_H */
