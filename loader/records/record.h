/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One record on its way from the ring buffer to the sinks: an offending
 * exec, as the BPF program reported it with the cgroup paths the daemon
 * found for it, or a summary of the records that were held back or lost.
 */
#ifndef ARGGUARD_RECORD_H
#define ARGGUARD_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "argguard.h"

struct cri_names;

/* How many records the rate limits held back for one uid. */
struct uid_suppressed {
	uint32_t uid;
	uint64_t n;
};

/* The uids a summary names: those that lost the most records. */
#define RECORD_TOP_UIDS 5
/* The sinks besides the log. */
#define RECORD_OTHER_SINKS 2

/* Records that never reached the log, by reason. */
struct record_losses {
	uint64_t suppressed; /* held back by the rate limits */
	uint64_t ring_full; /* lost: no room in the ring buffer */
	uint64_t log_backlog; /* lost: the log gave them up (unwritable, or too far behind) */
	uint64_t malformed; /* lost: shorter than an event, or could not be formatted */
	uint64_t held_at_exit; /* lost: the last daemon's log still held them when it stopped */
	/* What the other sinks (journald, the audit log) lost; the log has those records. */
	struct {
		const char *name;
		uint64_t n;
	} other_sinks[RECORD_OTHER_SINKS];
	/* Of suppressed, most first: those with n == 0 are not there. */
	struct uid_suppressed top_uids[RECORD_TOP_UIDS];
};

/*
 * The JSON log's envelope (json_log.c): which host and boot wrote a line,
 * and its place in the boot's sequence of lines.
 */
struct record_envelope {
	const char *host; /* NULL if it could not be read: null */
	const char *boot_id; /* NULL if it could not be read: null */
	uint64_t seq;
};

enum record_kind {
	RECORD_EXEC, /* event, cgroup, rule_cgroup */
	RECORD_SUMMARY, /* losses, interval_ns, end_ns */
};

struct record {
	enum record_kind kind;
	int64_t realtime_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC: wall-clock times */
	const struct argguard_event *event;
	/*
	 * The caller's cgroup path, or NULL with cgroup_err: -ENOENT if it is
	 * gone, else the negative errno of what kept its path from being found.
	 */
	const char *cgroup;
	/* With ARGGUARD_SCOPE_CGROUP, the deciding rule's cgroup path, or NULL as cgroup is. */
	const char *rule_cgroup;
	int cgroup_err;
	int rule_cgroup_err;
	struct record_losses losses;
	uint64_t interval_ns; /* how long the summary covers */
	uint64_t end_ns; /* CLOCK_MONOTONIC: when it ends */
	/* The drop counters' totals the summary brings the log up to. */
	uint64_t mark_suppressed, mark_ring_full;
	const struct record_envelope *envelope; /* the JSON log's lines only; else NULL */
	/* The CRI's names of the caller's container (cri_names.h), or NULL. */
	const struct cri_names *names;
};

/*
 * Which of an exec event's fields it knows; the JSON has null for the
 * others, and the sinks leave them out.
 */
static inline bool event_has_rule_id(const struct argguard_event *e)
{
	return e->scope == ARGGUARD_SCOPE_UID || e->scope == ARGGUARD_SCOPE_CGROUP;
}

/* argv_bytes, envp_bytes and orig_argc: from a patched kernel's exact counts. */
static inline bool event_has_exact_sizes(const struct argguard_event *e)
{
	return e->flags & ARGGUARD_EV_EXACT_SIZES;
}

/* userns_owner: the caller was in a user namespace, not the initial one. */
static inline bool event_has_userns_owner(const struct argguard_event *e)
{
	return e->flags & ARGGUARD_EV_USERNS;
}

/* total_bytes: the kernel refused the exec before the strings were copied. */
static inline bool event_has_total_bytes(const struct argguard_event *e)
{
	return e->verdict != ARGGUARD_VERDICT_KERNEL_REFUSED;
}

/* Whether the exec failed: argguard denied it, or the kernel refused it. */
static inline bool record_is_failure(const struct record *r)
{
	return r->kind == RECORD_EXEC && (r->event->verdict == ARGGUARD_VERDICT_DENY ||
					  r->event->verdict == ARGGUARD_VERDICT_KERNEL_REFUSED);
}

#endif /* ARGGUARD_RECORD_H */
