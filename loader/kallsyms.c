// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* memmem(), memrchr() */
#include "kallsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (64 * 1024)
#define MAX_NAME 128

/* The line in buf[0, len) that ends with " NAME\n", for needle " NAME\n". */
static const char *find_line(const char *buf, size_t len, const char *needle, size_t n)
{
	const char *hit = memmem(buf, len, needle, n);

	if (!hit)
		return NULL;
	while (hit > buf && hit[-1] != '\n')
		hit--;
	return hit;
}

static int parse_address(const char *line, uint64_t *address)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(line, &end, 16);
	if (errno || end == line || *end != ' ')
		return -ENOENT; /* not a kallsyms line after all */
	*address = v;
	return v ? 0 : -EACCES;
}

int kallsyms_address(const char *path, const char *name, uint64_t *address)
{
	char needle[MAX_NAME + 3], *buf;
	const char *line, *last_nl;
	size_t n, have = 0;
	ssize_t got;
	int fd, err = -ENOENT;

	n = strlen(name);
	if (!n || n > MAX_NAME)
		return -EINVAL;
	needle[0] = ' ';
	memcpy(needle + 1, name, n);
	needle[n + 1] = '\n';
	n += 2;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(2 * CHUNK + 1); /* a partial line kept, a chunk read, a newline added */
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		got = read(fd, buf + have, CHUNK);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			err = -errno;
			break;
		}
		have += got;
		if (!got && have && buf[have - 1] != '\n')
			buf[have++] = '\n'; /* a last line without its newline */
		line = find_line(buf, have, needle, n);
		if (line) {
			err = parse_address(line, address);
			break;
		}
		if (!got)
			break;
		/* Keep the partial last line: the name may end in the next read. */
		last_nl = memrchr(buf, '\n', have);
		if (last_nl) {
			have -= last_nl + 1 - buf;
			memmove(buf, last_nl + 1, have);
		} else if (have >= CHUNK) {
			have = 0; /* a line this long is no kallsyms line */
		}
	}
	free(buf);
	close(fd);
	return err;
}
