// SPDX-License-Identifier: GPL-2.0
#include "size_window.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "clocks.h"
#include "kernel_features.h"
#include "log.h"
#include "size_json.h"
#include "size_maps.h"
#include "size_report.h"

static void read_boot_id(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* When this boot began, in seconds since the epoch: /proc/stat's btime; else now. */
static int64_t boot_time(void)
{
	FILE *f = fopen("/proc/stat", "re");
	unsigned long long btime;
	char line[256], *end;
	int64_t t = time(NULL);

	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "btime ", 6))
			continue;
		errno = 0;
		btime = strtoull(line + 6, &end, 10);
		if (!errno && end != line + 6 && *end == '\n')
			t = (int64_t)btime;
		break;
	}
	if (f)
		fclose(f);
	return t;
}

void size_origin_here(struct size_origin *o, bool exact)
{
	memset(o, 0, sizeof(*o));
	if (gethostname(o->host, sizeof(o->host) - 1))
		o->host[0] = '\0';
	read_boot_id(o->boot_id, sizeof(o->boot_id));
	o->exact = exact;
	o->end = time(NULL);
}

/* The maps the "sizes" map at fd is one of: this boot, and its id. */
static int maps_id_of(int fd, struct size_maps_id *id)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(id, 0, sizeof(*id));
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	read_boot_id(id->boot_id, sizeof(id->boot_id));
	id->map_id = info.id;
	return 0;
}

int size_window_read(const struct policy_maps *maps, struct policy *live, struct size_data *d)
{
	struct kernel_features kernel;
	char why[SIZE_JSON_WHY_MAX];
	struct size_maps_id id;
	struct size_state st;
	int err;

	err = sizes_maps_read_live(maps, DEFAULT_CGROUP_ROOT, live, d);
	if (err) {
		log_error("failed to read the live policy and the size distributions: %s",
			  strerror(-err));
		return err;
	}
	/* A command, not the daemon: the kernel's BTF says what it counts. */
	size_origin_here(&d->origin, !kernel_features_read(&kernel) && kernel.exact_sizes);
	err = maps_id_of(maps->fd[PIN_SIZES], &id);
	if (err) {
		log_error("failed to read the sizes map's id: %s", strerror(-err));
		goto fail;
	}
	err = size_state_read(ARGGUARD_SIZES_STATE, 0, &st, why, sizeof(why));
	if (err == -ENOENT)
		return 0; /* the window's start is unknown */
	if (err) {
		log_warning("%s: %s: the counts it holds are left out", ARGGUARD_SIZES_STATE, why);
		return 0;
	}
	if (st.whole.origin.exact != d->origin.exact) {
		log_warning("%s counted %s sizes, and this kernel counts %s ones: its counts are "
			    "left out, and the daemon starts a new window",
			    ARGGUARD_SIZES_STATE, st.whole.origin.exact ? "exact" : "total",
			    d->origin.exact ? "exact" : "total");
		size_state_free(&st);
		return 0;
	}
	err = size_data_add(d, size_state_before(&st, &id));
	d->origin.start = st.whole.origin.start ? st.whole.origin.start : st.maps.start;
	size_state_free(&st);
	if (!err)
		return 0;
	log_error("failed to add the counts of %s: %s", ARGGUARD_SIZES_STATE, strerror(-err));
fail:
	size_data_free(d);
	policy_free(live);
	return err;
}

/*
 * The window the state file holds before k's maps, into *before (made
 * here), and its start into *start; a file missing, not to trust, or of
 * another kernel's sizes gives none, and k's maps' start. Adopts the start
 * the file gives k's maps, if they are its.
 */
