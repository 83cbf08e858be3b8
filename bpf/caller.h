/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who is exec'ing, as a record tells it: the caller's user namespace and
 * the user who answers for it, the fields every record carries about the
 * caller, and the head of the argv it passed. The global functions are
 * caller.bpf.c's, each verified on its own; what is static here is
 * compiled into each part that calls it. Those not inlined are
 * __noinline: clang inlines by the callers it sees in one part, and would
 * inline a function that a part calls once; a program's instructions
 * should not hang on how the object is cut into parts.
 */
#ifndef ARGGUARD_CALLER_H
#define ARGGUARD_CALLER_H

#include "maps.h"

/* caller.bpf.c's global functions, each described there. */
long userns_owner(void);
int read_head(struct argguard_event *e, __u64 argv_addr, __u32 want, __u32 ptr_size);

/*
 * User namespaces. A user given subordinate uids (subuid(5)) runs processes
 * as those uids in a namespace it made (rootless containers, unshare
 * --map-users): uids of the initial namespace, 100000 and up, that name
 * nobody. Such a caller answers to the user who made the namespace.
 */

/* Whether the caller is in the initial user namespace: the common case, three loads. */
static __always_inline bool in_initial_userns(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return !task->cred->user_ns->level;
}

/*
 * The uid whose rule and record bucket stand in for the caller's when it
 * is in a user namespace: the namespace's owner. -1 for none: the caller is
 * in the initial namespace, or root made its namespace. A namespace that
 * root made is a container's (userns remapping), and root's rule, often the
 * loosest, is not the container's.
 */
static __always_inline long namespace_user(void)
{
	long owner;

	if (in_initial_userns())
		return -1;
	owner = userns_owner();
	return owner > 0 ? owner : -1;
}

/*
 * The address of the argv the caller passed to execve() or execveat(), or
 * 0; and the size of its pointers (4 for a 32-bit caller).
 */
static __u64 caller_argv(__u32 *ptr_size)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	long nr = ARGGUARD_SYSCALL_NR(regs);

	*ptr_size = 8;
	if (BPF_CORE_READ(task, thread_info.status) & ARGGUARD_TS_COMPAT) {
		*ptr_size = 4;
		if (nr == ARGGUARD_NR_COMPAT_EXECVE)
			return BPF_CORE_READ(regs, cx);
		if (nr == ARGGUARD_NR_COMPAT_EXECVEAT)
			return BPF_CORE_READ(regs, dx);
		return 0;
	}
	if (nr == ARGGUARD_NR_EXECVE)
		return PT_REGS_PARM2_CORE(regs);
	if (nr == ARGGUARD_NR_EXECVEAT)
		return PT_REGS_PARM3_CORE(regs);
	return 0; /* kernel_execve(): nothing of the caller's to read */
}

/* The head of the argv the caller passed, or the flag that it has none to read. */
static __noinline __maybe_unused void read_caller_head(struct argguard_event *e, __u32 want)
{
	__u32 ptr_size;
	__u64 argv = caller_argv(&ptr_size);

	if (argv)
		read_head(e, argv, want, ptr_size);
	else
		e->flags |= ARGGUARD_EV_HEAD_UNREADABLE;
}

/* Who is exec'ing: the fields every record carries about the caller. */
static __noinline __maybe_unused void fill_caller(struct argguard_event *e)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 uid_gid = bpf_get_current_uid_gid();

	e->pid = bpf_get_current_pid_tgid() >> 32;
	e->ppid = BPF_CORE_READ(task, real_parent, tgid);
	e->uid = (__u32)uid_gid;
	e->euid = BPF_CORE_READ(task, cred, euid.val);
	e->gid = uid_gid >> 32;
	e->userns_owner = ARGGUARD_NO_USERNS_OWNER;
	if (!in_initial_userns()) {
		e->userns_owner = userns_owner();
		e->flags |= ARGGUARD_EV_USERNS;
	}
	e->cgroup_id = bpf_get_current_cgroup_id();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
}

#endif /* ARGGUARD_CALLER_H */
