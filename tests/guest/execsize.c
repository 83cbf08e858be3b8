// SPDX-License-Identifier: GPL-2.0
/*
 * execsize [--memfd] [--fill TEXT] ARGV_BYTES ENVP_BYTES PROGRAM [ARGC]
 *
 * Exec PROGRAM with argument strings totalling exactly ARGV_BYTES and
 * environment strings totalling exactly ENVP_BYTES, NULs included, as the
 * kernel counts them. argv[0] is PROGRAM; the rest is filler. With ARGC,
 * the bytes are spread over exactly that many arguments. ARGV_BYTES 0 means
 * an empty argv (argc == 0). If the exec fails, print the errno name (such
 * as E2BIG) and exit 1. With --memfd, PROGRAM is copied into a memfd and
 * run from there with execveat(AT_EMPTY_PATH): a fileless exec. With
 * --fill, every filler string, argument or environment, starts with TEXT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ARG_STRLEN (32 * 4096) /* the kernel's cap on one string, NUL included */

static unsigned long parse(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || end == s) {
		fprintf(stderr, "execsize: invalid %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

/* Split bytes into count strings of at most MAX_ARG_STRLEN, prefix first. */
static char **fill(char **vec, unsigned long bytes, unsigned long count, const char *prefix)
{
	for (unsigned long i = 0; i < count; i++) {
		unsigned long size = bytes / count + (i < bytes % count);
		char *s;

		if (size < strlen(prefix) + 1 || size > MAX_ARG_STRLEN) {
			fprintf(stderr, "execsize: cannot make %lu strings of %lu bytes\n", count,
				bytes);
			exit(2);
		}
		s = malloc(size);
		if (!s) {
			perror("execsize: malloc");
			exit(2);
		}
		memset(s, 'a', size - 1);
		memcpy(s, prefix, strlen(prefix));
		s[size - 1] = '\0';
		vec[i] = s;
	}
	vec[count] = NULL;
	return vec;
}

/* A memfd holding a copy of program, or exit. */
static int memfd_copy(const char *program)
{
	int in = open(program, O_RDONLY | O_CLOEXEC), fd = memfd_create("execsize", MFD_CLOEXEC);
	struct stat st;

	if (in < 0 || fd < 0 || fstat(in, &st) ||
	    sendfile(fd, in, NULL, st.st_size) != st.st_size) {
		perror("execsize: copying the program into a memfd");
		exit(2);
	}
	close(in);
	return fd;
}

int main(int argc, char **argv)
{
	unsigned long argv_bytes, envp_bytes, nargs, nenvs, first;
	const char *program, *arg_fill = "", *env_fill = "E=";
	char **args, **envs;
	bool memfd = false;

	/* Options come first; argv[0] ends up on the last one, unused. */
	while (argc > 1 && !strncmp(argv[1], "--", 2)) {
		if (!strcmp(argv[1], "--memfd")) {
			memfd = true;
		} else if (!strcmp(argv[1], "--fill") && argc > 2) {
			arg_fill = env_fill = argv[2];
			argc--, argv++;
		} else {
			fprintf(stderr, "execsize: bad option '%s'\n", argv[1]);
			return 2;
		}
		argc--, argv++;
	}
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: execsize [--memfd] [--fill TEXT] "
				"ARGV_BYTES ENVP_BYTES PROGRAM [ARGC]\n");
		return 2;
	}
	argv_bytes = parse(argv[1], "ARGV_BYTES");
	envp_bytes = parse(argv[2], "ENVP_BYTES");
	program = argv[3];
	first = argv_bytes ? strlen(program) + 1 : 0;
	if (argv_bytes < first) {
		fprintf(stderr, "execsize: ARGV_BYTES must cover argv[0] (%lu bytes)\n", first);
		return 2;
	}
	argv_bytes -= first;
	if (!first)
		nargs = 0;
	else if (argc == 5)
		nargs = parse(argv[4], "ARGC") - 1;
	else
		nargs = (argv_bytes + MAX_ARG_STRLEN - 1) / MAX_ARG_STRLEN;
	nenvs = (envp_bytes + MAX_ARG_STRLEN - 1) / MAX_ARG_STRLEN;

	args = calloc(nargs + 2, sizeof(*args));
	envs = calloc(nenvs + 1, sizeof(*envs));
	if (!args || !envs) {
		perror("execsize: calloc");
		return 2;
	}
	if (first) {
		args[0] = (char *)program;
		fill(args + 1, argv_bytes, nargs, arg_fill);
	}
	fill(envs, envp_bytes, nenvs, env_fill);
	if (memfd)
		execveat(memfd_copy(program), "", args, envs, AT_EMPTY_PATH);
	else
		execve(program, args, envs);
	printf("%s\n", strerrorname_np(errno));
	return 1;
}
