/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The size distributions as Prometheus histograms, for the node_exporter
 * textfile and argguard status --format prometheus. Pure: prints size_data.
 */
#ifndef ARGGUARD_SIZE_METRICS_H
#define ARGGUARD_SIZE_METRICS_H

#include <stdio.h>

#include "sizes.h"

/*
 * One classic histogram family per metric, argguard_exec_METRIC (for
 * example argguard_exec_total_bytes), a series per scope that counted an
 * exec, labelled scope (global, setuid, uid, cgroup, other) and rule (the
 * uid or the cgroup path; empty for the others). The buckets are the
 * log2 buckets' tops, le="1", "3", "7", ... (the text format cannot carry
 * native histograms; these are their schema 0 boundaries).
 */
void size_metrics_print(FILE *out, const struct size_data *d);

#endif /* ARGGUARD_SIZE_METRICS_H */
