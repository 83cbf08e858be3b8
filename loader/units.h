/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers read from text: a byte count as a policy file writes it, and the
 * numbers of a sysctl or a small state file.
 */
#ifndef ARGGUARD_UNITS_H
#define ARGGUARD_UNITS_H

#include <stdint.h>

/*
 * Parse a byte count: decimal digits with an optional K, M or G suffix
 * (binary multiples, either case). Returns 0, or -EINVAL for anything else
 * and -ERANGE when the value does not fit in 64 bits.
 */
int parse_bytes(const char *text, uint64_t *bytes);

/*
 * Read up to n space-separated decimal numbers from the first line of the
 * small file at path (a sysctl, a state file). Returns how many it read: 0
 * if there is no such file.
 */
int read_numbers(const char *path, unsigned long long *v, int n);

#endif /* ARGGUARD_UNITS_H */
