// SPDX-License-Identifier: GPL-2.0
#include "log_ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "log.h"

struct log_ledger *log_ledger_open(const char *path, uint64_t *unsettled)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	struct log_ledger *l = MAP_FAILED;
	uint64_t settled;

	*unsettled = 0;
	if (fd >= 0 && !ftruncate(fd, sizeof(*l)))
		l = mmap(NULL, sizeof(*l), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (l == MAP_FAILED) {
		log_error("failed to map %s: %s; records a crash loses will go uncounted", path,
			  strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	close(fd);
	settled = l->written + l->counted;
	if (l->carried + l->taken > settled) /* else nothing, or a file that does not add up */
		*unsettled = l->carried + l->taken - settled;
	*l = (struct log_ledger){ .carried = *unsettled };
	return l;
}

void log_ledger_took(struct log_ledger *l, uint64_t records)
{
	if (l)
		__atomic_fetch_add(&l->taken, records, __ATOMIC_RELAXED);
}

void log_ledger_wrote(struct log_ledger *l, uint64_t records, uint64_t counted_lost)
{
	if (!l)
		return;
	__atomic_fetch_add(&l->written, records, __ATOMIC_RELAXED);
	__atomic_fetch_add(&l->counted, counted_lost, __ATOMIC_RELAXED);
}

void log_ledger_close(struct log_ledger *l)
{
	if (l)
		munmap(l, sizeof(*l));
}
