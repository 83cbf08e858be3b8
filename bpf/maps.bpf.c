// SPDX-License-Identifier: GPL-2.0
/*
 * The one definition of each map in maps.h and of the .rodata the loader
 * writes, and the object's license.
 */
#define ARGGUARD_DEFINE_MAPS
#include "maps.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u64 argguard_build_id = 0;
const volatile __u32 argguard_build_features = 0;
