/* SPDX-License-Identifier: GPL-2.0 */
/*
 * argguard report: the size distributions by scope with a bar chart each,
 * the largest execs, and what each limit of a policy would have denied;
 * as text for a terminal or one JSON object. Pure: prints size_data.
 */
#ifndef ARGGUARD_SIZE_REPORT_H
#define ARGGUARD_SIZE_REPORT_H

#include <stdio.h>

#include "policy.h"
#include "size_data.h"

/*
 * Print d. Each limit is judged from policy's rule for the slot's scope
 * (policy: the live one, or a file's); policy_name says which. json: one
 * JSON object, else text. Returns 0 or -ENOMEM.
 */
int size_report_print(FILE *out, const struct size_data *d, const struct policy *policy,
		      const char *policy_name, bool json);

#endif /* ARGGUARD_SIZE_REPORT_H */
