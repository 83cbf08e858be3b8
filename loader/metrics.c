// SPDX-License-Identifier: GPL-2.0
#include "metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_writer.h"
#include "log.h"
#include "names.h"
#include "size_bucket.h"

#define LAST_APPLY "last apply: "

static const char *const format_names[] = {
	[METRICS_TEXT] = "text",
	[METRICS_JSON] = "json",
	[METRICS_PROMETHEUS] = "prometheus",
};

int metrics_format_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (!strcmp(name, format_names[i]))
			return (int)i;
	return -1;
}

/* The mode as the program reads it: any value above enforce is enforce. */
static __u32 live_mode(const struct argguard_metrics *m)
{
	return m->mode <= ARGGUARD_MODE_ENFORCE ? m->mode : ARGGUARD_MODE_ENFORCE;
}

const char *metrics_hook_name(enum metrics_hook hook)
{
	return hook == METRICS_HOOK_BPRM_CHECK ? "bprm_check_security" : "bprm_creds_from_file";
}

/*
 * The hooks line: which hooks argguard's programs are attached to, and
 * what a missing one leaves unjudged. The mode alone says nothing of that.
 */
static void print_attached(FILE *out, const struct argguard_metrics *m)
{
	bool check = m->attached[METRICS_HOOK_BPRM_CHECK],
	     creds = m->attached[METRICS_HOOK_BPRM_CREDS];
	const char *only = "NONE", *unjudged = "NO exec is judged, whatever the mode";

	if (check && creds) {
		fprintf(out, "attached: %s %s\n", metrics_hook_name(METRICS_HOOK_BPRM_CHECK),
			metrics_hook_name(METRICS_HOOK_BPRM_CREDS));
		return;
	}
	if (check) {
		only = metrics_hook_name(METRICS_HOOK_BPRM_CHECK);
		unjudged = "NOT bprm_creds_from_file, so the [setuid] rule is not enforced";
	} else if (creds) {
		only = metrics_hook_name(METRICS_HOOK_BPRM_CREDS);
		unjudged = "NOT bprm_check_security, so no rule but [setuid] is enforced";
	}
	fprintf(out,
		"attached: %s: %s (its link pin is gone: argguard unload, or removed by hand); "
		"systemctl restart argguard attaches it again\n",
		only, unjudged);
}

/* The policy state line: anything but applied means a start died before its apply. */
static void print_policy_state(FILE *out, const struct argguard_metrics *m)
{
	fprintf(out, "policy_state: %s", policy_state_name(m->policy_state));
	if (m->policy_state != ARGGUARD_POLICY_APPLIED)
		fprintf(out,
			" (the start that made the maps died before it applied the policy "
			"file; in force is %s): systemctl restart argguard",
			m->policy_state == ARGGUARD_POLICY_INTERIM
				? "the last policy that applied, or the built-in default"
				: "nothing: all zero, which reads as mode off");
	fputc('\n', out);
}

/*
 * The policy file line: the live policy is the file's, or not (bpftool
 * edits, an apply of another file, an edit not yet reloaded), or the file
 * has an error. Nothing when it was not compared.
 */
static void print_policy_file(FILE *out, const struct policy_file_check *c)
{
	bool other = c->path && strcmp(c->path, DEFAULT_POLICY_FILE);

	switch (c->state) {
	case POLICY_FILE_MATCHES:
		terminal_safe_fputs(out, "policy_file: matches ", c->path, "\n");
		break;
	case POLICY_FILE_DIFFERS:
		terminal_safe_fputs(out, "policy_file: DIFFERS from ", c->path,
				    ": argguard policy show --diff");
		if (other)
			terminal_safe_fputs(out, " ", c->path, "");
		fputs(" (systemctl reload argguard applies the file)\n", out);
		break;
	case POLICY_FILE_INVALID:
		/* the error may quote the file's line */
		terminal_safe_fputs(
			out, "policy_file: INVALID: ", c->error,
			"; the live policy stays as it is, and a reload would change nothing\n");
		break;
	default:
		break;
	}
}

static uint64_t decisions(const struct argguard_metrics *m, __u32 scope, __u32 verdict)
{
	return m->decisions[ARGGUARD_COUNTER(scope, verdict)];
}

