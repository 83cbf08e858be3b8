// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup_walk() over trees of plain directories in /tmp: the paths it
 * gives, the tree of issue 38 that glibc's nftw() could not walk (17
 * levels of 250-byte names, then a branch), subtrees it cannot open,
 * symlinks, and a callback that stops the walk.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup_walk.h"
#include "check.h"
#include "log.h"
#include "tree.h"

#define MAX_SEEN 64
#define WARNING_LEN 8192

/* What a walk gave its callback; the call to answer with stop_with, if any. */
struct seen {
	size_t n;
	char *paths[MAX_SEEN];
	ino_t inos[MAX_SEEN];
	size_t stop_at;
	int stop_with;
};

static int collect(const char *path, ino_t ino, void *data)
{
	struct seen *s = data;

	if (s->n == MAX_SEEN)
		return -ENOSPC;
	s->paths[s->n] = strdup(path);
	s->inos[s->n] = ino;
	return ++s->n == s->stop_at ? s->stop_with : 0;
}

static bool seen(const struct seen *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->paths[i] && !strcmp(s->paths[i], path))
			return true;
	return false;
}

static void forget(struct seen *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->paths[i]);
	memset(s, 0, sizeof(*s));
}

/* Walk root into s; warning gets the first warning or error logged, quietly. */
static int walk(const char *root, size_t max_len, struct seen *s, char *warning)
{
	struct log_capture c;
	int ret;

	log_capture_start(&c, LOG_WARNING, warning, WARNING_LEN, true);
	ret = cgroup_walk(root, max_len, collect, s);
	log_capture_stop(&c);
	return ret;
}

/* The lowest descriptor free now: a walk that closes what it opens leaves it free. */
static int lowest_free_fd(void)
{
	int fd = dup(STDIN_FILENO), lowest = fd;

	if (fd >= 0)
		close(fd);
	return lowest;
}

