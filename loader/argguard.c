// SPDX-License-Identifier: GPL-2.0
/*
 * argguard: load the exec-size LSM program, pin it, and log offending execs.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/magic.h>
#include <systemd/sd-daemon.h>

#include "argguard.h"
#include "argguard.skel.h"
#include "event_json.h"
#include "units.h"

#define DEFAULT_LOG "/var/log/argguard/events.jsonl"

static const char usage_text[] =
	"NAME\n"
	"    argguard - execve() argument-size policy and audit log\n"
	"\n"
	"SYNOPSIS\n"
	"    argguard run [--log FILE] [--max-total-bytes SIZE] [-v]\n"
	"    argguard status\n"
	"    argguard --help | --version\n"
	"\n"
	"DESCRIPTION\n"
	"    argguard judges every execve() by the bytes of its argument and\n"
	"    environment strings, in a BPF LSM program on bprm_check_security.\n"
	"    An exec over the limit fails with E2BIG and is written to the log.\n"
	"\n"
	"    run     Load and attach the program, pin its maps and link under\n"
	"            " ARGGUARD_PIN_DIR "/, then append one JSON line per\n"
	"            offending exec to the log until SIGTERM or SIGINT. Pinned\n"
	"            maps left by an earlier run are adopted with their values.\n"
	"            Enforcement stays in place after the daemon exits.\n"
	"    status  Print the live limit and the decision counters.\n"
	"\n"
	"OPTIONS\n"
	"    -l, --log FILE          JSON-lines log (default " DEFAULT_LOG ").\n"
	"    -m, --max-total-bytes SIZE\n"
	"                            Set the limit on argv + envp string bytes,\n"
	"                            NULs included. SIZE takes a K, M or G suffix;\n"
	"                            0 means no limit. Without this option the\n"
	"                            pinned value is kept.\n"
	"    -v, --verbose           Show libbpf's own messages.\n"
	"    -h, --help              Show this help.\n"
	"    -V, --version           Show the version.\n"
	"\n"
	"EXAMPLES\n"
	"    argguard run --max-total-bytes 1M\n"
	"    argguard status\n"
	"    bpftool map dump pinned " ARGGUARD_PIN_DIR "/config\n"
	"\n"
	"FILES\n"
	"    " ARGGUARD_PIN_DIR "/{config,counters,events,link}\n"
	"    " DEFAULT_LOG "\n"
	"\n"
	"EXIT STATUS\n"
	"    0 on success, 1 on a runtime failure, 2 on a usage error.\n";

static const char *counter_names[ARGGUARD_NR_COUNTERS] = {
	[ARGGUARD_ALLOWED] = "allowed",
	[ARGGUARD_DENIED] = "denied",
	[ARGGUARD_EVENTS_LOST] = "events_lost",
};

static volatile sig_atomic_t stopping;
static bool verbose;

struct run_opts {
	const char *log_path;
	bool set_limit;
	uint64_t max_total_bytes;
};

struct logger {
	int fd;
	int64_t realtime_offset_ns;
};

static void warnx(const char *fmt, ...)
{
	va_list ap;

	fputs("argguard: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static int64_t realtime_offset_ns(void)
{
	struct timespec rt, mono;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	return (rt.tv_sec - mono.tv_sec) * 1000000000LL + (rt.tv_nsec - mono.tv_nsec);
}

static int ensure_pin_dir(void)
{
	struct statfs fs;

	if (statfs("/sys/fs/bpf", &fs) || fs.f_type != BPF_FS_MAGIC) {
		if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700")) {
			warnx("failed to mount bpffs on /sys/fs/bpf: %s", strerror(errno));
			return -errno;
		}
	}
	if (mkdir(ARGGUARD_PIN_DIR, 0700) && errno != EEXIST) {
		warnx("failed to create %s: %s", ARGGUARD_PIN_DIR, strerror(errno));
		return -errno;
	}
	return 0;
}

static int set_limit(struct argguard_bpf *skel, uint64_t max_total_bytes)
{
	struct argguard_config cfg = { .max_total_bytes = max_total_bytes };
	__u32 zero = 0;
	int err;

	err = bpf_map__update_elem(skel->maps.config, &zero, sizeof(zero), &cfg, sizeof(cfg), 0);
	if (err)
		warnx("failed to set the limit: %s", strerror(-err));
	return err;
}

/*
 * Attach first, then swap the pin: the previous link, if any, detaches only
 * when its pin goes, by which time this one is enforcing. No exec slips by.
 */
static int attach_and_pin(struct argguard_bpf *skel)
{
	struct bpf_link *link;
	int err;

	link = bpf_program__attach_lsm(skel->progs.argguard_bprm_check);
	if (!link) {
		err = -errno;
		warnx("failed to attach to bprm_check_security: %s", strerror(-err));
		return err;
	}
	skel->links.argguard_bprm_check = link;
	if (unlink(ARGGUARD_LINK_PIN) && errno != ENOENT) {
		err = -errno;
		warnx("failed to replace %s: %s", ARGGUARD_LINK_PIN, strerror(-err));
		return err;
	}
	err = bpf_link__pin(link, ARGGUARD_LINK_PIN);
	if (err)
		warnx("failed to pin the link at %s: %s", ARGGUARD_LINK_PIN, strerror(-err));
	return err;
}

