// SPDX-License-Identifier: GPL-2.0
/*
 * argguard run: load and attach the LSM programs, pin maps and links, apply
 * the policy file (again on SIGHUP), and log offending execs.
 */
#define _GNU_SOURCE /* asprintf() */
#include "daemon.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>
#include <systemd/sd-daemon.h>

#include "apply.h"
#include "argguard.skel.h"
#include "cgroup.h"
#include "enforcement.h"
#include "event_json.h"
#include "journal.h"
#include "linux_audit.h"
#include "log.h"
#include "metrics.h"
#include "pins.h"
#include "policy_maps.h"

static volatile sig_atomic_t stopping, reload, reopen;

#define CGROUP_CACHE 16
#define MAX_PENDING 4096 /* records held while the log cannot be written */

struct logger {
	const char *path;
	int fd;
	int64_t realtime_offset_ns;
	char *pending[MAX_PENDING]; /* lines, oldest first, waiting for space */
	unsigned int n_pending;
	uint64_t write_errors; /* failed writes, each retried later */
	uint64_t dropped; /* records lost because pending was full */
	int audit_fd; /* the Linux audit log, or -1 */
	struct {
		uint64_t id;
		char *path;
	} cgroups[CGROUP_CACHE]; /* recently seen cgroup ids, round robin */
	unsigned int next_cgroup;
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

/* Read up to n space-separated numbers from a small file; returns how many. */
static int read_numbers(const char *path, unsigned long long *v, int n)
{
	FILE *f = fopen(path, "re");
	char line[128], *p, *end;
	int got = 0;

	if (!f)
		return 0;
	p = fgets(line, sizeof(line), f);
	fclose(f);
	while (p && got < n) {
		errno = 0;
		v[got] = strtoull(p, &end, 10);
		if (end == p || errno)
			break;
		got++;
		p = end;
	}
	return got;
}

/*
 * With unprivileged BPF on, any user can load socket filters and probe map
 * internals; argguard's pins are root-only either way, but a site running a
 * security control wants it off (kernel.unprivileged_bpf_disabled = 1 or 2).
 */
static void warn_if_unprivileged_bpf(void)
{
	unsigned long long disabled;

	if (read_numbers("/proc/sys/kernel/unprivileged_bpf_disabled", &disabled, 1) == 1 &&
	    disabled == 0)
		log_warning("unprivileged BPF is enabled "
			    "(kernel.unprivileged_bpf_disabled = 0); set it to 1 or 2");
}

static int ensure_pin_dir(void)
{
	struct statfs fs;

	if (statfs("/sys/fs/bpf", &fs) || fs.f_type != BPF_FS_MAGIC) {
		if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700")) {
			log_error("failed to mount bpffs on /sys/fs/bpf: %s", strerror(errno));
			return -1;
		}
	}
	if (mkdir(ARGGUARD_PIN_DIR, 0700) && errno != EEXIST) {
		log_error("failed to create %s: %s", ARGGUARD_PIN_DIR, strerror(errno));
		return -1;
	}
	return 0;
}

/* Whether this kernel carries kernel-patches/: linux_binprm.orig_argc in its BTF. */
static bool kernel_has_exact_sizes(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_member *m;
	const struct btf_type *t;
	bool found = false;
	int id;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, "linux_binprm", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (int i = 0; t && i < btf_vlen(t); i++) {
		m = btf_members(t) + i;
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "orig_argc"))
			found = true;
	}
	btf__free(btf);
	return found;
}

/* The tag (a hash of the instructions) of the loaded program at fd. */
static int prog_tag(int fd, __u8 tag[BPF_TAG_SIZE])
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	memcpy(tag, info.tag, BPF_TAG_SIZE);
	return 0;
}

/*
 * The link pinned at pin, if it runs the very program prog (same tag):
 * a restart after a crash or a stop keeps enforcing through it. NULL if
 * there is none, or it runs another build.
 */
