/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything argguard pins under ARGGUARD_PIN_DIR, in one table: each pin's
 * file name, and the map, or the program whose link, the BPF object pins
 * there. Admins and tests name the files to bpftool (argguard.conf(5), THE
 * POLICY IN THE MAPS), so they keep their names whatever the BPF object
 * calls its maps.
 */
#ifndef ARGGUARD_PINS_H
#define ARGGUARD_PINS_H

#define ARGGUARD_PIN_DIR "/sys/fs/bpf/argguard"

/* X(PIN, FILE, MAP): the maps, each with its name in bpf/maps.h. */
#define ARGGUARD_MAP_PINS(X)                                                \
	X(PIN_CONFIG, "config", argguard_config)                            \
	X(PIN_SETTINGS, "settings", argguard_settings)                      \
	X(PIN_PROBE, "probe", argguard_probe)                               \
	X(PIN_GLOBAL_RULES, "global_rules", argguard_global_rules)          \
	X(PIN_SETUID_RULES, "setuid_rules", argguard_setuid_rules)          \
	X(PIN_UID_RULES, "uid_rules", argguard_uid_rules)                   \
	X(PIN_CGROUP_RULES, "cgroup_rules", argguard_cgroup_rules)          \
	X(PIN_CGROUP_IDS, "cgroup_ids", argguard_cgroup_ids)                \
	X(PIN_CGROUP_PATTERNS, "cgroup_patterns", argguard_cgroup_patterns) \
	X(PIN_CGROUP_INDEX, "cgroup_index", argguard_cgroup_index)          \
	X(PIN_COUNTERS, "counters", argguard_counters)                      \
	X(PIN_DROPS, "drops", argguard_drops)                               \
	X(PIN_UID_BUCKETS, "uid_buckets", argguard_uid_buckets)             \
	X(PIN_EVENTS, "events", argguard_events)                            \
	X(PIN_SIZES, "sizes", argguard_sizes)                               \
	X(PIN_LARGEST, "largest", argguard_largest)                         \
	X(PIN_CGROUP_SIZES, "cgroup_sizes", argguard_cgroup_sizes)          \
	X(PIN_SIZES_BY_UID, "sizes_by_uid", argguard_sizes_by_uid)

/*
 * X(PIN, FILE, PROGRAM, KERNEL_HEAD_PROGRAM): the links, each with the
 * program it runs, and the one it runs instead on a kernel that lets a
 * program read the argv it copied (bpf_bprm_read_argv(), kernel-patches/
 * 0004): its records' argv_head comes from there, not the caller's memory.
 * The exits of the exec syscalls exist only on a kernel without the
 * tracepoint of kernel-patches/ 0005, exec_args_failed only on one with it;
 * the compat exits only with IA32_EMULATION.
 */
#define ARGGUARD_LINK_PINS(X)                                                                      \
	X(PIN_LINK_BPRM_CHECK, "link", argguard_bprm_check, argguard_bprm_check_kernel_head)       \
	X(PIN_LINK_BPRM_CREDS, "link_creds", argguard_bprm_creds, argguard_bprm_creds_kernel_head) \
	X(PIN_LINK_EXECVE, "link_execve", argguard_execve_exit, argguard_execve_exit)              \
	X(PIN_LINK_EXECVEAT, "link_execveat", argguard_execveat_exit, argguard_execveat_exit)      \
	X(PIN_LINK_COMPAT_EXECVE, "link_compat_execve", argguard_compat_execve_exit,               \
	  argguard_compat_execve_exit)                                                             \
	X(PIN_LINK_COMPAT_EXECVEAT, "link_compat_execveat", argguard_compat_execveat_exit,         \
	  argguard_compat_execveat_exit)                                                           \
	X(PIN_LINK_EXEC_ARGS_FAILED, "link_exec_args_failed", argguard_exec_args_failed,           \
	  argguard_exec_args_failed)                                                               \
	X(PIN_LINK_CGROUP_MKDIR, "link_cgroup_mkdir", argguard_cgroup_mkdir,                       \
	  argguard_cgroup_mkdir)                                                                   \
	X(PIN_LINK_CGROUP_RMDIR, "link_cgroup_rmdir", argguard_cgroup_rmdir, argguard_cgroup_rmdir)

#define ARGGUARD_PIN_ENUMERATOR(pin, file, ...) pin,
#define ARGGUARD_PIN_COUNT(pin, file, ...) +1

/* The maps first: a pin below NR_MAP_PINS holds a map, the others a link. */
enum pin {
	ARGGUARD_MAP_PINS(ARGGUARD_PIN_ENUMERATOR) ARGGUARD_LINK_PINS(ARGGUARD_PIN_ENUMERATOR)
		NR_PINS
};
#define NR_MAP_PINS (0 ARGGUARD_MAP_PINS(ARGGUARD_PIN_COUNT))
#define NR_LINK_PINS (NR_PINS - NR_MAP_PINS)

#endif /* ARGGUARD_PINS_H */
