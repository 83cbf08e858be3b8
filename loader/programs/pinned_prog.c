// SPDX-License-Identifier: GPL-2.0
/* What a pinned link runs, and which build loaded it (pinned_prog.h). */
#include "pinned_prog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "argguard.build_id.h"
#include "argguard.skel.h"

int prog_tag(int fd, __u8 tag[BPF_TAG_SIZE])
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	memcpy(tag, info.tag, BPF_TAG_SIZE);
	return 0;
}

int pinned_prog_read(enum pin pin, struct pinned_prog *pp)
{
	struct bpf_link_info link = {};
	struct bpf_prog_info info = {};
	__u32 len = sizeof(link);
	int link_fd, prog_fd = -1, err = -ENOENT;
	char path[128];

	pin_path(pin, path, sizeof(path));
	link_fd = bpf_obj_get(path);
	if (link_fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(link_fd, &link, &len) || !link.prog_id)
		goto out;
	prog_fd = bpf_prog_get_fd_by_id(link.prog_id);
	if (prog_fd < 0)
		goto out;
	len = sizeof(info);
	info.nr_map_ids = MAX_PROG_MAPS;
	info.map_ids = (__u64)(unsigned long)pp->map_ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) || !info.btf_id ||
	    info.nr_map_ids > MAX_PROG_MAPS)
		goto out;
	pp->prog_id = link.prog_id;
	pp->btf_id = info.btf_id;
	pp->nr_map_ids = info.nr_map_ids;
	err = 0;
out:
	if (prog_fd >= 0)
		close(prog_fd);
	close(link_fd);
	return err;
}

int pinned_prog_open_map(const struct pinned_prog *progs, unsigned int n, const char *name,
			 __u32 value_size, struct bpf_map_info *info)
{
	__u32 len;
	int fd;

	for (unsigned int p = 0; p < n; p++)
		for (__u32 i = 0; i < progs[p].nr_map_ids; i++) {
			fd = bpf_map_get_fd_by_id(progs[p].map_ids[i]);
			if (fd < 0)
				continue;
			memset(info, 0, sizeof(*info));
			len = sizeof(*info);
			if (!bpf_obj_get_info_by_fd(fd, info, &len) && !strcmp(info->name, name) &&
			    info->value_size >= value_size)
				return fd;
			close(fd);
		}
	return -ENOENT;
}

/* What the load of pp's program recorded in its .rodata: the build id and the features. */
static int read_build(const struct pinned_prog *pp, __u64 *id, __u32 *features)
{
	struct argguard_bpf__rodata *rodata;
	struct bpf_map_info info;
	__u32 zero = 0;
	int fd, err = -ENOENT;

	fd = pinned_prog_open_map(pp, 1, RODATA_MAP_NAME, sizeof(*rodata), &info);
	if (fd < 0)
		return fd;
	rodata = calloc(1, info.value_size);
	if ((info.map_flags & BPF_F_RDONLY_PROG) && rodata &&
	    !bpf_map_lookup_elem(fd, &zero, rodata)) {
		*id = rodata->argguard_build_id;
		*features = rodata->argguard_build_features;
		err = 0;
	}
	free(rodata);
	close(fd);
	return err;
}

bool pinned_by_this_build(struct pinned_prog *pp, __u32 *features)
{
	__u64 id;

	return !pinned_prog_read(PIN_LINK_BPRM_CHECK, pp) && !read_build(pp, &id, features) &&
	       id == ARGGUARD_BUILD_ID;
}

bool pinned_progs_use_map(const struct pinned_prog *progs, unsigned int n, __u32 map_id)
{
	for (unsigned int i = 0; i < n; i++)
		for (__u32 j = 0; j < progs[i].nr_map_ids; j++)
			if (progs[i].map_ids[j] == map_id)
				return true;
	return false;
}
