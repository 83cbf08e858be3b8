/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_ENFORCEMENT_H
#define ARGGUARD_ENFORCEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "argguard.h"

/*
 * Whether the bpf LSM is active (/sys/kernel/security/lsm). If not, returns
 * -1 with why saying which kernel command line would make it so.
 */
int bpf_lsm_check(char *why, size_t len);

/*
 * Readiness is proof. Fork a child, mark it as the probe in the probe map
 * (probe_fd), and have it exec: 0 if argguard's program denied the exec
 * (EPERM, whatever the mode, and it cleared the mark), else -1 with the
 * reason in why.
 */
int probe_enforcement(int probe_fd, char *why, size_t len);

#endif /* ARGGUARD_ENFORCEMENT_H */
