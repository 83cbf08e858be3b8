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

const char *cgroup_cache_path(struct cgroup_cache *c, uint64_t id)
{
	unsigned int slot;

	for (unsigned int i = 0; i < CGROUP_CACHE; i++) {
		if (c->entries[i].path && c->entries[i].id == id) {
			c->last = i;
			return c->entries[i].path;
		}
	}
	slot = c->next++ % CGROUP_CACHE;
	if (slot == c->last)
		slot = c->next++ % CGROUP_CACHE;
	free(c->entries[slot].path);
	c->entries[slot].id = id;
	c->entries[slot].path = cgroup_path(c->root, id);
	c->last = slot;
	return c->entries[slot].path;
}

void cgroup_cache_free(struct cgroup_cache *c)
{
	for (unsigned int i = 0; i < CGROUP_CACHE; i++) {
		free(c->entries[i].path);
		c->entries[i].path = NULL;
	}
}
