// SPDX-License-Identifier: GPL-2.0
/*
 * argguard run, the main loop: start the programs (programs.c), apply the
 * policy file at a fresh start, prove enforcement, then pass records from
 * the ring buffer to the sinks (record_pipeline.c) until SIGTERM; SIGHUP
 * applies the policy file again, SIGUSR1 reopens the log. systemd hears of
 * each step.
 */
#include "daemon.h"

#include <errno.h>
#include <linux/types.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "apply.h"
#include "argguard.h"
#include "enforcement.h"
#include "journal.h"
#include "json_log.h"
#include "linux_audit.h"
#include "log.h"
#include "metrics_file.h"
#include "names.h"
#include "pin_dir.h"
#include "programs.h"
#include "record_pipeline.h"
#include "size_window.h"
#include "start_plan.h"

/*
 * Tell the service manager how the daemon is doing ("READY=1",
 * "STATUS=...", newline-separated), as sd_notify(3) does: one datagram to
 * the socket that $NOTIFY_SOCKET names. Nothing to do, and 0, when run
 * outside systemd; else 0 or a negative errno.
 */
__attribute__((format(printf, 1, 2))) static int notify(const char *fmt, ...)
{
	const char *where = getenv("NOTIFY_SOCKET");
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	socklen_t addr_len;
	char state[512];
	va_list ap;
	int fd, n, err = 0;

	if (!where || !*where)
		return 0;
	/* A path, or an abstract name written with a leading '@'. */
	if ((where[0] != '/' && where[0] != '@') || strlen(where) >= sizeof(addr.sun_path))
		return -EINVAL;
	memcpy(addr.sun_path, where, strlen(where));
	if (where[0] == '@')
		addr.sun_path[0] = '\0';
	addr_len = offsetof(struct sockaddr_un, sun_path) + strlen(where);
	va_start(ap, fmt);
	n = vsnprintf(state, sizeof(state), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(state))
		return -EMSGSIZE;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (sendto(fd, state, n, MSG_NOSIGNAL, (struct sockaddr *)&addr, addr_len) < 0)
		err = -errno;
	close(fd);
	return err;
}

static volatile sig_atomic_t stopping, reload, reopen;

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

static void install_signals(void)
{
	struct sigaction stop = { .sa_handler = on_stop }, hup = { .sa_handler = on_hup },
			 usr1 = { .sa_handler = on_usr1 };

	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGHUP, &hup, NULL);
	sigaction(SIGUSR1, &usr1, NULL);
}

/* Tell systemd, and the journal, what is in force: only mode enforce says enforcing. */
static void say_ready(const struct live_maps *maps, const char *log_path)
{
	static const char *const what[ARGGUARD_NR_MODES] = {
		[ARGGUARD_MODE_OFF] = "mode off: nothing is judged",
		[ARGGUARD_MODE_AUDIT] = "audit mode: nothing is denied; would-deny is logged",
		[ARGGUARD_MODE_ENFORCE] = "enforcing",
	};
	struct argguard_settings settings = { .mode = ARGGUARD_MODE_ENFORCE };
	const char *status;
	__u32 set;
	int err;

	err = read_live_settings(maps->config, maps->settings, &set, &settings);
	if (err)
		log_error("failed to read the live settings: %s", strerror(-err));
	_Static_assert(ARGGUARD_NR_MODES == 3, "each mode has its status line");
	status = what[settings.mode < ARGGUARD_NR_MODES ? settings.mode : ARGGUARD_MODE_ENFORCE];
	notify("READY=1\nSTATUS=%s (probe exec denied)", status);
	log_info("%s; probe exec denied; pins in %s, log %s", status, ARGGUARD_PIN_DIR, log_path);
}

