/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_ENFORCEMENT_H
#define ARGGUARD_ENFORCEMENT_H

#include <stdbool.h>
#include <linux/types.h>

#include "argguard.h"

/*
 * Whether the bpf LSM is active (/sys/kernel/security/lsm): 0, or a
 * negative errno (-EOPNOTSUPP when it is not) with the reason logged,
 * naming the kernel command line that would make it so.
 */
int bpf_lsm_check(void);

/*
 * Readiness is proof. Fork a child, mark it as the probe in the probe map
 * (probe_fd), and have it exec: 0 if argguard's program denied the exec
 * (EPERM, whatever the mode, and it cleared the mark), else a negative
 * errno (-EOPNOTSUPP when the exec was not denied) with the reason logged.
 */
int probe_enforcement(int probe_fd);

#endif /* ARGGUARD_ENFORCEMENT_H */