/* argguard status: mode, the last apply (the lines they always were), hooks, counters, drops. */
static void print_text(FILE *out, const struct argguard_metrics *m)
{
	fprintf(out, "mode: %s\n", mode_name(live_mode(m)));
	if (m->last_apply.known) {
		/* its message may quote a policy file's line or a cgroup path */
		terminal_safe_fputs(out, "", m->last_apply.line, "\n");
	}
	print_attached(out, m);
	print_policy_state(out, m);
	print_policy_file(out, &m->policy_file);
	for (__u32 s = 0; s < ARGGUARD_NR_SCOPES; s++)
		for (__u32 v = 0; v < ARGGUARD_NR_VERDICTS; v++)
			fprintf(out, "%s.%s: %" PRIu64 "\n", scope_name(s), verdict_name(v),
				decisions(m, s, v));
	for (__u32 r = 0; r < ARGGUARD_NR_DROPS; r++)
		fprintf(out, "records_dropped.%s: %" PRIu64 "\n", drop_name(r), m->dropped[r]);
	fprintf(out, "cgroups_unindexed: %" PRIu64 "\n", m->cgroup_unindexed);
}

/* {"success", "timestamp" (both null in an older file), "message"}; null before any apply. */
static void write_last_apply(struct json_writer *w, const struct apply_status *st)
{
	if (!st->known) {
		json_null(w, "last_apply");
		return;
	}
	json_begin_object(w, "last_apply");
	if (st->has_result) {
		json_boolean(w, "success", st->success);
		json_s64(w, "timestamp", st->timestamp);
	} else {
		json_null(w, "success");
		json_null(w, "timestamp");
	}
	json_str(w, "message", st->message);
	json_end_object(w);
}

/* {"path", "matches", "error" (null but for an invalid file)}; null when not compared. */
static void write_policy_file(struct json_writer *w, const struct policy_file_check *c)
{
	if (c->state == POLICY_FILE_UNCHECKED) {
		json_null(w, "policy_file");
		return;
	}
	json_begin_object(w, "policy_file");
	json_str(w, "path", c->path);
	json_boolean(w, "matches", c->state == POLICY_FILE_MATCHES);
	json_str(w, "error", c->state == POLICY_FILE_INVALID ? c->error : NULL);
	json_end_object(w);
}

/*
 * One object: {"mode", "attached": {hook: bool}, "policy_state", "last_apply",
 * "policy_file", "decisions": {scope: {verdict: n}}, "records_dropped": {reason: n},
 * "cgroups_unindexed"}.
 */
static int print_json(FILE *out, const struct argguard_metrics *m)
{
	struct json_writer w;

	json_writer_init(&w, false);
	json_begin_object(&w, NULL);
	json_str(&w, "mode", mode_name(live_mode(m)));
	json_begin_object(&w, "attached");
	for (int h = 0; h < METRICS_NR_HOOKS; h++)
		json_boolean(&w, metrics_hook_name(h), m->attached[h]);
	json_end_object(&w);
	json_str(&w, "policy_state", policy_state_name(m->policy_state));
	write_last_apply(&w, &m->last_apply);
	write_policy_file(&w, &m->policy_file);
	json_begin_object(&w, "decisions");
	for (__u32 s = 0; s < ARGGUARD_NR_SCOPES; s++) {
		json_begin_object(&w, scope_name(s));
		for (__u32 v = 0; v < ARGGUARD_NR_VERDICTS; v++)
			json_u64(&w, verdict_name(v), decisions(m, s, v));
		json_end_object(&w);
	}
	json_end_object(&w);
	json_begin_object(&w, "records_dropped");
	for (__u32 r = 0; r < ARGGUARD_NR_DROPS; r++)
		json_u64(&w, drop_name(r), m->dropped[r]);
	json_end_object(&w);
	json_u64(&w, "cgroups_unindexed", m->cgroup_unindexed);
	json_end_object(&w);
	return json_writer_print(&w, out);
}

static void print_label_value(FILE *out, const char *v);

static void family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/*
 * The Prometheus text exposition format (version 0.0.4). Label values are
 * the fixed names of bpf/argguard.h, which need no escaping. The last apply's
 * gauges are left out when no apply has recorded them this boot, the drift
 * gauge when the policy file was not compared.
 */