static struct bpf_link *adopt_pinned(struct bpf_program *prog, const char *pin)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	__u8 ours[BPF_TAG_SIZE], theirs[BPF_TAG_SIZE];
	struct bpf_link *link;
	int prog_fd;
	bool same;

	if (access(pin, F_OK))
		return NULL; /* a fresh start */
	link = bpf_link__open(pin);
	if (!link)
		return NULL;
	if (bpf_obj_get_info_by_fd(bpf_link__fd(link), &info, &len))
		goto mismatch;
	prog_fd = bpf_prog_get_fd_by_id(info.prog_id);
	if (prog_fd < 0)
		goto mismatch;
	same = !prog_tag(prog_fd, theirs) && !prog_tag(bpf_program__fd(prog), ours) &&
	       !memcmp(ours, theirs, BPF_TAG_SIZE);
	close(prog_fd);
	if (same)
		return link;
mismatch:
	bpf_link__destroy(link);
	return NULL;
}

/*
 * Adopt the pinned link if it runs this program. Otherwise attach, then
 * swap the pin: the previous link, if any, detaches only when its pin goes,
 * by which time this one is enforcing. No exec slips by.
 */
static int attach_and_pin(struct bpf_program *prog, struct bpf_link **out, enum pin name)
{
	struct bpf_link *link;
	char pin[128];
	int err;

	pin_path(name, pin, sizeof(pin));
	link = adopt_pinned(prog, pin);
	if (link) {
		*out = link;
		log_info("adopted the pinned %s", pin);
		return 0;
	}
	link = bpf_program__attach(prog);
	if (!link) {
		err = -errno;
		log_error("failed to attach %s: %s", bpf_program__name(prog), strerror(-err));
		return err;
	}
	*out = link;
	if (unlink(pin) && errno != ENOENT) {
		err = -errno;
		log_error("failed to replace %s: %s", pin, strerror(-err));
		return err;
	}
	err = bpf_link__pin(link, pin);
	if (err)
		log_error("failed to pin %s: %s", pin, strerror(-err));
	return err;
}

/* Each program of the pin table, attached or adopted, and its link pinned. */
static int attach_all(struct argguard_bpf *skel)
{
#define ARGGUARD_SKEL_LINK(pin, file, prog) [pin] = { skel->progs.prog, &skel->links.prog },
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
	} links[NR_PINS] = { ARGGUARD_LINK_PINS(ARGGUARD_SKEL_LINK) };

	for (int pin = NR_MAP_PINS; pin < NR_PINS; pin++) {
		int err = attach_and_pin(links[pin].prog, links[pin].link, pin);

		if (err)
			return err;
	}
	return 0;
}

/*
 * Each map of the pin table at its pin: the load reuses a map pinned there,
 * policy and counters included, and pins the ones it creates.
 */
static int set_pin_paths(struct argguard_bpf *skel)
{
#define ARGGUARD_SKEL_MAP(pin, file, map) [pin] = skel->maps.map,
	struct bpf_map *maps[NR_MAP_PINS] = { ARGGUARD_MAP_PINS(ARGGUARD_SKEL_MAP) };
	char path[128];
	int err;

	for (int pin = 0; pin < NR_MAP_PINS; pin++) {
		pin_path(pin, path, sizeof(path));
		err = bpf_map__set_pin_path(maps[pin], path);
		if (err) {
			log_error("failed to set the pin of %s: %s", bpf_map__name(maps[pin]),
				  strerror(-err));
			return err;
		}
	}
	return 0;
}

/* The cgroup path for an id, from a small cache; NULL if it is gone. */
static const char *cgroup_of(struct logger *log, uint64_t id)
{
	unsigned int slot;

	for (unsigned int i = 0; i < CGROUP_CACHE; i++)
		if (log->cgroups[i].path && log->cgroups[i].id == id)
			return log->cgroups[i].path;
	slot = log->next_cgroup++ % CGROUP_CACHE;
	free(log->cgroups[slot].path);
	log->cgroups[slot].id = id;
	log->cgroups[slot].path = cgroup_path(DEFAULT_CGROUP_ROOT, id);
	return log->cgroups[slot].path;
}

/*
 * Open the log for appending: root:adm 0640, so admins in group adm can
 * read it, as with the rest of /var/log.
 */
