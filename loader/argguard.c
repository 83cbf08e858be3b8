// SPDX-License-Identifier: GPL-2.0
/*
 * argguard: the command line. Which command runs (the table of commands
 * at main()), and the work of status and policy check/apply/show; run is
 * daemon.c's, the help help.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "apply.h"
#include "daemon.h"
#include "help.h"
#include "json_log.h"
#include "metrics_file.h"
#include "log.h"
#include "metrics.h"
#include "names.h"
#include "policy.h"
#include "policy_diff.h"
#include "policy_maps.h"
#include "pin_dir.h"
#include "preflight.h"
#include "size_commands.h"
#include "size_maps.h"

static int unknown_command(const char *cmd)
{
	log_error("unknown command '%s' (try 'argguard --help')", cmd);
	print_short_usage();
	return 2;
}

static bool verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/*
 * Whether the live policy in maps is the one the policy file at path says:
 * into m->policy_file (unchecked if the live policy cannot be read).
 */
static void check_policy_file(const struct policy_maps *maps, const char *path,
			      struct argguard_metrics *m)
{
	struct policy_drift drift;
	char *live;
	int err;

	live = policy_maps_live_text(maps, &err);
	if (!live)
		log_warning("failed to read the live policy to compare it with %s: %s", path,
			    strerror(-err));
	policy_drift_init(&drift, path);
	policy_drift_check(&drift, live, &m->policy_file);
	policy_drift_free(&drift);
	free(live);
}

/* status [--format text|json|prometheus] [--policy FILE]: the counters, mode and last apply. */
static int status(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'F' },
		{ "policy", required_argument, NULL, 'p' },
		{},
	};
	struct argguard_metrics m = { 0 };
	struct size_data *sizes = NULL;
	struct policy_maps maps;
	struct policy live;
	const char *policy_path = DEFAULT_POLICY_FILE;
	int format = METRICS_TEXT, c, ret;

	optind = 1;
	opterr = 0; /* getopt would name "status" as the program */
	while ((c = getopt_long(argc, argv, "p:", longopts, NULL)) != -1) {
		if (c == 'p') {
			policy_path = optarg;
			continue;
		}
		if (c != 'F')
			goto usage;
		format = metrics_format_parse(optarg);
		if (format < 0) {
			log_error("--format takes text, json or prometheus, not '%s'", optarg);
			return 2;
		}
	}
	if (optind != argc)
		goto usage;
	if (policy_maps_open(&maps))
		return 1;
	ret = metrics_read_maps(&(struct live_maps){ .config = maps.fd[PIN_CONFIG],
						     .settings = maps.fd[PIN_SETTINGS],
						     .counters = maps.fd[PIN_COUNTERS],
						     .drops = maps.fd[PIN_DROPS],
						     .cgroup_index = maps.fd[PIN_CGROUP_INDEX] },
				&m);
	if (!ret)
		check_policy_file(&maps, policy_path, &m);
	if (!ret && format == METRICS_PROMETHEUS && (sizes = malloc(sizeof(*sizes))) &&
	    !sizes_maps_read_live(&maps, DEFAULT_CGROUP_ROOT, &live, sizes))
		m.sizes = sizes; /* as the textfile has them */
	policy_maps_close(&maps);
	if (ret) {
		log_error("failed to read the live settings: %s", strerror(-ret));
		free(sizes);
		return 1;
	}
	apply_status_load(ARGGUARD_APPLY_STATUS, &m.last_apply);
	ret = metrics_print(stdout, format, &m);
	if (m.sizes) {
		size_data_free(sizes);
		policy_free(&live);
	}
	free(sizes);
	if (ret) {
		log_error("failed to format the status: %s", strerror(-ret));
		return 1;
	}
	for (int h = 0; h < METRICS_NR_HOOKS; h++)
		if (!m.attached[h]) {
			log_error("no argguard program is attached to %s: the policy's mode is "
				  "not what is enforced; systemctl restart argguard",
				  metrics_hook_name(h));
			ret = 1;
		}
	if (m.cgroup_unindexed) {
		log_error("the cgroup index had no room for %" PRIu64
			  " cgroups since the last apply: "
			  "cgroups made since are judged by the policy's strictest rule; find who "
			  "makes so many cgroups, then argguard policy apply",
			  m.cgroup_unindexed);
		ret = 1;
	}
	if (m.policy_state != ARGGUARD_POLICY_APPLIED) {
		log_error("the policy in force is %s, not the policy file's: the start that made "
			  "the maps died before it applied the file; systemctl restart argguard",
			  policy_state_name(m.policy_state));
		ret = 1;
	}
	/*
	 * A policy that differs from the file is no failure: tuning with
	 * bpftool, or applying another file to try it, is what an admin may
	 * mean to do. The policy_file line says so, and the metrics gauge it.
	 */
	return ret;