static void print_prometheus(FILE *out, const struct argguard_metrics *m)
{
	const struct apply_status *st = &m->last_apply;

	family(out, "argguard_decisions_total", "counter",
	       "Execs judged, by the scope of the rule that decided and the verdict.");
	for (__u32 s = 0; s < ARGGUARD_NR_SCOPES; s++)
		for (__u32 v = 0; v < ARGGUARD_NR_VERDICTS; v++)
			fprintf(out,
				"argguard_decisions_total{scope=\"%s\",verdict=\"%s\"} %" PRIu64
				"\n",
				scope_name(s), verdict_name(v), decisions(m, s, v));
	family(out, "argguard_records_dropped_total", "counter",
	       "Audit records that never reached the ring buffer, by reason: rate_limited "
	       "(held back by event_rate, summed up in the log) or ring_full (lost).");
	for (__u32 r = 0; r < ARGGUARD_NR_DROPS; r++)
		fprintf(out, "argguard_records_dropped_total{reason=\"%s\"} %" PRIu64 "\n",
			drop_name(r), m->dropped[r]);
	family(out, "argguard_cgroups_unindexed", "gauge",
	       "Cgroups the cgroup index had no room for since the last apply. Above 0, cgroups "
	       "made since the first of them are judged by the policy's strictest rule.");
	fprintf(out, "argguard_cgroups_unindexed %" PRIu64 "\n", m->cgroup_unindexed);
	family(out, "argguard_policy_mode", "gauge",
	       "The policy mode in force: 1 for the live mode, 0 for the others.");
	for (__u32 mode = 0; mode < ARGGUARD_NR_MODES; mode++)
		fprintf(out, "argguard_policy_mode{mode=\"%s\"} %d\n", mode_name(mode),
			mode == live_mode(m));
	family(out, "argguard_hook_attached", "gauge",
	       "1 if a pinned link runs argguard's program on the LSM hook; 0 if none does, and "
	       "what that hook judges goes unjudged whatever the mode.");
	for (int h = 0; h < METRICS_NR_HOOKS; h++)
		fprintf(out, "argguard_hook_attached{hook=\"%s\"} %d\n", metrics_hook_name(h),
			m->attached[h]);
	family(out, "argguard_policy_state", "gauge",
	       "1 for how the live policy came to be: applied (a start, or a later apply, "
	       "finished), or interim or unset (a start died before its apply).");
	for (__u32 state = 0; state < ARGGUARD_NR_POLICY_STATES; state++)
		fprintf(out, "argguard_policy_state{state=\"%s\"} %d\n", policy_state_name(state),
			state == m->policy_state);
	if (m->policy_file.state != POLICY_FILE_UNCHECKED) {
		family(out, "argguard_policy_drift", "gauge",
		       "1 if the live policy is not what the policy file says (bpftool edits, an "
		       "apply of another file, an edit not reloaded yet, or a file with an error); "
		       "0 if they match.");
		fprintf(out, "argguard_policy_drift %d\n",
			m->policy_file.state != POLICY_FILE_MATCHES);
	}
	if (m->version) {
		family(out, "argguard_build_info", "gauge",
		       "1, labelled with the daemon's version and the id of its BPF object "
		       "(the first 64 bits of the object's SHA-256, in hex).");
		fputs("argguard_build_info{version=\"", out);
		print_label_value(out, m->version);
		fprintf(out, "\",bpf_object=\"%016" PRIx64 "\"} 1\n", m->build_id);
	}
	if (m->n_sinks) {
		family(out, "argguard_records_lost_total", "counter",
		       "Records that reached the daemon and that a sink could not write (its "
		       "queue full, a failed write, given up), by sink: log, journald or audit. "
		       "Since the daemon started; the log's count includes what the last daemon "
		       "left unwritten.");
		for (unsigned int i = 0; i < m->n_sinks && i < METRICS_MAX_SINKS; i++) {
			fputs("argguard_records_lost_total{sink=\"", out);
			print_label_value(out, m->sinks[i].sink);
			fprintf(out, "\"} %" PRIu64 "\n", m->sinks[i].lost);
		}
	}
	if (m->sizes)
		size_metrics_print(out, m->sizes);
	if (!st->known || !st->has_result)
		return;
	family(out, "argguard_last_apply_success", "gauge",
	       "1 if the last policy apply this boot put its file in force; 0 if it left the "
	       "policy unchanged or fell back to another.");
	fprintf(out, "argguard_last_apply_success %d\n", st->success);
	family(out, "argguard_last_apply_timestamp_seconds", "gauge",
	       "When the last policy apply this boot ran, in seconds since the epoch.");
	fprintf(out, "argguard_last_apply_timestamp_seconds %" PRId64 "\n", st->timestamp);
}

