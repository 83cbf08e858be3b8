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
#include "log.h"
#include "metrics.h"
#include "policy_maps.h"

static const char usage_text[] =
	"NAME\n"
	"    argguard - execve() argument-size policy and audit log\n"
	"\n"
	"SYNOPSIS\n"
	"    argguard run [--policy FILE] [--log FILE] [--linux-audit]\n"
	"                 [--on-stop keep|unload] [--metrics-dir DIR] [-v]\n"
	"    argguard policy check [--force] FILE\n"
	"    argguard policy apply [--force] FILE\n"
	"    argguard policy show\n"
	"    argguard status [--format text|json|prometheus]\n"
	"    argguard unload\n"
	"    argguard --help | --version\n"
	"\n"
	"DESCRIPTION\n"
	"    argguard judges every execve() by the bytes and counts of its\n"
	"    argument and environment strings, in BPF LSM programs, against a\n"
	"    site policy kept in pinned maps under " ARGGUARD_PIN_DIR "/.\n"
	"    The most specific rule decides: the caller's nearest cgroup with a\n"
	"    rule, then its uid, then [global]. A [setuid] rule applies on top\n"
	"    to privilege-gaining execs and can only tighten.\n"
	"\n"
	"    run           Load and attach the programs, pin maps and links, and\n"
	"                  append one JSON line per offending exec to the log until\n"
	"                  SIGTERM. It reports ready only once the bpf LSM is\n"
	"                  active and a probe exec was denied. The policy file is\n"
	"                  applied on a fresh start (if it cannot be, the last\n"
	"                  policy that applied, else mode enforce with a 1M\n"
	"                  global limit) and on SIGHUP. After a crash or a stop,\n"
	"                  the next run adopts the pinned links and maps: the\n"
	"                  policy, bpftool edits\n"
	"                  included, and the counters carry on, and records emitted\n"
	"                  meanwhile are logged from the ring buffer. Enforcement\n"
	"                  stays in place while no daemon runs, unless --on-stop\n"
	"                  unload says otherwise.\n"
	"    policy check  Validate FILE; change nothing. Like apply, it refuses a\n"
	"                  policy that would lock admins out (see --force).\n"
	"    policy apply  Replace the live policy with FILE, atomically: a file\n"
	"                  with an error changes nothing, and no exec sees half of\n"
	"                  the new policy.\n"
	"    policy show   Print the live policy, bpftool edits included, as a\n"
	"                  policy file.\n"
	"    status        Print the mode, the last apply's outcome, the decision\n"
	"                  counters by scope and verdict, and the records dropped\n"
	"                  by reason: rate_limited (summed up in the log) and\n"
	"                  ring_full (lost). --format json prints one JSON object;\n"
	"                  --format prometheus, the metrics that --metrics-dir\n"
	"                  writes.\n"
	"    unload        With no daemon running, remove every pin under\n"
	"                  " ARGGUARD_PIN_DIR "/: the programs detach and\n"
	"                  enforcement ends. Refuses while argguard run is live.\n"
	"\n"
	"OPTIONS\n"
	"    -p, --policy FILE   Policy file (default " DEFAULT_POLICY_FILE ").\n"
	"    -l, --log FILE      JSON-lines log (default " DEFAULT_LOG ").\n"
	"    -a, --linux-audit   Also send each record to the Linux audit log, as\n"
	"                        AUDIT_TRUSTED_APP (ausearch -m TRUSTED_APP).\n"
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
	"    -f, --force         With policy check or apply: accept a policy that\n"
	"                        would lock admins out. That is one that, in enforce\n"
	"                        mode, denies with a byte limit under 32K or an argc\n"
	"                        or envc limit under 64 in [global] or [setuid] (sudo\n"
	"                        meets them), [uid 0], or a [cgroup] on /, /init.scope,\n"
	"                        /system.slice, /user.slice and below, or an ssh or\n"
	"                        getty unit: 'argguard policy apply FILE' alone has 4\n"
	"                        arguments. Without --force such a policy is refused\n"
	"                        and nothing changes. The daemon never forces: it\n"
	"                        applies such a file, at boot and on reload, only if\n"
	"                        its [global] says allow_lockout = yes.\n"
	"    -v, --verbose       Show libbpf's own messages.\n"
	"    -h, --help          Show this help.\n"
	"    -V, --version       Show the version.\n"
	"\n"
	"POLICY FILE\n"
	"    [global]            mode = off|audit|enforce (required), empty_argv =\n"
	"                        allow|audit|deny, argv_head_bytes (0-1024),\n"
	"                        event_rate (0-1000000/s), event_burst (0-1000000),\n"
	"                        allow_lockout = yes|no, and rule keys\n"
	"    [uid N], [user NAME], [cgroup /PATH], [setuid]\n"
	"                        rule keys: max_argv_bytes, max_envp_bytes,\n"
	"                        max_total_bytes (4096, 256K, 4M, 1G), max_argc,\n"
	"                        max_envc (0 = no limit), action = allow|audit|deny,\n"
	"                        errno = E2BIG|EPERM|EACCES|ENOMEM\n"
	"    Each section and key at most once, lines of at most 197 bytes; every\n"
	"    error names FILE:LINE. README.md has each key's range and default.\n"
	"\n"
	"EXAMPLES\n"
	"    argguard policy check /etc/argguard/argguard.conf\n"
	"    argguard policy apply /etc/argguard/argguard.conf\n"
	"    systemctl reload argguard      # the same, through the daemon\n"
	"    argguard policy apply --force /root/kiosk.conf   # a lockout, knowingly\n"
	"    argguard policy show\n"
	"    argguard status --format json | jq .decisions.global.deny\n"
	"    bpftool map dump pinned " ARGGUARD_PIN_DIR "/global_rules\n"
	"\n"
	"SIGNALS (argguard run)\n"
	"    SIGTERM, SIGINT     Stop (see --on-stop).\n"
	"    SIGHUP              Apply the policy file (systemctl reload argguard).\n"
	"    SIGUSR1             Reopen the log, and nothing else (logrotate).\n"
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
	"\n"
	"EXIT STATUS\n"
	"    0 on success, 1 on a failure or a refused policy, 2 on a usage error;\n"
	"    argguard run exits 78 when it cannot prove enforcement (no bpf LSM).\n";

