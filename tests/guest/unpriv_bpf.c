// SPDX-License-Identifier: GPL-2.0
/*
 * unpriv_bpf                      create an array map, load a socket filter
 * unpriv_bpf pin PATH ro|wo       open a pinned object to read or to write
 * unpriv_bpf map|prog|link ID     open an object by id
 *
 * The bpf() calls an ordinary user would try, made directly so that the
 * errno is the kernel's own. Prints "allowed" if the call works, else the
 * errno name (such as EPERM or EACCES) and exits 1. Run inside the guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static int outcome(long ret)
{
	if (ret < 0) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	puts("allowed");
	return 0;
}

static long create_and_load(void)
{
	struct bpf_insn prog[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	if (sys_bpf(BPF_MAP_CREATE, &attr) < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (unsigned long)prog;
	attr.insn_cnt = sizeof(prog) / sizeof(prog[0]);
	attr.license = (unsigned long)"GPL";
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

static long open_pin(const char *path, const char *mode)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (unsigned long)path;
	attr.file_flags = !strcmp(mode, "ro") ? BPF_F_RDONLY : BPF_F_WRONLY;
	return sys_bpf(BPF_OBJ_GET, &attr);
}

static long open_id(const char *kind, const char *id)
{
	union bpf_attr attr;
	int cmd;

	memset(&attr, 0, sizeof(attr));
	attr.map_id = strtoul(id, NULL, 0); /* the same field for every kind */
	if (!strcmp(kind, "map"))
		cmd = BPF_MAP_GET_FD_BY_ID;
	else if (!strcmp(kind, "prog"))
		cmd = BPF_PROG_GET_FD_BY_ID;
	else
		cmd = BPF_LINK_GET_FD_BY_ID;
	return sys_bpf(cmd, &attr);
}

int main(int argc, char **argv)
{
	if (argc == 1)
		return outcome(create_and_load());
	if (argc == 4 && !strcmp(argv[1], "pin"))
		return outcome(open_pin(argv[2], argv[3]));
	if (argc == 3 &&
	    (!strcmp(argv[1], "map") || !strcmp(argv[1], "prog") || !strcmp(argv[1], "link")))
		return outcome(open_id(argv[1], argv[2]));
	fprintf(stderr, "usage: unpriv_bpf [pin PATH ro|wo | map|prog|link ID]\n");
	return 2;
}
