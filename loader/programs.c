// SPDX-License-Identifier: GPL-2.0
/*
 * argguard's BPF programs from load to unload, driven by the pin table
 * (pins.h). The one file that includes the BPF skeleton: it is built only
 * with the guest kernel's BTF (ARGGUARD_KERNEL_DIR).
 */
#include "programs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>

#include "argguard.build_id.h"
#include "argguard.h"
#include "argguard.skel.h"
#include "kallsyms.h"
#include "log.h"
#include "units.h"

/* What the daemon holds of a load: its maps, opened from the pins, and its .bss. */
struct programs {
	int map_fds[NR_MAP_PINS];
	int bss_fd; /* -1 if the load has none */
};

/* The skeleton's map for a map pin, its program and link for a link pin. */
static struct bpf_map *map_of(const struct argguard_bpf *skel, enum pin pin)
{
#define ARGGUARD_SKEL_MAP(pin, file, map) \
	case pin:                         \
		return skel->maps.map;
	switch (pin) {
		ARGGUARD_MAP_PINS(ARGGUARD_SKEL_MAP)
	default:
		return NULL;
	}
}

static struct bpf_program *either(bool second, struct bpf_program *a, struct bpf_program *b)
{
	return second ? b : a;
}

static struct bpf_link **either_link(bool second, struct bpf_link **a, struct bpf_link **b)
{
	return second ? b : a;
}

/* The program a link pin runs: its kernel-head one where the kernel has bpf_bprm_read_argv(). */
static struct bpf_program *program_of(const struct argguard_bpf *skel, enum pin pin,
				      bool kernel_head)
{
#define ARGGUARD_SKEL_PROGRAM(pin, file, prog, kernel_head_prog) \
	case pin:                                                \
		return either(kernel_head, skel->progs.prog, skel->progs.kernel_head_prog);
	switch (pin) {
		ARGGUARD_LINK_PINS(ARGGUARD_SKEL_PROGRAM)
	default:
		return NULL;
	}
}

/* The other one, which is not loaded. NULL where both are the same. */
static struct bpf_program *unused_program_of(const struct argguard_bpf *skel, enum pin pin,
					     bool kernel_head)
{
	struct bpf_program *other = program_of(skel, pin, !kernel_head);

	return other == program_of(skel, pin, kernel_head) ? NULL : other;
}

static struct bpf_link **link_of(struct argguard_bpf *skel, enum pin pin, bool kernel_head)
{
#define ARGGUARD_SKEL_LINK(pin, file, prog, kernel_head_prog) \
	case pin:                                             \
		return either_link(kernel_head, &skel->links.prog, &skel->links.kernel_head_prog);
	switch (pin) {
		ARGGUARD_LINK_PINS(ARGGUARD_SKEL_LINK)
	default:
		return NULL;
	}
}

