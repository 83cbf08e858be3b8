// SPDX-License-Identifier: GPL-2.0
/*
 * The records of the execs the kernel itself refused with E2BIG, which no
 * LSM hook sees: from the series' tracepoint where the kernel has it
 * (kernel-patches/ 0004), else from the exits of the exec syscalls. The
 * loader attaches one or the other.
 */
#include "maps.h"
#include "records.h"

#define RLIMIT_STACK 3

/* fs.exec_arg_max as the exec began: the site-only kernel-patches/ 0005. */
struct linux_binprm___exec_arg_max {
	unsigned long exec_arg_max;
} __attribute__((preserve_access_index));

/*
 * The kernel's own argument limit for an exec, as bprm_arg_limit() works it
 * out: a quarter of RLIMIT_STACK, at most 3/4 of _STK_LIM, at least ARG_MAX;
 * then capped by fs.exec_arg_max where the kernel has it and it was set. With
 * the tracepoint's bprm, from the limits that exec took when it began (the
 * cap is in bprm only on a kernel with kernel-patches/ 0005); with none (the
 * fexit fallback, on a kernel without the tracepoint), from the caller's
 * RLIMIT_STACK now.
 */
static __always_inline __u64 kernel_arg_limit(struct linux_binprm *bprm, __u32 *kind)
{
	struct linux_binprm___exec_arg_max *capped = (void *)bprm;
	struct task_struct *task;
	unsigned long cap = 0;
	__u64 limit;

	if (bprm) {
		limit = BPF_CORE_READ(bprm, rlim_stack.rlim_cur) / 4;
		if (bpf_core_field_exists(capped->exec_arg_max))
			cap = BPF_CORE_READ(capped, exec_arg_max);
	} else {
		task = (struct task_struct *)bpf_get_current_task();
		limit = BPF_CORE_READ(task, signal, rlim[RLIMIT_STACK].rlim_cur) / 4;
	}
	if (limit > 6 << 20)
		limit = 6 << 20;
	if (limit < 32 * 4096)
		limit = 32 * 4096;
	*kind = ARGGUARD_LIMIT_KERNEL;
	if (cap && cap < limit) {
		*kind = ARGGUARD_LIMIT_EXEC_ARG_MAX;
		return cap;
	}
	return limit;
}

/* The exec syscalls whose exit is watched, each with its arguments where it has them. */
enum exec_call { EXECVE, EXECVEAT, COMPAT_EXECVE, COMPAT_EXECVEAT };

/* The caller's filename and argv, and the size of its argv's pointers. */
static void call_args(const struct pt_regs *regs, enum exec_call call, __u64 *filename, __u64 *argv,
		      __u32 *ptr_size)
{
	*ptr_size = 8;
	switch (call) {
	case EXECVE:
		*filename = PT_REGS_PARM1_CORE(regs);
		*argv = PT_REGS_PARM2_CORE(regs);
		return;
	case EXECVEAT:
		*filename = PT_REGS_PARM2_CORE(regs);
		*argv = PT_REGS_PARM3_CORE(regs);
		return;
	case COMPAT_EXECVE:
		*filename = BPF_CORE_READ(regs, bx);
		*argv = BPF_CORE_READ(regs, cx);
		break;
	case COMPAT_EXECVEAT:
		*filename = BPF_CORE_READ(regs, cx);
		*argv = BPF_CORE_READ(regs, dx);
		break;
	}
	*ptr_size = 4;
}

/*
 * The start of the record of an exec that the kernel refused with E2BIG
 * while copying its arguments: the 2010 exploit, a pointer flood, a breach
 * of fs.exec_arg_max, an interpreter's strings that no longer fit. bprm is
 * the tracepoint's, or NULL. NULL where nothing is to be logged. The caller
 * fills in the filename and the head, whose size it gets in *head_bytes.
 */
