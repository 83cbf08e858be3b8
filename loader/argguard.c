// SPDX-License-Identifier: GPL-2.0
/*
 * argguard: the command line. run (the daemon), status, and policy
 * check/apply/show.
 */
#include <errno.h>
#include <getopt.h>
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
#include "json_log.h"
#include "metrics_file.h"
#include "log.h"
#include "metrics.h"
#include "names.h"
#include "policy.h"
#include "policy_diff.h"
#include "policy_maps.h"
#include "pin_dir.h"

/* Where the package puts the monitoring files (CMakeLists.txt, monitoring/). */
#define ARGGUARD_SHARE_DIR "/usr/share/argguard"

/*
 * The help text, in pieces: argguard --help prints them all, argguard CMD
 * --help the pieces of CMD ("policy" is check, apply and show together).
 * The man page, doc/argguard.8.scd, must name every command, option,
 * signal, file and exit status named here: tests/help-man-sync.sh checks.
 */
struct command_help {
	const char *name; /* "run", "policy check", ... */
	const char *synopsis; /* its SYNOPSIS lines */
	const char *description; /* its entry under DESCRIPTION */
	const char *options; /* its entries under OPTIONS, or NULL */
	const char *more; /* sections of its own, or NULL */
};

static const char run_options[] =
	"    -p, --policy FILE   Policy file (default " DEFAULT_POLICY_FILE ").\n"
	"    -l, --log FILE      JSON-lines log (default " DEFAULT_LOG ").\n"
	"    -a, --linux-audit   Also send each record to the Linux audit log, as\n"
	"                        AUDIT_TRUSTED_APP (ausearch -m TRUSTED_APP).\n"
	"    -J, --no-journal    Do not send records to journald, to spare the CPU\n"
	"                        it spends on each; the JSON-lines log still gets\n"
	"                        every one. The daemon's own messages still go to\n"
	"                        the journal.\n"
	"    -s, --on-stop keep|unload\n"
	"                        What SIGTERM (systemctl stop) does to enforcement:\n"
	"                        keep it in the pinned links (default), or unload\n"
	"                        it as argguard unload would. A crash always keeps it.\n"
	"    -m, --metrics-dir DIR\n"
	"                        Keep DIR/" METRICS_TEXTFILE " current for node_exporter's\n"
	"                        textfile collector (on Debian, DIR is\n"
	"                        " DEBIAN_TEXTFILE_DIR "): rewritten\n"
	"                        atomically every 5 seconds and on reload, removed on\n"
	"                        stop. Default: no metrics file.\n"
	"    -v, --verbose       Show libbpf's own messages.\n";

static const char force_option[] =
	"    -f, --force         With policy check or apply: accept a policy that\n"
	"                        would lock admins out. That is one that, in enforce\n"
	"                        mode, denies with a byte limit under 32K or an argc\n"
	"                        or envc limit under 64 in [global] or [setuid] (sudo\n"
	"                        meets them), [uid 0], the [uid N] or [user NAME] of\n"
	"                        a member of an admin group (admin_groups; default:\n"
	"                        sudo, adm and wheel), or a [cgroup] on /, /init.scope,\n"
	"                        /system.slice, /user.slice and below, or an ssh or\n"
	"                        getty unit: 'argguard policy apply FILE' alone has 4\n"
	"                        arguments. Without --force such a policy is refused\n"
	"                        and nothing changes. The daemon never forces: it\n"
	"                        applies such a file, at boot and on reload, only if\n"
	"                        its [global] says allow_lockout = yes.\n";

static const char signals_text[] =
	"\n"
	"SIGNALS (argguard run)\n"
	"    SIGTERM, SIGINT     Stop (see --on-stop).\n"
	"    SIGHUP              Apply the policy file (systemctl reload argguard).\n"
	"    SIGUSR1             Reopen the log, and nothing else (logrotate).\n";

