// SPDX-License-Identifier: GPL-2.0
/*
 * The global functions of caller.h: who made the caller's user namespace,
 * and the copy of its argv head. The verifier checks each on its own, once
 * in each program that calls it.
 */
#include "maps.h"

/*
 * Who made the caller's user namespace: the owner, a uid of the initial
 * namespace, of its ancestor one level below the initial one (itself at
 * level 1). A namespace made inside another, by a subordinate uid, is so
 * still its user's. The kernel nests at most 32 levels below level 1
 * (create_user_ns()), so 32 steps up reach it from any. -1 in the initial
 * namespace. A global function, verified once, and called only when
 * in_initial_userns() says no.
 */
__noinline long userns_owner(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct user_namespace *ns = task->cred->user_ns;

	if (!ns->level)
		return -1;
	for (int i = 0; i < 32 && ns->level > 1; i++)
		ns = ns->parent;
	/* Cannot be (a namespace is one level below its parent); if it were, as for root's. */
	if (ns->level != 1)
		return 0;
	return ns->owner.val;
}

struct head_copy {
	struct argguard_event *e;
	__u64 argv;
	__u32 want;
	__u32 ptr_size;
	__u32 off;
	bool stopped;
};

/* bpf_loop callback: step i appends the caller's argv[i] to the head; 1 ends the walk. */
static long copy_arg(__u32 i, void *ctx)
{
	struct head_copy *c = ctx;
	struct argguard_event *e = c->e;
	__u32 arg32 = 0, off = c->off;
	__u64 arg = 0;
	long n;

	c->stopped = true;
	/* A 32-bit caller's argv holds 4-byte pointers. */
	if (c->ptr_size == 4 ? bpf_probe_read_user(&arg32, 4, (void *)(c->argv + 4 * (__u64)i))
			     : bpf_probe_read_user(&arg, 8, (void *)(c->argv + 8 * (__u64)i))) {
		e->flags |= ARGGUARD_EV_HEAD_UNREADABLE;
		return 1;
	}
	if (c->ptr_size == 4)
		arg = arg32;
	if (!arg)
		return 1;
	if (off >= c->want) {
		e->flags |= ARGGUARD_EV_HEAD_TRUNCATED;
		return 1;
	}
	/* Masks the verifier can follow; off < want <= HEAD_MAX, so they change nothing. */
	n = bpf_probe_read_user_str(&e->head[off & (ARGGUARD_HEAD_MAX - 1)],
				    ((c->want - off - 1) & (ARGGUARD_HEAD_MAX - 1)) + 1,
				    (const void *)arg);
	if (n <= 0) {
		e->flags |= ARGGUARD_EV_HEAD_UNREADABLE;
		return 1;
	}
	if (n == c->want - off) { /* filled the head: cut here, or just fits */
		c->off = c->want;
		e->flags |= ARGGUARD_EV_HEAD_TRUNCATED;
		return 1;
	}
	c->off = off + n;
	c->stopped = false;
	return 0;
}

/*
 * Copy the first head_bytes of the caller's argv into the record. The
 * kernel has just read these pages, so they are resident; another thread
 * could have changed them since, so the head is what the record shows of
 * the command line, while the sizes stay the kernel's own. A global
 * function, verified once per program; and a bpf_loop, whose step the
 * verifier checks as a function, not once per unrolled iteration.
 */
__noinline int read_head(struct argguard_event *e, __u64 argv_addr, __u32 want, __u32 ptr_size)
{
	struct head_copy c = { .e = e, .argv = argv_addr, .want = want, .ptr_size = ptr_size };

	if (!e)
		return 0;
	if (!c.want)
		c.want = ARGGUARD_HEAD_DEFAULT;
	if (c.want > ARGGUARD_HEAD_MAX)
		c.want = ARGGUARD_HEAD_MAX;
	bpf_loop(ARGGUARD_HEAD_MAX_ARGS, copy_arg, &c, 0);
	if (!c.stopped) /* ARGGUARD_HEAD_MAX_ARGS arguments, and maybe more */
		e->flags |= ARGGUARD_EV_HEAD_TRUNCATED;
	e->head_len = c.off;
	return 0;
}
