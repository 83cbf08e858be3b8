// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* nftw() */
#include "cgroup.h"

#include <ftw.h>
#include <stdlib.h>
#include <string.h>

/* nftw() has no user pointer: the cgroup being looked for. */
static __thread struct {
	uint64_t id;
	size_t root_len;
	char *found;
} search;

static int match_cgroup(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_D || st->st_ino != search.id)
		return 0;
	search.found = strdup(path[search.root_len] ? path + search.root_len : "/");
	return 1;
}

char *cgroup_path(const char *root, uint64_t id)
{
	search.id = id;
	search.root_len = strlen(root);
	search.found = NULL;
	nftw(root, match_cgroup, 16, FTW_PHYS | FTW_MOUNT);
	return search.found;
}
