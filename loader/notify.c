// SPDX-License-Identifier: GPL-2.0
#include "notify.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int notify(const char *fmt, ...)
{
	const char *where = getenv("NOTIFY_SOCKET");
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	socklen_t addr_len;
	char state[512];
	va_list ap;
	int fd, n, err = 0;

	if (!where || !*where)
		return 0;
	/* A path, or an abstract name written with a leading '@'. */
	if ((where[0] != '/' && where[0] != '@') || strlen(where) >= sizeof(addr.sun_path))
		return -EINVAL;
	memcpy(addr.sun_path, where, strlen(where));
	if (where[0] == '@')
		addr.sun_path[0] = '\0';
	addr_len = offsetof(struct sockaddr_un, sun_path) + strlen(where);
	va_start(ap, fmt);
	n = vsnprintf(state, sizeof(state), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(state))
		return -EMSGSIZE;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (sendto(fd, state, n, MSG_NOSIGNAL, (struct sockaddr *)&addr, addr_len) < 0)
		err = -errno;
	close(fd);
	return err;
}
