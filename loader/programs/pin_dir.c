// SPDX-License-Identifier: GPL-2.0
/*
 * The pin directory on bpffs (pin_dir.h): made at a start, tidied after a
 * start that was killed while pinning, and emptied by argguard unload.
 */
#include "pin_dir.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/magic.h>

#include "log.h"
#include "run_lock.h"

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

int pin_dir_unload(void)
{
	if (run_lock_held()) {
		log_error("argguard run is live; stop it first (systemctl stop argguard): "
			  "its programs stay attached while it runs");
		return -EBUSY;
	}
	return pin_dir_remove();
}
