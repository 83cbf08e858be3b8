// SPDX-License-Identifier: GPL-2.0
#include "apply.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup_pattern.h"
#include "clocks.h"
#include "log.h"
#include "metrics.h"
#include "names.h"
#include "size_state.h"
#include "start_plan.h"

#define ARGGUARD_RECOVERY_PARAM "argguard.mode"

/* Whether the len bytes at v spell mode's name. */
static bool is_mode(const char *v, size_t len, uint32_t mode)
{
	const char *name = mode_name(mode);

	return len == strlen(name) && !strncmp(v, name, len);
}

/*
 * The mode that argguard.mode= on the kernel command line forces on every
 * apply in this boot, or -1 when it is absent. cmdline is the text of
 * /proc/cmdline; an unknown value is reported in bad and ignored.
 */
static int recovery_mode(const char *cmdline, const char **bad)
{
	static const char key[] = ARGGUARD_RECOVERY_PARAM "=";
	const char *p = cmdline;
	int mode = -1;
	size_t len;

	*bad = NULL;
	while (*(p += strspn(p, " \t\n"))) {
		len = strcspn(p, " \t\n");
		if (len > sizeof(key) - 1 && !strncmp(p, key, sizeof(key) - 1)) {
			const char *v = p + sizeof(key) - 1;
			size_t vlen = len - (sizeof(key) - 1);

			if (is_mode(v, vlen, ARGGUARD_MODE_OFF)) {
				mode = ARGGUARD_MODE_OFF;
			} else if (is_mode(v, vlen, ARGGUARD_MODE_AUDIT)) {
				mode = ARGGUARD_MODE_AUDIT;
			} else {
				*bad = v; /* the last one counts, as with any kernel parameter */
				mode = -1;
			}
		}
		p += len;
	}
	return mode;
}

/*
 * The safe default of a fresh start with no policy that applies: the
 * shipped file's limits and record rates (loader/system/argguard.conf).
 */
#define DEFAULT_MAX_TOTAL_BYTES (2U << 20)
#define DEFAULT_AUDIT_MAX_TOTAL_BYTES (1U << 20)
#define DEFAULT_SETUID_AUDIT_MAX_TOTAL_BYTES (256U << 10)
#define DEFAULT_EVENT_RATE 10
#define DEFAULT_EVENT_BURST 50
#define DEFAULT_EVENT_RATE_TOTAL 100
#define DEFAULT_POLICY_TEXT                                                          \
	"mode enforce, max_total_bytes 2M, audit_max_total_bytes 1M (setuid 256K), " \
	"event_rate 10, event_burst 50, event_rate_total 100"

