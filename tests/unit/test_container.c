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
};

static const struct want cases[] = {
	{ "/system.slice/docker-" ID ".scope", "docker", ID, "", false },
	{ "/docker/" ID, "docker", ID, "", false },
	{ "/machine.slice/libpod-" ID ".scope", "podman", ID, "", false },
	{ "/machine.slice/libpod-" ID ".scope/container", "podman", ID, "", false },
	{ "/libpod_parent/libpod-" ID, "podman", ID, "", false }, /* podman's cgroupfs manager */
	{ USER "/user.slice/libpod-" ID ".scope", "podman", ID, "", true },
	{ USER "/user.slice/libpod-" ID ".scope/container", "podman", ID, "", true },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_
	  ".slice/cri-containerd-" ID ".scope",
	  "containerd", ID, POD, false },
	{ "/kubepods.slice/kubepods-pod" POD_ ".slice/crio-" ID ".scope", "cri-o", ID, POD, false },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" POD_
	  ".slice/docker-" ID ".scope",
	  "docker", ID, POD, false },
	{ "/machine.slice/machine-web\\x2d1.scope", "systemd-nspawn", "web-1", "", false },
	{ "/machine.slice/machine-web\\x2d1.scope/payload/system.slice/cron.service",
	  "systemd-nspawn", "web-1", "", false },
	/* The deepest container is the exec's. */
	{ "/machine.slice/libpod-" ID ".scope/docker/" ID2, "docker", ID2, "", false },

	/* No container: a runtime's own helpers, other layouts, near misses. */
	{ "/", NULL, NULL, NULL, false },
	{ "/system.slice/ssh.service", NULL, NULL, NULL, false },
	{ "/machine.slice/libpod-conmon-" ID ".scope", NULL, NULL, NULL, false },
	{ "/libpod_parent/conmon", NULL, NULL, NULL, false },
	{ "/system.slice/libpod-" ID, NULL, NULL, NULL, false },
	{ "/kubepods.slice/kubepods-pod" POD_ ".slice/crio-conmon-" ID ".scope", NULL, NULL, NULL,
	  false },
	{ "/kubepods/burstable/pod" POD "/" ID, NULL, NULL, NULL, false }, /* which CRI? */
	{ "/system.slice/docker-" ID ".scope.d", NULL, NULL, NULL, false },
	{ "/system.slice/docker-" ID "0.scope", NULL, NULL, NULL, false },
	{ "/system.slice/docker-4F1C2A9E8B7D6C5A4F1C2A9E8B7D6C5A4F1C2A9E8B7D6C5A4F1C2A9E8B7D6C5A"
	  ".scope",
	  NULL, NULL, NULL, false },
	{ "/machine.slice/machine-qemu\\x2d1\\x2dvm.scope", NULL, NULL, NULL, false }, /* libvirt */
	{ "/machine.slice/machine-a\\x2fb.scope", NULL, NULL, NULL, false },
	{ "/machine.slice/machine-a\\x20b.scope", NULL, NULL, NULL, false },
	{ "/machine.slice/machine-a\"b.scope", NULL, NULL, NULL, false },
	{ "/system.slice/machine-web.scope", NULL, NULL, NULL, false },

	/* What a user names in their own subtree claims nothing but rootless podman. */
	{ USER "/docker-" ID ".scope", NULL, NULL, NULL, false },
	{ USER "/app.slice/cri-containerd-" ID ".scope", NULL, NULL, NULL, false },
	{ USER "/machine.slice/machine-web.scope", NULL, NULL, NULL, false },
	{ USER "/kubepods.slice/kubepods-pod" POD_ ".slice/libpod-" ID ".scope", "podman", ID, "",
	  true },
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
}

int main(void)
{
	struct container c;
	char name[200];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&cases[i]);
	CHECK(!container_from_cgroup(NULL, &c), "no path, no container");
	snprintf(name, sizeof(name), "/machine.slice/machine-%0*d.scope", CONTAINER_ID_MAX + 1, 0);
	CHECK(!container_from_cgroup(name, &c), "a machine name past %d bytes is no container",
	      CONTAINER_ID_MAX);
	return check_done();
}