int programs_lock(void)
{
	int fd = open(ARGGUARD_RUN_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	char pid[32] = "";

	if (fd < 0) {
		log_error("failed to open %s: %s", ARGGUARD_RUN_LOCK, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if (read(fd, pid, sizeof(pid) - 1) < 0)
			pid[0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		log_error("another argguard run is live (pid %s); stop it first (systemctl stop "
			  "argguard)",
			  pid[0] ? pid : "unknown");
		close(fd);
		return -1;
	}
	if (ftruncate(fd, 0) == 0)
		dprintf(fd, "%d\n", getpid());
	return fd; /* left open: the lock goes with the process */
}

static int ensure_pin_dir(void)
{
	struct statfs fs;

	if (statfs("/sys/fs/bpf", &fs) || fs.f_type != BPF_FS_MAGIC) {
		if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700")) {
			log_error("failed to mount bpffs on /sys/fs/bpf: %s", strerror(errno));
			return -1;
		}
	}
	if (mkdir(ARGGUARD_PIN_DIR, 0700) && errno != EEXIST) {
		log_error("failed to create %s: %s", ARGGUARD_PIN_DIR, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Where attach_and_pin() pins a new link before it renames it over the
 * pin: "swap_" and the pin's name (bpffs refuses a '.' in a name).
 */
#define SWAP_PREFIX "swap_"

static void swap_path(enum pin pin, char *path, size_t len)
{
	snprintf(path, len, "%s/" SWAP_PREFIX "%s", ARGGUARD_PIN_DIR, pin_file(pin));
}

/*
 * A start killed inside attach_and_pin() may leave a link pinned at its
 * swap path: take it as the pin if nothing is pinned there, else drop it
 * (the pin still enforces, and this start adopts or replaces it). Either
 * way no second program stays attached behind a name no start looks at.
 */
static void finish_interrupted_swaps(void)
{
	char pin[128], next[136];

	for (int name = NR_MAP_PINS; name < NR_PINS; name++) {
		pin_path(name, pin, sizeof(pin));
		swap_path(name, next, sizeof(next));
		if (access(next, F_OK))
			continue;
		if (access(pin, F_OK) ? rename(next, pin) : unlink(next))
			log_error("failed to tidy up %s: %s", next, strerror(errno));
		else
			log_notice("an earlier start was killed while pinning %s: tidied up", pin);
	}
}

/*
 * With unprivileged BPF on, any user can load socket filters and probe map
 * internals; argguard's pins are root-only either way, but a site running a
 * security control wants it off (kernel.unprivileged_bpf_disabled = 1 or 2).
 */
static void warn_if_unprivileged_bpf(void)
{
	unsigned long long disabled;

	if (read_numbers("/proc/sys/kernel/unprivileged_bpf_disabled", &disabled, 1) == 1 &&
	    disabled == 0)
		log_warning("unprivileged BPF is enabled "
			    "(kernel.unprivileged_bpf_disabled = 0); set it to 1 or 2");
}

/* What of kernel-patches/ this kernel carries, as its BTF tells. */
struct kernel_features {
	bool exact_sizes; /* linux_binprm.orig_argc and the sizes (patch 4) */
	bool kernel_head; /* bpf_bprm_read_argv() (patch 4) */
	bool compat; /* 32-bit execs: IA32_EMULATION's __ia32_compat_sys_execve() */
	bool exec_args_failed; /* tracepoint sched_process_exec_args_failed (patch 5) */
};

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

/*
 * Fills *f from the kernel's BTF. Without it, say so and fail: a guess
 * would load the programs for a kernel without the series, and report no
 * refusal the tracepoint catches.
 */
static int kernel_features(struct kernel_features *f)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_member *m;
	const struct btf_type *t;
	int id;

	*f = (struct kernel_features){ 0 };
	if (!btf) {
		log_error("failed to read the kernel's BTF (/sys/kernel/btf/vmlinux): %s",
			  strerror(errno));
		return -1;
	}
	id = btf__find_by_name_kind(btf, "linux_binprm", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (int i = 0; t && i < btf_vlen(t); i++) {
		m = btf_members(t) + i;
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "orig_argc"))
			f->exact_sizes = true;
	}
	f->kernel_head = btf__find_by_name_kind(btf, "bpf_bprm_read_argv", BTF_KIND_FUNC) > 0;
	f->compat = btf__find_by_name_kind(btf, "__ia32_compat_sys_execve", BTF_KIND_FUNC) > 0;
	f->exec_args_failed =
		btf__find_by_name_kind(btf, "btf_trace_sched_process_exec_args_failed",
				       BTF_KIND_TYPEDEF) > 0;
	btf__free(btf);
	log_info("the kernel's BTF: exact sizes %s, kernel argv head %s, refusal tracepoint %s, "
		 "32-bit execs %s",
		 yes_no(f->exact_sizes), yes_no(f->kernel_head), yes_no(f->exec_args_failed),
		 yes_no(f->compat));
	return 0;
}

/* The kernel's features, as a load records them in its .rodata (bpf/argguard.h). */
static __u32 feature_bits(const struct kernel_features *f)
{
	return (f->exact_sizes ? ARGGUARD_FEATURE_EXACT_SIZES : 0) |
	       (f->kernel_head ? ARGGUARD_FEATURE_KERNEL_HEAD : 0) |
	       (f->compat ? ARGGUARD_FEATURE_COMPAT : 0) |
	       (f->exec_args_failed ? ARGGUARD_FEATURE_EXEC_ARGS_FAILED : 0);
}

static struct kernel_features features_of(__u32 bits)
{
	return (struct kernel_features){
		.exact_sizes = bits & ARGGUARD_FEATURE_EXACT_SIZES,
		.kernel_head = bits & ARGGUARD_FEATURE_KERNEL_HEAD,
		.compat = bits & ARGGUARD_FEATURE_COMPAT,
		.exec_args_failed = bits & ARGGUARD_FEATURE_EXEC_ARGS_FAILED,
	};
}

/*
 * Where fs.exec_arg_max lives, for kernel-refused records' limit; 0 where
 * the kernel has no such sysctl (no kernel-patches/) or hides addresses.
 */
static __u64 exec_arg_max_address(void)
{
	uint64_t address = 0;
	int err;

	if (access("/proc/sys/fs/exec_arg_max", F_OK))
		return 0;
	err = kallsyms_address("/proc/kallsyms", "exec_arg_max", &address);
	if (err)
		log_warning("failed to find fs.exec_arg_max in /proc/kallsyms (%s): kernel-refused "
			    "records give the RLIMIT_STACK limit, not this cap",
			    err == -EACCES ? "addresses hidden: no CAP_SYSLOG?" : strerror(-err));
	return err ? 0 : address;
}

static int leave_out(struct bpf_program *prog)
{
	int err = bpf_program__set_autoload(prog, false);

	if (err)
		log_error("failed to leave out %s: %s", bpf_program__name(prog), strerror(-err));
	return err;
}

/*
 * Whether this build pins a link at pin on a kernel with these features:
 * kernel refusals come from the series' tracepoint where the kernel has it,
 * and from the exits of the exec syscalls, 32-bit ones included, elsewhere.
 */
static bool link_wanted(enum pin pin, const struct kernel_features *kernel)
{
	switch (pin) {
	case PIN_LINK_EXEC_ARGS_FAILED:
		return kernel->exec_args_failed;
	case PIN_LINK_EXECVE:
	case PIN_LINK_EXECVEAT:
		return !kernel->exec_args_failed;
	case PIN_LINK_COMPAT_EXECVE:
	case PIN_LINK_COMPAT_EXECVEAT:
		return kernel->compat && !kernel->exec_args_failed;
	default:
		return true;
	}
}

/*
 * Load only the programs this kernel runs: the kernel-head ones where it
 * has the kfunc, and the links link_wanted() picks.
 */
static int choose_programs(struct argguard_bpf *skel, const struct kernel_features *kernel)
{
	struct bpf_program *unused;
	int err = 0;

	for (int pin = NR_MAP_PINS; pin < NR_PINS && !err; pin++) {
		unused = unused_program_of(skel, pin, kernel->kernel_head);
		if (unused)
			err = leave_out(unused);
		if (!err && !link_wanted(pin, kernel))
			err = leave_out(program_of(skel, pin, kernel->kernel_head));
	}
	return err;
}

/* The tag (a hash of the instructions) of the loaded program at fd. */
static int prog_tag(int fd, __u8 tag[BPF_TAG_SIZE])
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	memcpy(tag, info.tag, BPF_TAG_SIZE);
	return 0;
}

/* What a pinned link runs, and which build loaded it. */

#define MAX_PROG_MAPS 32
/* libbpf's names for the object's global data maps: the object's name, then the section's. */
#define RODATA_MAP_NAME "argguard.rodata"
#define BSS_MAP_NAME "argguard.bss"

/* The program behind a pinned link: the BTF object of its load, and its maps. */
struct pinned_prog {
	__u32 prog_id;
	__u32 btf_id;
	__u32 nr_map_ids;
	__u32 map_ids[MAX_PROG_MAPS];
};

static int read_pinned_prog(enum pin pin, struct pinned_prog *pp)
{
	struct bpf_link_info link = {};
	struct bpf_prog_info info = {};
	__u32 len = sizeof(link);
	int link_fd, prog_fd = -1, err = -1;
	char path[128];

	pin_path(pin, path, sizeof(path));
	link_fd = bpf_obj_get(path);
	if (link_fd < 0)
		return -1;
	if (bpf_obj_get_info_by_fd(link_fd, &link, &len) || !link.prog_id)
		goto out;
	prog_fd = bpf_prog_get_fd_by_id(link.prog_id);
	if (prog_fd < 0)
		goto out;
	len = sizeof(info);
	info.nr_map_ids = MAX_PROG_MAPS;
	info.map_ids = (__u64)(unsigned long)pp->map_ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) || !info.btf_id ||
	    info.nr_map_ids > MAX_PROG_MAPS)
		goto out;
	pp->prog_id = link.prog_id;
	pp->btf_id = info.btf_id;
	pp->nr_map_ids = info.nr_map_ids;
	err = 0;
out:
	if (prog_fd >= 0)
		close(prog_fd);
	close(link_fd);
	return err;
}