static const char run_description[] =
	"    run           Load and attach the programs, pin maps and links, and\n"
	"                  append one JSON line per offending exec to the log until\n"
	"                  SIGTERM. It reports ready only once the bpf LSM is\n"
	"                  active and a probe exec was denied. The policy file is\n"
	"                  applied on a fresh start (if it cannot be, the last\n"
	"                  policy that applied, else the shipped file's limits\n"
	"                  and record rates) and on\n"
	"                  SIGHUP. After a crash or a stop,\n"
	"                  the next run adopts the pinned links and maps: the\n"
	"                  policy, bpftool edits\n"
	"                  included, and the counters carry on, and records emitted\n"
	"                  meanwhile are logged from the ring buffer. Enforcement\n"
	"                  stays in place while no daemon runs, unless --on-stop\n"
	"                  unload says otherwise.\n";

static const char check_description[] =
	"    policy check  Validate FILE; change nothing. Like apply, it refuses a\n"
	"                  policy that would lock admins out (see --force).\n";

static const char apply_description[] =
	"    policy apply  Replace the live policy with FILE, atomically: a file\n"
	"                  with an error changes nothing, and no exec sees half of\n"
	"                  the new policy.\n";

static const char show_description[] =
	"    policy show   Print the live policy, bpftool edits included, as a\n"
	"                  policy file. With --diff, a unified diff from it to\n"
	"                  FILE (default " DEFAULT_POLICY_FILE "):\n"
	"                  what a reload would change. Both are printed this way,\n"
	"                  so comments, spelling and order do not count, nor\n"
	"                  allow_lockout and admin_groups (no map holds them).\n"
	"                  Exits 0 if they match, 1 if they differ, 2 on an\n"
	"                  error (FILE:LINE for the file's).\n";

static const char status_options[] =
	"        --format text|json|prometheus\n"
	"                        With status: the output format (default text).\n"
	"        --policy FILE   With status: the policy file to compare the live\n"
	"                        policy with (default " DEFAULT_POLICY_FILE ").\n";

static const char status_description[] =
	"    status        Print the mode, the LSM hooks argguard's programs are\n"
	"                  attached to, the last apply's outcome, the decision\n"
	"                  counters by scope and verdict, and the records dropped\n"
	"                  by reason: rate_limited (summed up in the log) and\n"
	"                  ring_full (lost); and whether the live policy matches\n"
	"                  the policy file (policy_file: matches, DIFFERS or\n"
	"                  INVALID; argguard_policy_drift). --format json prints\n"
	"                  one JSON object; --format prometheus, the metrics that\n"
	"                  --metrics-dir writes. Exits 1 if a hook has no program\n"
	"                  attached, or if the policy_state is not applied (a\n"
	"                  start died before it applied the policy file); not\n"
	"                  for a policy that differs from the file.\n";

static const char unload_description[] =
	"    unload        With no daemon running, remove every pin under\n"
	"                  " ARGGUARD_PIN_DIR "/: the programs detach and\n"
	"                  enforcement ends. Refuses while argguard run is live.\n";

