// SPDX-License-Identifier: GPL-2.0
/*
 * exec_storm N BYTES
 *
 * Call execve("/bin/true") N times (N of 0: until SIGTERM) from one process
 * with BYTES of argument strings (at most 4 MiB, in strings of at most
 * 128 KiB), each of which the policy must refuse. Prints how many failed
 * with E2BIG, and exits 0 if every one did. If one is allowed, /bin/true
 * replaces this process and the count never prints: the caller sees the
 * shortfall.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ARG_STRLEN (128 * 1024) /* the kernel's, NUL included: PAGE_SIZE * 32 */
#define MAX_BYTES (4UL << 20)

static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

int main(int argc, char **argv)
{
	static char *envp[] = { NULL };
	struct sigaction term = { .sa_handler = on_term };
	unsigned long n, bytes, refused = 0, nargs, i;
	char *args[2 + MAX_BYTES / MAX_ARG_STRLEN] = { "/bin/true" };

	if (argc != 3) {
		fprintf(stderr, "usage: exec_storm N BYTES\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 0);
	bytes = strtoul(argv[2], NULL, 0);
	if (bytes <= sizeof("/bin/true") || bytes > MAX_BYTES) {
		fprintf(stderr, "exec_storm: bad N or BYTES\n");
		return 2;
	}
	bytes -= sizeof("/bin/true"); /* argv[0] and its NUL */
	for (nargs = 1; bytes; nargs++) {
		size_t len = bytes < MAX_ARG_STRLEN ? bytes : MAX_ARG_STRLEN; /* NUL included */

		args[nargs] = malloc(len);
		if (!args[nargs])
			return 2;
		memset(args[nargs], 'x', len - 1);
		args[nargs][len - 1] = '\0';
		bytes -= len;
	}
	sigaction(SIGTERM, &term, NULL);
	for (i = 0; (!n || i < n) && !stopping; i++) {
		execve(args[0], args, envp);
		if (errno == E2BIG)
			refused++;
	}
	printf("%lu\n", refused);
	return refused == i ? 0 : 1;
}