/*
 * The map named name that one of the n programs uses, opened, with its
 * info; -1 if none of them has one that holds at least value_size bytes.
 */
static int open_prog_map(const struct pinned_prog *progs, unsigned int n, const char *name,
			 __u32 value_size, struct bpf_map_info *info)
{
	__u32 len;
	int fd;

	for (unsigned int p = 0; p < n; p++)
		for (__u32 i = 0; i < progs[p].nr_map_ids; i++) {
			fd = bpf_map_get_fd_by_id(progs[p].map_ids[i]);
			if (fd < 0)
				continue;
			memset(info, 0, sizeof(*info));
			len = sizeof(*info);
			if (!bpf_obj_get_info_by_fd(fd, info, &len) && !strcmp(info->name, name) &&
			    info->value_size >= value_size)
				return fd;
			close(fd);
		}
	return -1;
}

/* What the load of pp's program recorded in its .rodata: the build id and the features. */
static int read_build(const struct pinned_prog *pp, __u64 *id, __u32 *features)
{
	struct argguard_bpf__rodata *rodata;
	struct bpf_map_info info;
	__u32 zero = 0;
	int fd, err = -1;

	fd = open_prog_map(pp, 1, RODATA_MAP_NAME, sizeof(*rodata), &info);
	if (fd < 0)
		return -1;
	rodata = calloc(1, info.value_size);
	if ((info.map_flags & BPF_F_RDONLY_PROG) && rodata &&
	    !bpf_map_lookup_elem(fd, &zero, rodata)) {
		*id = rodata->argguard_build_id;
		*features = rodata->argguard_build_features;
		err = 0;
	}
	free(rodata);
	close(fd);
	return err;
}

