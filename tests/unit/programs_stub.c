// SPDX-License-Identifier: GPL-2.0
/*
 * The program lifecycle for argguard_cli, argguard's command line built
 * without a kernel: programs.c and its kin (pin_dir.c, program_load.c)
 * need the BPF skeleton, which needs the guest kernel's BTF, or act on the
 * machine's bpffs. The CLI tests (tests/checks/cli.sh) and the help/man
 * sync test only print help and usage errors and never get here; a run or
 * an unload that does fails at its first step.
 */
#include <errno.h>
#include <stdio.h>

#include "pin_dir.h"
#include "programs.h"

int run_lock_take(void)
{
	fputs("argguard_cli: run needs the BPF object: this build has none\n", stderr);
	return -ENOENT;
}

struct programs *programs_start(bool *earlier_pins, int (*before_attach)(void))
{
	(void)before_attach;
	*earlier_pins = false;
	return NULL;
}

int programs_map_fd(const struct programs *p, enum pin pin)
{
	(void)p;
	(void)pin;
	return -1;
}

void programs_close(struct programs *p)
{
	(void)p;
}

bool programs_exact_sizes(const struct programs *p)
{
	(void)p;
	return false;
}

uint64_t programs_build_id(void)
{
	return 0;
}

int pin_dir_remove(void)
{
	return -ENOENT;
}

int pin_dir_unload(void)
{
	fputs("argguard_cli: unload is not in this build\n", stderr);
	return -ENOENT;
}
