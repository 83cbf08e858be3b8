// SPDX-License-Identifier: GPL-2.0
/*
 * exec_storm N BYTES
 *
 * Call execve("/bin/true") N times from one process with BYTES of argument
 * strings, each of which the policy must refuse. Prints how many failed
 * with E2BIG. If one is allowed, /bin/true replaces this process and the
 * count never prints: the caller sees the shortfall.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char *envp[] = { NULL };
	unsigned long n, bytes, refused = 0;
	char *args[3] = { "/bin/true" };

	if (argc != 3) {
		fprintf(stderr, "usage: exec_storm N BYTES\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 0);
	bytes = strtoul(argv[2], NULL, 0);
	if (!n || bytes <= sizeof("/bin/true") || bytes > 128 * 1024) {
		fprintf(stderr, "exec_storm: bad N or BYTES\n");
		return 2;
	}
	bytes -= sizeof("/bin/true"); /* argv[0] and its NUL */
	args[1] = malloc(bytes);
	if (!args[1])
		return 2;
	memset(args[1], 'x', bytes - 1);
	args[1][bytes - 1] = '\0';
	for (unsigned long i = 0; i < n; i++) {
		execve(args[0], args, envp);
		if (errno == E2BIG)
			refused++;
	}
	printf("%lu\n", refused);
	return refused == n ? 0 : 1;
}
