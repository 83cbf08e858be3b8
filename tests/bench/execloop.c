// SPDX-License-Identifier: GPL-2.0
/*
 * execloop [--no-fork] N BYTES PROGRAM
 *
 * Fork N children one after another; each execs PROGRAM with an empty
 * environment and, when BYTES is not 0, one extra argument that brings the
 * argument strings to BYTES, NULs included, as the kernel counts them. A
 * child whose exec fails exits with 100 + errno. Prints, on one line: N,
 * how many execs ran, how many were refused with E2BIG, the seconds the loop
 * took (CLOCK_MONOTONIC) and execs per second. Exits 1 if any child did
 * something else.
 *
 * --no-fork: call execve() N times from this process, as fast as one
 * process can, for execs the policy refuses. An exec that is allowed
 * replaces this process, and nothing is printed.
 *
 * Run under "setarch -R", the loop keeps one address-space layout from run
 * to run, so a fork costs the same in every round; its children still exec
 * with address randomization on, as any program would.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARG_STRLEN (32 * 4096)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parse(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 0);
	return errno || end == s || *end || *out > max ? -1 : 0;
}

int main(int argc, char **argv)
{
	static char *envp[] = { NULL };
	unsigned long n, bytes, ran = 0, refused = 0, other = 0;
	char *args[3] = { NULL };
	double start, secs;
	int no_fork = argc > 1 && !strcmp(argv[1], "--no-fork");

	argc -= no_fork;
	argv += no_fork;
	if (argc != 4 || parse(argv[1], 1UL << 30, &n) || !n ||
	    parse(argv[2], MAX_ARG_STRLEN, &bytes)) {
		fprintf(stderr,
			"usage: execloop [--no-fork] N BYTES PROGRAM (N >= 1, BYTES <= %d)\n",
			MAX_ARG_STRLEN);
		return 2;
	}
	args[0] = argv[3];
	if (bytes) {
		size_t head = strlen(argv[3]) + 1;

		if (bytes <= head + 1) {
			fprintf(stderr, "execloop: BYTES must exceed %zu\n", head + 1);
			return 2;
		}
		args[1] = malloc(bytes - head);
		if (!args[1])
			return 2;
		memset(args[1], 'x', bytes - head - 1);
		args[1][bytes - head - 1] = '\0';
	}

	start = now();
	for (unsigned long i = 0; no_fork && i < n; i++) {
		execve(args[0], args, envp);
		if (errno == E2BIG)
			refused++;
		else
			other++;
	}
	for (unsigned long i = 0; !no_fork && i < n; i++) {
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			perror("execloop: fork");
			return 1;
		}
		if (pid == 0) {
			personality(personality(0xffffffff) & ~ADDR_NO_RANDOMIZE);
			execve(args[0], args, envp);
			_exit(100 + errno);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
			other++;
			continue;
		}
		if (WEXITSTATUS(status) == 0)
			ran++;
		else if (WEXITSTATUS(status) == 100 + E2BIG)
			refused++;
		else
			other++;
	}
	secs = now() - start;
	printf("%lu %lu %lu %.6f %.1f\n", n, ran, refused, secs, n / secs);
	return other ? 1 : 0;
}
