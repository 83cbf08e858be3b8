/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The window: the counts of the live maps and those of the state file
 * (size_state.h) before them, as argguard report and suggest read them,
 * and as the daemon keeps them on disk (struct size_keeper): at its start,
 * every SIZE_KEEP_INTERVAL_S, and at its stop.
 */
#ifndef ARGGUARD_SIZE_WINDOW_H
#define ARGGUARD_SIZE_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "policy_maps.h"
#include "size_data.h"
#include "size_state.h"

/* How often the daemon writes the state file: what a power cut can lose. */
#define SIZE_KEEP_INTERVAL_S 300

/* This host's name, the boot's id and now as the window's end, into o; exact as given. */
void size_origin_here(struct size_origin *o, bool exact);

/*
 * For report and suggest: the live policy into live, and into d the live
 * maps' counts with the state file's before them, d->origin the window (its
 * start from the state file, 0 without one; its end now). A state file not
 * to trust, or of another kernel's sizes, is left out with a warning. 0, or
 * a negative errno with the error logged.
 */
int size_window_read(const struct policy_maps *maps, struct policy *live, struct size_data *d);

/* The daemon's keeper of the state file. */
struct size_keeper {
	struct policy_maps maps; /* the daemon's own fds */
	struct size_maps_id id; /* of the maps it counts in */
	int64_t start; /* of the window, as last written */
	bool exact;
	uint64_t next_ns;
	bool failing;
};

/*
 * Start keeping the counts of the maps open at fds (the daemon's, which
 * stay its own), and write the state file a first time: the window the
 * file held, and these maps. adopted: the maps were pinned before this
 * start, so they may have counted since the boot. exact: the kernel counts
 * argv and envp apart (programs_exact_sizes()).
 */
void size_keeper_start(struct size_keeper *k, const int *fds, bool adopted, bool exact);

/* Write the state file if SIZE_KEEP_INTERVAL_S have passed since the last write. */
void size_keeper_tick(struct size_keeper *k);

/* Write the state file now (at a stop): its errors are logged. */
void size_keeper_save(struct size_keeper *k);

#endif /* ARGGUARD_SIZE_WINDOW_H */