static const struct command_help commands[] = {
	{ "run",
	  "    argguard run [--policy FILE] [--log FILE] [--linux-audit] [--no-journal]\n"
	  "                 [--on-stop keep|unload] [--metrics-dir DIR] [-v]\n",
	  run_description, run_options, signals_text },
	{ "policy check", "    argguard policy check [--force] FILE\n", check_description,
	  force_option, NULL },
	{ "policy apply", "    argguard policy apply [--force] FILE\n", apply_description,
	  force_option, NULL },
	{ "policy show", "    argguard policy show [--diff [FILE]]\n", show_description, NULL,
	  NULL },
	{ "status", "    argguard status [--format text|json|prometheus] [--policy FILE]\n",
	  status_description, status_options, NULL },
	{ "unload", "    argguard unload\n", unload_description, NULL, NULL },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char help_synopsis[] = "    argguard --help | --version\n"
				    "    argguard COMMAND --help\n";

static const char help_description[] =
	"    argguard judges every execve() by the bytes and counts of its\n"
	"    argument and environment strings, in BPF LSM programs, against a\n"
	"    site policy kept in pinned maps under " ARGGUARD_PIN_DIR "/.\n"
	"    The most specific rule decides: the caller's nearest cgroup with a\n"
	"    rule, then its uid (else, in a user namespace a user made, that\n"
	"    user's), then [global]. A [setuid] rule applies on top to\n"
	"    privilege-gaining execs and can only tighten.\n"
	"\n"
	"    The file and the live policy: systemctl reload argguard applies the\n"
	"    file; a restart keeps what is live (bpftool edits too); argguard\n"
	"    policy show --diff tells you if they differ.\n"
	"\n";

static const char help_options[] = "    -h, --help          Show this help.\n";

static const char version_option[] = "    -V, --version       Show the version.\n";

static const char help_policy_examples[] =
	"\n"
	"POLICY FILE\n"
	"    [global]            mode = off|audit|enforce (required), empty_argv =\n"
	"                        allow|audit|deny, argv_head_bytes (0-1024),\n"
	"                        event_rate (0-1000000/s per uid), event_burst\n"
	"                        (0-1000000), event_rate_total (0-1000000/s),\n"
	"                        allow_lockout = yes|no, admin_groups = GROUP, ...\n"
	"                        (whose members the lockout gate protects), and rule\n"
	"                        keys\n"
	"    [uid N], [user NAME], [cgroup /PATH], [setuid]\n"
	"                        rule keys: max_argv_bytes, max_envp_bytes,\n"
	"                        max_total_bytes (4096, 256K, 4M, 1G), max_argc,\n"
	"                        max_envc (0 = no limit), action = allow|audit|deny,\n"
	"                        errno = E2BIG|EPERM|EACCES|ENOMEM, and the same\n"
	"                        limits as audit_max_argv_bytes ... audit_max_envc:\n"
	"                        over one, an exec runs and is logged as would-deny\n"
	"    Each section and key at most once, lines of at most 4096 bytes; every\n"
	"    error names FILE:LINE. argguard.conf(5) has each key's range and default.\n"
	"\n"
	"EXAMPLES\n"
	"    argguard policy check /etc/argguard/argguard.conf\n"
	"    argguard policy apply /etc/argguard/argguard.conf\n"
	"    systemctl reload argguard      # the same, through the daemon\n"
	"    argguard policy apply --force /root/kiosk.conf   # a lockout, knowingly\n"
	"    argguard policy show\n"
	"    argguard policy show --diff    # what a reload would change\n"
	"    argguard status --format json | jq .decisions.global.deny\n"
	"    journalctl _SYSTEMD_UNIT=argguard.service _UID=0 ARGGUARD_VERDICT=deny\n"
	"    bpftool map dump pinned " ARGGUARD_PIN_DIR "/global_rules\n";

_Static_assert(POLICY_LINE_MAX == 4096, "the help text names the longest line");

static const char help_tail[] =
	"\n"
	"RECOVERY\n"
	"    argguard.mode=audit (or off) on the kernel command line forces that\n"
	"    mode on every apply in the boot: for a policy that locks you out.\n"
	"\n"
	"FILES\n"
	"    " DEFAULT_POLICY_FILE "\n"
	"    " ARGGUARD_LAST_GOOD "  the last policy that applied\n"
	"    " ARGGUARD_APPLY_STATUS "       the last apply's outcome\n"
	"    " DEFAULT_LOG "\n"
	"    " ARGGUARD_PIN_DIR "/\n"
	"    " ARGGUARD_SHARE_DIR "/  Prometheus alert rules, a Grafana dashboard\n"
	"\n"
	"EXIT STATUS\n"
	"    0 on success, 1 on a failure or a refused policy, 2 on a usage error;\n"
	"    policy show --diff: 0 if they match, 1 if they differ, 2 on an error;\n"
	"    argguard run exits 78 when it cannot prove enforcement (no bpf LSM).\n"
	"\n"
	"SEE ALSO\n"
	"    argguard(8), argguard.conf(5)\n";

/* Is c the command name, or one of the commands of the group name ("policy")? */
static bool command_in(const struct command_help *c, const char *name)
{
	size_t len = strlen(name);

	return !strncmp(c->name, name, len) && (c->name[len] == '\0' || c->name[len] == ' ');
}

enum help_part { SYNOPSIS, DESCRIPTION, OPTIONS, MORE };

static const char *help_part(const struct command_help *c, enum help_part part)
{
	switch (part) {
	case SYNOPSIS:
		return c->synopsis;
	case DESCRIPTION:
		return c->description;
	case OPTIONS:
		return c->options;
	default:
		return c->more;
	}
}

/* One part of the help of the commands in name (NULL: all), each text once. */
static void print_part(FILE *out, const char *name, enum help_part part)
{
	const char *text, *last = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		if (name && !command_in(&commands[i], name))
			continue;
		text = help_part(&commands[i], part);
		if (text && text != last)
			fputs(text, out);
		last = text;
	}
}

