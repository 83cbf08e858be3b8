// SPDX-License-Identifier: GPL-2.0
/*
 * argguard's LSM program: judge each exec by the size of its argument and
 * environment strings, count the decision, and report offending execs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "argguard.h"

#define E2BIG 7

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct argguard_config);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ARGGUARD_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} events SEC(".maps");

/* The fields kernel-patches/ adds to linux_binprm; absent on a stock kernel. */
struct linux_binprm___argguard {
	int orig_argc;
	unsigned long argv_bytes;
	unsigned long envp_bytes;
} __attribute__((preserve_access_index));

struct exec_sizes {
	__u64 argv_bytes;
	__u64 envp_bytes;
	__u64 total_bytes;
	__s32 orig_argc;
	__u32 flags;
};

static void read_sizes(struct linux_binprm *bprm, struct exec_sizes *sz)
{
	struct linux_binprm___argguard *patched = (void *)bprm;

	if (bpf_core_field_exists(patched->argv_bytes)) {
		sz->argv_bytes = BPF_CORE_READ(patched, argv_bytes);
		sz->envp_bytes = BPF_CORE_READ(patched, envp_bytes);
		sz->orig_argc = BPF_CORE_READ(patched, orig_argc);
		sz->total_bytes = sz->argv_bytes + sz->envp_bytes;
		sz->flags = ARGGUARD_EV_EXACT_SIZES;
		return;
	}
	/*
	 * Stock kernel: on the first pass, the strings copied since the
	 * filename are exactly argv and envp (plus the one-byte "" that an
	 * empty argv gains).
	 */
	sz->total_bytes = BPF_CORE_READ(bprm, exec) - BPF_CORE_READ(bprm, p);
	sz->argv_bytes = 0;
	sz->envp_bytes = 0;
	sz->orig_argc = -1;
	sz->flags = 0;
}

static void count(__u32 counter)
{
	__u64 *n = bpf_map_lookup_elem(&counters, &counter);

	if (n)
		*n += 1;
}

static void report(struct linux_binprm *bprm, const struct exec_sizes *sz, __u64 limit,
		   __u32 verdict)
{
	struct argguard_event *e;
	__u64 uid_gid;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(ARGGUARD_EVENTS_LOST);
		return;
	}
	uid_gid = bpf_get_current_uid_gid();
	e->ktime_ns = bpf_ktime_get_ns();
	e->argv_bytes = sz->argv_bytes;
	e->envp_bytes = sz->envp_bytes;
	e->total_bytes = sz->total_bytes;
	e->limit = limit;
	e->verdict = verdict;
	e->flags = sz->flags;
	e->pid = bpf_get_current_pid_tgid() >> 32;
	e->uid = (__u32)uid_gid;
	e->gid = uid_gid >> 32;
	e->argc = BPF_CORE_READ(bprm, argc);
	e->envc = BPF_CORE_READ(bprm, envc);
	e->orig_argc = sz->orig_argc;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), BPF_CORE_READ(bprm, filename));
	bpf_ringbuf_submit(e, 0);
}

SEC("lsm/bprm_check_security")
int BPF_PROG(argguard_bprm_check, struct linux_binprm *bprm, int ret)
{
	const struct argguard_config *cfg;
	struct exec_sizes sz;
	__u32 zero = 0;
	__u64 limit;

	if (ret)
		return ret;
	/* A script runs this hook again for its interpreter: judge the exec once. */
	if (BPF_CORE_READ(bprm, interp) != BPF_CORE_READ(bprm, filename))
		return 0;
	cfg = bpf_map_lookup_elem(&config, &zero);
	if (!cfg)
		return 0;

	limit = cfg->max_total_bytes;
	read_sizes(bprm, &sz);
	if (!limit || sz.total_bytes <= limit) {
		count(ARGGUARD_ALLOWED);
		return 0;
	}
	count(ARGGUARD_DENIED);
	report(bprm, &sz, limit, ARGGUARD_VERDICT_DENY);
	return -E2BIG;
}
