// SPDX-License-Identifier: GPL-2.0
/* What of kernel-patches/ this kernel carries, and what that means (kernel_features.h). */
#include "kernel_features.h"

#include <errno.h>
#include <string.h>

#include <bpf/btf.h>

#include "argguard.h"
#include "log.h"
#include "units.h"

void kernel_warn_if_unprivileged_bpf(void)
{
	unsigned long long disabled;

	if (read_numbers("/proc/sys/kernel/unprivileged_bpf_disabled", &disabled, 1) == 1 &&
	    disabled == 0)
		log_warning("unprivileged BPF is enabled "
			    "(kernel.unprivileged_bpf_disabled = 0); set it to 1 or 2");
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

int kernel_features_read(struct kernel_features *f)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_member *m;
	const struct btf_type *t;
	int id;

	*f = (struct kernel_features){ 0 };
	if (!btf)
		return errno ? -errno : -ENOENT;
	id = btf__find_by_name_kind(btf, "linux_binprm", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (int i = 0; t && i < btf_vlen(t); i++) {
		m = btf_members(t) + i;
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "argv_bytes"))
			f->exact_sizes = true;
	}
	f->kernel_head = btf__find_by_name_kind(btf, "bpf_bprm_read_argv", BTF_KIND_FUNC) > 0;
	f->compat = btf__find_by_name_kind(btf, "__ia32_compat_sys_execve", BTF_KIND_FUNC) > 0;
	f->exec_args_failed =
		btf__find_by_name_kind(btf, "btf_trace_sched_process_exec_args_failed_tp",
				       BTF_KIND_TYPEDEF) > 0;
	btf__free(btf);
	return 0;
}

int kernel_features_probe(struct kernel_features *f)
{
	int err = kernel_features_read(f);

	if (err) {
		log_error("failed to read the kernel's BTF (/sys/kernel/btf/vmlinux): %s",
			  strerror(-err));
		return err;
	}
	log_info("the kernel's BTF: exact sizes %s, kernel argv head %s, refusal tracepoint %s, "
		 "32-bit execs %s",
		 yes_no(f->exact_sizes), yes_no(f->kernel_head), yes_no(f->exec_args_failed),
		 yes_no(f->compat));
	return 0;
}

__u32 kernel_feature_bits(const struct kernel_features *f)
{
	return (f->exact_sizes ? ARGGUARD_FEATURE_EXACT_SIZES : 0) |
	       (f->kernel_head ? ARGGUARD_FEATURE_KERNEL_HEAD : 0) |
	       (f->compat ? ARGGUARD_FEATURE_COMPAT : 0) |
	       (f->exec_args_failed ? ARGGUARD_FEATURE_EXEC_ARGS_FAILED : 0);
}

struct kernel_features kernel_features_of(__u32 bits)
{
	return (struct kernel_features){
		.exact_sizes = bits & ARGGUARD_FEATURE_EXACT_SIZES,
		.kernel_head = bits & ARGGUARD_FEATURE_KERNEL_HEAD,
		.compat = bits & ARGGUARD_FEATURE_COMPAT,
		.exec_args_failed = bits & ARGGUARD_FEATURE_EXEC_ARGS_FAILED,
	};
}

void kernel_tell_what_it_lacks(const struct kernel_features *kernel)
{
	if (!kernel->exact_sizes)
		log_notice("this kernel lacks argguard's exec patches: argv/envp sizes are "
			   "derived from their total, and argc == 0 cannot be seen, so "
			   "empty_argv rules never match");
	if (!kernel->kernel_head)
		log_notice("this kernel lets no BPF program read the argv an exec copied "
			   "(bpf_bprm_read_argv): records read argv_head from the caller's "
			   "memory, which another of its threads can rewrite (head_source "
			   "\"caller\")");
	if (!kernel->exec_args_failed)
		log_notice("this kernel has no tracepoint for the execs it refuses "
			   "(sched_process_exec_args_failed_tp): they are caught at the exit of "
			   "every execve and execveat, which costs every exec a little");
}
