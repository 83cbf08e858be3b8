/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory of a mappable BPF map (BPF_F_MMAPABLE), where userspace counts
 * with the same atomics as the programs. A file of its own: the host tests
 * of an apply hand out memory of their own in its place.
 */
#ifndef ARGGUARD_MAP_MEMORY_H
#define ARGGUARD_MAP_MEMORY_H

#include <stddef.h>
#include <sys/mman.h>

/* The first len bytes of the map at fd, shared with the programs; MAP_FAILED (errno set) if not. */
void *map_memory(int fd, size_t len);
void map_memory_release(void *mem, size_t len);

#endif /* ARGGUARD_MAP_MEMORY_H */
