// SPDX-License-Identifier: GPL-2.0
/*
 * argguard's help (help.h): the text, in pieces by command, and the three
 * ways it is printed: argguard --help, argguard COMMAND --help, and the
 * synopsis alone after a usage error.
 */
#include "help.h"

#include <stdio.h>
#include <string.h>

#include "apply.h"
#include "json_log.h"
#include "metrics_file.h"
#include "names.h"
#include "pins.h"
#include "policy.h"
#include "size_state.h"

/* Where the package puts the monitoring files (CMakeLists.txt, monitoring/). */
#define ARGGUARD_SHARE_DIR "/usr/share/argguard"

/*
 * The help text, in pieces: argguard --help prints them all, argguard CMD
 * --help the pieces of CMD ("policy" is check, apply and show together).
 * The man page, doc/argguard.8.scd, must name every command, option,
 * signal, file and exit status named here: tests/checks/help-man-sync.sh
 * checks.
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
	"                        it as argguard unload would: then every restart,\n"
	"                        an upgrade's too, leaves execs unjudged until the\n"
	"                        next start. A crash always keeps it.\n"
	"    -m, --metrics-dir DIR\n"
	"                        Keep DIR/" METRICS_TEXTFILE " current for node_exporter's\n"
	"                        textfile collector (on Debian, DIR is\n"
	"                        " DEBIAN_TEXTFILE_DIR "): rewritten\n"
	"                        atomically every 5 seconds and on reload, removed on\n"
	"                        stop. DIR must be writable by root alone.\n"
	"                        Default: no metrics file.\n"
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

static const char report_options[] =
	"        --format text|json\n"
	"                        With report: a bar chart per distribution (default),\n"
	"                        or one JSON object.\n"
	"        --policy FILE   With report: judge the limits of FILE, not the live\n"
	"                        policy's, against what was counted.\n";

static const char report_description[] =
	"    report        Print the size distributions (argv_bytes, envp_bytes,\n"
	"                  total_bytes, argc, envc; log2 buckets) of the execs\n"
	"                  each rule judged, by scope: [global], [setuid], each\n"
	"                  uid and cgroup rule, and since when; those that ran\n"
	"                  and those argguard denied, apart; the largest execs\n"
	"                  seen, each kind (uid, comm, cgroup, sizes); and how\n"
	"                  many execs each limit in force (or in --policy FILE)\n"
	"                  would have denied or logged as would-deny. Counting\n"
	"                  is on while the mode is audit or enforce; a rule keeps\n"
	"                  its counts while it stays in the policy, across\n"
	"                  restarts, reboots and upgrades\n"
	"                  (" ARGGUARD_SIZES_STATE "). It says which window\n"
	"                  it covers; --format json adds the host, the boot id,\n"
	"                  the size mode and a schema version.\n";

static const char suggest_options[] =
	"        --keep-share P  With suggest: the percentage of the execs at or over\n"
	"                        the floors that each limit lets through, each\n"
	"                        uid's execs weighing as one uid; the rest, the\n"
	"                        largest, are denied (default 100: none that ran).\n"
	"                        --keep-share 99.9 denies the largest 0.1%.\n"
	"        --margin M      With suggest: the percentage added on top of what\n"
	"                        ran (default 25).\n"
	"        --mode MODE     With suggest: the suggested policy's mode (default\n"
	"                        enforce).\n"
	"        --tier deny|would-deny\n"
	"                        With suggest: set the deny limits (max_*, the\n"
	"                        default) or only the would-deny tier's\n"
	"                        (audit_max_*).\n"
	"        --counts        With suggest: set max_argc and max_envc too (at\n"
	"                        least 32768); else they stay as they are.\n"
	"        --min-execs N   With suggest: a scope with fewer execs that ran\n"
	"                        keeps its limits (default 1000).\n"
	"        --min-hours H   With suggest: so does one counted for fewer hours\n"
	"                        (default 24).\n"
	"        --policy FILE   With suggest: start from FILE, not the live policy.\n"
	"        --from FILE...  With suggest: from the counts of these reports\n"
	"                        (argguard report --format json, of many hosts),\n"
	"                        summed, not this host's; the policy it starts\n"
	"                        from stands for the hosts' policies in force.\n";

static const char suggest_description[] =
	"    suggest       Print a policy file: the live policy (or FILE) with\n"
	"                  the byte limits of each rule set from the execs that\n"
	"                  ran under it, plus the margin, rounded up to a whole\n"
	"                  K. What argguard denied never counts, and no limit\n"
	"                  goes above a deny limit in force, nor under 128K; a\n"
	"                  scope under the minimum sample keeps its limits. A\n"
	"                  comment above each section gives its sample, its\n"
	"                  window and the largest exec that ran, and whose; its\n"
	"                  first lines, the window it learned from. Check it\n"
	"                  with argguard policy check, then apply it.\n";

static const char reload_options[] =
	"        --pid PID       With reload: the process id of argguard run\n"
	"                        (systemd's $MAINPID).\n"
	"        --timeout SECONDS\n"
	"                        With reload: how long to wait for the daemon's\n"
	"                        apply, 1 to 3600 (default 60).\n";

static const char reload_description[] =
	"    reload        Have argguard run (PID) apply its policy file, as\n"
	"                  SIGHUP does, and wait until it has: exits 0 once the\n"
	"                  file is live, 1 if the daemon refused it (its\n"
	"                  FILE:LINE error printed, the policy in force\n"
	"                  unchanged) or did not answer in time. systemctl\n"
	"                  reload argguard runs it.\n";

static const char preflight_options[] =
	"        --format text|json\n"
	"                        With preflight: a table (default), or one JSON object.\n"
	"        --policy FILE   With preflight: judge FILE's deny limits (default\n"
	"                        " DEFAULT_POLICY_FILE ").\n";

static const char preflight_description[] =
	"    preflight     Before enforcing: list the units (services and sockets\n"
	"                  systemd knows) and the running processes whose soft\n"
	"                  stack limit (LimitSTACK=, ulimit -s) lets an exec\n"
	"                  through that the policy file's deny limits would deny,\n"
	"                  each judged by the rule that would judge its execs:\n"
	"                  the kernel lets an exec copy strings up to a quarter of\n"
	"                  that limit (at most 6M), so under Debian's 8M stack\n"
	"                  nothing over 2M. Each line says the stack limit, that\n"
	"                  cap, and the limits under it with their rules: the\n"
	"                  execs between them would be denied. Reads /proc and\n"
	"                  systemctl, root only; loads nothing. A process may still\n"
	"                  raise its soft limit up to its hard one later: argguard\n"
	"                  report, after a while in audit mode, shows what ran.\n"
	"                  Exits 0 if it found none, 1 if it found some, 2 on an\n"
	"                  error.\n";

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
	{ "report", "    argguard report [--format text|json] [--policy FILE]\n",
	  report_description, report_options, NULL },
	{ "suggest",
	  "    argguard suggest [--keep-share P] [--margin M] [--mode MODE]\n"
	  "                     [--tier deny|would-deny] [--counts] [--min-execs N]\n"
	  "                     [--min-hours H] [--policy FILE] [--from FILE...]\n",
	  suggest_description, suggest_options, NULL },
	{ "reload", "    argguard reload --pid PID [--timeout SECONDS]\n", reload_description,
	  reload_options, NULL },
	{ "preflight", "    argguard preflight [--format text|json] [--policy FILE]\n",
	  preflight_description, preflight_options, NULL },
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
	"                        allow_lockout = yes|no, learn_sizes = yes|no (for\n"
	"                        argguard report), admin_groups = GROUP, ...\n"
	"                        (whose members the lockout gate protects),\n"
	"                        unknown_names = warn|error, and rule keys\n"
	"    [uid N], [user NAME], [cgroup /PATH], [setuid]\n"
	"                        rule keys: max_argv_bytes, max_envp_bytes,\n"
	"                        max_total_bytes (4096, 256K, 4M, 1G), max_argc,\n"
	"                        max_envc (0 = no limit), action = allow|audit|deny,\n"
	"                        errno = E2BIG|EPERM|EACCES|ENOMEM, and the same\n"
	"                        limits as audit_max_argv_bytes ... audit_max_envc:\n"
	"                        over one, an exec runs and is logged as would-deny\n"
	"    Each section and key at most once, lines of at most 4096 bytes; every\n"
	"    error names FILE:LINE. FILE.d/*.conf are read after FILE, as part of it.\n"
	"    A user or group this host does not know is skipped, with a warning\n"
	"    (unknown_names = warn|error in [global]). argguard.conf(5) has each\n"
	"    key's range and default.\n"
	"\n"
	"EXAMPLES\n"
	"    argguard policy check /etc/argguard/argguard.conf\n"
	"    argguard policy apply /etc/argguard/argguard.conf\n"
	"    systemctl reload argguard      # the same, through the daemon\n"
	"    argguard policy apply --force /root/kiosk.conf   # a lockout, knowingly\n"
	"    argguard policy show\n"
	"    argguard policy show --diff    # what a reload would change\n"
	"    argguard status --format json | jq .decisions.global.deny\n"
	"    argguard preflight             # who the limits would deny, before enforcing\n"
	"    argguard report                # sizes seen, and what the limits deny\n"
	"    argguard suggest --keep-share 99.9 > /tmp/new.conf  # denies the top 0.1%\n"
	"    argguard suggest --from host-*.json > /tmp/fleet.conf   # many hosts' reports\n"
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
	"    " DEFAULT_POLICY_FILE POLICY_FRAGMENT_DIR_SUFFIX
	"/    its fragments, *.conf, after it\n"
	"    " ARGGUARD_LAST_GOOD "  the last policy that applied\n"
	"    " ARGGUARD_SIZES_STATE "     the window's size counts\n"
	"    " ARGGUARD_APPLY_STATUS "       the last apply's outcome\n"
	"    " ARGGUARD_NAMES_UNKNOWN "      there while it skipped names unknown here\n"
	"    " DEFAULT_LOG "\n"
	"    " ARGGUARD_PIN_DIR "/\n"
	"    " ARGGUARD_SHARE_DIR "/  Prometheus alert rules, a Grafana dashboard\n"
	"\n"
	"EXIT STATUS\n"
	"    0 on success, 1 on a failure or a refused policy, 2 on a usage error;\n"
	"    policy show --diff: 0 if they match, 1 if they differ, 2 on an error;\n"
	"    preflight: 0 if it found nothing, 1 if it found something, 2 on an error;\n"
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
void print_usage(void)
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
void print_short_usage(void)
{
	fputs("usage:\n", stderr);
	print_part(stderr, NULL, SYNOPSIS);
	fputs(help_synopsis, stderr);
}

/* argguard CMD --help: CMD's synopsis, description, options and sections. */
void print_command_help(const char *name)
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

bool is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

/*
 * argguard CMD ... --help, wherever --help is among CMD's arguments (up to a
 * "--"): the name of CMD, whose help to print, or NULL.
 */
const char *help_asked(int argc, char **argv, char *buf, size_t len)
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

_Static_assert(METRICS_INTERVAL_S == 5, "--help says --metrics-dir rewrites every 5 seconds");
