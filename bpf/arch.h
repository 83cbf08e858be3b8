/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything the BPF program assumes about the architecture. Only x86_64 is
 * built and tested. ARGGUARD_BPF_ARCH in CMakeLists.txt sets the matching
 * -D__TARGET_ARCH_, which bpf_tracing.h's PT_REGS_*() also read. Another
 * architecture needs its own block here (arm64: "__arm64_", 221 and 281,
 * syscallno), and a guest to test it in (vm/ boots x86_64 only).
 */
#ifndef ARGGUARD_ARCH_H
#define ARGGUARD_ARCH_H

#if defined(__TARGET_ARCH_x86)
/* The syscall entry points fexit attaches to: __x64_sys_execve(). */
#define ARGGUARD_SYSCALL_PREFIX "__x64_"
#define ARGGUARD_NR_EXECVE 59
#define ARGGUARD_NR_EXECVEAT 322
/* The number of the syscall in progress, from its saved user registers. */
#define ARGGUARD_SYSCALL_NR(regs) BPF_CORE_READ(regs, orig_ax)
/*
 * 32-bit execs (IA32_EMULATION): their entry points, their numbers, and
 * thread_info.status's TS_COMPAT, set while a 32-bit syscall runs. Their
 * argv holds 4-byte pointers, and filename, argv come in bx, cx (execve)
 * or cx, dx (execveat).
 */
#define ARGGUARD_COMPAT_SYSCALL_PREFIX "__ia32_compat_"
#define ARGGUARD_NR_COMPAT_EXECVE 11
#define ARGGUARD_NR_COMPAT_EXECVEAT 358
#define ARGGUARD_TS_COMPAT 0x0002
#else
#error "argguard's BPF program is built and tested for x86_64 only (-D__TARGET_ARCH_x86)"
#endif

#endif /* ARGGUARD_ARCH_H */
