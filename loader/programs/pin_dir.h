/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pin directory, ARGGUARD_PIN_DIR on bpffs: made at a start, tidied
 * after a start that was killed while pinning, and emptied, which ends
 * enforcement, at argguard unload. What is pinned there is the pin table's
 * (pins.h).
 */
#ifndef ARGGUARD_PIN_DIR_H
#define ARGGUARD_PIN_DIR_H

#include <stddef.h>

#include "pins.h"

/*
 * Where a start pins a new link before it renames it over the pin: "swap_"
 * and the pin's name (bpffs refuses a '.' in a name).
 */
#define SWAP_PREFIX "swap_"

/* ARGGUARD_PIN_DIR "/" SWAP_PREFIX and the pin's file name, into path. */
void pin_swap_path(enum pin pin, char *path, size_t len);

/* Mount bpffs if need be and make the pin directory. 0, or -errno with the reason logged. */
int pin_dir_make(void);

/*
 * A start killed while it pinned a link may leave the link pinned at its
 * swap path: take it as the pin if nothing is pinned there, else drop it
 * (the pin still enforces, and this start adopts or replaces it). Either
 * way no second program stays attached behind a name no start looks at.
 */
void pin_dir_finish_swaps(void);

/*
 * Remove every pin and the pin directory: the programs detach as their
 * links' pins go, and nothing enforces. Returns 0, or a negative errno
 * (-EBUSY while another process holds a link) with the reason logged.
 */
int pin_dir_remove(void);

/* argguard unload: pin_dir_remove(), unless an argguard run is live (-EBUSY). */
int pin_dir_unload(void);

#endif /* ARGGUARD_PIN_DIR_H */
