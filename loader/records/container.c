// SPDX-License-Identifier: GPL-2.0
/*
 * Container runtimes' cgroup layouts, from the root down:
 *
 *   docker         /system.slice/docker-ID.scope, or /docker/ID (cgroupfs)
 *   podman         /machine.slice/libpod-ID.scope, and rootless
 *                  /user.slice/user-UID.slice/user@UID.service/.../libpod-ID.scope;
 *                  /libpod_parent/libpod-ID with --cgroup-manager=cgroupfs
 *   containerd     /kubepods.slice/kubepods-QOS.slice/kubepods-QOS-podUID.slice/
 *                  cri-containerd-ID.scope
 *   cri-o          the same, with crio-ID.scope
 *   cri            /kubepods/[QOS/]podUID/ID: the kubelet's cgroupfs driver, whose
 *                  layout does not say which CRI runtime (containerd, or
 *                  cri-dockerd's docker) made the container
 *   systemd-nspawn /machine.slice/machine-NAME.scope
 *
 * ID is 64 hex digits. A pod's UID is written with '_' for '-' in its slice's
 * name, and as it is in a cgroupfs driver's kubepods/.../podUID. A process
 * may sit in a cgroup below its container's (podman's container/). The
 * outermost container cgroup of the path is the one: the cgroups below it
 * are named by whoever runs the container (docker or podman inside it, or
 * a fake), so a container cgroup further down is only their claim, given
 * apart as the nested one (the deepest, as the inner runtime sees its
 * own). libvirt registers its
 * guests under machine.slice too (machine-qemu-N-NAME.scope): those are no
 * nspawn containers, and are left out.
 */
#define _GNU_SOURCE /* memmem, strchrnul */
#include "container.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* One component of a cgroup path: not NUL-terminated. */
struct component {
	const char *s;
	size_t len;
};

static bool is_hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

static bool has_prefix(struct component c, const char *prefix)
{
	size_t n = strlen(prefix);

	return c.len >= n && !memcmp(c.s, prefix, n);
}

static bool has_suffix(struct component c, const char *suffix)
{
	size_t n = strlen(suffix);

	return c.len >= n && !memcmp(c.s + c.len - n, suffix, n);
}

static bool is(struct component c, const char *name)
{
	return c.len == strlen(name) && !memcmp(c.s, name, c.len);
}

/* PREFIX + 64 hex digits + SUFFIX: the id in id. */
static bool hex_id_between(struct component c, const char *prefix, const char *suffix, char *id)
{
	size_t p = strlen(prefix), s = strlen(suffix);

	if (c.len != p + CONTAINER_ID_MAX + s || !has_prefix(c, prefix) || !has_suffix(c, suffix) ||
	    !is_hex(c.s + p, CONTAINER_ID_MAX))
		return false;
	memcpy(id, c.s + p, CONTAINER_ID_MAX);
	id[CONTAINER_ID_MAX] = '\0';
	return true;
}

/* user@UID.service: the root of what systemd delegates to one user. */
static bool is_user_service(struct component c)
{
	size_t digits = 0;

	if (!has_prefix(c, "user@") || !has_suffix(c, ".service"))
		return false;
	for (size_t i = strlen("user@"); i < c.len - strlen(".service"); i++, digits++)
		if (!isdigit((unsigned char)c.s[i]))
			return false;
	return digits > 0;
}

/* A pod uid of 36 characters, with sep where a uuid has '-': in uid, with '-'. */
static bool pod_uid(const char *s, size_t len, char sep, char *uid)
{
	if (len != POD_UID_LEN)
		return false;
	for (size_t i = 0; i < len; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != sep : !is_hex(s + i, 1))
			return false;
		uid[i] = dash ? '-' : s[i];
	}
	uid[len] = '\0';
	return true;
}

/* kubepods[-QOS]-podUID.slice (systemd), or podUID below kubepods (cgroupfs). */
static bool pod_slice(struct component c, bool below_kubepods, char *uid)
{
	const char *pod;

	if (has_prefix(c, "kubepods") && has_suffix(c, ".slice")) {
		pod = memmem(c.s, c.len, "-pod", 4);
		return pod &&
		       pod_uid(pod + 4, c.s + c.len - strlen(".slice") - (pod + 4), '_', uid);
	}
	return below_kubepods && has_prefix(c, "pod") && pod_uid(c.s + 3, c.len - 3, '-', uid);
}

