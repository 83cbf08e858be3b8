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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>

#include "argguard.skel.h"
#include "log.h"
#include "units.h"

struct programs {
	struct argguard_bpf *skel;
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
};

static struct kernel_features kernel_features(void)
{
	struct kernel_features f = { 0 };
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_member *m;
	const struct btf_type *t;
	int id;

	if (!btf)
		return f;
	id = btf__find_by_name_kind(btf, "linux_binprm", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (int i = 0; t && i < btf_vlen(t); i++) {
		m = btf_members(t) + i;
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "orig_argc"))
			f.exact_sizes = true;
	}
	f.kernel_head = btf__find_by_name_kind(btf, "bpf_bprm_read_argv", BTF_KIND_FUNC) > 0;
	f.compat = btf__find_by_name_kind(btf, "__ia32_compat_sys_execve", BTF_KIND_FUNC) > 0;
	btf__free(btf);
	return f;
}

static int leave_out(struct bpf_program *prog)
{
	int err = bpf_program__set_autoload(prog, false);

	if (err)
		log_error("failed to leave out %s: %s", bpf_program__name(prog), strerror(-err));
	return err;
}

/*
 * Load only the programs this kernel runs: the kernel-head ones where it
 * has the kfunc, the compat exits where it has 32-bit execs.
 */
static int choose_programs(struct argguard_bpf *skel, const struct kernel_features *kernel)
{
	struct bpf_program *unused;
	int err = 0;

	for (int pin = NR_MAP_PINS; pin < NR_PINS && !err; pin++) {
		unused = unused_program_of(skel, pin, kernel->kernel_head);
		if (unused)
			err = leave_out(unused);
	}
	if (!kernel->compat && !err)
		err = leave_out(skel->progs.argguard_compat_execve_exit);
	if (!kernel->compat && !err)
		err = leave_out(skel->progs.argguard_compat_execveat_exit);
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

/*
 * The link pinned at pin, if it runs the very program prog (same tag):
 * a restart after a crash or a stop keeps enforcing through it. NULL if
 * there is none, or it runs another build.
 */
static struct bpf_link *adopt_pinned(struct bpf_program *prog, const char *pin)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	__u8 ours[BPF_TAG_SIZE], theirs[BPF_TAG_SIZE];
	struct bpf_link *link;
	int prog_fd;
	bool same;

	if (access(pin, F_OK))
		return NULL; /* a fresh start */
	link = bpf_link__open(pin);
	if (!link)
		return NULL;
	if (bpf_obj_get_info_by_fd(bpf_link__fd(link), &info, &len))
		goto mismatch;
	prog_fd = bpf_prog_get_fd_by_id(info.prog_id);
	if (prog_fd < 0)
		goto mismatch;
	same = !prog_tag(prog_fd, theirs) && !prog_tag(bpf_program__fd(prog), ours) &&
	       !memcmp(ours, theirs, BPF_TAG_SIZE);
	close(prog_fd);
	if (same)
		return link;
mismatch:
	bpf_link__destroy(link);
	return NULL;
}

/*
 * Adopt the pinned link if it runs this program (and may: not over maps
 * made afresh, which an adopted program would not see). Otherwise attach,
 * then swap the pin: the previous link, if any, detaches only when its pin
 * goes, by which time this one is enforcing. No exec slips by.
 */
static int attach_and_pin(struct bpf_program *prog, struct bpf_link **out, enum pin name,
			  bool may_adopt)
{
	struct bpf_link *link;
	char pin[128];
	int err;

	pin_path(name, pin, sizeof(pin));
	link = may_adopt ? adopt_pinned(prog, pin) : NULL;
	if (link) {
		*out = link;
		log_info("adopted the pinned %s", pin);
		return 0;
	}
	link = bpf_program__attach(prog);
	if (!link) {
		err = -errno;
		log_error("failed to attach %s: %s", bpf_program__name(prog), strerror(-err));
		return err;
	}
	*out = link;
	if (unlink(pin) && errno != ENOENT) {
		err = -errno;
		log_error("failed to replace %s: %s", pin, strerror(-err));
		return err;
	}
	err = bpf_link__pin(link, pin);
	if (err)
		log_error("failed to pin %s: %s", pin, strerror(-err));
	return err;
}

