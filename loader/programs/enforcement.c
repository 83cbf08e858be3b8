// SPDX-License-Identifier: GPL-2.0
/*
 * Proof that enforcement is live, before the daemon says so: the bpf LSM is
 * one of the kernel's active LSMs, and an exec marked as the probe is
 * denied by argguard's own program.
 */
#define _GNU_SOURCE /* pipe2() */
#include "enforcement.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "log.h"

#define LSM_LIST "/sys/kernel/security/lsm"

static int read_lsm_list(char *buf, size_t len)
{
	FILE *f = fopen(LSM_LIST, "re");

	/* systemd mounts securityfs early; mount it here if no one has. */
	if (!f && errno == ENOENT &&
	    !mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL))
		f = fopen(LSM_LIST, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Whether the comma-separated list holds name as one of its items. */
static bool list_has(const char *list, const char *name)
{
	size_t n = strlen(name), len;

	for (const char *p = list;; p += len + 1) {
		len = strcspn(p, ",");
		if (len == n && !strncmp(p, name, n))
			return true;
		if (!p[len])
			return false;
	}
}

int bpf_lsm_check(void)
{
	char list[512] = "";
	int err = read_lsm_list(list, sizeof(list));

	if (err) {
		log_error("cannot read %s (%s): is securityfs mounted?", LSM_LIST, strerror(-err));
		return err;
	}
	if (list_has(list, "bpf"))
		return 0;
	log_error("the bpf LSM is not active, so argguard's programs would never run: %s lists "
		  "'%s'. Add bpf to the kernel command line, as lsm=%s%sbpf (on Debian: in "
		  "GRUB_CMDLINE_LINUX in /etc/default/grub, then update-grub), and reboot",
		  LSM_LIST, list, list, list[0] ? "," : "");
	return -EOPNOTSUPP;
}

static int set_probe(int probe_fd, __u32 tgid, __u32 *was)
{
	struct argguard_probe probe = { .tgid = tgid };
	__u32 zero = 0;

	if (was && bpf_map_lookup_elem(probe_fd, &zero, &probe))
		return -errno;
	if (was)
		*was = probe.tgid;
	probe.tgid = tgid;
	return bpf_map_update_elem(probe_fd, &zero, &probe, BPF_ANY) ? -errno : 0;
}

/*
 * The probe child: wait for the go-ahead, then exec our own binary (harmless
 * if it runs: it prints its version to /dev/null). Its exit status is the
 * errno the exec failed with, or the program's own status if it ran.
 */
static void run_probe_child(int go)
{
	char *const argv[] = { "argguard", "--version", NULL };
	char c;
	int null = open("/dev/null", O_WRONLY);

	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	if (read(go, &c, 1) != 1)
		_exit(127);
	execv("/proc/self/exe", argv);
	_exit(errno);
}

int probe_enforcement(int probe_fd)
{
	int go[2], status, err;
	__u32 left = 1;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC)) {
		log_error("failed to make a pipe: %s", strerror(errno));
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		err = -errno;
		log_error("failed to fork the probe: %s", strerror(-err));
		close(go[0]);
		close(go[1]);
		return err;
	}
	if (pid == 0) {
		close(go[1]);
		run_probe_child(go[0]);
	}
	close(go[0]);
	err = set_probe(probe_fd, pid, NULL);
	if (!err && write(go[1], "x", 1) != 1)
		err = -errno;
	close(go[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (set_probe(probe_fd, 0, &left) && !err)
		err = -errno;
	if (err) {
		log_error("failed to mark the probe in the probe map: %s", strerror(-err));
		return err;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == EPERM && left == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		log_error("the probe exec ran although argguard's program must deny it: the LSM "
			  "hook is not enforcing");
	else
		log_error("the probe exec ended with status %d (wanted EPERM from argguard)",
			  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return -EOPNOTSUPP;
}
