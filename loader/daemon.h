/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_DAEMON_H
#define ARGGUARD_DAEMON_H

#include <stdbool.h>

/* argguard run's exit status when it cannot prove enforcement: no restart helps. */
#define EXIT_NOT_ENFORCING 78 /* EX_CONFIG */

struct run_opts {
	const char *log_path;
	const char *policy_path;
	bool linux_audit; /* also send records to the Linux audit log */
	bool no_journal; /* do not send records to journald */
	bool unload_on_stop; /* on SIGTERM, unpin everything: enforcement ends */
	const char *metrics_dir; /* node_exporter textfile directory, or NULL */
};

/* argguard run: load, attach, pin, apply the policy, log until SIGTERM. */
int run_daemon(const struct run_opts *opts);

#endif /* ARGGUARD_DAEMON_H */
