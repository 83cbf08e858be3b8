/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a program needs to write a record (argguard.h, struct
 * argguard_event): who the caller is and its argv head (caller.h), and
 * records.bpf.c's global functions: whether the rate limits let one more
 * record out, and the fields of a judged exec's record.
 */
#ifndef ARGGUARD_RECORDS_H
#define ARGGUARD_RECORDS_H

#include "caller.h"

/* records.bpf.c's global functions, each described there. */
int rate_allows(const struct argguard_settings *settings);
int fill_record(struct argguard_event *e, const struct exec_sizes *sz, const struct decision *d,
		__u32 flags);

#endif /* ARGGUARD_RECORDS_H */
