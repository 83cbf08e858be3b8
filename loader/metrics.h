/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What argguard status reports, and the daemon's node_exporter textfile:
 * the numbers (mode, decision counters, drops, the last apply's outcome,
 * whether the live policy is the policy file's) in
 * a plain struct, and pure functions that print them as text, JSON or the
 * Prometheus text exposition format. No libbpf: the maps are read elsewhere.
 */
#ifndef ARGGUARD_METRICS_H
#define ARGGUARD_METRICS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "argguard.h"
#include "policy_diff.h"
#include "size_data.h"

/* The file in the textfile directory; node_exporter reads only *.prom. */
#define METRICS_TEXTFILE "argguard.prom"
/* Where Debian's prometheus-node-exporter looks for textfiles by default. */
#define DEBIAN_TEXTFILE_DIR "/var/lib/prometheus/node-exporter"

/* The longest "last apply:" line kept: a path and two error messages fit. */
#define APPLY_STATUS_LINE_MAX 16384

/* The last apply's outcome, from the apply status file. */
struct apply_status {
	bool known; /* there was a status file with a "last apply:" line */
	bool has_result; /* it had success= and timestamp= (an older one has only the line) */
	bool success; /* the file asked for is in force */
	int64_t timestamp; /* when it ran, in seconds since the epoch */
	uint64_t reload_started_ns; /* a reload's apply: when it began (CLOCK_MONOTONIC); else 0 */
	char line
		[APPLY_STATUS_LINE_MAX]; /* "last apply: TIME: MESSAGE", as argguard status prints it */
	const char *message; /* points into line: MESSAGE, or the whole line */
};

/* The LSM hooks whose pinned links enforce the policy. */
enum metrics_hook {
	METRICS_HOOK_BPRM_CHECK, /* every rule but [setuid] */
	METRICS_HOOK_BPRM_CREDS, /* the [setuid] rule */
	METRICS_NR_HOOKS,
};

/* The hook's LSM name: "bprm_check_security" or "bprm_creds_from_file". */
const char *metrics_hook_name(enum metrics_hook hook);

/* The sinks a daemon writes records to: the log, journald, the Linux audit log. */
#define METRICS_MAX_SINKS 3

/* What one sink lost of the records that reached the daemon. */
struct metrics_sink_loss {
	const char *sink; /* "log", "journald" or "audit" */
	uint64_t lost;
};

struct argguard_metrics {
	__u32 mode; /* config.mode as read from the map: above enforce reads as enforce */
	bool attached[METRICS_NR_HOOKS]; /* a pinned link runs argguard's program there */
	enum argguard_policy_state policy_state; /* applied once a start finished */
	uint64_t decisions[ARGGUARD_NR_COUNTERS]; /* by ARGGUARD_COUNTER(scope, verdict) */
	uint64_t dropped[ARGGUARD_NR_DROPS]; /* by enum argguard_drop */
	uint64_t cgroup_unindexed; /* cgroups the live set's index had no room for */
	struct apply_status last_apply;
	struct policy_file_check
		policy_file; /* the file beside the live policy; unchecked: left out */
	const struct size_data *sizes; /* the size distributions; NULL: left out */
	/* Only the daemon knows these; status leaves them out. */
	const char *version; /* the daemon's; NULL: no build info */
	uint64_t build_id; /* the BPF object the daemon loads (bpf/build-id.sh) */
	unsigned int n_sinks; /* 0: no per-sink losses */
	struct metrics_sink_loss sinks[METRICS_MAX_SINKS];
};

enum metrics_format {
	METRICS_TEXT,
	METRICS_JSON,
	METRICS_PROMETHEUS,
};

/* "text", "json" or "prometheus": the format, or -1. */
int metrics_format_parse(const char *name);

/* Print m in the format: 0, or a negative errno (-ENOMEM for JSON). */
int metrics_print(FILE *out, enum metrics_format format, const struct argguard_metrics *m);

/*
 * Write the apply status file's contents: the human line, then the fields
 * the metrics read. message is what happened ("applied FILE", ...).
 */
void apply_status_format(FILE *out, bool success, time_t when, const char *message);

/* Read what apply_status_format() wrote (or an older file: the line only). */
void apply_status_parse(const char *text, struct apply_status *st);

/* apply_status_parse() of the file at path; st->known is false without one. */
void apply_status_load(const char *path, struct apply_status *st);

/*
 * Write m in the Prometheus format to dir/argguard.prom, atomically: a
 * temporary file in dir, renamed over it, mode 0644 whatever the umask, so
 * node_exporter (user prometheus on Debian) can read it. dir must be root's
 * (or the caller's), writable by its owner alone: another is refused
 * (-EPERM). Returns 0 or a negative errno, the reason logged.
 */
int metrics_write_textfile(const char *dir, const struct argguard_metrics *m);

/*
 * The size distributions as Prometheus histograms, for the node_exporter
 * textfile and argguard status --format prometheus. Pure: prints size_data.
 */

/*
 * One classic histogram family per metric, argguard_exec_METRIC (for
 * example argguard_exec_total_bytes), a series per scope that counted an
 * exec, labelled scope (global, setuid, uid, cgroup, other) and rule (the
 * uid or the cgroup path; empty for the others). The buckets are the
 * log2 buckets' tops, le="1", "3", "7", ... (the text format cannot carry
 * native histograms; these are their schema 0 boundaries).
 */
void size_metrics_print(FILE *out, const struct size_data *d);

#endif /* ARGGUARD_METRICS_H */
