// SPDX-License-Identifier: GPL-2.0
/*
 * The exec benchmarks' floor (bench_noop_lsm loads it): programs on the two
 * LSM hooks argguard's take, each returning 0. Each hook has the two
 * variants argguard has, sleepable (lsm.s/, argguard's on a kernel with the
 * series) and not (lsm/, on a stock kernel); the loader keeps the one
 * argguard would, so what is left is the cost of the hooks' dispatch and
 * trampolines alone.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("lsm/bprm_check_security")
int BPF_PROG(noop_bprm_check, struct linux_binprm *bprm, int ret)
{
	return 0;
}

SEC("lsm.s/bprm_check_security")
int BPF_PROG(noop_bprm_check_s, struct linux_binprm *bprm, int ret)
{
	return 0;
}

SEC("lsm/bprm_creds_from_file")
int BPF_PROG(noop_bprm_creds, struct linux_binprm *bprm, struct file *file, int ret)
{
	return 0;
}

SEC("lsm.s/bprm_creds_from_file")
int BPF_PROG(noop_bprm_creds_s, struct linux_binprm *bprm, struct file *file, int ret)
{
	return 0;
}