int run_daemon(const struct run_opts *opts)
{
	struct metrics_file metrics;
	struct size_keeper sizes;
	int map_fds[NR_MAP_PINS];
	struct record_pipeline *records;
	struct sink *sinks[3]; /* the JSON log, journald, the Linux audit log */
	unsigned int n_sinks;
	struct json_log_left left;
	struct record_start start;
	struct programs *progs;
	enum argguard_policy_state state;
	bool earlier_pins;
	int err;

	/*
	 * The unit caps the files the daemon writes (LimitFSIZE=): past the
	 * cap, a write fails with EFBIG, and the log holds its records until
	 * logrotate moves it away. The log writes from its sink's thread,
	 * which blocks every signal, so its SIGXFSZ never lands; any other
	 * write past the cap must fail the same way, not kill the daemon.
	 */
	signal(SIGXFSZ, SIG_IGN);
	if (run_lock_take() < 0)
		return 1;
	if (bpf_lsm_check())
		return EXIT_NOT_ENFORCING;
	/*
	 * The programs are attached before the file is applied: the
	 * cgroup_mkdir program must be watching before the apply looks for
	 * the cgroups its rules name. Maps made afresh hold the interim
	 * policy by then, never mode off.
	 */
	policy_interim_mode_from(opts->policy_path);
	progs = programs_start(&earlier_pins, policy_hold_interim);
	if (!progs)
		return 1;
	err = read_policy_state(programs_map_fd(progs, PIN_CONFIG), &state);
	if (err) {
		log_error("failed to read the policy state: %s", strerror(-err));
		err = -1;
		goto out_destroy;
	}
	/* A restart keeps the live policy, bpftool edits included: reload applies the file. */
	if (!start_applies_file(state)) {
		log_info("keeping the pinned policy (reload to apply %s)", opts->policy_path);
	} else {
		if (earlier_pins)
			log_notice(
				"the pinned policy is %s: the start that made it did not finish, "
				"so this one applies %s",
				policy_state_name(state), opts->policy_path);
		if (policy_apply_at_start(opts->policy_path) < 0) {
			err = -1;
			goto out_destroy;
		}
	}
	if (probe_enforcement(programs_map_fd(progs, PIN_PROBE))) {
		err = EXIT_NOT_ENFORCING;
		goto out_destroy;
	}

	sinks[0] = json_log_open(&(struct json_log_files){ .log = opts->log_path }, &left);
	if (!sinks[0]) {
		err = -1;
		goto out_destroy;
	}
	n_sinks = 1;
	if (!opts->no_journal) {
		sinks[n_sinks] = journal_open();
		if (sinks[n_sinks])
			n_sinks++;
	}
	if (opts->linux_audit) {
		sinks[n_sinks] = linux_audit_open(); /* without it, the others still log */
		if (sinks[n_sinks])
			n_sinks++;
	}
	start = (struct record_start){
		.held_at_exit = left.unsettled,
		.earlier_pins = earlier_pins,
		.mark_suppressed = left.mark_suppressed,
		.mark_ring_full = left.mark_ring_full,
	};
	records = record_pipeline_new(
		&(struct record_maps){
			.events = programs_map_fd(progs, PIN_EVENTS),
			.drops = programs_map_fd(progs, PIN_DROPS),
			.uid_buckets = programs_map_fd(progs, PIN_UID_BUCKETS),
		},
		sinks, n_sinks, &start);
	if (!records) {
		err = -1;
		goto out_destroy;
	}
	if (!earlier_pins) /* new maps, new counters: an older mark would hide their first drops */
		json_log_save_mark(sinks[0], start.mark_suppressed, start.mark_ring_full);

	metrics = (struct metrics_file){
		.dir = opts->metrics_dir,
		.version = ARGGUARD_VERSION,
		.build_id = programs_build_id(),
		.records = records,
		.maps = {
			.config = programs_map_fd(progs, PIN_CONFIG),
			.settings = programs_map_fd(progs, PIN_SETTINGS),
			.counters = programs_map_fd(progs, PIN_COUNTERS),
			.drops = programs_map_fd(progs, PIN_DROPS),
			.cgroup_index = programs_map_fd(progs, PIN_CGROUP_INDEX),
		},
	};
	for (int i = 0; i < NR_MAP_PINS; i++)
		metrics.policy.fd[i] = programs_map_fd(progs, i);
	policy_drift_init(&metrics.drift, opts->policy_path);
	install_signals();
	say_ready(&metrics.maps, opts->log_path);
	metrics_file_write(&metrics);
	for (int i = 0; i < NR_MAP_PINS; i++)
		map_fds[i] = programs_map_fd(progs, i);
	size_keeper_start(&sizes, map_fds, earlier_pins, programs_exact_sizes(progs));
	while (!stopping) {
		if (reload) {
			reload = 0;
			notify("RELOADING=1");
			policy_reload_file(opts->policy_path);
			say_ready(&metrics.maps, opts->log_path);
			metrics_file_reloaded(&metrics);
		}
		if (reopen) {
			reopen = 0;
			record_pipeline_reopen(records);
		}
		err = record_pipeline_poll(records, 1000);
		if (err == -EINTR) {
			err = 0; /* a signal: SIGTERM stops, SIGHUP reloads, SIGUSR1 reopens */
			continue;
		}
		if (err < 0) {
			log_error("failed to poll the ring buffer: %s", strerror(-err));
			break;
		}
		metrics_file_tick(&metrics);
		size_keeper_tick(&sizes);
	}
	notify("STOPPING=1");
	size_keeper_save(&sizes);
	metrics_file_remove(&metrics);
	record_pipeline_drain(records);
	err = err < 0 ? err : 0;

	record_pipeline_free(records);
out_destroy:
	programs_close(progs);
	if (!err && stopping && opts->unload_on_stop)
		return pin_dir_remove() ? 1 : 0;
	if (err == EXIT_NOT_ENFORCING)
		return err;
	return err ? 1 : 0;
}
