// SPDX-License-Identifier: GPL-2.0
/*
 * fill_cgroup_ids fill SET     fill the pinned cgroup_ids map with ids no cgroup has
 * fill_cgroup_ids empty        take them out again
 *
 * What thousands of cgroups that a pattern matches leave behind, without
 * making them: a guest would take minutes to make 16,384 cgroups. The ids are
 * at FAKE_ID and up, far past any a boot gives out, under SET's mark's key.
 * fill prints how many it added before the map said E2BIG, and fails if it
 * never did. Run as root, inside the guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "argguard.h"

#define PIN "/sys/fs/bpf/argguard/cgroup_ids"
#define FAKE_ID (1ULL << 62)

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static int map_fd(void)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (unsigned long)PIN;
	fd = (int)sys_bpf(BPF_OBJ_GET, &attr);
	if (fd < 0) {
		fprintf(stderr, "fill_cgroup_ids: failed to open %s: %s\n", PIN, strerror(errno));
		exit(1);
	}
	return fd;
}

static long map_op(int cmd, int fd, const void *key, const void *value)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = (unsigned long)key;
	attr.value = (unsigned long)value;
	attr.flags = cmd == BPF_MAP_UPDATE_ELEM ? BPF_NOEXIST : 0;
	return sys_bpf(cmd, &attr);
}

static int fill(int fd, __u32 set)
{
	struct argguard_cgroup_id_key id = { .set = set, .cgroup_id = FAKE_ID };
	struct argguard_cgroup_key key = { .set = set };
	unsigned long added = 0;

	/* Any key: an id whose key has no rule ends an exec's walk, but no exec is in one. */
	while (!map_op(BPF_MAP_UPDATE_ELEM, fd, &id, &key)) {
		added++;
		id.cgroup_id++;
	}
	if (errno != E2BIG) {
		fprintf(stderr, "fill_cgroup_ids: update failed after %lu: %s\n", added,
			strerror(errno));
		return 1;
	}
	printf("%lu\n", added);
	return 0;
}

/* fill adds its ids one after the other from FAKE_ID: so many come out again. */
static int empty(int fd)
{
	struct argguard_cgroup_id_key id = {};

	for (id.set = 0; id.set < 2; id.set++)
		for (id.cgroup_id = FAKE_ID; !map_op(BPF_MAP_DELETE_ELEM, fd, &id, NULL);
		     id.cgroup_id++)
			;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "fill"))
		return fill(map_fd(), (__u32)strtoul(argv[2], NULL, 0));
	if (argc == 2 && !strcmp(argv[1], "empty"))
		return empty(map_fd());
	fprintf(stderr, "usage: fill_cgroup_ids fill SET | empty\n");
	return 2;
}