_Static_assert(METRICS_INTERVAL_S == 5, "--help says --metrics-dir rewrites every 5 seconds");

static bool verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* status [--format text|json|prometheus]: the counters, mode and last apply. */
static int status(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'F' },
		{},
	};
	struct argguard_metrics m = { 0 };
	struct policy_maps maps;
	char err[512];
	int format = METRICS_TEXT, c, ret;

	optind = 1;
	opterr = 0; /* getopt would name "status" as the program */
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
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
	ret = metrics_read_maps(maps.fd[MAP_CONFIG], maps.fd[MAP_COUNTERS], maps.fd[MAP_DROPS], &m);
	policy_maps_close(&maps);
	if (ret) {
		log_error("failed to read the config map: %s", strerror(-ret));
		return 1;
	}
	apply_status_load(ARGGUARD_APPLY_STATUS, &m.last_apply);
	ret = metrics_print(stdout, format, &m);
	if (ret) {
		log_error("failed to format the status: %s", strerror(-ret));
		return 1;
	}
	return 0;
usage:
	log_error("usage: argguard status [--format text|json|prometheus]");
	return 2;
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
	ret = policy_lockout_gate(&p, path, force, why, sizeof(why));
	policy_free(&p);
	if (ret)
		log_error("%s%s", ret > 0 ? "warning: " : "", why);
	if (ret < 0)
		return 1;
	printf("%s: valid\n", path);
	return 0;
usage:
	log_error("usage: argguard policy check [--force] FILE | apply [--force] FILE | show");
	return 2;
}

static int parse_run_opts(int argc, char **argv, struct run_opts *opts)
{
	static const struct option longopts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "log", required_argument, NULL, 'l' },
		{ "linux-audit", no_argument, NULL, 'a' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "on-stop", required_argument, NULL, 's' },
		{ "metrics-dir", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c;

	*opts = (struct run_opts){ .log_path = DEFAULT_LOG, .policy_path = DEFAULT_POLICY_FILE };
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:l:s:m:avh", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			opts->linux_audit = true;
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
			fputs(usage_text, stdout);
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
	const char *cmd;
	int err;

	if (argc < 2) {
		fputs(usage_text, stderr);
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		fputs(usage_text, stdout);
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
		return unload();
	}
	if (!strcmp(cmd, "status"))
		return status(argc - 1, argv + 1);
	log_error("unknown command '%s' (try 'argguard --help')", cmd);
	return 2;
}