/* argguard --help: every command. */
static void print_usage(void)
{
	fputs("NAME\n"
	      "    argguard - execve() argument-size policy and audit log\n"
	      "\n"
	      "SYNOPSIS\n",
	      stdout);
	print_part(stdout, NULL, SYNOPSIS);
	fputs(help_synopsis, stdout);
	fputs("\nDESCRIPTION\n", stdout);
	fputs(help_description, stdout);
	print_part(stdout, NULL, DESCRIPTION);
	fputs("\nOPTIONS\n", stdout);
	print_part(stdout, NULL, OPTIONS);
	fputs(help_options, stdout);
	fputs(version_option, stdout);
	fputs(help_policy_examples, stdout);
	fputs(signals_text, stdout);
	fputs(help_tail, stdout);
}

/* No command, or an unknown one: the synopsis alone, on stderr. */
static void print_short_usage(void)
{
	fputs("usage:\n", stderr);
	print_part(stderr, NULL, SYNOPSIS);
	fputs(help_synopsis, stderr);
}

/* argguard CMD --help: CMD's synopsis, description, options and sections. */
static void print_command_help(const char *name)
{
	fputs("SYNOPSIS\n", stdout);
	print_part(stdout, name, SYNOPSIS);
	fputs("\nDESCRIPTION\n", stdout);
	print_part(stdout, name, DESCRIPTION);
	fputs("\nOPTIONS\n", stdout);
	print_part(stdout, name, OPTIONS);
	fputs(help_options, stdout);
	print_part(stdout, name, MORE);
	fputs("\nargguard --help and argguard(8) say more.\n", stdout);
}

/*
 * The command argv[1] names: "run", "policy check" (then *words is 2), or
 * the group "policy" when no known subcommand follows it. NULL for an
 * unknown command.
 */
static const char *command_name(int argc, char **argv, char *buf, size_t len, int *words)
{
	size_t i;

	*words = 2;
	if (argc > 2) {
		snprintf(buf, len, "%s %s", argv[1], argv[2]);
		for (i = 0; i < ARRAY_SIZE(commands); i++)
			if (!strcmp(commands[i].name, buf))
				return buf;
	}
	*words = 1;
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (command_in(&commands[i], argv[1]))
			return argv[1];
	return NULL;
}

static bool is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

/*
 * argguard CMD ... --help, wherever --help is among CMD's arguments (up to a
 * "--"): the name of CMD, whose help to print, or NULL.
 */
