// SPDX-License-Identifier: GPL-2.0
/*
 * argv_rewrite FILE ORIGINAL REWRITTEN PAD_BYTES: exec FILE with the
 * arguments ORIGINAL and PAD_BYTES bytes of padding, and hold the exec at
 * its first read of FILE with a fanotify permission event: after the kernel
 * copied argv, before any LSM reads it. While it is held, another thread
 * overwrites ORIGINAL in this process's memory with REWRITTEN (the same
 * length). The read, not the open: 6.12's execve() opens FILE before it
 * copies argv (6.1's after), so a hold at the open would come too early.
 *
 * Exits with the errno the exec failed with, 125 on a setup failure; a
 * successful exec runs FILE. Needs CAP_SYS_ADMIN for fanotify.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

static int fan;
static char *original;
static const char *rewritten;

/* Rewrite the argument while the exec waits, then let the exec go on. */
static void *rewrite_then_allow(void *unused)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
	struct fanotify_event_metadata *m = (struct fanotify_event_metadata *)buf;
	ssize_t n = read(fan, buf, sizeof(buf));

	(void)unused;
	for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
		struct fanotify_response allow = { .fd = m->fd, .response = FAN_ALLOW };

		for (size_t i = 0; rewritten[i]; i++) /* same length: original keeps its NUL */
			original[i] = rewritten[i];
		if (write(fan, &allow, sizeof(allow)) != sizeof(allow))
			perror("argv_rewrite: fanotify response");
		close(m->fd);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char *padding, *args[4];
	pthread_t thread;
	size_t pad;

	if (argc != 5 || strlen(argv[2]) != strlen(argv[3])) {
		fprintf(stderr, "usage: argv_rewrite FILE ORIGINAL REWRITTEN PAD_BYTES "
				"(ORIGINAL and REWRITTEN of one length)\n");
		return 125;
	}
	rewritten = argv[3];
	pad = strtoul(argv[4], NULL, 0);
	original = strdup(argv[2]);
	padding = malloc(pad + 1);
	if (!original || !padding)
		return 125;
	memset(padding, 'p', pad);
	padding[pad] = '\0';
	fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
	if (fan < 0 || fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS_PERM, AT_FDCWD, argv[1])) {
		perror("argv_rewrite: fanotify");
		free(padding);
		return 125;
	}
	if (pthread_create(&thread, NULL, rewrite_then_allow, NULL)) {
		free(padding);
		return 125;
	}
	args[0] = argv[1];
	args[1] = original;
	args[2] = padding;
	args[3] = NULL;
	execv(argv[1], args);
	return errno;
}