static void window_before(struct size_keeper *k, struct size_data *before, int64_t *start)
{
	char why[SIZE_JSON_WHY_MAX];
	struct size_state st;
	int err;

	*start = k->id.start;
	err = size_state_read(ARGGUARD_SIZES_STATE, 0, &st, why, sizeof(why));
	if (err && err != -ENOENT) {
		log_warning("%s: %s: starting a new window of counts", ARGGUARD_SIZES_STATE, why);
	} else if (!err && st.whole.origin.exact != k->exact) {
		log_notice("%s counted %s sizes, and this kernel counts %s ones: starting a new "
			   "window of counts",
			   ARGGUARD_SIZES_STATE, st.whole.origin.exact ? "exact" : "total",
			   k->exact ? "exact" : "total");
		size_state_free(&st);
		err = -EINVAL;
	}
	if (err) {
		if (size_data_init(before))
			memset(before, 0, sizeof(*before));
		return;
	}
	if (size_maps_same(&st.maps, &k->id)) {
		/* A restart that adopted the maps: the file holds their counts as they were. */
		k->id.start = st.maps.start;
		*before = st.carried;
		size_data_free(&st.whole);
	} else {
		/* The maps it names are gone: all it held is before these. */
		*before = st.whole;
		size_data_free(&st.carried);
	}
	*start = st.whole.origin.start ? st.whole.origin.start : k->id.start;
}

/* Write the state file: the window before k's maps, and their counts now. */
static int keep(struct size_keeper *k)
{
	struct size_data before, live_d, whole;
	struct policy live;
	int64_t start;
	int lock, err;

	/* Which maps counted is what tells a restart from new maps: never guess. */
	if (!k->id.map_id || !k->id.boot_id[0])
		return -ENODATA;
	lock = size_state_lock(ARGGUARD_SIZES_STATE);
	if (lock < 0)
		return lock;
	window_before(k, &before, &start);
	err = sizes_maps_read_live(&k->maps, DEFAULT_CGROUP_ROOT, &live, &live_d);
	if (err)
		goto out_before;
	err = size_data_init(&whole);
	if (!err)
		err = size_data_add(&whole, &before);
	if (!err)
		err = size_data_add(&whole, &live_d);
	if (!err) {
		size_origin_here(&whole.origin, k->exact);
		whole.origin.start = start;
		err = size_state_write(ARGGUARD_SIZES_STATE, &whole, &before, &k->id);
		k->start = start;
	}
	size_data_free(&whole);
	size_data_free(&live_d);
	policy_free(&live);
out_before:
	size_data_free(&before);
	size_state_unlock(lock);
	return err;
}

void size_keeper_save(struct size_keeper *k)
{
	int err;

	k->next_ns = monotonic_ns() + SIZE_KEEP_INTERVAL_S * 1000000000ULL;
	err = keep(k);
	if (err && !k->failing)
		log_error("failed to keep the size counts in %s: %s; trying again every %d seconds",
			  ARGGUARD_SIZES_STATE, strerror(-err), SIZE_KEEP_INTERVAL_S);
	else if (!err && k->failing)
		log_info("keeping the size counts in %s again", ARGGUARD_SIZES_STATE);
	k->failing = err != 0;
}

void size_keeper_tick(struct size_keeper *k)
{
	if (monotonic_ns() >= k->next_ns)
		size_keeper_save(k);
}

void size_keeper_start(struct size_keeper *k, const int *fds, bool adopted, bool exact)
{
	int err;

	memset(k, 0, sizeof(*k));
	for (int i = 0; i < NR_MAP_PINS; i++)
		k->maps.fd[i] = fds[i];
	k->exact = exact;
	err = maps_id_of(k->maps.fd[PIN_SIZES], &k->id);
	if (err)
		log_error("failed to read the sizes map's id: %s", strerror(-err));
	/* Maps made by this start count from now; pinned ones, since the boot at most. */
	k->id.start = adopted ? boot_time() : time(NULL);
	size_keeper_save(k);
	if (!k->failing) {
		char since[32];

		size_time_format(since, sizeof(since), k->start);
		log_info("counting exec sizes in a window since %s, kept in %s", since,
			 ARGGUARD_SIZES_STATE);
	}
}
