/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_TEST_PARSE_QUIETLY_H
#define ARGGUARD_TEST_PARSE_QUIETLY_H

#include <stdio.h>
#include <syslog.h>

#include "log.h"
#include "policy.h"

/* policy_parse(), with the error it logs kept in err and not printed. */
static inline int parse_quietly(FILE *in, const char *name, struct policy *p, char *err,
				size_t err_len)
{
	struct log_capture c;
	int ret;

	log_capture_start(&c, LOG_ERR, err, err_len, true);
	ret = policy_parse(in, name, p);
	log_capture_stop(&c);
	return ret;
}

#endif /* ARGGUARD_TEST_PARSE_QUIETLY_H */
