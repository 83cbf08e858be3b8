/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What argguard status and the metrics textfile read from the live maps and
 * the pinned links; metrics.h prints it.
 */
#ifndef ARGGUARD_STATUS_H
#define ARGGUARD_STATUS_H

#include "metrics.h"

/* The maps that argguard status and the metrics read, by fd. */
struct live_maps {
	int config;
	int settings;
	int counters;
	int drops;
	int cgroup_index;
};

/*
 * The mode, decision counters and drops of argguard status, from the maps at
 * fds (m->last_apply is left alone). Returns 0, or a negative errno if the
 * live settings cannot be read; an unreadable counter reads as 0.
 */
int metrics_read_maps(const struct live_maps *fds, struct argguard_metrics *m);

#endif /* ARGGUARD_STATUS_H */