static const char *help_asked(int argc, char **argv, char *buf, size_t len)
{
	const char *name;
	int words;

	if (!strcmp(argv[1], "help")) /* argguard help CMD */
		return argc > 2 ? command_name(argc - 1, argv + 1, buf, len, &words) : NULL;
	name = command_name(argc, argv, buf, len, &words);
	for (int i = 1 + words; name && i < argc && strcmp(argv[i], "--"); i++)
		if (is_help(argv[i]))
			return name;
	return NULL;
}

static int unknown_command(const char *cmd)
{
	log_error("unknown command '%s' (try 'argguard --help')", cmd);
	print_short_usage();
	return 2;
}

_Static_assert(METRICS_INTERVAL_S == 5, "--help says --metrics-dir rewrites every 5 seconds");

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
	struct policy_maps maps;
	const char *policy_path = DEFAULT_POLICY_FILE;
	char err[512];
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
	if (policy_maps_open(&maps, err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	ret = metrics_read_maps(&(struct live_maps){ .config = maps.fd[PIN_CONFIG],
						     .settings = maps.fd[PIN_SETTINGS],
						     .counters = maps.fd[PIN_COUNTERS],
						     .drops = maps.fd[PIN_DROPS] },
				&m);
	if (!ret)
		check_policy_file(&maps, policy_path, &m);
	policy_maps_close(&maps);
	if (ret) {
		log_error("failed to read the live settings: %s", strerror(-ret));
		return 1;
	}
	apply_status_load(ARGGUARD_APPLY_STATUS, &m.last_apply);
	ret = metrics_print(stdout, format, &m);
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
	char *live_text = NULL, *file_text = NULL, err[512];
	int ret, lock;

	if (policy_parse_file(path, &file, err, sizeof(err))) {
		log_error("%s", err);
		return 2;
	}
	file_text = policy_canonical_text(&file);
	policy_free(&file);
	if (policy_maps_open(&maps, err, sizeof(err))) {
		log_error("%s", err);
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
	char err[512], why[POLICY_LOCKOUT_MSG];
	bool force;
	int ret, lock;

	if (argc >= 3 && argc <= 4 && !strcmp(argv[1], "show") && !strcmp(argv[2], "--diff"))
		return policy_show_diff(argc == 4 ? argv[3] : DEFAULT_POLICY_FILE);
	if (argc == 2 && !strcmp(argv[1], "show")) {
		if (policy_maps_open(&maps, err, sizeof(err))) {
			log_error("%s", err);
			return 1;
		}
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
	if (policy_parse_file(path, &p, err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	ret = policy_lockout_gate_here(&p, path, force, why, sizeof(why));
	policy_free(&p);
	if (ret > 0)
		log_warning("%s", why);
	else if (ret < 0)
		log_error("%s", why);
	if (ret < 0)
		return 1;
	printf("%s: valid\n", path);
	return 0;
usage:
	log_error("usage: argguard policy check [--force] FILE | apply [--force] FILE | show "
		  "[--diff [FILE]]");
	return 2;
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
			opts->linux_audit = true;
			break;
		case 'J':
			opts->no_journal = true;
			break;
		case 'p':
			opts->policy_path = optarg;
			break;
		case 'l':
			opts->log_path = optarg;
			break;
		case 'm':
			opts->metrics_dir = optarg;
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

int main(int argc, char **argv)
{
	struct run_opts opts;
	const char *cmd, *help;
	char name[64];
	int err;

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

	if (!strcmp(cmd, "run")) {
		err = parse_run_opts(argc - 1, argv + 1, &opts);
		return err ? err : run_daemon(&opts);
	}
	if (!strcmp(cmd, "policy"))
		return policy_command(argc - 1, argv + 1);
	if (!strcmp(cmd, "unload")) {
		if (argc != 2) {
			log_error("unload takes no arguments");
			return 2;
		}
		return pin_dir_unload() ? 1 : 0;
	}
	if (!strcmp(cmd, "status"))
		return status(argc - 1, argv + 1);
	return unknown_command(cmd);
}