int apply_lock(void)
{
	int fd = open(ARGGUARD_APPLY_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	int err;

	if (fd < 0) {
		log_error("failed to open %s: %s", ARGGUARD_APPLY_LOCK, strerror(errno));
		return -errno;
	}
	while (flock(fd, LOCK_EX)) {
		if (errno == EINTR)
			continue;
		err = -errno;
		log_error("failed to lock %s: %s", ARGGUARD_APPLY_LOCK, strerror(-err));
		close(fd);
		return err;
	}
	return fd;
}

void apply_unlock(int fd)
{
	close(fd); /* drops the lock */
}

static int boot_recovery_mode(void)
{
	char cmdline[4096] = "";
	const char *bad;
	FILE *f = fopen("/proc/cmdline", "re");
	int mode;

	if (f) {
		if (!fgets(cmdline, sizeof(cmdline), f))
			cmdline[0] = '\0';
		fclose(f);
	}
	mode = recovery_mode(cmdline, &bad);
	if (bad)
		log_warning("ignoring %s=%.*s on the kernel command line: expected off or audit",
			    ARGGUARD_RECOVERY_PARAM, (int)strcspn(bad, " \t\n"), bad);
	return mode;
}

/*
 * Record this boot's last apply for argguard status and the metrics: a
 * "what happened" line, whether the file asked for is in force, and when.
 */
static void set_status(bool success, uint64_t reload_started_ns, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_status(bool success, uint64_t reload_started_ns, const char *fmt, ...)
{
	FILE *f = fopen(ARGGUARD_APPLY_STATUS ".new", "we");
	char message[APPLY_STATUS_LINE_MAX - 64]; /* less "last apply: TIME: " */
	va_list ap;

	if (!f)
		return;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	apply_status_format(f, success, time(NULL), message);
	if (reload_started_ns)
		fprintf(f, "reload_started=%" PRIu64 "\n", reload_started_ns);
	if (fclose(f) == 0)
		rename(ARGGUARD_APPLY_STATUS ".new", ARGGUARD_APPLY_STATUS);
}

/* Whether the file at path holds exactly the len bytes at text. */
static bool file_holds(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "re");
	char buf[4096];
	size_t n, at = 0;
	bool same = true;

	if (!f)
		return false;
	while (same && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		same = n <= len - at && !memcmp(buf, text + at, n);
		at += n;
	}
	same = same && !ferror(f) && at == len;
	fclose(f);
	return same;
}

/*
 * Keep p as the policy a fresh start falls back on; a failure here only
 * warns. The same policy as last time (every start, as a rule) is left as
 * it is: no write, and no fsync in the way of enforcement at boot.
 */
static void save_last_good(const struct policy *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		goto fail;
	fputs("# The last policy that applied: what a fresh start falls back on.\n", f);
	policy_print(f, p);
	if (fclose(f))
		goto fail;
	if (file_holds(ARGGUARD_LAST_GOOD, text, len))
		goto out;
	if (mkdir(ARGGUARD_STATE_DIR, 0700) && errno != EEXIST)
		goto fail;
	f = fopen(ARGGUARD_LAST_GOOD ".new", "we");
	if (!f)
		goto fail;
	if (fwrite(text, 1, len, f) != len || fflush(f) || fsync(fileno(f))) {
		fclose(f);
		goto fail;
	}
	if (fclose(f) || rename(ARGGUARD_LAST_GOOD ".new", ARGGUARD_LAST_GOOD))
		goto fail;
out:
	free(text);
	return;
fail:
	log_warning("failed to keep the policy in %s: %s", ARGGUARD_LAST_GOOD, strerror(errno));
	free(text);
}

/*
 * Write p to the maps, the recovery switch obeyed, marking the live set
 * with state. Returns 0 or a negative errno, with the reason logged.
 */
static int apply_policy(const struct policy *p, enum argguard_policy_state state)
{
	struct policy_maps maps;
	struct policy forced = *p;
	int mode = boot_recovery_mode(), ret;

	if (mode >= 0 && (uint32_t)mode != p->mode) {
		log_notice("recovery: %s=%s on the kernel command line: mode %s, not %s",
			   ARGGUARD_RECOVERY_PARAM, mode_name(mode), mode_name(mode),
			   mode_name(p->mode));
		forced.mode = mode;
	}
	ret = policy_maps_open(&maps);
	if (ret)
		return ret;
	ret = policy_maps_apply(&maps, &forced, DEFAULT_CGROUP_ROOT, state);
	if (ret)
		log_error("failed to write the maps: %s", strerror(-ret));
	policy_maps_close(&maps);
	return ret;
}

/* A rule for a cgroup not made yet is no error: it holds once one is. */
static void warn_missing_cgroups(const char *file, const struct policy *p)
{
	char full[4096], where[POLICY_WHERE_MAX];

	for (size_t i = 0; i < p->n_cgroups; i++) {
		if (cgroup_is_pattern(p->cgroups[i].path))
			continue; /* a pattern names the cgroups to come as much as those here */
		snprintf(full, sizeof(full), "%s%s", DEFAULT_CGROUP_ROOT, p->cgroups[i].path);
		if (access(full, F_OK))
			log_warning("%s: no cgroup %s yet; its rule holds once it is made",
				    policy_where(p, p->cgroups[i].line, file, where, sizeof(where)),
				    p->cgroups[i].path);
	}
}

/*
 * The names p skipped, for argguard status (into skipped: "" if none) and
 * for argguard-names.service (ARGGUARD_NAMES_UNKNOWN, there while some
 * were): once name services are up, it applies the file again.
 */
static void note_unknown_names(const char *file, const struct policy *p, char *skipped, size_t len)
{
	char where[POLICY_WHERE_MAX];
	FILE *f;

	skipped[0] = '\0';
	if (!p->unknown_names) {
		if (unlink(ARGGUARD_NAMES_UNKNOWN) && errno != ENOENT)
			log_warning("failed to remove %s: %s", ARGGUARD_NAMES_UNKNOWN,
				    strerror(errno));
		return;
	}
	snprintf(skipped, len, ", skipping %u name%s unknown on this host (the first at %s)",
		 p->unknown_names, p->unknown_names == 1 ? "" : "s",
		 policy_where(p, p->unknown_line, file, where, sizeof(where)));
	f = fopen(ARGGUARD_NAMES_UNKNOWN, "we");
	if (f)
		fprintf(f, "%s%s\n", file, skipped);
	if (!f || fclose(f))
		log_warning("failed to write %s: %s", ARGGUARD_NAMES_UNKNOWN, strerror(errno));
}

/*
 * Parse and apply one file (and its fragments, if fragments), under the
 * lock: refused if it would lock admins out, unless force or the file's own
 * allow_lockout = yes. 0, or a negative errno with the reason logged; what
 * it skipped into skipped (note_unknown_names()).
 */
static int apply_file_locked(const char *path, bool fragments, bool force,
			     enum argguard_policy_state state, char *skipped, size_t skipped_len)
{
	struct policy p;
	int ret;

	skipped[0] = '\0';
	ret = fragments ? policy_parse_file(path, &p) : policy_parse_one_file(path, &p);
	if (ret)
		return ret;
	ret = policy_lockout_gate_here(&p, path, force);
	if (ret < 0)
		goto out;
	ret = apply_policy(&p, state);
	if (!ret && state == ARGGUARD_POLICY_APPLIED) {
		save_last_good(&p);
		warn_missing_cgroups(path, &p);
		note_unknown_names(path, &p, skipped, skipped_len);
		/*
		 * The maps drop a dropped rule's counts; so does the window on
		 * disk. Not for a rule skipped because its name is unknown yet,
		 * at boot, say: its counts wait for the apply that knows it.
		 */
		if (!p.unknown_names)
			size_state_keep_ruled(ARGGUARD_SIZES_STATE, 0, &p);
	}
out:
	policy_free(&p);
	return ret;
}

/* Room for what an apply skipped, as note_unknown_names() says it. */
#define APPLY_SKIPPED_MAX (POLICY_WHERE_MAX + 128)

/*
 * Why an apply failed, as it was logged, for argguard status: room for a
 * policy error that quotes a long line, less "last apply: TIME: FILE not
 * applied: ".
 */
#define APPLY_WHY_MAX (APPLY_STATUS_LINE_MAX / 2)

/* policy_apply_file(), its status marked as a reload's if reload_started_ns. */
static int apply_file_reporting(const char *path, bool force, uint64_t reload_started_ns)
{
	char why[APPLY_WHY_MAX], skipped[APPLY_SKIPPED_MAX];
	struct log_capture c;
	int lock = apply_lock(), ret;

	if (lock < 0)
		return lock;
	log_capture_start(&c, LOG_ERR, why, sizeof(why), false);
	ret = apply_file_locked(path, true, force, ARGGUARD_POLICY_APPLIED, skipped,
				sizeof(skipped));
	log_capture_stop(&c);
	if (ret) {
		log_error("%s not applied, the live policy is unchanged", path);
		set_status(false, reload_started_ns,
			   "%s not applied: %s; the policy in force is unchanged", path, why);
	} else {
		log_info("applied %s%s", path, skipped);
		set_status(true, reload_started_ns, "applied %s%s", path, skipped);
	}
	apply_unlock(lock);
	return ret;
}

int policy_apply_file(const char *path, bool force)
{
	return apply_file_reporting(path, force, 0);
}

int policy_reload_file(const char *path)
{
	return apply_file_reporting(path, false, monotonic_ns());
}

/* Whether pid is an argguard process: its comm, as the kernel keeps it. */
static bool is_argguard(pid_t pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strcmp(comm, "argguard\n");
}

int policy_reload_daemon(pid_t pid, unsigned int timeout_s)
{
	const struct timespec pause = { .tv_nsec = 20 * 1000 * 1000 };
	uint64_t asked = monotonic_ns(), deadline = asked + timeout_s * 1000000000ULL;
	struct apply_status *st;
	int ret;

	if (!is_argguard(pid)) {
		log_error(
			"pid %d is not argguard run: systemctl reload argguard passes its MAINPID",
			(int)pid);
		return -ESRCH;
	}
	if (kill(pid, SIGHUP)) {
		ret = -errno;
		log_error("failed to signal argguard run (pid %d): %s", (int)pid, strerror(-ret));
		return ret;
	}
	st = malloc(sizeof(*st));
	if (!st)
		return -ENOMEM;
	for (;;) {
		apply_status_load(ARGGUARD_APPLY_STATUS, st);
		if (st->has_result && st->reload_started_ns >= asked)
			break;
		if (kill(pid, 0) && errno == ESRCH) {
			log_error("argguard run (pid %d) ended before it applied the policy file",
				  (int)pid);
			free(st);
			return -ESRCH;
		}
		if (monotonic_ns() >= deadline) {
			log_error("argguard run (pid %d) did not apply the policy file within %u s",
				  (int)pid, timeout_s);
			free(st);
			return -ETIMEDOUT;
		}
		nanosleep(&pause, NULL);
	}
	if (st->success)
		log_info("%s", st->message);
	else
		log_error("%s", st->message);
	ret = st->success ? 0 : -EINVAL;
	free(st);
	return ret;
}

/*
 * Apply the built-in default under the lock, in mode (the shipped file's
 * own is enforce), marking the live set with state.
 */
static int apply_default_locked(enum argguard_policy_state state, uint32_t mode)
{
	struct policy safe;

	policy_init(&safe);
	safe.mode = mode;
	safe.global.max_total_bytes = DEFAULT_MAX_TOTAL_BYTES;
	safe.global.audit_max_total_bytes = DEFAULT_AUDIT_MAX_TOTAL_BYTES;
	safe.setuid.audit_max_total_bytes = DEFAULT_SETUID_AUDIT_MAX_TOTAL_BYTES;
	safe.event_rate = DEFAULT_EVENT_RATE;
	safe.event_burst = DEFAULT_EVENT_BURST;
	safe.event_rate_total = DEFAULT_EVENT_RATE_TOTAL;
	return apply_policy(&safe, state);
}

/*
 * The mode the policy file at path says, if it parses, else enforce: what
 * the built-in default takes as the interim policy, so that a file in
 * audit mode (a package installed in audit mode, say) is not enforced for
 * the moment between the programs' attach and its apply. Quietly: that
 * apply says what is wrong with the file.
 */
static uint32_t file_mode(const char *path)
{
	uint32_t mode = ARGGUARD_MODE_ENFORCE;
	struct log_capture c;
	struct policy p;

	if (!path)
		return mode;
	log_capture_start(&c, LOG_ERR, NULL, 0, true);
	if (!policy_parse_file(path, &p)) {
		mode = p.mode;
		policy_free(&p);
	}
	log_capture_stop(&c);
	return mode;
}

/*
 * Apply the policy from, under the lock (path: the policy file's; mode: the
 * built-in default's). 0, or a negative errno with the reason logged.
 */
static int apply_from_locked(enum policy_source from, const char *path, uint32_t mode,
			     enum argguard_policy_state state, char *skipped, size_t skipped_len)
{
	skipped[0] = '\0';
	switch (from) {
	case POLICY_FROM_FILE:
		return apply_file_locked(path, true, false, state, skipped, skipped_len);
	case POLICY_FROM_LAST_GOOD:
		/* What policy_print() wrote from the file and its fragments: no fragments of its own. */
		return apply_file_locked(ARGGUARD_LAST_GOOD, false, false, state, skipped,
					 skipped_len);
	case POLICY_FROM_DEFAULT:
		return apply_default_locked(state, mode);
	default:
		log_error("no policy to apply");
		return -EINVAL;
	}
}

/*
 * What a fresh start falls back on, under the lock, in the order
 * policy_fallback_after() gives: the last policy that applied, else the
 * built-in default, in the mode of the file at mode_from if it parses
 * (NULL: enforce). Each one that fails says why in the log. Returns the
 * one in force, and says which in what; or POLICY_FROM_NOWHERE, with why
 * the last one failed in why.
 */
static enum policy_source apply_fallback_locked(enum argguard_policy_state state,
						const char *mode_from, char *what, size_t what_len,
						char *why, size_t why_len)
{
	bool last_good_kept = !access(ARGGUARD_LAST_GOOD, F_OK);
	enum policy_source from = POLICY_FROM_FILE;
	uint32_t mode = ARGGUARD_MODE_ENFORCE;
	char skipped[APPLY_SKIPPED_MAX];
	struct log_capture c;
	int ret;

	while ((from = policy_fallback_after(from, last_good_kept)) != POLICY_FROM_NOWHERE) {
		if (from == POLICY_FROM_DEFAULT)
			mode = file_mode(mode_from);
		log_capture_start(&c, LOG_ERR, why, why_len, false);
		ret = apply_from_locked(from, NULL, mode, state, skipped, sizeof(skipped));
		log_capture_stop(&c);
		if (ret)
			continue;
		if (from == POLICY_FROM_LAST_GOOD)
			snprintf(what, what_len, "the last policy that applied (%s)%s",
				 ARGGUARD_LAST_GOOD, skipped);
		else if (mode != ARGGUARD_MODE_ENFORCE)
			snprintf(what, what_len, "the built-in default (%s), in mode %s as %s says",
				 DEFAULT_POLICY_TEXT, mode_name(mode), mode_from);
		else
			snprintf(what, what_len, "the built-in default (%s)", DEFAULT_POLICY_TEXT);
		break;
	}
	return from;
}

int policy_apply_at_start(const char *path)
{
	char why[APPLY_WHY_MAX], fallback_why[APPLY_WHY_MAX / 2], what[APPLY_SKIPPED_MAX + 128];
	char skipped[APPLY_SKIPPED_MAX];
	enum policy_source in_force = POLICY_FROM_FILE;
	struct log_capture c;
	int lock = apply_lock(), ret;

	if (lock < 0)
		return -1;
	log_capture_start(&c, LOG_ERR, why, sizeof(why), false);
	ret = apply_from_locked(POLICY_FROM_FILE, path, ARGGUARD_MODE_ENFORCE,
				ARGGUARD_POLICY_APPLIED, skipped, sizeof(skipped));
	log_capture_stop(&c);
	if (!ret) {
		log_info("applied %s%s", path, skipped);
		set_status(true, 0, "applied %s%s", path, skipped);
		goto out;
	}
	log_error("%s not applied", path);
	/* The file did not apply: its mode is no one's word. */
	in_force = apply_fallback_locked(ARGGUARD_POLICY_APPLIED, NULL, what, sizeof(what),
					 fallback_why, sizeof(fallback_why));
	if (in_force == POLICY_FROM_NOWHERE) {
		log_error("failed to apply even the built-in default policy");
		set_status(false, 0, "%s not applied: %s; nothing could be applied: %s", path, why,
			   fallback_why);
		goto out;
	}
	log_notice("in force instead: %s", what);
	set_status(false, 0, "%s not applied: %s; in force: %s", path, why, what);
out:
	apply_unlock(lock);
	return policy_start_result(in_force);
}

/* The policy file whose mode the interim built-in default takes; NULL for enforce. */
static const char *interim_mode_from;

void policy_interim_mode_from(const char *path)
{
	interim_mode_from = path;
}

int policy_hold_interim(void)
{
	enum argguard_policy_state state;
	struct policy_maps maps;
	char why[APPLY_WHY_MAX / 2], what[4096 + 256];
	int lock = apply_lock(), ret;

	if (lock < 0)
		return lock;
	ret = policy_maps_open(&maps);
	if (ret)
		goto out;
	ret = read_policy_state(maps.fd[PIN_CONFIG], &state);
	policy_maps_close(&maps);
	if (ret) {
		log_error("failed to read the policy state: %s", strerror(-ret));
		goto out;
	}
	if (!start_needs_interim(state))
		goto out; /* a policy is in force already: the start applies the file over it */
	if (apply_fallback_locked(ARGGUARD_POLICY_INTERIM, interim_mode_from, what, sizeof(what),
				  why, sizeof(why)) == POLICY_FROM_NOWHERE) {
		log_error("failed to write the interim policy, so nothing is attached");
		ret = -EIO;
	} else {
		log_info("interim policy, until this start applies the policy file: %s", what);
	}
out:
	apply_unlock(lock);
	return ret;
}
