/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trees of directories for the unit tests that walk one, made and removed
 * by descriptors: their paths may pass PATH_MAX.
 */
#ifndef ARGGUARD_TEST_TREE_H
#define ARGGUARD_TEST_TREE_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TREE_MAX_LEVELS 64
#define TREE_DEEP_LEVELS 17
#define TREE_DEEP_NAME 250
#define TREE_BRANCH_LEVELS 16
/* The directories tree_make_deep() makes, and room for its longest path. */
#define TREE_DEEP_DIRS (TREE_DEEP_LEVELS + 2 * (1 + TREE_BRANCH_LEVELS))
#define TREE_DEEP_LEN (TREE_DEEP_LEVELS * (TREE_DEEP_NAME + 1) + 2 + 2 * TREE_BRANCH_LEVELS + 1)

/* Make the directories of rel ("/a/b") under root, one at a time: rel may pass PATH_MAX. */
static bool tree_make(const char *root, const char *rel)
{
	char *copy = strdup(rel), *name, *save = NULL;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), next;

	if (!copy) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	for (name = strtok_r(copy, "/", &save); name && fd >= 0;
	     name = strtok_r(NULL, "/", &save)) {
		if (mkdirat(fd, name, 0755) && errno != EEXIST)
			break;
		next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = next;
	}
	free(copy);
	if (fd < 0)
		return false;
	close(fd);
	return !name;
}

/* The first entry of the directory fd but "." and "..", in name; false if none. */
static bool tree_first_entry(int fd, char *name, size_t len)
{
	int again = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* from the start */
	DIR *d = again >= 0 ? fdopendir(again) : NULL;
	struct dirent *de;

	if (!d) {
		if (again >= 0)
			close(again);
		return false;
	}
	while ((de = readdir(d)) && (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")))
		;
	if (de)
		snprintf(name, len, "%s", de->d_name);
	closedir(d);
	return de != NULL;
}

/* Remove the tree at root, deepest first, by descriptors: its paths may pass PATH_MAX. */
static void tree_remove(const char *root)
{
	static char names[TREE_MAX_LEVELS][NAME_MAX + 1];
	int fds[TREE_MAX_LEVELS];
	size_t depth = 0;
	char name[NAME_MAX + 1];

	fds[0] = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fds[0] < 0)
		return;
	for (;;) {
		if (!tree_first_entry(fds[depth], name, sizeof(name))) {
			close(fds[depth]);
			if (!depth)
				break;
			depth--;
			unlinkat(fds[depth], names[depth + 1], AT_REMOVEDIR);
			continue;
		}
		if (!unlinkat(fds[depth], name, 0))
			continue;
		if (depth + 1 == TREE_MAX_LEVELS)
			break;
		fds[depth + 1] =
			openat(fds[depth], name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fds[depth + 1] < 0)
			break;
		depth++;
		snprintf(names[depth], sizeof(names[depth]), "%s", name);
	}
	while (depth && fds[depth] >= 0)
		close(fds[depth--]);
	rmdir(root);
}

/*
 * The tree of issue 38 under root, as any user can make it in a delegated
 * subtree: 17 levels of 250-byte names, then two branches, /x and /y, each
 * 16 levels of /c deep. glibc's nftw(), given 16 descriptors, closes the
 * 17th level's stream on its way down one branch, then stats the other by
 * its full path, past PATH_MAX: ENAMETOOLONG. bottom gets the path of /y's
 * deepest directory, relative to root (TREE_DEEP_LEN bytes).
 */
static bool tree_make_deep(const char *root, char *bottom)
{
	size_t at = 0;
	bool made;

	for (int i = 0; i < TREE_DEEP_LEVELS; i++) {
		bottom[at++] = '/';
		memset(bottom + at, 'a' + i, TREE_DEEP_NAME);
		at += TREE_DEEP_NAME;
	}
	strcpy(bottom + at, "/x");
	for (int i = 0; i < TREE_BRANCH_LEVELS; i++)
		strcat(bottom + at, "/c");
	made = tree_make(root, bottom);
	bottom[at + 1] = 'y';
	return made && tree_make(root, bottom);
}

#endif /* ARGGUARD_TEST_TREE_H */