static __always_inline struct argguard_event *start_kernel_refusal(struct linux_binprm *bprm,
								   __u32 *head_bytes)
{
	struct decision d = {
		.verdict = ARGGUARD_VERDICT_KERNEL_REFUSED,
		.scope = ARGGUARD_SCOPE_KERNEL,
	};
	const struct argguard_settings *settings;
	struct argguard_event *e;
	struct argguard_config live;

	settings = live_settings(&live);
	if (!settings || settings->mode == ARGGUARD_MODE_OFF)
		return NULL;
	count(ARGGUARD_COUNTER(d.scope, d.verdict));
	if (!rate_allows(settings))
		return NULL;
	e = bpf_ringbuf_reserve(&argguard_events, sizeof(*e), 0);
	if (!e) {
		drop(ARGGUARD_DROP_RING_FULL);
		return NULL;
	}
	e->argv_bytes = 0;
	e->envp_bytes = 0;
	e->total_bytes = 0;
	e->rule_id = 0;
	e->flags = 0;
	e->ktime_ns = bpf_ktime_get_ns();
	e->limit = kernel_arg_limit(bprm, &e->limit_kind);
	e->verdict = d.verdict;
	e->scope = d.scope;
	fill_caller(e);
	e->argc = -1;
	e->envc = -1;
	e->orig_argc = -1;
	e->err = E2BIG;
	e->head_len = 0;
	*head_bytes = settings->head_bytes;
	return e;
}

/*
 * Where the kernel has the series' bare tracepoint (kernel-patches/ 0004),
 * the record comes from there. It fires only for an exec whose arguments
 * the kernel failed to count or copy: in do_execveat_common(), before the
 * bprm hooks, or in binfmt_script or binfmt_misc adding an interpreter's
 * strings, after argguard's own hooks allowed the exec. Nothing runs on an
 * exec that succeeds, and argguard's own denials never get here.
 */
SEC("tp_btf/sched_process_exec_args_failed_tp")
int BPF_PROG(argguard_exec_args_failed, struct linux_binprm *bprm, int err)
{
	struct argguard_event *e;
	__u32 head_bytes;

	if (err != -E2BIG)
		return 0;
	e = start_kernel_refusal(bprm, &head_bytes);
	if (!e)
		return 0;
	bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), BPF_CORE_READ(bprm, filename));
	read_caller_head(e, head_bytes);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * Elsewhere, from the exec syscalls' exit, where the caller's filename is
 * still readable: an exec that failed with E2BIG without argguard denying
 * it. Every exec passes here, and nearly all of them succeed: nothing is
 * read before ret says this one failed.
 */
static __always_inline int report_kernel_refusal(const struct pt_regs *regs, enum exec_call call,
						 long ret)
{
	struct argguard_event *e;
	__u64 id, filename, argv;
	__u32 head_bytes, ptr_size;

	if (ret >= 0)
		return 0;
	id = bpf_get_current_pid_tgid();
	if (!bpf_map_delete_elem(&argguard_denied_execs, &id) || ret != -E2BIG)
		return 0; /* argguard's own denial, or not about sizes */
	e = start_kernel_refusal(NULL, &head_bytes);
	if (!e)
		return 0;
	call_args(regs, call, &filename, &argv, &ptr_size);
	bpf_probe_read_user_str(e->filename, sizeof(e->filename), (const void *)filename);
	read_head(e, argv, head_bytes, ptr_size);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* The program prog, at the exit of the syscall sys (with its prefix), for call. */
#define EXEC_EXIT(prog, sys, call)                               \
	SEC("fexit/" sys)                                        \
	int BPF_PROG(prog, const struct pt_regs *regs, long ret) \
	{                                                        \
		return report_kernel_refusal(regs, call, ret);   \
	}

EXEC_EXIT(argguard_execve_exit, ARGGUARD_SYSCALL_PREFIX "sys_execve", EXECVE)
EXEC_EXIT(argguard_execveat_exit, ARGGUARD_SYSCALL_PREFIX "sys_execveat", EXECVEAT)

/*
 * The same for 32-bit callers (IA32_EMULATION); loaded only where the kernel
 * has these entry points and not the tracepoint. Without them, argguard's
 * own denials of 32-bit execs would stay in denied_execs.
 */
EXEC_EXIT(argguard_compat_execve_exit, ARGGUARD_COMPAT_SYSCALL_PREFIX "sys_execve", COMPAT_EXECVE)
EXEC_EXIT(argguard_compat_execveat_exit, ARGGUARD_COMPAT_SYSCALL_PREFIX "sys_execveat",
	  COMPAT_EXECVEAT)