/*
 * Whether the bprm_check link pinned now runs a program this very build
 * loaded; if so, fills *pp with that program and *features with what its
 * load recorded.
 */
static bool pinned_by_this_build(struct pinned_prog *pp, __u32 *features)
{
	__u64 id;

	return !read_pinned_prog(PIN_LINK_BPRM_CHECK, pp) && !read_build(pp, &id, features) &&
	       id == ARGGUARD_BUILD_ID;
}

/*
 * The link pinned at pin, if it runs the very program prog (same tag) of
 * the load whose BTF object is btf_id: a restart after a crash or a stop
 * keeps enforcing through it. NULL if there is none, or it runs another
 * program or another load's, which the journal then names.
 */
static struct bpf_link *adopt_pinned(struct bpf_program *prog, enum pin pin, __u32 btf_id)
{
	__u8 ours[BPF_TAG_SIZE], theirs[BPF_TAG_SIZE];
	struct pinned_prog pinned;
	struct bpf_link *link;
	const char *why;
	char path[128];
	int prog_fd;

	pin_path(pin, path, sizeof(path));
	if (read_pinned_prog(pin, &pinned)) {
		why = "no link pinned there, or none that runs a program";
		goto no;
	}
	if (pinned.btf_id != btf_id) {
		why = "its program is of another load than the bprm_check link's";
		goto no;
	}
	link = bpf_link__open(path);
	if (!link) {
		why = strerror(errno);
		goto no;
	}
	prog_fd = bpf_prog_get_fd_by_id(pinned.prog_id);
	if (prog_fd >= 0 && !prog_tag(prog_fd, theirs) && !prog_tag(bpf_program__fd(prog), ours) &&
	    !memcmp(ours, theirs, BPF_TAG_SIZE)) {
		close(prog_fd);
		return link;
	}
	if (prog_fd >= 0)
		close(prog_fd);
	bpf_link__destroy(link);
	why = "it runs another program than this load's";
no:
	log_info("not adopting %s (%s): attaching every link anew", path, why);
	return NULL;
}

/*
 * Attach, pin the link at its swap path, then rename it over the old pin:
 * the previous link, if any, detaches only when its pin goes, by which time
 * this one is enforcing, and a start killed at any point leaves one of the
 * two pinned. No exec slips by.
 */
static int attach_and_pin(struct bpf_program *prog, struct bpf_link **out, enum pin name)
{
	struct bpf_link *link;
	char pin[128], next[136];
	int err;

	pin_path(name, pin, sizeof(pin));
	swap_path(name, next, sizeof(next));
	link = bpf_program__attach(prog);
	if (!link) {
		err = -errno;
		log_error("failed to attach %s: %s", bpf_program__name(prog), strerror(-err));
		return err;
	}
	*out = link;
	if (unlink(next) && errno != ENOENT) { /* left by a start that was killed */
		err = -errno;
		log_error("failed to remove %s: %s", next, strerror(-err));
		return err;
	}
	err = bpf_link__pin(link, next);
	if (err) {
		log_error("failed to pin %s: %s", next, strerror(-err));
		return err;
	}
	if (rename(next, pin)) {
		err = -errno;
		log_error("failed to replace %s: %s", pin, strerror(-err));
	}
	return err;
}

/*
 * Adopt the pinned links if this very build pinned them and every one runs
 * the very program this load would attach (same tag), or none: the pins
 * then stay one load, which the next start can resume. Another build's
 * programs may have the same tags (a change that left the instructions
 * alone), but their .rodata names that build, and resume() would refuse
 * the mix.
 */
