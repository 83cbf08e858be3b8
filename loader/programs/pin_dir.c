// SPDX-License-Identifier: GPL-2.0
/*
 * The pin directory on bpffs (pin_dir.h): made at a start, tidied after a
 * start that was killed while pinning, and emptied by argguard unload; the
 * run lock; and what a pinned link runs.
 */
#include "pin_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
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

#include "argguard.build_id.h"
#include "argguard.skel.h"
#include "log.h"
#include "names.h"

int pin_dir_make(void)
{
	struct statfs fs;

	if (statfs("/sys/fs/bpf", &fs) || fs.f_type != BPF_FS_MAGIC) {
		if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700")) {
			log_error("failed to mount bpffs on /sys/fs/bpf: %s", strerror(errno));
			return -errno;
		}
	}
	if (mkdir(ARGGUARD_PIN_DIR, 0700) && errno != EEXIST) {
		log_error("failed to create %s: %s", ARGGUARD_PIN_DIR, strerror(errno));
		return -errno;
	}
	return 0;
}

void pin_swap_path(enum pin pin, char *path, size_t len)
{
	snprintf(path, len, "%s/" SWAP_PREFIX "%s", ARGGUARD_PIN_DIR, pin_file(pin));
}

void pin_dir_finish_swaps(void)
{
	char pin[128], next[136];

	for (int name = NR_MAP_PINS; name < NR_PINS; name++) {
		pin_path(name, pin, sizeof(pin));
		pin_swap_path(name, next, sizeof(next));
		if (access(next, F_OK))
			continue;
		if (access(pin, F_OK) ? rename(next, pin) : unlink(next))
			log_error("failed to tidy up %s: %s", next, strerror(errno));
		else
			log_notice("an earlier start was killed while pinning %s: tidied up", pin);
	}
}

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

int pin_dir_remove(void)
{
	DIR *dir = opendir(ARGGUARD_PIN_DIR);
	unsigned int removed = 0, nr_progs = 0, left;
	__u32 prog_ids[NR_LINK_PINS], id;
	struct dirent *d;
	int err = 0;

	if (!dir && errno != ENOENT) {
		log_error("failed to open %s: %s", ARGGUARD_PIN_DIR, strerror(errno));
		return -errno;
	}
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		id = pinned_link_prog_id(dirfd(dir), d->d_name);
		if (unlinkat(dirfd(dir), d->d_name, 0)) {
			log_error("failed to remove %s/%s: %s", ARGGUARD_PIN_DIR, d->d_name,
				  strerror(errno));
			err = -errno;
			continue;
		}
		if (id && nr_progs < NR_LINK_PINS)
			prog_ids[nr_progs++] = id;
		removed++;
	}
	if (dir)
		closedir(dir);
	if (!err && rmdir(ARGGUARD_PIN_DIR) && errno != ENOENT) {
		log_error("failed to remove %s: %s", ARGGUARD_PIN_DIR, strerror(errno));
		err = -errno;
	}
	left = wait_detached(prog_ids, nr_progs);
	if (left) {
		log_error("removed the pins, but %u of argguard's programs still run after %d s: "
			  "another process holds their links (bpftool link show)",
			  left, DETACH_WAIT_STEPS / 100);
		err = -EBUSY;
	}
	if (!err)
		printf("argguard: unloaded: removed %u pins and %s; nothing enforces now\n",
		       removed, ARGGUARD_PIN_DIR);
	return err;
}

/* Whether another process holds the run lock: an argguard run is live. */
static bool run_lock_held(void)
{
	int fd = open(ARGGUARD_RUN_LOCK, O_RDONLY | O_CLOEXEC);
	bool held;

	if (fd < 0)
		return false;
	held = flock(fd, LOCK_EX | LOCK_NB) != 0;
	close(fd);
	return held;
}

int pin_dir_unload(void)
{
	if (run_lock_held()) {
		log_error("argguard run is live; stop it first (systemctl stop argguard): "
			  "its programs stay attached while it runs");
		return -EBUSY;
	}
	return pin_dir_remove();
}

/* One argguard run at a time: the run lock. */
int run_lock_take(void)
{
	int fd = open(ARGGUARD_RUN_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	char pid[32] = "";
	int err;

	if (fd < 0) {
		log_error("failed to open %s: %s", ARGGUARD_RUN_LOCK, strerror(errno));
		return -errno;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = -errno;
		if (read(fd, pid, sizeof(pid) - 1) < 0)
			pid[0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		log_error("another argguard run is live (pid %s); stop it first (systemctl stop "
			  "argguard)",
			  pid[0] ? pid : "unknown");
		close(fd);
		return err;
	}
	if (ftruncate(fd, 0) == 0)
		dprintf(fd, "%d\n", getpid());
	return fd; /* left open: the lock goes with the process */
}

/* What a pinned link runs, and which build loaded it. */
int prog_tag(int fd, __u8 tag[BPF_TAG_SIZE])
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	memcpy(tag, info.tag, BPF_TAG_SIZE);
	return 0;
}

int pinned_prog_read(enum pin pin, struct pinned_prog *pp)
{
	struct bpf_link_info link = {};
	struct bpf_prog_info info = {};
	__u32 len = sizeof(link);
	int link_fd, prog_fd = -1, err = -ENOENT;
	char path[128];

	pin_path(pin, path, sizeof(path));
	link_fd = bpf_obj_get(path);
	if (link_fd < 0)
		return -errno;
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
 * info; -ENOENT if none of them has one that holds at least value_size bytes.
 */
static int pinned_prog_open_map(const struct pinned_prog *progs, unsigned int n, const char *name,
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
	return -ENOENT;
}

/* What the load of pp's program recorded in its .rodata: the build id and the features. */
static int read_build(const struct pinned_prog *pp, __u64 *id, __u32 *features)
{
	struct argguard_bpf__rodata *rodata;
	struct bpf_map_info info;
	__u32 zero = 0;
	int fd, err = -ENOENT;

	fd = pinned_prog_open_map(pp, 1, RODATA_MAP_NAME, sizeof(*rodata), &info);
	if (fd < 0)
		return fd;
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

bool pinned_by_this_build(struct pinned_prog *pp, __u32 *features)
{
	__u64 id;

	return !pinned_prog_read(PIN_LINK_BPRM_CHECK, pp) && !read_build(pp, &id, features) &&
	       id == ARGGUARD_BUILD_ID;
}

bool pinned_progs_use_map(const struct pinned_prog *progs, unsigned int n, __u32 map_id)
{
	for (unsigned int i = 0; i < n; i++)
		for (__u32 j = 0; j < progs[i].nr_map_ids; j++)
			if (progs[i].map_ids[j] == map_id)
				return true;
	return false;
}
