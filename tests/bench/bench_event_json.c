// SPDX-License-Identifier: GPL-2.0
/*
 * bench_event_json [N]
 *
 * Host microbenchmark of the daemon's record formatting: turn N synthetic
 * struct argguard_event records into JSON lines with event_to_json(), for
 * three kinds of record, and print one line per kind: its name, records per
 * second (CLOCK_MONOTONIC) and the mean line length in bytes. Pure
 * userspace; asserts nothing about speed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "event_json.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Lay out argc NUL-terminated arguments of arg_len bytes each in the head. */
static void fill_head(struct argguard_event *e, unsigned int argc, size_t arg_len, char fill)
{
	size_t off = 0;

	for (unsigned int i = 0; i < argc && off + arg_len + 1 <= ARGGUARD_HEAD_DEFAULT; i++) {
		memset(e->head + off, fill, arg_len);
		e->head[off + arg_len] = '\0';
		off += arg_len + 1;
	}
	e->head_len = off;
}

static struct argguard_event base(void)
{
	struct argguard_event e = {
		.ktime_ns = 123456789012ULL,
		.argv_bytes = 4194304,
		.envp_bytes = 2048,
		.total_bytes = 4194304 + 2048,
		.limit = 1048576,
		.rule_id = 0,
		.cgroup_id = 4242,
		.verdict = ARGGUARD_VERDICT_DENY,
		.scope = ARGGUARD_SCOPE_GLOBAL,
		.limit_kind = ARGGUARD_LIMIT_TOTAL_BYTES,
		.flags = ARGGUARD_EV_EXACT_SIZES,
		.pid = 31337,
		.ppid = 1,
		.uid = 1000,
		.euid = 1000,
		.gid = 1000,
		.argc = 33,
		.envc = 12,
		.orig_argc = 33,
		.err = E2BIG,
	};

	strcpy(e.comm, "bash");
	strcpy(e.filename, "/usr/bin/x86_64-linux-gnu-gcc-12");
	return e;
}

static void run(const char *name, const struct argguard_event *e, unsigned long n)
{
	size_t bytes = 0;
	double start, secs;

	start = now();
	for (unsigned long i = 0; i < n; i++) {
		char *line = event_to_json(e, 1700000000000000000LL);

		if (!line) {
			fprintf(stderr,
				"bench_event_json: failed to format a record: out of memory\n");
			exit(1);
		}
		bytes += strlen(line);
		free(line);
	}
	secs = now() - start;
	printf("%s\t%.0f\t%zu\n", name, n / secs, bytes / n);
}

int main(int argc, char **argv)
{
	struct argguard_event deny = base(), kernel = base(), hex = base();
	unsigned long n = 200000;
	char *end;

	if (argc > 2 || (argc == 2 && ((n = strtoul(argv[1], &end, 0)) == 0 || *end))) {
		fprintf(stderr, "usage: bench_event_json [N]\n");
		return 2;
	}
	/* A denial with a full 256-byte head of short ASCII arguments. */
	fill_head(&deny, 64, 7, 'a');
	deny.flags |= ARGGUARD_EV_HEAD_TRUNCATED;
	/* A kernel refusal: sizes unknown, a short head. */
	kernel.verdict = ARGGUARD_VERDICT_KERNEL_REFUSED;
	kernel.scope = ARGGUARD_SCOPE_KERNEL;
	kernel.limit_kind = ARGGUARD_LIMIT_KERNEL;
	kernel.flags = 0;
	kernel.argc = kernel.envc = kernel.orig_argc = -1;
	fill_head(&kernel, 2, 8, 'b');
	/* A head that is not UTF-8 goes out as hex. */
	fill_head(&hex, 16, 15, '\xff');
	run("deny_256B_head", &deny, n);
	run("kernel_refused", &kernel, n);
	run("deny_hex_head", &hex, n);
	return 0;
}
