/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ARGGUARD_CGROUP_WALK_H
#define ARGGUARD_CGROUP_WALK_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Called for each directory walked: its path relative to the root ("/" for
 * the root, "/a/b" below it) and its inode number (a cgroup's id). Return 0
 * to go on, a positive value to stop the walk there, or a negative errno to
 * fail it.
 */
typedef int (*cgroup_walk_fn)(const char *path, ino_t ino, void *data);

/*
 * Walk the directories under root, on root's file system only, each before
 * what is below it, without following symlinks. Only descriptors reach the
 * kernel (each directory is opened at its parent's), never a full path, so
 * no depth makes it fail. A directory whose relative path would be longer
 * than max_len bytes is left out, with all below it, which bounds the
 * descriptors held to max_len / 2 + 1; with SIZE_MAX, only the descriptors
 * a process may open bound the depth. A directory that cannot be opened or
 * read (EACCES, ENOENT, EMFILE...) is a warning naming it, and the walk
 * goes on without what is below it. Returns 0 once all is walked, fn's
 * positive value if it stopped the walk, fn's negative errno, or a negative
 * errno (logged) if root cannot be opened or read, or memory runs out.
 */
int cgroup_walk(const char *root, size_t max_len, cgroup_walk_fn fn, void *data);

#endif /* ARGGUARD_CGROUP_WALK_H */
