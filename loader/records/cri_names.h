/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A Kubernetes container's names (pod, namespace, container, image), as
 * containerd's CRI plugin writes them into the annotations of the
 * container's OCI bundle, read from local files only: root's containerd
 * keeps each task's bundle at CRI_TASKS_DIR/NAMESPACE/ID/config.json. Only
 * a bundle root's containerd keeps is read (each directory and the file
 * root's, and no group or other may write them), and only for a container
 * whose cgroup root made: a user's fake cgroup or bundle names nothing.
 */
#ifndef ARGGUARD_CRI_NAMES_H
#define ARGGUARD_CRI_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "container.h"

#define CRI_TASKS_DIR "/run/containerd/io.containerd.runtime.v2.task"
/* A bundle's config.json past this size is not read. */
#define CRI_BUNDLE_MAX (1U << 20)

/* Each NULL if the bundle does not say; bytes the pod's maker chose, NUL-free. */
struct cri_names {
	char *pod; /* io.kubernetes.cri.sandbox-name */
	char *namespace; /* io.kubernetes.cri.sandbox-namespace */
	char *name; /* io.kubernetes.cri.container-name */
	char *image; /* io.kubernetes.cri.image-name */
};

/* The names in a bundle's config.json text. 0, -EINVAL if it is not a JSON object, or -ENOMEM. */
int cri_names_parse(const char *text, size_t len, struct cri_names *n);

void cri_names_free(struct cri_names *n);

/*
 * The directory at path (absolute), opened one component at a time, never
 * through a symlink, each a directory of root's or owner's that no group or
 * other may write. A descriptor, or a negative errno (-EPERM: one is not
 * trusted so).
 */
int cri_open_trusted_dir(const char *path, uid_t owner);

/*
 * The names in the bundle of container id below tasks_fd (a containerd's
 * task directory: NAMESPACE/ID/config.json), each step trusted as
 * cri_open_trusted_dir() says and config.json a regular file of at most
 * CRI_BUNDLE_MAX bytes. 0 with *n set, or a negative errno: -ENOENT (no
 * such bundle), -EPERM (not trusted), -EFBIG, -EINVAL (not JSON).
 */
int cri_names_read(int tasks_fd, const char *id, uid_t owner, struct cri_names *n);

#define CRI_CACHE 16

/* The names of the containers seen last, by id: a container's names never change. */
struct cri_cache {
	const char *cgroup_root; /* the cgroup v2 mount */
	const char *tasks_dir; /* CRI_TASKS_DIR */
	uid_t owner; /* 0 */
	struct {
		char id[CONTAINER_ID_MAX + 1];
		bool found;
		struct cri_names names;
	} entries[CRI_CACHE]; /* replaced round robin */
	unsigned int next;
};

/*
 * The names of container c, whose caller's cgroup path (below cache's
 * cgroup root) is cgroup: NULL unless c is a CRI runtime's (containerd's,
 * or the cgroupfs driver's), root made its cgroup, and root's containerd
 * keeps its bundle. Valid until the next lookup.
 */
const struct cri_names *cri_cache_names(struct cri_cache *cache, const char *cgroup,
					const struct container *c);

void cri_cache_free(struct cri_cache *cache);

#endif /* ARGGUARD_CRI_NAMES_H */