static bool adopt_all(struct argguard_bpf *skel, bool kernel_head)
{
	struct pinned_prog pinned;
	struct bpf_link **link;
	__u32 features;
	int pin;

	if (!pinned_by_this_build(&pinned, &features))
		return false; /* none pinned, or another build's */
	for (pin = NR_MAP_PINS; pin < NR_PINS; pin++) {
		struct bpf_program *prog = program_of(skel, pin, kernel_head);

		if (!bpf_program__autoload(prog))
			continue; /* not for this kernel */
		*link_of(skel, pin, kernel_head) = adopt_pinned(prog, pin, pinned.btf_id);
		if (!*link_of(skel, pin, kernel_head))
			goto undo;
	}
	log_info("adopted the pinned links: each runs the very program this build loaded");
	return true;
undo:
	while (pin-- > NR_MAP_PINS) {
		link = link_of(skel, pin, kernel_head);
		bpf_link__destroy(*link); /* closes our fd; the pin keeps the link */
		*link = NULL;
	}
	return false;
}

/*
 * A link this build does not pin on this kernel, which an older build,
 * upgraded within the same boot, may have left: an exit program on a kernel
 * whose tracepoint now reports the same refusals. Unpinned, it is detached.
 */
static int unpin_unwanted(enum pin pin)
{
	char path[128];
	int err;

	pin_path(pin, path, sizeof(path));
	if (!unlink(path) || errno == ENOENT)
		return 0;
	err = -errno;
	log_error("failed to remove %s, which this kernel does not use: %s", path, strerror(-err));
	return err;
}

/*
 * Each program of the pin table enforcing through a pinned link: the
 * pinned ones adopted if they may be (not over maps made afresh, which an
 * adopted program would not use), else all attached anew.
 */
