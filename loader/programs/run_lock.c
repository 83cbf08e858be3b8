// SPDX-License-Identifier: GPL-2.0
/* One argguard run at a time: the run lock (run_lock.h). */
#include "run_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "log.h"

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

bool run_lock_held(void)
{
	int fd = open(ARGGUARD_RUN_LOCK, O_RDONLY | O_CLOEXEC);
	bool held;

	if (fd < 0)
		return false;
	held = flock(fd, LOCK_EX | LOCK_NB) != 0;
	close(fd);
	return held;
}
