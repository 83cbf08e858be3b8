/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The full load of argguard's BPF programs, for a start that cannot take
 * the pins as they are: load the object with every map at its pin (a
 * pinned map is reused, policy and counters included), have the maps hold
 * a policy, then adopt each pinned link that runs the very same program,
 * or attach the program and pin its link.
 */
#ifndef ARGGUARD_PROGRAM_LOAD_H
#define ARGGUARD_PROGRAM_LOAD_H

#include <stdbool.h>

/*
 * The full load, in a process of its own: at its peak libbpf holds the
 * kernel's whole BTF for the relocations, most of a load's memory, and a
 * daemon that did the load would keep that peak as its own for good. The
 * child leaves the programs and maps pinned, calling before_attach once
 * the maps are (it must leave them holding a policy, or fail the load),
 * and exits; the daemon then takes the pins as a restart does. Its
 * messages go to the same stderr. *earlier_pins says, on the way in,
 * whether maps were pinned before, and on the way out whether the load
 * kept them. 0, or a negative errno if the load failed (-EIO when the
 * child failed: it said why).
 */
int programs_load_in_child(bool *earlier_pins, int (*before_attach)(void));

#endif /* ARGGUARD_PROGRAM_LOAD_H */