usage:
	log_error("usage: argguard status [--format text|json|prometheus] [--policy FILE]");
	return 2;
}

/*
 * policy show --diff [FILE]: the live policy against the file, both as
 * policy show prints them. 0 if they match, 1 if they differ, 2 on an error.
 */
static int policy_show_diff(const char *path)
{
	struct policy_maps maps;
	struct policy live, file;
	char *live_text = NULL, *file_text = NULL;
	int ret, lock;

	if (policy_parse_file(path, &file))
		return 2;
	file_text = policy_canonical_text(&file);
	policy_free(&file);
	if (policy_maps_open(&maps)) {
		ret = 2;
		goto out;
	}
	lock = apply_lock(); /* one policy whole, as policy show reads it */
	if (lock < 0) {
		policy_maps_close(&maps);
		ret = 2;
		goto out;
	}
	ret = policy_maps_read(&maps, &live);
	apply_unlock(lock);
	policy_maps_close(&maps);
	if (ret) {
		log_error("failed to read the live policy: %s", strerror(-ret));
		ret = 2;
		goto out;
	}
	live_text = policy_canonical_text(&live);
	policy_free(&live);
	ret = live_text && file_text
		      ? text_diff(stdout, "live (" ARGGUARD_PIN_DIR ")", live_text, path, file_text)
		      : -ENOMEM;
	if (ret < 0) {
		log_error("failed to compare the live policy with %s: %s", path, strerror(-ret));
		ret = 2;
	}
out:
	free(live_text);
	free(file_text);
	return ret;
}

/* check|apply [--force] FILE: the file, or NULL on a usage error. */
static const char *policy_file_arg(int argc, char **argv, bool *force)
{
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{},
	};
	int c;

	*force = false;
	optind = 1;
	opterr = 0; /* getopt would name "check" or "apply" as the program */
	while ((c = getopt_long(argc, argv, "f", longopts, NULL)) != -1) {
		if (c != 'f')
			return NULL;
		*force = true;
	}
	if (optind != argc - 1)
		return NULL;
	return argv[optind];
}

static int policy_command(int argc, char **argv)
{
	struct policy_maps maps;
	struct policy p;
	const char *path;
	bool force;
	int ret, lock;

	if (argc >= 3 && argc <= 4 && !strcmp(argv[1], "show") && !strcmp(argv[2], "--diff"))
		return policy_show_diff(argc == 4 ? argv[3] : DEFAULT_POLICY_FILE);
	if (argc == 2 && !strcmp(argv[1], "show")) {
		if (policy_maps_open(&maps))
			return 1;
		/* One policy whole: no apply rewrites a set while it is read. */
		lock = apply_lock();
		if (lock < 0) {
			policy_maps_close(&maps);
			return 1;
		}
		ret = policy_maps_read(&maps, &p);
		apply_unlock(lock);
		policy_maps_close(&maps);
		if (ret) {
			log_error("failed to read the live policy: %s", strerror(-ret));
			return 1;
		}
		policy_sort(&p); /* the order policy show --diff compares in */
		policy_print(stdout, &p);
		policy_free(&p);
		return 0;
	}
	if (argc < 2 || (strcmp(argv[1], "check") && strcmp(argv[1], "apply")))
		goto usage;
	path = policy_file_arg(argc - 1, argv + 1, &force);
	if (!path)
		goto usage;
	if (!strcmp(argv[1], "apply"))
		return policy_apply_file(path, force) ? 1 : 0;
	if (policy_parse_file(path, &p))
		return 1;
	ret = policy_lockout_gate_here(&p, path, force);
	policy_free(&p);
	if (ret < 0)
		return 1;
	printf("%s: valid\n", path);
	return 0;
usage:
	log_error("usage: argguard policy check [--force] FILE | apply [--force] FILE | show "
		  "[--diff [FILE]]");
	return 2;
}