int metrics_print(FILE *out, enum metrics_format format, const struct argguard_metrics *m)
{
	switch (format) {
	case METRICS_JSON:
		return print_json(out, m);
	case METRICS_PROMETHEUS:
		print_prometheus(out, m);
		return 0;
	case METRICS_TEXT:
	default:
		print_text(out, m);
		return 0;
	}
}

void apply_status_format(FILE *out, bool success, time_t when, const char *message)
{
	char stamp[32];
	struct tm tm;

	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&when, &tm));
	fprintf(out, LAST_APPLY "%s: ", stamp);
	for (; *message; message++) /* one line, whatever a file name holds */
		fputc(*message == '\n' ? ' ' : *message, out);
	fprintf(out, "\nsuccess=%d\ntimestamp=%lld\n", success, (long long)when);
}

/* A field's value as a number, if the whole value is one. */
static bool parse_number(const char *text, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(text, &end, 10);
	return end != text && *end == '\0' && !errno;
}

void apply_status_parse(const char *text, struct apply_status *st)
{
	bool have_success = false, have_timestamp = false;
	const char *p, *sep;
	char field[64];
	long long v;
	size_t len;

	*st = (struct apply_status){ .message = st->line };
	for (p = text; *p; p += len + (p[len] == '\n')) {
		len = strcspn(p, "\n");
		if (!st->known && !strncmp(p, LAST_APPLY, strlen(LAST_APPLY))) {
			snprintf(st->line, sizeof(st->line), "%.*s", (int)len, p);
			st->known = true;
			continue;
		}
		if (len >= sizeof(field))
			continue;
		snprintf(field, sizeof(field), "%.*s", (int)len, p);
		if (!strncmp(field, "success=", 8) && parse_number(field + 8, &v) &&
		    (v == 0 || v == 1)) {
			st->success = v;
			have_success = true;
		} else if (!strncmp(field, "timestamp=", 10) && parse_number(field + 10, &v)) {
			st->timestamp = v;
			have_timestamp = true;
		} else if (!strncmp(field, "reload_started=", 15) && parse_number(field + 15, &v) &&
			   v > 0) {
			st->reload_started_ns = (uint64_t)v;
		}
	}
	st->has_result = st->known && have_success && have_timestamp;
	/* "last apply: TIME: MESSAGE": the time holds no ": " */
	sep = st->known ? strstr(st->line + strlen(LAST_APPLY), ": ") : NULL;
	st->message = sep ? sep + 2 : st->line;
}

void apply_status_load(const char *path, struct apply_status *st)
{
	char text[APPLY_STATUS_LINE_MAX + 256];
	FILE *f = fopen(path, "re");
	size_t n = 0;

	if (f) {
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
	}
	text[n] = '\0';
	apply_status_parse(text, st);
}

/*
 * The textfile directory, open, if no account but root and the daemon's
 * can write it. The daemon makes and renames a file of a fixed name there;
 * whoever else can write the directory can put a FIFO at that name (an
 * open that waits for a reader: the main loop stops, and records are lost)
 * or a link. A sticky bit does not help: it keeps others from removing the
 * daemon's files, not from making theirs first; and an ACL's write shows in
 * the group bits. Checked on the fd it returns, so the directory checked is
 * the directory written. The fd, or a negative errno with the reason logged.
 */
static int open_textfile_dir(const char *dir)
{
	struct stat st;
	int fd, err;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		log_error("failed to open metrics directory %s: %s", dir, strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		log_error("refusing metrics directory %s: it belongs to uid %u, who could put a "
			  "FIFO or a link where the daemon writes; it must be root's",
			  dir, (unsigned int)st.st_uid);
		err = -EPERM;
		goto out_close;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		log_error("refusing metrics directory %s: mode %04o lets %s write it, and put a "
			  "FIFO or a link where the daemon writes; it must be writable by its "
			  "owner alone",
			  dir, (unsigned int)(st.st_mode & 07777),
			  st.st_mode & S_IWOTH ? "every account" : "its group");
		err = -EPERM;
		goto out_close;
	}
	return fd;

out_close:
	close(fd);
	return err;
}

