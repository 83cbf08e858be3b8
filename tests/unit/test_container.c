// SPDX-License-Identifier: GPL-2.0
/* container_from_cgroup(): each runtime's layout, and paths that only look like one. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "container.h"

#define ID "4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a"
#define ID2 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define POD "2c9a6b1e-7f3d-4a5b-9c8d-1e2f3a4b5c6d"
#define POD_ "2c9a6b1e_7f3d_4a5b_9c8d_1e2f3a4b5c6d"
#define USER "/user.slice/user-1000.slice/user@1000.service"

struct want {
	const char *path;
	const char *runtime; /* NULL: no container */
	const char *id;
	const char *pod_uid;
	bool rootless;
	const char *nested_runtime; /* NULL: no container below the outermost */
	const char *nested_id;
};

static const struct want cases[] = {
	{ "/system.slice/docker-" ID ".scope", "docker", ID, "", false, NULL, NULL },
	{ "/docker/" ID, "docker", ID, "", false, NULL, NULL },
	{ "/machine.slice/libpod-" ID ".scope", "podman", ID, "", false, NULL, NULL },
	{ "/machine.slice/libpod-" ID ".scope/container", "podman", ID, "", false, NULL, NULL },
	{ "/libpod_parent/libpod-" ID, "podman", ID, "", false, NULL,
	  NULL }, /* podman's cgroupfs manager */
	{ USER "/user.slice/libpod-" ID ".scope", "podman", ID, "", true, NULL, NULL },
	{ USER "/user.slice/libpod-" ID ".scope/container", "podman", ID, "", true, NULL, NULL },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_
	  ".slice/cri-containerd-" ID ".scope",
	  "containerd", ID, POD, false, NULL, NULL },
	{ "/kubepods.slice/kubepods-pod" POD_ ".slice/crio-" ID ".scope", "cri-o", ID, POD, false,
	  NULL, NULL },
	/* The kubelet's cgroupfs driver: which CRI runtime, its layout does not say. */
	{ "/kubepods/burstable/pod" POD "/" ID, "cri", ID, POD, false, NULL, NULL },
	{ "/kubepods/pod" POD "/" ID, "cri", ID, POD, false, NULL, NULL },
	{ "/kubepods/besteffort/pod" POD "/" ID "/sub", "cri", ID, POD, false, NULL, NULL },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" POD_
	  ".slice/docker-" ID ".scope",
	  "docker", ID, POD, false, NULL, NULL },
	{ "/machine.slice/machine-web\\x2d1.scope", "systemd-nspawn", "web-1", "", false, NULL,
	  NULL },
	{ "/machine.slice/machine-web\\x2d1.scope/payload/system.slice/cron.service",
	  "systemd-nspawn", "web-1", "", false, NULL, NULL },
	/*
	 * The outermost container is the exec's: its runtime made its cgroup.
	 * Below it, the container's owner names the cgroups, and a container
	 * recognised there is their claim, kept apart as the nested one.
	 */
	{ "/machine.slice/libpod-" ID ".scope/docker/" ID2, "podman", ID, "", false, "docker",
	  ID2 },
	/* docker in docker: the inner dockerd's cgroupfs driver, and its systemd one */
	{ "/system.slice/docker-" ID ".scope/docker/" ID2, "docker", ID, "", false, "docker", ID2 },
	{ "/system.slice/docker-" ID ".scope/system.slice/docker-" ID2 ".scope", "docker", ID, "",
	  false, "docker", ID2 },
	/* podman in docker, with podman's cgroupfs manager and its systemd one */
	{ "/system.slice/docker-" ID ".scope/libpod_parent/libpod-" ID2, "docker", ID, "", false,
	  "podman", ID2 },
	{ "/system.slice/docker-" ID ".scope/machine.slice/libpod-" ID2 ".scope/container",
	  "docker", ID, "", false, "podman", ID2 },
	/* Three deep: the nested claim is the deepest, the inner runtime's own view. */
	{ "/docker/" ID "/docker/" ID2 "/docker/" ID, "docker", ID, "", false, "docker", ID },
	/* A pod slice made inside a container is no pod of the host's. */
	{ "/system.slice/docker-" ID ".scope/kubepods.slice/kubepods-pod" POD_ ".slice/crio-" ID2
	  ".scope",
	  "docker", ID, "", false, "cri-o", ID2 },
	/* A pod's container, with docker inside it: the pod is the outer one's. */
	{ "/kubepods.slice/kubepods-pod" POD_ ".slice/cri-containerd-" ID ".scope/docker/" ID2,
	  "containerd", ID, POD, false, "docker", ID2 },
	/* Not a layout below the container: nothing nested. */
	{ "/system.slice/docker-" ID ".scope/system.slice/cron.service", "docker", ID, "", false,
	  NULL, NULL },

	/* No container: a runtime's own helpers, other layouts, near misses. */
	{ "/", NULL, NULL, NULL, false, NULL, NULL },
	{ "/system.slice/ssh.service", NULL, NULL, NULL, false, NULL, NULL },
	{ "/machine.slice/libpod-conmon-" ID ".scope", NULL, NULL, NULL, false, NULL, NULL },
	{ "/libpod_parent/conmon", NULL, NULL, NULL, false, NULL, NULL },
	{ "/system.slice/libpod-" ID, NULL, NULL, NULL, false, NULL, NULL },
	{ "/kubepods.slice/kubepods-pod" POD_ ".slice/crio-conmon-" ID ".scope", NULL, NULL, NULL,
	  false, NULL, NULL },
	/* A bare id right below a pod of the kubelet's cgroupfs driver only. */
	{ "/kubepods/burstable/pod" POD "/x/" ID, NULL, NULL, NULL, false, NULL, NULL },
	{ "/kubepods/" ID, NULL, NULL, NULL, false, NULL, NULL },
	{ "/system.slice/pod" POD "/" ID, NULL, NULL, NULL, false, NULL, NULL },
	{ "/kubepods.slice/kubepods-pod" POD_ ".slice/" ID, NULL, NULL, NULL, false, NULL, NULL },
	{ USER "/kubepods/pod" POD "/" ID, NULL, NULL, NULL, false, NULL, NULL },
	{ "/system.slice/docker-" ID ".scope.d", NULL, NULL, NULL, false, NULL, NULL },
	{ "/system.slice/docker-" ID "0.scope", NULL, NULL, NULL, false, NULL, NULL },
	{ "/system.slice/docker-4F1C2A9E8B7D6C5A4F1C2A9E8B7D6C5A4F1C2A9E8B7D6C5A4F1C2A9E8B7D6C5A"
	  ".scope",
	  NULL, NULL, NULL, false, NULL, NULL },
	{ "/machine.slice/machine-qemu\\x2d1\\x2dvm.scope", NULL, NULL, NULL, false, NULL,
	  NULL }, /* libvirt */
	{ "/machine.slice/machine-a\\x2fb.scope", NULL, NULL, NULL, false, NULL, NULL },
	{ "/machine.slice/machine-a\\x20b.scope", NULL, NULL, NULL, false, NULL, NULL },
	{ "/machine.slice/machine-a\"b.scope", NULL, NULL, NULL, false, NULL, NULL },
	{ "/system.slice/machine-web.scope", NULL, NULL, NULL, false, NULL, NULL },

	/* What a user names in their own subtree claims nothing but rootless podman. */
	{ USER "/docker-" ID ".scope", NULL, NULL, NULL, false, NULL, NULL },
	{ USER "/app.slice/cri-containerd-" ID ".scope", NULL, NULL, NULL, false, NULL, NULL },
	{ USER "/machine.slice/machine-web.scope", NULL, NULL, NULL, false, NULL, NULL },
	{ USER "/kubepods.slice/kubepods-pod" POD_ ".slice/libpod-" ID ".scope", "podman", ID, "",
	  true, NULL, NULL },
	/*
	 * The user's subtree is theirs to name: a fake docker scope there is
	 * nothing, even below (or above) their podman's container, and the
	 * first rootless podman container is the outermost, a claim of theirs
	 * that "rootless" marks.
	 */
	{ USER "/user.slice/docker-" ID ".scope/libpod-" ID2 ".scope", "podman", ID2, "", true,
	  NULL, NULL },
	{ USER "/user.slice/libpod-" ID ".scope/docker-" ID2 ".scope", "podman", ID, "", true, NULL,
	  NULL },
	{ USER "/user.slice/libpod-" ID ".scope/libpod-" ID2 ".scope", "podman", ID, "", true,
	  "podman", ID2 },
	/* A user's fake under the host's container is nested, and still only podman counts. */
	{ "/system.slice/docker-" ID ".scope" USER "/user.slice/docker-" ID2 ".scope", "docker", ID,
	  "", false, NULL, NULL },
	{ "/system.slice/docker-" ID ".scope" USER "/user.slice/libpod-" ID2 ".scope", "docker", ID,
	  "", false, "podman", ID2 },
};

