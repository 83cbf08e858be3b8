// SPDX-License-Identifier: GPL-2.0
#include "status.h"

#include <stdbool.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "names.h"
#include "policy_maps.h"

/* Whether the link pinned at pin is there and runs a program: an LSM link never detaches. */
static bool link_attached(enum pin pin)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	char path[256];
	bool attached;
	int fd;

	pin_path(pin, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return false;
	attached = !bpf_obj_get_info_by_fd(fd, &info, &len) && info.type == BPF_LINK_TYPE_TRACING &&
		   info.prog_id;
	close(fd);
	return attached;
}

int metrics_read_maps(const struct live_maps *fds, struct argguard_metrics *m)
{
	struct argguard_settings settings = { 0 };
	struct argguard_cgroup_index index;
	__u32 set;
	int err;

	err = read_live_settings(fds->config, fds->settings, &set, &settings);
	if (err)
		return err;
	m->mode = settings.mode;
	err = read_policy_state(fds->config, &m->policy_state);
	if (err)
		return err;
	m->attached[METRICS_HOOK_BPRM_CHECK] = link_attached(PIN_LINK_BPRM_CHECK);
	m->attached[METRICS_HOOK_BPRM_CREDS] = link_attached(PIN_LINK_BPRM_CREDS);
	for (__u32 key = 0; key < ARGGUARD_NR_COUNTERS; key++)
		m->decisions[key] = counter_sum(fds->counters, key);
	for (__u32 reason = 0; reason < ARGGUARD_NR_DROPS; reason++)
		m->dropped[reason] = counter_sum(fds->drops, reason);
	if (!bpf_map_lookup_elem(fds->cgroup_index, &set, &index))
		m->cgroup_unindexed = index.failed_inserts;
	return 0;
}
