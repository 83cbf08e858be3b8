/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The container a cgroup path names, read from the layouts that container
 * runtimes give their cgroups under systemd (and Docker's and Kubernetes'
 * cgroupfs drivers). A path in no known layout names no container: nothing
 * is guessed.
 */
#ifndef ARGGUARD_CONTAINER_H
#define ARGGUARD_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>

#define CONTAINER_ID_MAX 64 /* a runtime's hex id; a machine's name is cut there */
#define POD_UID_LEN 36 /* a Kubernetes pod's uid: 8-4-4-4-12 hex digits */

struct container {
	/* "docker", "podman", "containerd", "cri-o", "cri" (a cgroupfs driver's pod), "systemd-nspawn" */
	const char *runtime;
	char id[CONTAINER_ID_MAX + 1];
	char pod_uid[POD_UID_LEN + 1]; /* "" outside a Kubernetes pod */
	/* Below a user's own systemd instance (user@UID.service): rootless podman. */
	bool rootless;
	/*
	 * A container below this one, named by whoever runs this one (docker in
	 * docker, podman in docker): their claim, not the host's. The deepest
	 * such; nested_runtime NULL if none.
	 */
	const char *nested_runtime;
	char nested_id[CONTAINER_ID_MAX + 1];
	/* How much of the path names the container's own cgroup, the outermost one's. */
	size_t cgroup_len;
};

/*
 * The container whose cgroup path (as the record gives it, from the cgroup
 * root) is path, in *c; false if path is in no known layout. That is the
 * outermost container of the path: its runtime made its cgroup, and whoever
 * runs the container names the cgroups below, so a container further down
 * is only their claim, kept apart in c->nested_*. A user may name cgroups
 * in the subtree systemd delegates to them: there only rootless podman's
 * layout counts, and *c says rootless.
 */
bool container_from_cgroup(const char *path, struct container *c);

#endif /* ARGGUARD_CONTAINER_H */