static int log_event(void *ctx, void *data, size_t size)
{
	const struct logger *log = ctx;
	char *line;
	size_t len;
	ssize_t n;

	if (size < sizeof(struct argguard_event))
		return 0;
	line = event_to_json(data, log->realtime_offset_ns);
	if (!line) {
		warnx("failed to format an event: %s", strerror(ENOMEM));
		return 0;
	}
	len = strlen(line);
	line[len] = '\n'; /* one write(2) per record keeps appends whole */
	n = write(log->fd, line, len + 1);
	if (n != (ssize_t)(len + 1))
		warnx("failed to write the log: %s", n < 0 ? strerror(errno) : "short write");
	free(line);
	return 0;
}

static int open_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);

	if (fd < 0)
		warnx("failed to open log %s: %s", path, strerror(errno));
	return fd;
}

static int run(const struct run_opts *opts)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .pin_root_path = ARGGUARD_PIN_DIR);
	struct logger log = { .fd = -1 };
	struct ring_buffer *rb = NULL;
	struct argguard_bpf *skel;
	int err;

	if (ensure_pin_dir())
		return 1;
	skel = argguard_bpf__open_opts(&open_opts);
	if (!skel) {
		warnx("failed to open the BPF object: %s", strerror(errno));
		return 1;
	}
	err = argguard_bpf__load(skel);
	if (err) {
		warnx("failed to load the BPF program: %s", strerror(-err));
		goto out_destroy;
	}
	if (opts->set_limit) {
		err = set_limit(skel, opts->max_total_bytes);
		if (err)
			goto out_destroy;
	}
	err = attach_and_pin(skel);
	if (err)
		goto out_destroy;

	log.fd = open_log(opts->log_path);
	if (log.fd < 0) {
		err = -1;
		goto out_destroy;
	}
	log.realtime_offset_ns = realtime_offset_ns();
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), log_event, &log, NULL);
	if (!rb) {
		err = -errno;
		warnx("failed to open the event ring buffer: %s", strerror(-err));
		goto out_close;
	}

	sd_notify(0, "READY=1\nSTATUS=enforcing");
	fprintf(stderr, "argguard: enforcing; pins in %s, log %s\n", ARGGUARD_PIN_DIR,
		opts->log_path);
	while (!stopping) {
		err = ring_buffer__poll(rb, 1000);
		if (err == -EINTR)
			continue;
		if (err < 0) {
			warnx("failed to poll the ring buffer: %s", strerror(-err));
			break;
		}
	}
	sd_notify(0, "STOPPING=1");
	ring_buffer__consume(rb);
	err = err < 0 ? err : 0;

	ring_buffer__free(rb);
out_close:
	close(log.fd);
out_destroy:
	/* Closing our link fd leaves the pinned link, and enforcement, in place. */
	argguard_bpf__destroy(skel);
	return err ? 1 : 0;
}

static int status(void)
{
	int ncpus = libbpf_num_possible_cpus();
	struct argguard_config cfg;
	int cfg_fd, cnt_fd, err = 0;
	__u32 key = 0;
	__u64 *values;

	if (ncpus < 0) {
		warnx("failed to count CPUs: %s", strerror(-ncpus));
		return 1;
	}
	cfg_fd = bpf_obj_get(ARGGUARD_PIN_DIR "/config");
	cnt_fd = bpf_obj_get(ARGGUARD_PIN_DIR "/counters");
	if (cfg_fd < 0 || cnt_fd < 0) {
		warnx("failed to open the pinned maps in %s: %s (is argguard loaded?)",
		      ARGGUARD_PIN_DIR, strerror(errno));
		return 1;
	}
	values = calloc(ncpus, sizeof(*values));
	if (!values || bpf_map_lookup_elem(cfg_fd, &key, &cfg)) {
		warnx("failed to read the config map: %s", strerror(errno));
		err = 1;
		goto out;
	}
	printf("max_total_bytes: %llu\n", (unsigned long long)cfg.max_total_bytes);
	for (key = 0; key < ARGGUARD_NR_COUNTERS; key++) {
		unsigned long long sum = 0;

		if (bpf_map_lookup_elem(cnt_fd, &key, values)) {
			warnx("failed to read counter %s: %s", counter_names[key], strerror(errno));
			err = 1;
			goto out;
		}
		for (int cpu = 0; cpu < ncpus; cpu++)
			sum += values[cpu];
		printf("%s: %llu\n", counter_names[key], sum);
	}
out:
	free(values);
	close(cfg_fd);
	close(cnt_fd);
	return err;
}

static int parse_run_opts(int argc, char **argv, struct run_opts *opts)
{
	static const struct option longopts[] = {
		{ "log", required_argument, NULL, 'l' },
		{ "max-total-bytes", required_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c, err;

	*opts = (struct run_opts){ .log_path = DEFAULT_LOG };
	optind = 1;
	while ((c = getopt_long(argc, argv, "l:m:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			opts->log_path = optarg;
			break;
		case 'm':
			err = parse_bytes(optarg, &opts->max_total_bytes);
			if (err) {
				warnx("invalid --max-total-bytes '%s': %s", optarg,
				      err == -ERANGE
					      ? "too large"
					      : "expected a byte count such as 4096, 256K or 4M");
				return 2;
			}
			opts->set_limit = true;
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
		warnx("unexpected argument '%s' to run", argv[optind]);
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
		if (err)
			return err;
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		return run(&opts);
	}
	if (!strcmp(cmd, "status")) {
		if (argc != 2) {
			warnx("status takes no arguments");
			return 2;
		}
		return status();
	}
	warnx("unknown command '%s' (try 'argguard --help')", cmd);
	return 2;
}