static void walk_gives_each_directory_its_relative_path(void)
{
	static const char *const dirs[] = { "/", "/a", "/a/b", "/a/b/c", "/d" };
	char root[] = "/tmp/argguard-walk.XXXXXX", full[PATH_MAX], warning[WARNING_LEN];
	struct seen s = { 0 };
	struct stat st;
	int fd, ret, free_fd = lowest_free_fd();

	CHECK(mkdtemp(root) != NULL, "a tree of our own");
	tree_make(root, "/a/b/c");
	tree_make(root, "/d");
	snprintf(full, sizeof(full), "%s/a/file", root);
	fd = open(full, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	ret = walk(root, 254, &s, warning);
	CHECK(ret == 0, "the walk succeeds (%d)", ret);
	CHECK(s.n == 5, "five directories walked, the file not (%zu walked)", s.n);
	for (size_t i = 0; i < 5; i++) {
		snprintf(full, sizeof(full), "%s%s", root, dirs[i]);
		CHECK(seen(&s, dirs[i]), "%s is walked", dirs[i]);
		for (size_t j = 0; j < s.n; j++)
			if (!strcmp(s.paths[j], dirs[i]))
				CHECK(!stat(full, &st) && st.st_ino == s.inos[j],
				      "%s is given its own inode number", dirs[i]);
	}
	CHECK(!strcmp(s.paths[0], "/"), "the root comes first, as \"/\" (%s)", s.paths[0]);
	CHECK(!warning[0], "no warning for a tree it can walk: %s", warning);
	CHECK(lowest_free_fd() == free_fd, "every descriptor the walk opened is closed");
	forget(&s);
	tree_remove(root);
}

/*
 * The tree of issue 38 (tree.h), which nftw() fails on. Elsewhere, a path
 * of 254 bytes and one of 255.
 */
static void deep_tree_does_not_fail_the_walk(void)
{
	char root[] = "/tmp/argguard-walk.XXXXXX", warning[WARNING_LEN], name[256];
	char bottom[TREE_DEEP_LEN], at_limit[256], past_limit[257];
	struct seen s = { 0 };
	int ret, free_fd = lowest_free_fd();

	CHECK(mkdtemp(root) != NULL, "a tree of our own");
	memset(name, 'x', sizeof(name));
	snprintf(at_limit, sizeof(at_limit), "/long/%.248s", name);
	snprintf(past_limit, sizeof(past_limit), "/long/%.249s", name);
	CHECK(tree_make_deep(root, bottom) && tree_make(root, "/system.slice/docker-a.scope") &&
		      tree_make(root, at_limit) && tree_make(root, past_limit),
	      "the tree is made: %zu bytes deep", strlen(bottom));

	ret = walk(root, 254, &s, warning);
	CHECK(ret == 0, "a walk to 254 bytes succeeds (%d)", ret);
	CHECK(seen(&s, "/system.slice/docker-a.scope") && seen(&s, at_limit),
	      "it walks every directory within 254 bytes elsewhere in the tree");
	CHECK(!seen(&s, past_limit), "not one of 255 bytes");
	CHECK(s.n == 6,
	      "/, the deep tree's first level, /system.slice and one below, /long and one "
	      "below (%zu walked)",
	      s.n);
	CHECK(!warning[0], "and warns of nothing: %s", warning);
	forget(&s);

	ret = walk(root, 2 * PATH_MAX, &s, warning);
	CHECK(ret == 0, "a walk to 2 * PATH_MAX bytes succeeds too (%d)", ret);
	CHECK(seen(&s, bottom) && s.n == 1 + TREE_DEEP_DIRS + 5,
	      "it walks both branches, to %zu bytes deep, and all else (%zu walked)",
	      strlen(bottom), s.n);
	CHECK(!warning[0], "and warns of nothing: %s", warning);
	CHECK(lowest_free_fd() == free_fd, "every descriptor the walk opened is closed");
	forget(&s);
	tree_remove(root);
}

/*
 * A branch deeper than the descriptors left: the directory it cannot open
 * is a warning that names it, and the walk goes on elsewhere.
 */
static void subtree_it_cannot_open_is_a_warning(void)
{
	char root[] = "/tmp/argguard-walk.XXXXXX", warning[WARNING_LEN], below[128];
	const char *last = NULL;
	struct rlimit saved, low;
	struct seen s = { 0 };
	size_t deepest = 0;
	int ret;

	CHECK(mkdtemp(root) != NULL, "a tree of our own");
	tree_make(root, "/a");
	tree_make(root, "/deep/1/2/3/4/5/6/7/8/9/10/11/12");
	tree_make(root, "/z");
	CHECK(!getrlimit(RLIMIT_NOFILE, &saved), "the descriptor limit is read");
	/* The root, /deep and a few below it: never the whole branch. */
	low = saved;
	low.rlim_cur = (rlim_t)lowest_free_fd() + 6;
	CHECK(!setrlimit(RLIMIT_NOFILE, &low), "the descriptor limit is lowered to %llu",
	      (unsigned long long)low.rlim_cur);
	ret = walk(root, 254, &s, warning);
	setrlimit(RLIMIT_NOFILE, &saved);
	CHECK(ret == 0, "the walk succeeds (%d)", ret);
	CHECK(seen(&s, "/a") && seen(&s, "/z"), "it walks both short branches");
	CHECK(!seen(&s, "/deep/1/2/3/4/5/6/7/8/9/10/11/12"), "not the bottom of the deep one");
	for (size_t i = 0; i < s.n; i++) {
		if (!strncmp(s.paths[i], "/deep", 5) && strlen(s.paths[i]) > deepest) {
			deepest = strlen(s.paths[i]);
			last = s.paths[i];
		}
	}
	/* The one below the deepest walked: "/deep/1" below "/deep", "/deep/1/2" below "/deep/1". */
	if (last && strcmp(last, "/deep"))
		snprintf(below, sizeof(below), "%s%s/%d", root, last,
			 (int)strtol(strrchr(last, '/') + 1, NULL, 10) + 1);
	else
		snprintf(below, sizeof(below), "%s/deep/1", root);
	CHECK(strstr(warning, "failed to open") && strstr(warning, below) &&
		      strstr(warning, strerror(EMFILE)),
	      "the warning names %s: %s", below, warning);
	forget(&s);
	tree_remove(root);
}

/* As root, mode 000 keeps nothing out: the descriptor limit test covers that case then. */
static void unreadable_subtree_is_a_warning(void)
{
	char root[] = "/tmp/argguard-walk.XXXXXX", locked[64], warning[WARNING_LEN];
	struct seen s = { 0 };
	int ret;

	if (!geteuid()) {
		printf("ok %d - # SKIP as root, mode 000 keeps nothing out\n", ++check_count);
		return;
	}
	CHECK(mkdtemp(root) != NULL, "a tree of our own");
	tree_make(root, "/a");
	tree_make(root, "/locked/in");
	tree_make(root, "/z");
	snprintf(locked, sizeof(locked), "%s/locked", root);
	CHECK(!chmod(locked, 0), "%s is made mode 000", locked);
	ret = walk(root, 254, &s, warning);
	chmod(locked, 0755);
	CHECK(ret == 0, "the walk succeeds (%d)", ret);
	CHECK(seen(&s, "/a") && seen(&s, "/z") && !seen(&s, "/locked/in"),
	      "it walks all but what is below /locked");
	CHECK(strstr(warning, locked) && strstr(warning, strerror(EACCES)),
	      "the warning names %s: %s", locked, warning);
	forget(&s);
	tree_remove(root);
}

static void symlink_to_a_directory_is_not_followed(void)
{
	char root[] = "/tmp/argguard-walk.XXXXXX", link[64], warning[WARNING_LEN];
	struct seen s = { 0 };
	int ret;

	CHECK(mkdtemp(root) != NULL, "a tree of our own");
	tree_make(root, "/real/inside");
	snprintf(link, sizeof(link), "%s/link", root);
	CHECK(!symlink("real", link), "%s points to real", link);
	ret = walk(root, 254, &s, warning);
	CHECK(ret == 0 && seen(&s, "/real/inside"), "the walk succeeds (%d)", ret);
	CHECK(!seen(&s, "/link") && !seen(&s, "/link/inside") && s.n == 3,
	      "the symlink is not walked, nor what it points to by it (%zu walked)", s.n);
	CHECK(!warning[0], "and warns of nothing: %s", warning);
	forget(&s);
	tree_remove(root);
}

static void callback_stops_the_walk(void)
{
	char root[] = "/tmp/argguard-walk.XXXXXX", warning[WARNING_LEN];
	struct seen s = { .stop_at = 3, .stop_with = -EIO };
	int ret, free_fd = lowest_free_fd();

	CHECK(mkdtemp(root) != NULL, "a tree of our own");
	tree_make(root, "/a/b/c");
	tree_make(root, "/d/e/f");
	ret = walk(root, 254, &s, warning);
	CHECK(ret == -EIO && s.n == 3,
	      "the callback's error stops the walk and is returned (%d, %zu walked)", ret, s.n);
	CHECK(lowest_free_fd() == free_fd, "every descriptor the walk opened is closed");
	forget(&s);
	s.stop_at = 2;
	s.stop_with = 1;
	ret = walk(root, 254, &s, warning);
	CHECK(ret == 1 && s.n == 2, "so does a positive value (%d, %zu walked)", ret, s.n);
	forget(&s);
	s.stop_at = 1;
	s.stop_with = 1;
	ret = walk(root, 254, &s, warning);
	CHECK(ret == 1 && s.n == 1 && !strcmp(s.paths[0], "/"), "at the root too (%d, %zu walked)",
	      ret, s.n);
	CHECK(lowest_free_fd() == free_fd, "every descriptor the walk opened is closed");
	forget(&s);
	tree_remove(root);
}

static void root_it_cannot_open_fails_the_walk(void)
{
	char warning[WARNING_LEN];
	struct seen s = { 0 };
	int ret = walk("/tmp/argguard-walk-none/nothing", 254, &s, warning);

	CHECK(ret == -ENOENT && s.n == 0, "a missing root fails the walk with -ENOENT (%d)", ret);
	CHECK(strstr(warning, "/tmp/argguard-walk-none/nothing") != NULL,
	      "and the error names it: %s", warning);
}

int main(void)
{
	walk_gives_each_directory_its_relative_path();
	deep_tree_does_not_fail_the_walk();
	subtree_it_cannot_open_is_a_warning();
	unreadable_subtree_is_a_warning();
	symlink_to_a_directory_is_not_followed();
	callback_stops_the_walk();
	root_it_cannot_open_fails_the_walk();
	return check_done();
}
