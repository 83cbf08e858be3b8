// SPDX-License-Identifier: GPL-2.0
/* The memory of a mappable BPF map (map_memory.h). */
#include "map_memory.h"

#include <sys/mman.h>

void *map_memory(int fd, size_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

void map_memory_release(void *mem, size_t len)
{
	munmap(mem, len);
}
