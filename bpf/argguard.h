/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF program and the loader share: map layouts and the event
 * record. Fixed-width types only, so both sides agree byte for byte.
 */
#ifndef ARGGUARD_H
#define ARGGUARD_H

#define ARGGUARD_PIN_DIR "/sys/fs/bpf/argguard"
#define ARGGUARD_LINK_PIN ARGGUARD_PIN_DIR "/link"
#define ARGGUARD_COMM_LEN 16
#define ARGGUARD_FILENAME_LEN 256

/* Indexes of the per-CPU "counters" map. */
enum argguard_counter {
	ARGGUARD_ALLOWED,
	ARGGUARD_DENIED,
	ARGGUARD_EVENTS_LOST, /* ring buffer full: the event was not emitted */
	ARGGUARD_NR_COUNTERS,
};

enum argguard_verdict {
	ARGGUARD_VERDICT_ALLOW,
	ARGGUARD_VERDICT_DENY,
};

/* The one entry of the "config" map. A limit of 0 means no limit. */
struct argguard_config {
	__u64 max_total_bytes; /* argv + envp string bytes, NULs included */
};

/* Event flags. */
#define ARGGUARD_EV_EXACT_SIZES (1U << 0) /* patched kernel: argv/envp split and orig_argc known */

struct argguard_event {
	__u64 ktime_ns; /* CLOCK_MONOTONIC */
	__u64 argv_bytes; /* valid with ARGGUARD_EV_EXACT_SIZES */
	__u64 envp_bytes; /* valid with ARGGUARD_EV_EXACT_SIZES */
	__u64 total_bytes; /* argv + envp string bytes, always valid */
	__u64 limit; /* the limit that was crossed */
	__u32 verdict; /* enum argguard_verdict */
	__u32 flags;
	__u32 pid;
	__u32 uid;
	__u32 gid;
	__s32 argc;
	__s32 envc;
	__s32 orig_argc; /* valid with ARGGUARD_EV_EXACT_SIZES */
	char comm[ARGGUARD_COMM_LEN];
	char filename[ARGGUARD_FILENAME_LEN];
};

#endif /* ARGGUARD_H */
