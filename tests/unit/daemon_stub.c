// SPDX-License-Identifier: GPL-2.0
/*
 * run and unload for argguard_cli, argguard's command line built without a
 * kernel: daemon.c needs the BPF skeleton, which needs the guest kernel's
 * BTF. The CLI tests (tests/cli.sh) and the help/man sync test only print
 * help and usage errors and never get here; a test that does fails.
 */
#include <stdio.h>

#include "daemon.h"

int run_daemon(const struct run_opts *opts)
{
	(void)opts;
	fputs("argguard_cli: run needs the BPF object: this build has none\n", stderr);
	return 99;
}

int unload(void)
{
	fputs("argguard_cli: unload is not in this build\n", stderr);
	return 99;
}
