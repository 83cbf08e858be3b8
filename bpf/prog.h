/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every part of the BPF object is compiled with: the kernel's types,
 * libbpf's helpers, what the programs share with the loader (argguard.h),
 * the architecture (arch.h), the deny errnos, and the verdict on an exec
 * (verdict.h). The parts (*.bpf.c) are compiled one by one and linked into
 * argguard.bpf.o by libbpf's static linker (CMakeLists.txt).
 */
#ifndef ARGGUARD_PROG_H
#define ARGGUARD_PROG_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "argguard.h"
#include "arch.h"

/*
 * On a static function of a header that not every part calls: compiled
 * into each part that does, and no warning in the others.
 */
#define __maybe_unused __attribute__((__unused__))

/* vmlinux.h has no errno macros: E2BIG and the rest, from the shared table. */
#define ARGGUARD_ERRNO_VALUE(name, nr) name = nr,
enum { ARGGUARD_DENY_ERRNOS(ARGGUARD_ERRNO_VALUE) };

#include "verdict.h" /* after the errnos: a denial's errno is one of them */

#endif /* ARGGUARD_PROG_H */