static void check_case(const struct want *w)
{
	struct container c;
	bool found = container_from_cgroup(w->path, &c);

	if (!w->runtime) {
		CHECK(!found && !c.runtime, "%s: no container (got %s)", w->path,
		      c.runtime ? c.runtime : "none");
		return;
	}
	CHECK(found && c.runtime && !strcmp(c.runtime, w->runtime) && !strcmp(c.id, w->id) &&
		      !strcmp(c.pod_uid, w->pod_uid) && c.rootless == w->rootless,
	      "%s: %s %s pod '%s'%s (got %s %s pod '%s'%s)", w->path, w->runtime, w->id, w->pod_uid,
	      w->rootless ? " rootless" : "", c.runtime ? c.runtime : "none", c.id, c.pod_uid,
	      c.rootless ? " rootless" : "");
	if (!w->nested_runtime) {
		CHECK(!c.nested_runtime, "%s: nothing nested (got %s %s)", w->path,
		      c.nested_runtime ? c.nested_runtime : "none", c.nested_id);
		return;
	}
	CHECK(c.nested_runtime && !strcmp(c.nested_runtime, w->nested_runtime) &&
		      !strcmp(c.nested_id, w->nested_id),
	      "%s: nested %s %s (got %s %s)", w->path, w->nested_runtime, w->nested_id,
	      c.nested_runtime ? c.nested_runtime : "none", c.nested_id);
}

int main(void)
{
	struct container c;
	char name[200];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&cases[i]);
	CHECK(!container_from_cgroup(NULL, &c), "no path, no container");
	/* The container's own cgroup: where its runtime's part of the path ends. */
	strcpy(name, "/machine.slice/libpod-" ID ".scope/container");
	CHECK(container_from_cgroup(name, &c) &&
		      c.cgroup_len == strlen("/machine.slice/libpod-" ID ".scope"),
	      "%s: the container's cgroup is %zu bytes of it", name, c.cgroup_len);
	strcpy(name, "/kubepods/pod" POD "/" ID "/docker/" ID2);
	CHECK(container_from_cgroup(name, &c) && c.cgroup_len == strlen("/kubepods/pod" POD "/" ID),
	      "%s: the outermost container's cgroup is %zu bytes of it", name, c.cgroup_len);
	snprintf(name, sizeof(name), "/machine.slice/machine-%0*d.scope", CONTAINER_ID_MAX + 1, 0);
	CHECK(!container_from_cgroup(name, &c), "a machine name past %d bytes is no container",
	      CONTAINER_ID_MAX);
	return check_done();
}
