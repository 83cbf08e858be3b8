/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which log2 bucket of a size distribution a value falls in: the code the
 * BPF program counts with and the loader reads back with, host-tested in
 * tests/unit/test_sizes.c. No branch and no loop: the value's bits are
 * smeared down to 2^(k+1) - 1, and a de Bruijn multiply names k.
 *
 * Bucket 0 holds 0 and 1; bucket k (1 to 30) holds 2^k to 2^(k+1) - 1;
 * bucket 31 holds 2^31 and up. The includer brings __u64 and __u32.
 */
#ifndef ARGGUARD_SIZE_BUCKET_H
#define ARGGUARD_SIZE_BUCKET_H

#include "argguard.h"

_Static_assert(ARGGUARD_SIZE_BUCKETS == 32, "size_bucket() names buckets 0 to 31");

/*
 * For a value smeared to 2^(k+1) - 1, entry (value * 0x03f79d71b4cb0a89) >> 58
 * is k, at most 31: each of the 64 smeared values has its own entry.
 */
static const __u8 argguard_log2_table[64] = {
	0,  31, 1,  31, 31, 27, 2,  31, 31, 31, 31, 31, 28, 16, 3,  31, 31, 31, 31, 31, 31, 31,
	21, 31, 31, 31, 29, 23, 17, 11, 4,  31, 31, 31, 26, 31, 31, 31, 15, 31, 31, 31, 20, 31,
	31, 22, 10, 31, 25, 31, 14, 31, 19, 30, 9,  24, 13, 18, 8,  12, 7,  6,	5,  31,
};

static inline __u32 size_bucket(__u64 v)
{
	v |= v >> 1;
	v |= v >> 2;
	v |= v >> 4;
	v |= v >> 8;
	v |= v >> 16;
	v |= v >> 32;
	return argguard_log2_table[(v * 0x03f79d71b4cb0a89ULL) >> 58] & (ARGGUARD_SIZE_BUCKETS - 1);
}

/* The smallest and the largest value bucket b holds. */
static inline __u64 size_bucket_low(__u32 b)
{
	return b ? 1ULL << b : 0;
}

static inline __u64 size_bucket_high(__u32 b)
{
	return b >= ARGGUARD_SIZE_BUCKETS - 1 ? ~0ULL : (2ULL << b) - 1;
}

#endif /* ARGGUARD_SIZE_BUCKET_H */
