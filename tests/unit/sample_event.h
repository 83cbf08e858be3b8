/* SPDX-License-Identifier: GPL-2.0 */
/* The event the record tests start from: a patched kernel's deny by a uid rule. */
#ifndef ARGGUARD_SAMPLE_EVENT_H
#define ARGGUARD_SAMPLE_EVENT_H

#include <string.h>
#include <linux/types.h>

#include "argguard.h"

static inline struct argguard_event sample_event(void)
{
	struct argguard_event e = {
		.ktime_ns = 5000000000ULL,
		.argv_bytes = 4194304,
		.envp_bytes = 17,
		.total_bytes = 4194321,
		.limit = 1048576,
		.rule_id = 1000,
		.verdict = ARGGUARD_VERDICT_DENY,
		.scope = ARGGUARD_SCOPE_UID,
		.limit_kind = ARGGUARD_LIMIT_TOTAL_BYTES,
		.flags = ARGGUARD_EV_EXACT_SIZES,
		.pid = 42,
		.uid = 1000,
		.gid = 100,
		.argc = 33,
		.envc = 1,
		.orig_argc = 33,
	};

	strcpy(e.comm, "execsize");
	strcpy(e.filename, "/bin/true");
	return e;
}

#endif /* ARGGUARD_SAMPLE_EVENT_H */
