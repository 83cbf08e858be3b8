// SPDX-License-Identifier: GPL-2.0
/*
 * Print what the daemon's textfile holds, every family there (an apply
 * recorded, the policy file compared, the build and each sink the daemon
 * opens; status prints the same but those two), from the very code
 * that prints it: tests/checks/monitoring-check.sh checks the alert rules
 * and the dashboard against these names, with no live maps to read.
 */
#include <stdio.h>

#include "metrics.h"

int main(void)
{
	struct argguard_metrics m = {
		.mode = ARGGUARD_MODE_ENFORCE,
		.attached = { true, true },
		.policy_state = ARGGUARD_POLICY_APPLIED,
		.policy_file = { .state = POLICY_FILE_MATCHES, .path = DEFAULT_POLICY_FILE },
		.version = "0",
		.n_sinks = 3,
		.sinks = { { .sink = "log" }, { .sink = "journald" }, { .sink = "audit" } }
	};

	apply_status_parse("last apply: 2026-12-03T10:00:00Z: applied " DEFAULT_POLICY_FILE "\n"
			   "success=1\ntimestamp=1796292000\n",
			   &m.last_apply);
	return metrics_print(stdout, METRICS_PROMETHEUS, &m) ? 1 : 0;
}
