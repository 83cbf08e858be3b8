/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_UNITS_H
#define ARGGUARD_UNITS_H

#include <stdint.h>

/*
 * Parse a byte count: decimal digits with an optional K, M or G suffix
 * (binary multiples, either case). Returns 0, or -EINVAL for anything else
 * and -ERANGE when the value does not fit in 64 bits.
 */
int parse_bytes(const char *text, uint64_t *bytes);

#endif /* ARGGUARD_UNITS_H */
