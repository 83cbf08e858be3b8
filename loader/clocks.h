/* SPDX-License-Identifier: GPL-2.0 */
/* The daemon's clocks: records carry CLOCK_MONOTONIC stamps from the kernel. */
#ifndef ARGGUARD_CLOCKS_H
#define ARGGUARD_CLOCKS_H

#include <stdint.h>
#include <time.h>

static inline uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* CLOCK_REALTIME minus CLOCK_MONOTONIC: what turns a kernel stamp into wall-clock time. */
static inline int64_t realtime_offset_ns(void)
{
	struct timespec rt, mono;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	return (rt.tv_sec - mono.tv_sec) * 1000000000LL + (rt.tv_nsec - mono.tv_nsec);
}

#endif /* ARGGUARD_CLOCKS_H */
