# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Figures over rounds, for the host-side benchmark scripts.

# median: the median of the numbers on stdin, one a line.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (!NR) exit; print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
