// SPDX-License-Identifier: GPL-2.0
/* The metrics of a running argguard, read live, and the daemon's textfile (metrics_file.h). */
#include "metrics_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "apply.h"
#include "clocks.h"
#include "log.h"
#include "metrics.h"
#include "names.h"
#include "policy_maps.h"
#include "record_pipeline.h"
#include "size_maps.h"

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

/* What only the daemon knows: its build, and what each sink lost. */
static void add_daemon_metrics(const struct metrics_file *mf, struct argguard_metrics *m)
{
	const char *names[METRICS_MAX_SINKS];
	uint64_t lost[METRICS_MAX_SINKS];

	m->version = mf->version;
	m->build_id = mf->build_id;
	if (!mf->records)
		return;
	m->n_sinks = record_pipeline_sink_losses(mf->records, names, lost, METRICS_MAX_SINKS);
	for (unsigned int i = 0; i < m->n_sinks; i++)
		m->sinks[i] = (struct metrics_sink_loss){ .sink = names[i], .lost = lost[i] };
}

/* The canonical text of live, a policy this tick read: the last tick's, if live is the same. */
static const char *live_text(struct metrics_file *mf, struct policy *live)
{
	if (mf->last_text && policy_same_live(live, &mf->last_live))
		return mf->last_text;
	free(mf->last_text);
	mf->last_text = policy_canonical_text(live);
	return mf->last_text;
}

/* Keep live, which this tick read, for the next tick to compare with. */
static void keep_live(struct metrics_file *mf, struct policy *live)
{
	policy_free(&mf->last_live);
	mf->last_live = *live;
	policy_init(live);
}

/*
 * Every tick reads the live policy from the maps, once: its text for the
 * drift check, its rules for the size distributions' scopes. Nothing
 * counts an edit of the maps (bpftool writes no generation), so they are
 * read every time; a batch read keeps that cheap, and their text is
 * printed again only when what they hold changed. The policy file, which
 * stat() can tell changed, is parsed again only when it did
 * (policy_drift_check()).
 */
void metrics_file_write(struct metrics_file *mf)
{
	struct argguard_metrics m = { 0 };
	struct size_data *sizes = NULL;
	struct log_capture once;
	struct policy live;
	int err, live_err;

	if (!mf->dir)
		return;
	mf->next_ns = monotonic_ns() + METRICS_INTERVAL_S * 1000000000ULL;
	err = metrics_read_maps(&mf->maps, &m);
	if (!err) {
		add_daemon_metrics(mf, &m);
		live_err = policy_maps_read_live(&mf->policy, &live);
		/* Unreadable, the live policy is left unchecked, and the drift gauge out. */
		policy_drift_check(&mf->drift, live_err ? NULL : live_text(mf, &live),
				   &m.policy_file);
		apply_status_load(ARGGUARD_APPLY_STATUS, &m.last_apply);
		/* Unreadable, the distributions are left out, and the rest written. */
		sizes = live_err ? NULL : malloc(sizeof(*sizes));
		if (sizes && !sizes_maps_read(&mf->policy, &live, DEFAULT_CGROUP_ROOT, sizes))
			m.sizes = sizes; /* its scopes name live's rules */
		/* Failing still, it said why: not again every METRICS_INTERVAL_S. */
		log_capture_start(&once, LOG_ERR, NULL, 0, mf->failing);
		err = metrics_write_textfile(mf->dir, &m);
		log_capture_stop(&once);
		if (m.sizes)
			size_data_free(sizes);
		free(sizes);
		if (!live_err)
			keep_live(mf, &live);
	} else if (!mf->failing) {
		log_error("failed to read the metrics: %s", strerror(-err));
	}
	if (err && !mf->failing)
		log_error("no metrics in %s/%s; trying again every %d seconds", mf->dir,
			  METRICS_TEXTFILE, METRICS_INTERVAL_S);
	else if (!err && mf->failing)
		fprintf(stderr, "argguard: writing %s/%s again\n", mf->dir, METRICS_TEXTFILE);
	mf->failing = err != 0;
}

void metrics_file_tick(struct metrics_file *mf)
{
	if (mf->dir && monotonic_ns() >= mf->next_ns)
		metrics_file_write(mf);
}

void metrics_file_reloaded(struct metrics_file *mf)
{
	policy_drift_forget(&mf->drift);
	metrics_file_write(mf);
}

void metrics_file_remove(struct metrics_file *mf)
{
	char path[4096];

	policy_drift_free(&mf->drift);
	policy_free(&mf->last_live);
	free(mf->last_text);
	mf->last_text = NULL;
	if (!mf->dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", mf->dir, METRICS_TEXTFILE);
	if (unlink(path) && errno != ENOENT)
		log_error("failed to remove %s: %s", path, strerror(errno));
}
