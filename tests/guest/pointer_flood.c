// SPDX-License-Identifier: GPL-2.0
/*
 * pointer_flood N [argv|envp]
 *
 * Exec /bin/true with N pointers to "" as its argv (or envp), built from one
 * 256 KiB memfd chunk of pointers mapped over and over: 2^28 pointers take
 * 2 GiB of address space and almost no memory. Prints the errno name and
 * the seconds execve() took, CLOCK_MONOTONIC.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define CHUNK_BYTES (256 * 1024UL)
#define CHUNK_PTRS (CHUNK_BYTES / sizeof(char *))

static const char empty[] = "";

static char **flood(unsigned long n)
{
	unsigned long chunks = (n + 1 + CHUNK_PTRS - 1) / CHUNK_PTRS;
	char **chunk, **ptrs;
	int fd = memfd_create("pointer_flood", 0);

	if (fd < 0 || ftruncate(fd, CHUNK_BYTES))
		return NULL;
	chunk = mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ptrs = mmap(NULL, chunks * CHUNK_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (chunk == MAP_FAILED || ptrs == MAP_FAILED)
		return NULL;
	for (unsigned long i = 0; i < CHUNK_PTRS; i++)
		chunk[i] = (char *)empty;
	for (unsigned long c = 0; c < chunks; c++) {
		/* The last chunk is private: its NULL must not show in the others. */
		int flags = MAP_FIXED | (c == chunks - 1 ? MAP_PRIVATE : MAP_SHARED);

		if (mmap((char *)ptrs + c * CHUNK_BYTES, CHUNK_BYTES, PROT_READ | PROT_WRITE, flags,
			 fd, 0) == MAP_FAILED)
			return NULL;
	}
	ptrs[n] = NULL;
	close(fd);
	return ptrs;
}

int main(int argc, char **argv)
{
	static char *none[] = { NULL };
	static char *one[] = { "true", NULL };
	struct timespec t0, t1;
	unsigned long n;
	char *end, **ptrs;
	int in_envp;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: pointer_flood N [argv|envp]\n");
		return 2;
	}
	errno = 0;
	n = strtoul(argv[1], &end, 0);
	if (errno || *end || !n) {
		fprintf(stderr, "pointer_flood: invalid N '%s'\n", argv[1]);
		return 2;
	}
	in_envp = argc == 3 && !strcmp(argv[2], "envp");
	ptrs = flood(n);
	if (!ptrs) {
		perror("pointer_flood: cannot map the flood");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	execve("/bin/true", in_envp ? one : ptrs, in_envp ? ptrs : none);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%s %.6f\n", strerrorname_np(errno),
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 1;
}
