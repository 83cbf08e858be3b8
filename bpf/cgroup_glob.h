/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cgroup path against a cgroup rule's pattern, one step at a time: the
 * cgroup_mkdir program (cgroup_index.bpf.c) takes the steps in bpf_loop(),
 * the loader in a plain loop (cgroup_pattern.c). Both strings are NUL-terminated within
 * ARGGUARD_CGROUP_PATH_LEN bytes; every index is masked to stay inside them.
 *
 * In a pattern, '*' matches any run of bytes but '/', within one path
 * component; a component that is "**" matches whole components: "**" then
 * '/' (in the middle) any number of them, none too; "**" at the end one or
 * more. Every other byte matches itself. The pattern has passed
 * cgroup_pattern_check(), so no other component holds "**".
 *
 * The walk is greedy: each '*' first takes nothing, and on a mismatch the
 * last '*' takes one more byte, or if it cannot (a '/', the end), the last
 * "**" one more component. As a '*' stays in its component and a "**" ends
 * on a component boundary, the last of each is the only one worth moving.
 */
#ifndef ARGGUARD_CGROUP_GLOB_H
#define ARGGUARD_CGROUP_GLOB_H

#ifndef __always_inline /* the loader's build */
#define __always_inline inline __attribute__((always_inline))
#endif

#define CGROUP_GLOB_MASK (ARGGUARD_CGROUP_PATH_LEN - 1)

/* Most steps a match of a pattern and a path that fit the maps takes. */
#define CGROUP_GLOB_MAX_STEPS (1U << 17)

struct cgroup_glob {
	__u32 p; /* the next pattern byte */
	__u32 s; /* the next path byte */
	__u32 star_p; /* the last '*': the pattern byte after it */
	__u32 star_s; /* and where its bytes end in the path */
	__u32 dstar_p; /* the last "**" in the middle: the pattern byte after its '/' */
	__u32 dstar_s; /* and where its components end in the path */
	__u8 star; /* there is a last '*' to move */
	__u8 dstar; /* there is a last "**" to move */
	__u8 skipping; /* the "**" is taking one more component: up to its '/' */
	__u8 pad;
};

/* One step: 0 for more, 1 if path matches, -1 if it does not. */
static __always_inline int cgroup_glob_step(struct cgroup_glob *g, const char *pat,
					    const char *path)
{
	char pc = pat[g->p & CGROUP_GLOB_MASK], sc = path[g->s & CGROUP_GLOB_MASK], c;

	if (g->p >= ARGGUARD_CGROUP_PATH_LEN || g->s >= ARGGUARD_CGROUP_PATH_LEN)
		return -1;
	if (g->skipping) {
		c = path[g->dstar_s & CGROUP_GLOB_MASK];
		if (!c || g->dstar_s >= ARGGUARD_CGROUP_PATH_LEN)
			return -1;
		g->dstar_s++;
		if (c == '/') {
			g->skipping = 0;
			g->s = g->dstar_s;
			g->p = g->dstar_p;
		}
		return 0;
	}
	if (pc == '*' && pat[(g->p + 1) & CGROUP_GLOB_MASK] == '*' &&
	    (g->p == 0 || pat[(g->p - 1) & CGROUP_GLOB_MASK] == '/')) {
		if (!pat[(g->p + 2) & CGROUP_GLOB_MASK])
			return sc ? 1 : -1; /* "**" at the end: one component or more */
		g->dstar = 1;
		g->star = 0; /* what came before is placed for good */
		g->p += 3;
		g->dstar_p = g->p;
		g->dstar_s = g->s;
		return 0;
	}
	if (pc == '*') {
		g->star = 1;
		g->p++;
		g->star_p = g->p;
		g->star_s = g->s;
		return 0;
	}
	if (pc && pc == sc) {
		g->p++;
		g->s++;
		return 0;
	}
	if (!pc && !sc)
		return 1;
	if (g->star) {
		c = path[g->star_s & CGROUP_GLOB_MASK];
		if (c && c != '/') {
			g->star_s++;
			g->s = g->star_s;
			g->p = g->star_p;
			return 0;
		}
		g->star = 0;
	}
	if (g->dstar) {
		g->skipping = 1;
		return 0;
	}
	return -1;
}

#endif /* ARGGUARD_CGROUP_GLOB_H */
