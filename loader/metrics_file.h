/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The metrics of a running argguard, read live: what argguard status and
 * the metrics read from the live maps and the pinned links (metrics.h
 * prints it); and the daemon's node_exporter textfile (--metrics-dir),
 * rewritten every METRICS_INTERVAL_S seconds and on each reload, and
 * removed when the daemon stops. Each rewrite compares the live policy
 * with the policy file (argguard_policy_drift): the maps are read each
 * time (a bpftool edit tells no one), the file is parsed again only when
 * it changed or on a reload. Only the daemon's textfile says what each
 * sink lost, and which build wrote it.
 */
#ifndef ARGGUARD_METRICS_FILE_H
#define ARGGUARD_METRICS_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "metrics.h"
#include "policy_diff.h"
#include "policy_maps.h"

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

/* How often argguard run rewrites the metrics textfile, in seconds. */
#define METRICS_INTERVAL_S 5

struct record_pipeline;

struct metrics_file {
	const char *dir; /* NULL: none */
	const char *version; /* argguard_build_info's */
	uint64_t build_id;
	struct record_pipeline *records; /* the sinks whose losses it counts */
	struct live_maps maps; /* the maps it reads */
	struct policy_maps policy; /* and those of the live policy; the fds are not its own */
	struct policy_drift drift; /* the policy file, as last parsed */
	/*
	 * The live policy the last tick read, and its canonical text (NULL:
	 * none yet): printing 1,000 rules costs more than reading them, and
	 * a live policy read the same, byte for byte, prints the same.
	 */
	struct policy last_live;
	char *last_text;
	uint64_t next_ns; /* CLOCK_MONOTONIC: when it is due again */
	bool failing; /* the last write failed, and said so */
};

/* Rewrite the textfile now. A failure is logged once, and again once it works. */
void metrics_file_write(struct metrics_file *mf);

/* Rewrite it if it is due. */
void metrics_file_tick(struct metrics_file *mf);

/* After a reload: parse the policy file again, and rewrite the textfile. */
void metrics_file_reloaded(struct metrics_file *mf);

/*
 * No daemon, no metrics: node_exporter stops serving them, rather than
 * numbers that nobody updates (and, after --on-stop unload, a mode that is
 * no longer in force).
 */
void metrics_file_remove(struct metrics_file *mf);

#endif /* ARGGUARD_METRICS_FILE_H */