int metrics_write_textfile(const char *dir, const struct argguard_metrics *m)
{
	static const char tmp[] = METRICS_TEXTFILE ".tmp"; /* not *.prom: never read half-written */
	FILE *f;
	int dir_fd, fd, err = 0;

	dir_fd = open_textfile_dir(dir);
	if (dir_fd < 0)
		return dir_fd;
	/*
	 * Only root and the daemon can write the directory, so whatever has the
	 * temporary name is a leftover of theirs, from a crash: it goes, or
	 * O_EXCL would refuse every write after it. The open's flags still
	 * refuse anything put there since, rather than follow a link or wait
	 * for a FIFO's reader.
	 */
	if (unlinkat(dir_fd, tmp, 0) && errno != ENOENT) {
		err = -errno;
		log_error("failed to remove %s/%s: %s", dir, tmp, strerror(-err));
		goto out_close;
	}
	fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		    0644);
	if (fd < 0) {
		err = -errno;
		log_error("failed to make %s/%s: %s", dir, tmp, strerror(-err));
		goto out_close;
	}
	if (fchmod(fd, 0644) || !(f = fdopen(fd, "w"))) {
		err = -errno;
		close(fd);
		goto out_unlink;
	}
	errno = 0;
	metrics_print(f, METRICS_PROMETHEUS, m);
	if (ferror(f))
		err = errno ? -errno : -EIO;
	/* No fsync: a file lost to a crash is rewritten seconds into the next start. */
	if (fclose(f) && !err)
		err = -errno;
	if (!err && renameat(dir_fd, tmp, dir_fd, METRICS_TEXTFILE))
		err = -errno;
out_unlink:
	if (err) {
		log_error("failed to write %s/%s: %s", dir, METRICS_TEXTFILE, strerror(-err));
		unlinkat(dir_fd, tmp, 0);
	}
out_close:
	close(dir_fd);
	return err;
}

/* A label value as the text format spells it: \, " and newline escaped. */
static void print_label_value(FILE *out, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(out, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", out);
		else
			fputc(*v, out);
	}
}

static void print_labels(FILE *out, const struct size_scope *s, const char *le)
{
	fprintf(out, "{scope=\"%s\",rule=\"", s->other ? "other" : scope_name(s->scope));
	if (!s->other && s->scope == ARGGUARD_SCOPE_UID)
		fprintf(out, "%u", s->uid);
	else if (!s->other && s->scope == ARGGUARD_SCOPE_CGROUP)
		print_label_value(out, s->path);
	fputc('"', out);
	if (le)
		fprintf(out, ",le=\"%s\"", le);
	fputc('}', out);
}

static void print_series(FILE *out, const char *name, const struct size_scope *s,
			 const struct size_hist *h, int m)
{
	uint64_t n = 0;
	char le[24];

	for (__u32 b = 0; b < ARGGUARD_SIZE_BUCKETS - 1; b++) {
		n += h->count[m][b];
		snprintf(le, sizeof(le), "%" PRIu64, (uint64_t)size_bucket_high(b));
		fprintf(out, "%s_bucket", name);
		print_labels(out, s, le);
		fprintf(out, " %" PRIu64 "\n", n);
	}
	n += h->count[m][ARGGUARD_SIZE_BUCKETS - 1];
	fprintf(out, "%s_bucket", name);
	print_labels(out, s, "+Inf");
	fprintf(out, " %" PRIu64 "\n%s_sum", n, name);
	print_labels(out, s, NULL);
	fprintf(out, " %" PRIu64 "\n%s_count", h->sum[m], name);
	print_labels(out, s, NULL);
	fprintf(out, " %" PRIu64 "\n", n);
}

void size_metrics_print(FILE *out, const struct size_data *d)
{
	char name[64];

	for (int m = 0; m < ARGGUARD_NR_SIZE_METRICS; m++) {
		bool any = false;

		snprintf(name, sizeof(name), "argguard_exec_%s", size_metric_name(m));
		for (size_t s = 0; s < d->n_scopes; s++) {
			if (!size_hist_execs(&d->hist[s], m) || !size_scope_shown(&d->scopes[s]))
				continue;
			if (!any)
				fprintf(out,
					"# HELP %s The %s of the execs each rule judged, by the "
					"rule's scope.\n# TYPE %s histogram\n",
					name, size_metric_name(m), name);
			any = true;
			print_series(out, name, &d->scopes[s], &d->hist[s], m);
		}
	}
}
