// SPDX-License-Identifier: GPL-2.0
/*
 * argguard run: load and attach the LSM programs, pin maps and links, apply
 * the policy file (again on SIGHUP), and log offending execs.
 */
#include "daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <systemd/sd-daemon.h>

#include "apply.h"
#include "cgroup.h"
#include "enforcement.h"
#include "event_json.h"
#include "journal.h"
#include "json_log.h"
#include "linux_audit.h"
#include "log.h"
#include "metrics.h"
#include "policy_maps.h"
#include "programs.h"
#include "units.h"

static volatile sig_atomic_t stopping, reload, reopen;

#define MAX_SINKS 3

struct logger {
	int64_t realtime_offset_ns;
	struct sink *sinks[MAX_SINKS]; /* the JSON log, journald, the Linux audit log */
	unsigned int n_sinks;
	struct cgroup_cache cgroups;
};

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

static void on_hup(int sig)
{
	(void)sig;
	reload = 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	reopen = 1;
}

static int64_t realtime_offset_ns(void)
{
	struct timespec rt, mono;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	return (rt.tv_sec - mono.tv_sec) * 1000000000LL + (rt.tv_nsec - mono.tv_nsec);
}

/* One record, rendered as JSON once, to every sink. */
static void write_record(struct logger *log, struct record *r)
{
	int err;

	r->realtime_offset_ns = log->realtime_offset_ns;
	r->json = record_to_object(r);
	if (!r->json) {
		if (r->kind == RECORD_EXEC)
			log_error("failed to format an event: %s", strerror(ENOMEM));
		return;
	}
	for (unsigned int i = 0; i < log->n_sinks; i++) {
		err = log->sinks[i]->ops->write(log->sinks[i], r);
		if (err)
			log_error("failed to send a record to %s: %s", log->sinks[i]->ops->name,
				  strerror(-err));
	}
	json_object_put(r->json);
	r->json = NULL;
}

static int log_event(void *ctx, void *data, size_t size)
{
	struct logger *log = ctx;
	const struct argguard_event *e = data;
	struct record r = { .kind = RECORD_EXEC, .event = e };

	if (size < sizeof(struct argguard_event))
		return 0;
	r.cgroup = cgroup_cache_path(&log->cgroups, e->cgroup_id);
	if (e->scope == ARGGUARD_SCOPE_CGROUP)
		r.rule_cgroup = cgroup_cache_path(&log->cgroups, e->rule_id);
	write_record(log, &r);
	return 0;
}

