/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What of kernel-patches/ this kernel carries, as its BTF tells, as a load
 * records it, and what the journal says the kernel lacks. Which links a
 * load pins on it is start_plan.h's.
 */
#ifndef ARGGUARD_KERNEL_FEATURES_H
#define ARGGUARD_KERNEL_FEATURES_H

#include <stdbool.h>
#include <linux/types.h>

#include "pins.h"

/* What of kernel-patches/ this kernel carries, as its BTF tells. */
struct kernel_features {
	bool exact_sizes; /* linux_binprm.argv_bytes and envp_bytes (patch 3) */
	bool kernel_head; /* bpf_bprm_read_argv() (patch 3) */
	bool compat; /* 32-bit execs: IA32_EMULATION's __ia32_compat_sys_execve() */
	bool exec_args_failed; /* tracepoint sched_process_exec_args_failed_tp (patch 4) */
};

/*
 * Fills *f from the kernel's BTF. Without it, say so and fail: a guess
 * would load the programs for a kernel without the series, and report no
 * refusal the tracepoint catches. 0 or a negative errno.
 */
int kernel_features_probe(struct kernel_features *f);

/* The same, quietly: for what only describes the kernel (argguard report's sizes). */
int kernel_features_read(struct kernel_features *f);

/* The kernel's features, as a load records them in its .rodata (bpf/argguard.h). */
__u32 kernel_feature_bits(const struct kernel_features *f);

/* The features that kernel_feature_bits() recorded as bits. */
struct kernel_features kernel_features_of(__u32 bits);

/* Tell the journal what records miss on this kernel, for each patch it lacks. */
void kernel_tell_what_it_lacks(const struct kernel_features *kernel);

/*
 * With unprivileged BPF on, any user can load socket filters and probe map
 * internals; argguard's pins are root-only either way, but a site running a
 * security control wants it off (kernel.unprivileged_bpf_disabled = 1 or 2).
 */
void kernel_warn_if_unprivileged_bpf(void);

#endif /* ARGGUARD_KERNEL_FEATURES_H */