static int open_log(const char *path)
{
	struct group *adm = getgrnam("adm");
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);

	if (fd < 0) {
		log_error("failed to open log %s: %s", path, strerror(errno));
		return -1;
	}
	if (adm && fchown(fd, 0, adm->gr_gid))
		log_error("failed to give %s to group adm: %s", path, strerror(errno));
	/* Only argguard's own directory: --log may point anywhere. */
	if (adm && !strncmp(path, ARGGUARD_LOG_DIR "/", strlen(ARGGUARD_LOG_DIR "/")) &&
	    chown(ARGGUARD_LOG_DIR, 0, adm->gr_gid))
		log_error("failed to give %s to group adm: %s", ARGGUARD_LOG_DIR, strerror(errno));
	if (fchmod(fd, 0640))
		log_error("failed to make %s mode 0640: %s", path, strerror(errno));
	return fd;
}

/* SIGUSR1: after logrotate moved the log away, write to a new one. */
static void reopen_log(struct logger *log)
{
	int fd = open_log(log->path);

	if (fd < 0)
		return; /* keep writing where we were */
	close(log->fd);
	log->fd = fd;
}

/*
 * Append one line whole, or not at all: a short write (disk full) is cut
 * back so that the file never holds half a record.
 */
static bool append_line(struct logger *log, const char *line)
{
	size_t len = strlen(line);
	off_t end = lseek(log->fd, 0, SEEK_END);
	ssize_t n = write(log->fd, line, len);

	if (n == (ssize_t)len)
		return true;
	if (n > 0 && end >= 0 && ftruncate(log->fd, end))
		log_error("failed to cut a partial record from %s: %s", log->path, strerror(errno));
	if (!log->write_errors++ || log->n_pending == 0)
		log_error("failed to write %s: %s; holding records until it can be written",
			  log->path, n < 0 ? strerror(errno) : "short write");
	return false;
}

/* Write what is held back, oldest first; stop at the first failure. */
static void flush_pending(struct logger *log)
{
	unsigned int done = 0;

	while (done < log->n_pending && append_line(log, log->pending[done]))
		free(log->pending[done++]);
	memmove(log->pending, log->pending + done, (log->n_pending - done) * sizeof(char *));
	log->n_pending -= done;
	if (done && !log->n_pending)
		log_info("%s is writable again: wrote %u held records; "
			 "%llu failed writes since start",
			 log->path, done, (unsigned long long)log->write_errors);
}

/* One record: a JSON line in the log file, and a journald entry. */
static void write_record(struct logger *log, json_object *obj)
{
	char *line = event_object_to_line(obj), *with_newline;
	int err;

	if (!line || asprintf(&with_newline, "%s\n", line) < 0) {
		log_error("failed to format a record: %s", strerror(ENOMEM));
		free(line);
		return;
	}
	free(line);
	flush_pending(log);
	if (log->n_pending || !append_line(log, with_newline)) {
		if (log->n_pending < MAX_PENDING) {
			log->pending[log->n_pending++] = with_newline;
			with_newline = NULL;
		} else {
			log->dropped++;
		}
	}
	free(with_newline);
	err = event_to_journal(obj);
	if (err)
		log_error("failed to send a record to journald: %s", strerror(-err));
	if (log->audit_fd >= 0) {
		err = event_to_linux_audit(log->audit_fd, obj);
		if (err)
			log_error("failed to send a record to the audit log: %s", strerror(-err));
	}
}