static int attach_all(struct argguard_bpf *skel, bool kernel_head, bool may_adopt)
{
	int pin, err;

	if (!may_adopt || !adopt_all(skel, kernel_head))
		for (pin = NR_MAP_PINS; pin < NR_PINS; pin++) {
			struct bpf_program *prog = program_of(skel, pin, kernel_head);

			if (!bpf_program__autoload(prog))
				continue; /* not for this kernel */
			err = attach_and_pin(prog, link_of(skel, pin, kernel_head), pin);
			if (err)
				return err;
		}
	/* Only once what replaces them enforces. */
	for (pin = NR_MAP_PINS; pin < NR_PINS; pin++) {
		if (bpf_program__autoload(program_of(skel, pin, kernel_head)))
			continue;
		err = unpin_unwanted(pin);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Each map of the pin table at its pin: the load reuses a map pinned there,
 * policy and counters included, and pins the ones it creates.
 */
static int set_pin_paths(struct argguard_bpf *skel)
{
	struct bpf_map *map;
	char path[128];
	int err;

	for (int pin = 0; pin < NR_MAP_PINS; pin++) {
		map = map_of(skel, pin);
		pin_path(pin, path, sizeof(path));
		err = bpf_map__set_pin_path(map, path);
		if (err) {
			log_error("failed to set the pin of %s: %s", bpf_map__name(map),
				  strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Whether the map pinned at path is one this object's map could reuse. */
static bool pin_fits(const struct bpf_map *map, const char *path)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_obj_get(path);
	bool fits;

	if (fd < 0)
		return errno == ENOENT; /* nothing there: nothing in the way */
	fits = !bpf_obj_get_info_by_fd(fd, &info, &len) && info.type == bpf_map__type(map) &&
	       info.key_size == bpf_map__key_size(map) &&
	       info.value_size == bpf_map__value_size(map) &&
	       info.max_entries == bpf_map__max_entries(map) &&
	       info.map_flags == bpf_map__map_flags(map);
	close(fd);
	return fits;
}

/*
 * Whether the map at pin holds part of the policy: made afresh alone, it
 * would read as zero (mode off, no rules) under a config that says the
 * policy was applied.
 */
static bool pin_holds_policy(enum pin pin)
{
	switch (pin) {
	case PIN_PROBE:
	case PIN_COUNTERS:
	case PIN_DROPS:
	case PIN_UID_BUCKETS:
	case PIN_EVENTS:
		return false;
	default:
		return true;
	}
}

/*
 * Pins left by a build whose maps differ (an upgrade that changed a map's
 * layout, within one boot), or a policy map whose pin is gone while the
 * others stay: the load could not reuse the first, and would make the
 * second afresh, all zero, under the rest of the policy. Unpin every map
 * then, so that the load makes them all afresh: they get the interim
 * policy, and the daemon applies the policy file. The old build's links
 * keep enforcing, with its maps, until this build's links replace them.
 * Returns whether the pins were dropped.
 */
static bool drop_map_pins_that_do_not_fit(const struct argguard_bpf *skel)
{
	const char *why = NULL;
	char path[128];
	int pin;

	for (pin = 0; pin < NR_MAP_PINS && !why; pin++) {
		pin_path(pin, path, sizeof(path));
		if (!pin_fits(map_of(skel, pin), path))
			why = "was pinned by a build whose maps differ from this one's (an "
			      "upgrade?)";
		else if (pin_holds_policy(pin) && access(path, F_OK))
			why = "is gone, and it holds part of the policy";
	}
	if (!why)
		return false;
	log_notice("%s %s: making all maps afresh, and applying the policy file", path, why);
	for (pin = 0; pin < NR_MAP_PINS; pin++) {
		pin_path(pin, path, sizeof(path));
		if (unlink(path) && errno != ENOENT)
			log_error("failed to remove %s: %s", path, strerror(errno));
	}
	return true;
}

/*
 * Resuming: a start that finds this very build's programs attached and
 * pinned, over the pinned maps, takes them as they are. A load would have
 * the verifier check every program again, only for adopt_all() to adopt
 * the same links by their tags.
 */

static bool uses_map(const struct pinned_prog *progs, unsigned int n, __u32 map_id)
{
	for (unsigned int i = 0; i < n; i++)
		for (__u32 j = 0; j < progs[i].nr_map_ids; j++)
			if (progs[i].map_ids[j] == map_id)
				return true;
	return false;
}

/*
 * Take the pins as they are if they hold one whole load of this build: the
 * bprm_check program's .rodata names this build, every link it pins on
 * this kernel (and no other) runs a program of that same load, and every
 * map pin is a map those programs use. Fills p->map_fds and *kernel (as
 * the load saw it) and returns true; or returns false, having opened
 * nothing, for a full load to sort things out.
 */
static bool resume(struct programs *p, struct kernel_features *kernel)
{
	struct pinned_prog progs[NR_PINS - NR_MAP_PINS];
	struct bpf_map_info info;
	unsigned int n = 0;
	__u32 features, len;
	char path[128];
	int pin, fd;

	if (!pinned_by_this_build(&progs[0], &features))
		return false;
	*kernel = features_of(features);
	for (pin = NR_MAP_PINS; pin < NR_PINS; pin++) {
		bool pinned = !read_pinned_prog(pin, &progs[n]);

		if (pinned != link_wanted(pin, kernel) ||
		    (pinned && progs[n].btf_id != progs[0].btf_id))
			return false;
		n += pinned;
	}
	for (pin = 0; pin < NR_MAP_PINS; pin++) {
		pin_path(pin, path, sizeof(path));
		fd = bpf_obj_get(path);
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) ||
		    !uses_map(progs, n, info.id)) {
			if (fd >= 0)
				close(fd);
			while (pin--)
				close(p->map_fds[pin]);
			return false;
		}
		p->map_fds[pin] = fd;
	}
	p->bss_fd = open_prog_map(progs, n, BSS_MAP_NAME, sizeof(struct argguard_bpf__bss), &info);
	return true;
}

static bool all_maps_pinned(void)
{
	char path[128];

	for (int pin = 0; pin < NR_MAP_PINS; pin++) {
		pin_path(pin, path, sizeof(path));
		if (access(path, F_OK))
			return false;
	}
	return true;
}

/*
 * The full start: load the object with every map at its pin, then adopt
 * or attach each link, and pin it. Fills *kernel. The skeleton stays open
 * until the process exits: load_in_child() runs this in a process of its own.
 */
static int load(bool *earlier_pins, struct kernel_features *kernel, int (*before_attach)(void))
{
	struct argguard_bpf *skel;
	bool fresh_maps, may_adopt;
	int err;

	if (kernel_features(kernel))
		return -1;
	skel = argguard_bpf__open();
	if (!skel) {
		log_error("failed to open the BPF object: %s", strerror(errno));
		return -1;
	}
	fresh_maps = *earlier_pins && drop_map_pins_that_do_not_fit(skel);
	if (fresh_maps)
		*earlier_pins = false;
	/* A map made afresh where a pin was missing: a pinned link's program uses the old one. */
	may_adopt = !fresh_maps && all_maps_pinned();
	skel->rodata->argguard_build_id = ARGGUARD_BUILD_ID;
	skel->rodata->argguard_build_features = feature_bits(kernel);
	err = set_pin_paths(skel);
	if (!err)
		err = choose_programs(skel, kernel);
	if (err)
		goto out_destroy;
	err = argguard_bpf__load(skel);
	if (err) {
		log_error("failed to load the BPF programs: %s", strerror(-err));
		goto out_destroy;
	}
	/* The maps are pinned now; no program runs over them until they hold a policy. */
	err = before_attach();
	if (err)
		goto out_destroy;
	err = attach_all(skel, kernel->kernel_head, may_adopt);
	if (err)
		goto out_destroy;
	return 0;
out_destroy:
	argguard_bpf__destroy(skel);
	return -1;
}

/* How the loader process ends. */
enum { LOADED_OVER_PINS, LOADED_AFRESH, LOAD_FAILED };

/*
 * The full load, in a process of its own: at its peak libbpf holds the
 * kernel's whole BTF for the relocations, most of a load's memory, and a
 * daemon that did the load would keep that peak as its own for good. The
 * child leaves the programs and maps pinned, and exits; the daemon then
 * takes the pins as a restart does. Its messages go to the same stderr.
 * 0, or -1 if the load failed (and the child said why).
 */
static int load_in_child(bool *earlier_pins, int (*before_attach)(void))
{
	struct kernel_features kernel;
	struct rusage usage;
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		log_error("failed to start the loader process: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		/*
		 * A stop now would leave some pins replaced and some not: finish
		 * first. systemd's SIGKILL, after TimeoutStopSec, still ends it.
		 */
		sigset_t stop;

		sigemptyset(&stop);
		sigaddset(&stop, SIGTERM);
		sigaddset(&stop, SIGINT);
		sigaddset(&stop, SIGHUP);
		sigprocmask(SIG_BLOCK, &stop, NULL);
		if (load(earlier_pins, &kernel, before_attach))
			_exit(LOAD_FAILED);
		_exit(*earlier_pins ? LOADED_OVER_PINS : LOADED_AFRESH);
	}
	while (wait4(pid, &status, 0, &usage) < 0)
		if (errno != EINTR) {
			log_error("failed to wait for the loader process: %s", strerror(errno));
			return -1;
		}
	if (WIFSIGNALED(status))
		log_error("the loader process died of %s", strsignal(WTERMSIG(status)));
	if (!WIFEXITED(status) || WEXITSTATUS(status) == LOAD_FAILED)
		return -1;
	*earlier_pins = WEXITSTATUS(status) == LOADED_OVER_PINS;
	log_info("loaded in a process of its own, whose peak RSS was %ld KiB", usage.ru_maxrss);
	return 0;
}

static void tell_what_the_kernel_lacks(const struct kernel_features *kernel)
{
	if (!kernel->exact_sizes)
		log_notice("this kernel lacks argguard's exec patches: argv/envp sizes are "
			   "derived from their total, and argc == 0 cannot be seen, so "
			   "empty_argv rules never match");
	if (!kernel->kernel_head)
		log_notice("this kernel lets no BPF program read the argv an exec copied "
			   "(bpf_bprm_read_argv): records read argv_head from the caller's "
			   "memory, which another of its threads can rewrite (head_source "
			   "\"caller\")");
	if (!kernel->exec_args_failed)
		log_notice("this kernel has no tracepoint for the execs it refuses "
			   "(sched_process_exec_args_failed): they are caught at the exit of "
			   "every execve and execveat, which costs every exec a little");
}

struct programs *programs_start(bool *earlier_pins, int (*before_attach)(void))
{
	struct kernel_features kernel;
	struct programs *p;
	char config_pin[128];

	if (ensure_pin_dir())
		return NULL;
	finish_interrupted_swaps();
	warn_if_unprivileged_bpf();
	pin_path(PIN_CONFIG, config_pin, sizeof(config_pin));
	*earlier_pins = access(config_pin, F_OK) == 0;
	p = calloc(1, sizeof(*p));
	if (!p) {
		log_error("failed to start the BPF programs: %s", strerror(ENOMEM));
		return NULL;
	}
	p->bss_fd = -1;
	if (*earlier_pins && resume(p, &kernel)) {
		log_info("adopted the pinned links and maps as they are: this build loaded "
			 "them, nothing to load again");
	} else if (load_in_child(earlier_pins, before_attach)) {
		free(p);
		return NULL;
	} else if (!resume(p, &kernel)) {
		log_error("the programs the loader process pinned are not the whole load it "
			  "made: did another process change %s meanwhile?",
			  ARGGUARD_PIN_DIR);
		free(p);
		return NULL;
	}
	tell_what_the_kernel_lacks(&kernel);
	return p;
}

/*
 * Fill in the programs' exec_arg_max_address, unless an earlier start of
 * this load did: the address stays put until the next boot.
 */
void programs_find_exec_arg_max(const struct programs *p)
{
	struct argguard_bpf__bss *bss;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0;

	if (p->bss_fd < 0 || bpf_obj_get_info_by_fd(p->bss_fd, &info, &len))
		return;
	bss = calloc(1, info.value_size);
	if (!bss || bpf_map_lookup_elem(p->bss_fd, &zero, bss)) {
		log_error("failed to read the programs' .bss: %s", strerror(bss ? errno : ENOMEM));
		goto out;
	}
	if (bss->exec_arg_max_address)
		goto out; /* an earlier start of this load found it */
	bss->exec_arg_max_address = exec_arg_max_address();
	if (!bss->exec_arg_max_address)
		goto out; /* a stock kernel, or a failure that exec_arg_max_address() logged */
	if (bpf_map_update_elem(p->bss_fd, &zero, bss, BPF_ANY))
		log_error("failed to tell the programs where fs.exec_arg_max is: %s",
			  strerror(errno));
	else
		log_info("found fs.exec_arg_max in /proc/kallsyms: kernel-refused records give its "
			 "cap as their limit");
out:
	free(bss);
}

int programs_map_fd(const struct programs *p, enum pin pin)
{
	return p->map_fds[pin];
}

void programs_close(struct programs *p)
{
	if (!p)
		return;
	/* The links stay pinned, and enforcement in place. */
	for (int pin = 0; pin < NR_MAP_PINS; pin++)
		close(p->map_fds[pin]);
	if (p->bss_fd >= 0)
		close(p->bss_fd);
	free(p);
}

/* The most links argguard pins: the programs unpin waits to see detached. */
#define MAX_LINK_PINS (NR_PINS - NR_MAP_PINS)
/* How long unpin waits for the kernel to detach them, in 10 ms steps. */
#define DETACH_WAIT_STEPS 1000

/* The program the link pinned at dir/name runs, or 0 if it is not a link. */
static __u32 pinned_link_prog_id(int dir, const char *name)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	char path[PATH_MAX];
	int fd;

	if (strncmp(name, "link", 4) &&
	    strncmp(name, SWAP_PREFIX "link", strlen(SWAP_PREFIX "link")))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dir, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		info.prog_id = 0;
	close(fd);
	return info.prog_id;
}

/*
 * Wait until none of the programs in ids is loaded any more. Unpinning drops
 * a link's last reference, but some kernels (6.12) detach it from a work
 * item, after its ID is gone: until the program itself is freed, it may
 * still run. Returns how many are still loaded.
 */
static unsigned int wait_detached(const __u32 *ids, unsigned int n)
{
	unsigned int left = n, step, i;
	int fd;

	for (step = 0; left && step < DETACH_WAIT_STEPS; step++) {
		if (step)
			nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
		for (left = 0, i = 0; i < n; i++) {
			fd = bpf_prog_get_fd_by_id(ids[i]);
			if (fd >= 0) {
				close(fd);
				left++;
			}
		}
	}
	return left;
}

int programs_unpin(void)
{
	DIR *dir = opendir(ARGGUARD_PIN_DIR);
	unsigned int removed = 0, nr_progs = 0, left;
	__u32 prog_ids[MAX_LINK_PINS], id;
	struct dirent *d;
	int err = 0;

	if (!dir && errno != ENOENT) {
		log_error("failed to open %s: %s", ARGGUARD_PIN_DIR, strerror(errno));
		return -1;
	}
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		id = pinned_link_prog_id(dirfd(dir), d->d_name);
		if (unlinkat(dirfd(dir), d->d_name, 0)) {
			log_error("failed to remove %s/%s: %s", ARGGUARD_PIN_DIR, d->d_name,
				  strerror(errno));
			err = -1;
			continue;
		}
		if (id && nr_progs < MAX_LINK_PINS)
			prog_ids[nr_progs++] = id;
		removed++;
	}
	if (dir)
		closedir(dir);
	if (!err && rmdir(ARGGUARD_PIN_DIR) && errno != ENOENT) {
		log_error("failed to remove %s: %s", ARGGUARD_PIN_DIR, strerror(errno));
		err = -1;
	}
	left = wait_detached(prog_ids, nr_progs);
	if (left) {
		log_error("removed the pins, but %u of argguard's programs still run after %d s: "
			  "another process holds their links (bpftool link show)",
			  left, DETACH_WAIT_STEPS / 100);
		err = -1;
	}
	if (!err)
		printf("argguard: unloaded: removed %u pins and %s; nothing enforces now\n",
		       removed, ARGGUARD_PIN_DIR);
	return err;
}

int programs_unload(void)
{
	int fd = open(ARGGUARD_RUN_LOCK, O_RDONLY | O_CLOEXEC);

	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
		log_error("argguard run is live; stop it first (systemctl stop argguard): "
			  "its programs stay attached while it runs");
		close(fd);
		return -1;
	}
	if (fd >= 0)
		close(fd);
	return programs_unpin();
}