/* Where run's option c, one that names a path, puts it. */
static const char **path_option(struct run_opts *opts, int c)
{
	return c == 'p' ? &opts->policy_path : c == 'l' ? &opts->log_path : &opts->metrics_dir;
}

static int parse_run_opts(int argc, char **argv, struct run_opts *opts)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "log", required_argument, NULL, 'l' },
		{ "linux-audit", no_argument, NULL, 'a' },
		{ "no-journal", no_argument, NULL, 'J' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "on-stop", required_argument, NULL, 's' },
		{ "metrics-dir", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c;

	*opts = (struct run_opts){ .log_path = DEFAULT_LOG, .policy_path = DEFAULT_POLICY_FILE };
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:l:s:m:aJvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
		case 'J':
			*(c == 'a' ? &opts->linux_audit : &opts->no_journal) = true;
			break;
		case 'p':
		case 'l':
		case 'm':
			*path_option(opts, c) = optarg;
			break;
		case 's':
			if (strcmp(optarg, "keep") && strcmp(optarg, "unload")) {
				log_error("--on-stop takes keep or unload, not '%s'", optarg);
				return 2;
			}
			opts->unload_on_stop = !strcmp(optarg, "unload");
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			print_command_help("run");
			exit(0);
		default:
			return 2;
		}
	}
	if (optind != argc) {
		log_error("unexpected argument '%s' to run", argv[optind]);
		return 2;
	}
	return 0;
}

static int run_command(int argc, char **argv)
{
	struct run_opts opts;
	int err = parse_run_opts(argc, argv, &opts);

	return err ? err : run_daemon(&opts);
}

/* A whole number from 1 to max in text, or 0. */
static unsigned long whole_number(const char *text, unsigned long max)
{
	unsigned long v;
	char *end;

	if (text[0] < '0' || text[0] > '9')
		return 0;
	errno = 0;
	v = strtoul(text, &end, 10);
	return *end || errno || v > max ? 0 : v;
}

/* reload --pid PID [--timeout SECONDS] */
static int reload_command(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{},
	};
	unsigned long pid = 0, timeout = RELOAD_TIMEOUT_S;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pid = whole_number(optarg, INT32_MAX);
			if (!pid) {
				log_error("--pid takes a process id, not '%s'", optarg);
				return 2;
			}
			break;
		case 't':
			timeout = whole_number(optarg, 3600);
			if (!timeout) {
				log_error("--timeout takes whole seconds from 1 to 3600, not '%s'",
					  optarg);
				return 2;
			}
			break;
		default:
			log_error("usage: argguard reload --pid PID [--timeout SECONDS]");
			return 2;
		}
	}
	if (optind != argc) {
		log_error("unexpected argument '%s' to reload", argv[optind]);
		return 2;
	}
	if (!pid) {
		log_error("reload needs --pid PID, argguard run's: use systemctl reload argguard, "
			  "which passes it");
		return 2;
	}
	return policy_reload_daemon((pid_t)pid, (unsigned int)timeout) ? 1 : 0;
}

static int unload_command(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		log_error("unload takes no arguments");
		return 2;
	}
	return pin_dir_unload() ? 1 : 0;
}

/*
 * The commands, by their first word, each with its handler (argv[0] is the
 * command); what each does and takes is help.c's text.
 */
static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "run", run_command },		{ "policy", policy_command },
	{ "status", status },		{ "report", report_command },
	{ "suggest", suggest_command }, { "unload", unload_command },
	{ "reload", reload_command },	{ "preflight", preflight_command },
};

int main(int argc, char **argv)
{
	const char *cmd, *help;
	char name[64];

	if (argc < 2) {
		print_short_usage();
		return 2;
	}
	cmd = argv[1];
	help = help_asked(argc, argv, name, sizeof(name));
	if (help) {
		print_command_help(help);
		return 0;
	}
	if (!strcmp(cmd, "help") && argc > 2)
		return unknown_command(argv[2]);
	if (is_help(cmd) || !strcmp(cmd, "help")) {
		print_usage();
		return 0;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		puts("argguard " ARGGUARD_VERSION);
		return 0;
	}
	libbpf_set_print(libbpf_print);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	return unknown_command(cmd);
}