static int log_event(void *ctx, void *data, size_t size)
{
	struct logger *log = ctx;
	const struct argguard_event *e = data;
	const char *cgroup;
	json_object *obj;

	if (size < sizeof(struct argguard_event))
		return 0;
	obj = event_to_object(e, log->realtime_offset_ns);
	if (!obj) {
		log_error("failed to format an event: %s", strerror(ENOMEM));
		return 0;
	}
	cgroup = cgroup_of(log, e->cgroup_id);
	json_object_object_add(obj, "cgroup", cgroup ? json_object_new_string(cgroup) : NULL);
	if (e->scope == ARGGUARD_SCOPE_CGROUP) {
		cgroup = cgroup_of(log, e->rule_id);
		json_object_object_add(obj, "rule_cgroup",
				       cgroup ? json_object_new_string(cgroup) : NULL);
	}
	write_record(log, obj);
	json_object_put(obj);
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
	now->n.log_backlog = log->dropped;
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
	struct record_losses delta;
	struct losses now;
	json_object *obj;

	read_losses(log, drops_fd, &now);
	delta = (struct record_losses){
		.suppressed = now.n.suppressed - last->n.suppressed,
		.ring_full = now.n.ring_full - last->n.ring_full,
		.log_backlog = now.n.log_backlog - last->n.log_backlog,
	};
	if (!delta.suppressed && !delta.ring_full && !delta.log_backlog)
		return;
	obj = summary_to_object(&delta, now.since_ns - last->since_ns, now.since_ns,
				log->realtime_offset_ns);
	if (obj) {
		write_record(log, obj);
		json_object_put(obj);
	}
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
static void write_metrics(struct argguard_bpf *skel, struct metrics_file *mf)
{
	struct argguard_metrics m = { 0 };
	int err;

	if (!mf->dir)
		return;
	mf->next_ns = monotonic_ns() + METRICS_INTERVAL_S * 1000000000ULL;
	err = metrics_read_maps(bpf_map__fd(skel->maps.argguard_config),
				bpf_map__fd(skel->maps.argguard_counters),
				bpf_map__fd(skel->maps.argguard_drops), &m);
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
 * Hold the run lock for the life of the process. A second `argguard run`
 * would attach a second set of programs and fight over the pins.
 */
static int take_run_lock(void)
{
	int fd = open(ARGGUARD_RUN_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	char pid[32] = "";

	if (fd < 0) {
		log_error("failed to open %s: %s", ARGGUARD_RUN_LOCK, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if (read(fd, pid, sizeof(pid) - 1) < 0)
			pid[0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		log_error("another argguard run is live (pid %s); stop it first (systemctl stop "
			  "argguard)",
			  pid[0] ? pid : "unknown");
		close(fd);
		return -1;
	}
	if (ftruncate(fd, 0) == 0)
		dprintf(fd, "%d\n", getpid());
	return fd; /* left open: the lock goes with the process */
}

/*
 * Readiness is proof: an exec marked as the probe must be denied by the
 * attached program, whatever the mode. Under the apply lock, so no apply
 * rewrites the config map while the probe is marked in it.
 */
static int prove_enforcement(struct argguard_bpf *skel, char *why, size_t len)
{
	int lock = apply_lock(), err;

	if (lock < 0)
		return snprintf(why, len, "failed to take the apply lock"), -1;
	err = probe_enforcement(bpf_map__fd(skel->maps.argguard_config), why, len);
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

/* Remove every pin and the pin directory; the programs detach as their pins go. */
static int remove_pins(void)
{
	DIR *dir = opendir(ARGGUARD_PIN_DIR);
	unsigned int removed = 0;
	struct dirent *d;
	int err = 0;

	if (!dir && errno != ENOENT) {
		log_error("failed to open %s: %s", ARGGUARD_PIN_DIR, strerror(errno));
		return -1;
	}
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		if (unlinkat(dirfd(dir), d->d_name, 0)) {
			log_error("failed to remove %s/%s: %s", ARGGUARD_PIN_DIR, d->d_name,
				  strerror(errno));
			err = -1;
			continue;
		}
		removed++;
	}
	if (dir)
		closedir(dir);
	if (!err && rmdir(ARGGUARD_PIN_DIR) && errno != ENOENT) {
		log_error("failed to remove %s: %s", ARGGUARD_PIN_DIR, strerror(errno));
		err = -1;
	}
	if (!err)
		printf("argguard: unloaded: removed %u pins and %s; nothing enforces now\n",
		       removed, ARGGUARD_PIN_DIR);
	return err;
}

int run_daemon(const struct run_opts *opts)
{
	struct logger log = { .path = opts->log_path, .fd = -1, .audit_fd = -1 };
	struct metrics_file metrics = { .dir = opts->metrics_dir };
	struct losses losses = { 0 };
	struct ring_buffer *rb = NULL;
	struct argguard_bpf *skel;
	char why[512], config_pin[128];
	bool earlier_pins;
	int err;

	if (take_run_lock() < 0)
		return 1;
	if (bpf_lsm_check(why, sizeof(why))) {
		log_error("%s", why);
		return EXIT_NOT_ENFORCING;
	}
	if (ensure_pin_dir())
		return 1;
	warn_if_unprivileged_bpf();
	pin_path(PIN_CONFIG, config_pin, sizeof(config_pin));
	earlier_pins = access(config_pin, F_OK) == 0;
	skel = argguard_bpf__open();
	if (!skel) {
		log_error("failed to open the BPF object: %s", strerror(errno));
		return 1;
	}
	err = set_pin_paths(skel);
	if (err)
		goto out_destroy;
	err = argguard_bpf__load(skel);
	if (err) {
		log_error("failed to load the BPF programs: %s", strerror(-err));
		goto out_destroy;
	}
	if (!kernel_has_exact_sizes())
		log_notice("this kernel lacks argguard's exec patches: argv/envp sizes are "
			   "derived from their total, and argc == 0 cannot be seen, so "
			   "empty_argv rules never match");
	/*
	 * Attach before the first apply: the cgroup_mkdir program must be
	 * watching before the apply looks for the cgroups its rules name.
	 * Until the apply, a fresh config reads mode off.
	 */
	err = attach_all(skel);
	if (err)
		goto out_destroy;
	/* A restart keeps the live policy, bpftool edits included: reload applies the file. */
	if (earlier_pins) {
		log_info("keeping the pinned policy (reload to apply %s)", opts->policy_path);
	} else if (policy_apply_at_start(opts->policy_path) < 0) {
		err = -1;
		goto out_destroy;
	}
	err = prove_enforcement(skel, why, sizeof(why));
	if (err) {
		log_error("%s", why);
		err = EXIT_NOT_ENFORCING;
		goto out_destroy;
	}

	log.fd = open_log(opts->log_path);
	if (log.fd < 0) {
		err = -1;
		goto out_destroy;
	}
	log.realtime_offset_ns = realtime_offset_ns();
	if (opts->linux_audit) {
		log.audit_fd = linux_audit_open();
		if (log.audit_fd < 0)
			log_error("failed to open the Linux audit log: %s",
				  strerror(-log.audit_fd));
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.argguard_events), log_event, &log, NULL);
	if (!rb) {
		err = -errno;
		log_error("failed to open the event ring buffer: %s", strerror(-err));
		goto out_close;
	}

	read_losses(&log, bpf_map__fd(skel->maps.argguard_drops), &losses);
	if (earlier_pins)
		load_reported(&losses);
	install_signals();
	say_ready(bpf_map__fd(skel->maps.argguard_config), opts->log_path);
	write_metrics(skel, &metrics);
	while (!stopping) {
		if (reload) {
			reload = 0;
			sd_notify(0, "RELOADING=1");
			policy_apply_file(opts->policy_path, false); /* never forced */
			say_ready(bpf_map__fd(skel->maps.argguard_config), opts->log_path);
			write_metrics(skel, &metrics);
		}
		if (reopen) {
			reopen = 0;
			reopen_log(&log);
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
		flush_pending(&log);
		report_losses(&log, bpf_map__fd(skel->maps.argguard_drops), &losses);
		if (metrics.dir && monotonic_ns() >= metrics.next_ns)
			write_metrics(skel, &metrics);
	}
	sd_notify(0, "STOPPING=1");
	remove_metrics(&metrics);
	ring_buffer__consume(rb);
	report_losses(&log, bpf_map__fd(skel->maps.argguard_drops), &losses);
	err = err < 0 ? err : 0;

	ring_buffer__free(rb);
out_close:
	close(log.fd);
	if (log.audit_fd >= 0)
		close(log.audit_fd);
	for (unsigned int i = 0; i < CGROUP_CACHE; i++)
		free(log.cgroups[i].path);
	for (unsigned int i = 0; i < log.n_pending; i++)
		free(log.pending[i]);
out_destroy:
	/* Closing our link fds leaves the pinned links, and enforcement, in place. */
	argguard_bpf__destroy(skel);
	if (!err && stopping && opts->unload_on_stop)
		return remove_pins() ? 1 : 0;
	if (err == EXIT_NOT_ENFORCING)
		return err;
	return err ? 1 : 0;
}

int unload(void)
{
	int fd = open(ARGGUARD_RUN_LOCK, O_RDONLY | O_CLOEXEC);

	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
		log_error("argguard run is live; stop it first (systemctl stop argguard): "
			  "its programs stay attached while it runs");
		close(fd);
		return 1;
	}
	if (fd >= 0)
		close(fd);
	return remove_pins() ? 1 : 0;
}