/* A lowercase hex digit's value. */
static int hex_digit(char c)
{
	return isdigit((unsigned char)c) ? c - '0' : c - 'a' + 10;
}

/* What a machine's name may hold (machined takes host names): no quoting needed anywhere. */
static bool name_char(unsigned int c)
{
	return isalnum(c) || c == '-' || c == '_' || c == '.';
}

/* A machine's name, with systemd's \xNN escapes undone, into name. */
static bool unescape_name(const char *s, size_t len, char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < len; n++) {
		if (n == CONTAINER_ID_MAX)
			return false;
		if (s[i] == '\\' && i + 4 <= len && s[i + 1] == 'x' && is_hex(s + i + 2, 2)) {
			name[n] = (char)(hex_digit(s[i + 2]) << 4 | hex_digit(s[i + 3]));
			i += 4;
		} else {
			name[n] = s[i++];
		}
		if (!name_char((unsigned char)name[n]))
			return false;
	}
	name[n] = '\0';
	return n > 0;
}

/* machine-NAME.scope right below machine.slice, but libvirt's guests. */
static bool nspawn_scope(struct component c, struct component parent, char *id)
{
	size_t p = strlen("machine-"), s = strlen(".scope");

	if (!is(parent, "machine.slice") || !has_prefix(c, "machine-") ||
	    !has_suffix(c, ".scope") || !unescape_name(c.s + p, c.len - p - s, id))
		return false;
	return strncmp(id, "qemu-", 5) && strncmp(id, "lxc-", 4);
}

/*
 * The runtime whose container cgroup c is (parent: the component above it;
 * below_pod: that is a cgroupfs driver's podUID), or NULL.
 */
static const char *container_scope(struct component c, struct component parent, bool below_user,
				   bool below_pod, char *id)
{
	if (hex_id_between(c, "libpod-", ".scope", id) ||
	    (is(parent, "libpod_parent") && hex_id_between(c, "libpod-", "", id)))
		return "podman";
	if (below_user) /* a user names what they like there: only their own podman counts */
		return NULL;
	if (hex_id_between(c, "docker-", ".scope", id) ||
	    (is(parent, "docker") && hex_id_between(c, "", "", id)))
		return "docker";
	if (hex_id_between(c, "cri-containerd-", ".scope", id))
		return "containerd";
	if (hex_id_between(c, "crio-", ".scope", id))
		return "cri-o";
	if (below_pod && hex_id_between(c, "", "", id))
		return "cri";
	if (nspawn_scope(c, parent, id))
		return "systemd-nspawn";
	return NULL;
}

bool container_from_cgroup(const char *path, struct container *c)
{
	struct component parent = { "", 0 }, comp;
	bool below_user = false, below_kubepods = false, below_pod = false, pod_here;
	char pod[POD_UID_LEN + 1] = "", id[CONTAINER_ID_MAX + 1];
	const char *runtime, *end;

	memset(c, 0, sizeof(*c));
	if (!path)
		return false;
	for (const char *s = path; *s; s = *end ? end + 1 : end) {
		end = strchrnul(s, '/');
		comp = (struct component){ s, (size_t)(end - s) };
		if (!comp.len)
			continue;
		pod_here = false;
		if (is_user_service(comp)) {
			below_user = true;
		} else if (!below_user && !c->runtime && pod_slice(comp, below_kubepods, id)) {
			memcpy(pod, id, sizeof(pod));
			pod_here = has_prefix(comp, "pod"); /* the cgroupfs driver's */
		} else if ((runtime = container_scope(comp, parent, below_user, below_pod, id))) {
			if (c->runtime) { /* below the host's container: its owner's claim */
				c->nested_runtime = runtime;
				memcpy(c->nested_id, id, sizeof(c->nested_id));
			} else {
				c->runtime = runtime;
				memcpy(c->id, id, sizeof(c->id));
				memcpy(c->pod_uid, pod, sizeof(c->pod_uid));
				c->rootless = below_user;
				c->cgroup_len = (size_t)(end - path);
			}
		}
		below_pod = pod_here;
		below_kubepods = below_kubepods || has_prefix(comp, "kubepods");
		parent = comp;
	}
	return c->runtime != NULL;
}
