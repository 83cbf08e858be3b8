// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_ns PID: the CPU time process PID (all its threads) has used, in
 * nanoseconds, from its CPU-time clock (clock_getcpuclockid(3)): exact where
 * /proc/PID/stat counts in 10 ms ticks. The tick bench reads the daemon's
 * before and after a minute of metrics ticks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec ts;
	clockid_t clock;
	char *end;
	long pid;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: cpu_ns PID\n");
		return 2;
	}
	errno = 0;
	pid = strtol(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || pid <= 0) {
		fprintf(stderr, "cpu_ns: not a pid: %s\n", argv[1]);
		return 2;
	}
	err = clock_getcpuclockid((pid_t)pid, &clock);
	if (err || clock_gettime(clock, &ts)) {
		fprintf(stderr, "cpu_ns: %ld: %s\n", pid, strerror(err ? err : errno));
		return 1;
	}
	printf("%lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	return 0;
}