/* Each program of the pin table, attached or adopted, and its link pinned. */
static int attach_all(struct argguard_bpf *skel, bool kernel_head, bool may_adopt)
{
	for (int pin = NR_MAP_PINS; pin < NR_PINS; pin++) {
		struct bpf_program *prog = program_of(skel, pin, kernel_head);
		int err;

		if (!bpf_program__autoload(prog))
			continue; /* not for this kernel */
		err = attach_and_pin(prog, link_of(skel, pin, kernel_head), pin, may_adopt);
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
 * Pins left by a build whose maps differ (an upgrade that changed a map's
 * layout, within one boot): the load could not reuse them and would fail,
 * leaving no daemon. Unpin every map then, so that the load makes them all
 * afresh and the daemon applies the policy file; the old build's links
 * keep enforcing, with its maps, until this build's links replace them.
 * Returns whether the pins were dropped.
 */
static bool drop_map_pins_that_do_not_fit(const struct argguard_bpf *skel)
{
	char path[128];
	int pin;

	for (pin = 0; pin < NR_MAP_PINS; pin++) {
		pin_path(pin, path, sizeof(path));
		if (!pin_fits(map_of(skel, pin), path))
			break;
	}
	if (pin == NR_MAP_PINS)
		return false;
	log_notice("%s was pinned by a build whose maps differ from this one's (an upgrade?): "
		   "making all maps afresh, and applying the policy file",
		   path);
	for (pin = 0; pin < NR_MAP_PINS; pin++) {
		pin_path(pin, path, sizeof(path));
		if (unlink(path) && errno != ENOENT)
			log_error("failed to remove %s: %s", path, strerror(errno));
	}
	return true;
}

struct programs *programs_start(bool *earlier_pins)
{
	struct kernel_features kernel = kernel_features();
	struct argguard_bpf *skel;
	bool fresh_maps;
	struct programs *p;
	char config_pin[128];
	int err;

	if (ensure_pin_dir())
		return NULL;
	warn_if_unprivileged_bpf();
	pin_path(PIN_CONFIG, config_pin, sizeof(config_pin));
	*earlier_pins = access(config_pin, F_OK) == 0;
	skel = argguard_bpf__open();
	if (!skel) {
		log_error("failed to open the BPF object: %s", strerror(errno));
		return NULL;
	}
	fresh_maps = *earlier_pins && drop_map_pins_that_do_not_fit(skel);
	if (fresh_maps)
		*earlier_pins = false;
	err = set_pin_paths(skel);
	if (!err)
		err = choose_programs(skel, &kernel);
	if (err)
		goto out_destroy;
	err = argguard_bpf__load(skel);
	if (err) {
		log_error("failed to load the BPF programs: %s", strerror(-err));
		goto out_destroy;
	}
	if (!kernel.exact_sizes)
		log_notice("this kernel lacks argguard's exec patches: argv/envp sizes are "
			   "derived from their total, and argc == 0 cannot be seen, so "
			   "empty_argv rules never match");
	if (!kernel.kernel_head)
		log_notice("this kernel lets no BPF program read the argv an exec copied "
			   "(bpf_bprm_read_argv): records read argv_head from the caller's "
			   "memory, which another of its threads can rewrite (head_source "
			   "\"caller\")");
	err = attach_all(skel, kernel.kernel_head, !fresh_maps);
	if (err)
		goto out_destroy;
	p = malloc(sizeof(*p));
	if (!p) {
		log_error("failed to start the BPF programs: %s", strerror(ENOMEM));
		goto out_destroy;
	}
	p->skel = skel;
	return p;
out_destroy:
	argguard_bpf__destroy(skel);
	return NULL;
}

int programs_map_fd(const struct programs *p, enum pin pin)
{
	return bpf_map__fd(map_of(p->skel, pin));
}

void programs_close(struct programs *p)
{
	if (!p)
		return;
	/* Closing our link fds leaves the pinned links, and enforcement, in place. */
	argguard_bpf__destroy(p->skel);
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

	if (strncmp(name, "link", 4))
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