/* Records that never reached the log, as of since_ns (CLOCK_MONOTONIC). */
struct losses {
	struct record_losses n;
	uint64_t since_ns;
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void read_losses(const struct logger *log, int drops_fd, struct losses *now)
{
	now->n.suppressed = counter_sum(drops_fd, ARGGUARD_DROP_RATE_LIMITED);
	now->n.ring_full = counter_sum(drops_fd, ARGGUARD_DROP_RING_FULL);
	now->n.log_backlog = 0;
	for (unsigned int i = 0; i < log->n_sinks; i++)
		now->n.log_backlog += log->sinks[i]->lost;
	now->since_ns = monotonic_ns();
}

/*
 * The drop counts the last summary covered, kept across restarts: drops
 * while no daemon ran go into the next daemon's first summary.
 */
static void save_reported(const struct losses *l)
{
	FILE *f = fopen(ARGGUARD_REPORTED ".new", "we");

	if (!f)
		return;
	fprintf(f, "%llu %llu\n", (unsigned long long)l->n.suppressed,
		(unsigned long long)l->n.ring_full);
	if (fclose(f) == 0)
		rename(ARGGUARD_REPORTED ".new", ARGGUARD_REPORTED);
}

/*
 * Where an adopted daemon's summaries start. No file (or one that does not
 * fit the maps) means no summary has covered the pinned counters yet: all
 * of their drops are still to be reported.
 */
static void load_reported(struct losses *l)
{
	unsigned long long v[2]; /* suppressed, ring_full */

	if (read_numbers(ARGGUARD_REPORTED, v, 2) != 2 || v[0] > l->n.suppressed ||
	    v[1] > l->n.ring_full)
		v[0] = v[1] = 0;
	l->n.suppressed = v[0];
	l->n.ring_full = v[1];
}

/* A summary record for what was held back or lost since the last one. */
static void report_losses(struct logger *log, int drops_fd, struct losses *last)
{
	struct record r = { .kind = RECORD_SUMMARY };
	struct losses now;

	read_losses(log, drops_fd, &now);
	r.losses = (struct record_losses){
		.suppressed = now.n.suppressed - last->n.suppressed,
		.ring_full = now.n.ring_full - last->n.ring_full,
		.log_backlog = now.n.log_backlog - last->n.log_backlog,
	};
	if (!r.losses.suppressed && !r.losses.ring_full && !r.losses.log_backlog)
		return;
	r.interval_ns = now.since_ns - last->since_ns;
	r.end_ns = now.since_ns;
	write_record(log, &r);
	*last = now;
	save_reported(last);
}

/* The node_exporter textfile, when --metrics-dir asks for one. */
struct metrics_file {
	const char *dir; /* NULL: none */
	uint64_t next_ns; /* CLOCK_MONOTONIC: when it is due again */
	bool failing; /* the last write failed, and said so */
};

/* Rewrite the textfile now. A failure is logged once, and again once it works. */
static void write_metrics(const struct programs *progs, struct metrics_file *mf)
{
	struct argguard_metrics m = { 0 };
	int err;

	if (!mf->dir)
		return;
	mf->next_ns = monotonic_ns() + METRICS_INTERVAL_S * 1000000000ULL;
	err = metrics_read_maps(programs_map_fd(progs, PIN_CONFIG),
				programs_map_fd(progs, PIN_COUNTERS),
				programs_map_fd(progs, PIN_DROPS), &m);
	if (!err) {
		apply_status_load(ARGGUARD_APPLY_STATUS, &m.last_apply);
		err = metrics_write_textfile(mf->dir, &m);
	}
	if (err && !mf->failing)
		log_error("failed to write %s/%s: %s; trying again every %d seconds", mf->dir,
			  METRICS_TEXTFILE, strerror(-err), METRICS_INTERVAL_S);
	else if (!err && mf->failing)
		fprintf(stderr, "argguard: writing %s/%s again\n", mf->dir, METRICS_TEXTFILE);
	mf->failing = err != 0;
}

/*
 * No daemon, no metrics: node_exporter stops serving them, rather than
 * numbers that nobody updates (and, after --on-stop unload, a mode that is
 * no longer in force).
 */
static void remove_metrics(const struct metrics_file *mf)
{
	char path[4096];

	if (!mf->dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", mf->dir, METRICS_TEXTFILE);
	if (unlink(path) && errno != ENOENT)
		log_error("failed to remove %s: %s", path, strerror(errno));
}

static void install_signals(void)
{
	struct sigaction stop = { .sa_handler = on_stop }, hup = { .sa_handler = on_hup },
			 usr1 = { .sa_handler = on_usr1 };

	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGHUP, &hup, NULL);
	sigaction(SIGUSR1, &usr1, NULL);
}

/*
 * Readiness is proof: an exec marked as the probe must be denied by the
 * attached program, whatever the mode. Under the apply lock, so no apply
 * rewrites the config map while the probe is marked in it.
 */
static int prove_enforcement(const struct programs *progs, char *why, size_t len)
{
	int lock = apply_lock(), err;

	if (lock < 0)
		return snprintf(why, len, "failed to take the apply lock"), -1;
	err = probe_enforcement(programs_map_fd(progs, PIN_CONFIG), why, len);
	apply_unlock(lock);
	return err;
}

/* Tell systemd, and the journal, what is in force: only mode enforce says enforcing. */
static void say_ready(int config_fd, const char *log_path)
{
	static const char *const what[] = {
		[ARGGUARD_MODE_OFF] = "mode off: nothing is judged",
		[ARGGUARD_MODE_AUDIT] = "audit mode: nothing is denied; would-deny is logged",
		[ARGGUARD_MODE_ENFORCE] = "enforcing",
	};
	struct argguard_config cfg = { .mode = ARGGUARD_MODE_ENFORCE };
	__u32 zero = 0;
	const char *status;

	if (bpf_map_lookup_elem(config_fd, &zero, &cfg))
		log_error("failed to read the config map: %s", strerror(errno));
	status = what[cfg.mode <= ARGGUARD_MODE_ENFORCE ? cfg.mode : ARGGUARD_MODE_ENFORCE];
	sd_notifyf(0, "READY=1\nSTATUS=%s (probe exec denied)", status);
	log_info("%s; probe exec denied; pins in %s, log %s", status, ARGGUARD_PIN_DIR, log_path);
}

int run_daemon(const struct run_opts *opts)
{
	struct logger log = { .cgroups.root = DEFAULT_CGROUP_ROOT };
	struct metrics_file metrics = { .dir = opts->metrics_dir };
	struct losses losses = { 0 };
	struct ring_buffer *rb = NULL;
	struct programs *progs;
	char why[512];
	bool earlier_pins;
	int err;

	if (programs_lock() < 0)
		return 1;
	if (bpf_lsm_check(why, sizeof(why))) {
		log_error("%s", why);
		return EXIT_NOT_ENFORCING;
	}
	/*
	 * Attached before the first apply: the cgroup_mkdir program must be
	 * watching before the apply looks for the cgroups its rules name.
	 * Until the apply, a fresh config reads mode off.
	 */
	progs = programs_start(&earlier_pins);
	if (!progs)
		return 1;
	/* A restart keeps the live policy, bpftool edits included: reload applies the file. */
	if (earlier_pins) {
		log_info("keeping the pinned policy (reload to apply %s)", opts->policy_path);
	} else if (policy_apply_at_start(opts->policy_path) < 0) {
		err = -1;
		goto out_destroy;
	}
	err = prove_enforcement(progs, why, sizeof(why));
	if (err) {
		log_error("%s", why);
		err = EXIT_NOT_ENFORCING;
		goto out_destroy;
	}

	log.sinks[0] = json_log_open(opts->log_path);
	if (!log.sinks[0]) {
		err = -1;
		goto out_destroy;
	}
	log.sinks[1] = journal_open();
	log.n_sinks = 2;
	log.realtime_offset_ns = realtime_offset_ns();
	if (opts->linux_audit) {
		log.sinks[log.n_sinks] = linux_audit_open();
		if (log.sinks[log.n_sinks])
			log.n_sinks++;
	}
	rb = ring_buffer__new(programs_map_fd(progs, PIN_EVENTS), log_event, &log, NULL);
	if (!rb) {
		err = -errno;
		log_error("failed to open the event ring buffer: %s", strerror(-err));
		goto out_close;
	}

	read_losses(&log, programs_map_fd(progs, PIN_DROPS), &losses);
	if (earlier_pins)
		load_reported(&losses);
	install_signals();
	say_ready(programs_map_fd(progs, PIN_CONFIG), opts->log_path);
	write_metrics(progs, &metrics);
	while (!stopping) {
		if (reload) {
			reload = 0;
			sd_notify(0, "RELOADING=1");
			policy_apply_file(opts->policy_path, false); /* never forced */
			say_ready(programs_map_fd(progs, PIN_CONFIG), opts->log_path);
			write_metrics(progs, &metrics);
		}
		if (reopen) {
			reopen = 0;
			for (unsigned int i = 0; i < log.n_sinks; i++)
				if (log.sinks[i]->ops->reopen)
					log.sinks[i]->ops->reopen(log.sinks[i]);
		}
		err = ring_buffer__poll(rb, 1000);
		if (err == -EINTR) {
			err = 0; /* a signal: SIGTERM stops, SIGHUP reloads, SIGUSR1 reopens */
			continue;
		}
		if (err < 0) {
			log_error("failed to poll the ring buffer: %s", strerror(-err));
			break;
		}
		for (unsigned int i = 0; i < log.n_sinks; i++)
			if (log.sinks[i]->ops->flush)
				log.sinks[i]->ops->flush(log.sinks[i]);
		report_losses(&log, programs_map_fd(progs, PIN_DROPS), &losses);
		if (metrics.dir && monotonic_ns() >= metrics.next_ns)
			write_metrics(progs, &metrics);
	}
	sd_notify(0, "STOPPING=1");
	remove_metrics(&metrics);
	ring_buffer__consume(rb);
	report_losses(&log, programs_map_fd(progs, PIN_DROPS), &losses);
	err = err < 0 ? err : 0;

	ring_buffer__free(rb);
out_close:
	for (unsigned int i = 0; i < log.n_sinks; i++)
		log.sinks[i]->ops->close(log.sinks[i]);
	cgroup_cache_free(&log.cgroups);
out_destroy:
	programs_close(progs);
	if (!err && stopping && opts->unload_on_stop)
		return programs_unpin() ? 1 : 0;
	if (err == EXIT_NOT_ENFORCING)
		return err;
	return err ? 1 : 0;
}
