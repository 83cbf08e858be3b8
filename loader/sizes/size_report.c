// SPDX-License-Identifier: GPL-2.0
#include "size_report.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "cgroup_pattern.h"
#include "container.h"
#include "json_writer.h"
#include "log.h"
#include "record_spell.h"
#include "size_bucket.h"

#define BAR_WIDTH 40

/* Bytes as argguard.conf(5) writes them where exact ("4K", "1M"), else digits. */
static void size_format(char *buf, size_t len, uint64_t v, bool bytes)
{
	if (bytes && v && !(v % (1ULL << 30)))
		snprintf(buf, len, "%" PRIu64 "G", v >> 30);
	else if (bytes && v && !(v % (1ULL << 20)))
		snprintf(buf, len, "%" PRIu64 "M", v >> 20);
	else if (bytes && v && !(v % 1024))
		snprintf(buf, len, "%" PRIu64 "K", v >> 10);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

/* The scope a largest exec or a cgroup names by its index. */
static const struct size_scope *scope_at(const struct size_data *d, uint32_t i)
{
	static const struct size_scope none; /* "a rule since removed" */

	return i < d->n_scopes ? &d->scopes[i] : &none;
}

/* The first and last bucket of metric m that counted an exec; false if none did. */
static bool bucket_span(const struct size_hist *h, int m, int *first, int *last)
{
	*first = -1;
	for (int b = 0; b < ARGGUARD_SIZE_BUCKETS; b++) {
		if (!h->count[m][b])
			continue;
		if (*first < 0)
			*first = b;
		*last = b;
	}
	return *first >= 0;
}

static void print_chart(FILE *out, const struct size_hist *h, int m)
{
	uint64_t n = size_hist_execs(h, m), top = 0;
	char lo[32], hi[32], max[32];
	int first, last;

	if (!bucket_span(h, m, &first, &last) || !n)
		return;
	for (int b = first; b <= last; b++)
		if (h->count[m][b] > top)
			top = h->count[m][b];
	if (!top)
		return;
	size_format(max, sizeof(max), h->max[m], false);
	fprintf(out, "  %s: largest %s, mean %" PRIu64 "\n", size_metric_name(m), max,
		h->sum[m] / n);
	for (int b = first; b <= last; b++) {
		int width = (int)((h->count[m][b] * BAR_WIDTH + top - 1) / top);

		snprintf(lo, sizeof(lo), "%" PRIu64, (uint64_t)size_bucket_low(b));
		if (b == ARGGUARD_SIZE_BUCKETS - 1)
			snprintf(hi, sizeof(hi), "up");
		else
			snprintf(hi, sizeof(hi), "%" PRIu64, (uint64_t)size_bucket_high(b));
		fprintf(out, "    %10s-%-10s |%-*.*s %" PRIu64 "\n", lo, hi, BAR_WIDTH, width,
			"########################################", h->count[m][b]);
	}
}

/* "N" where the buckets tell exactly, else "N to M". */
static void print_count_range(FILE *out, uint64_t least, uint64_t most)
{
	if (least == most)
		fprintf(out, "%" PRIu64, least);
	else
		fprintf(out, "%" PRIu64 " to %" PRIu64, least, most);
}

static void print_limits(FILE *out, const struct size_hist *h, const struct argguard_rule *r)
{
	for (int l = 0; l < POLICY_NR_LIMITS; l++) {
		int m = l % ARGGUARD_NR_SIZE_METRICS;
		uint64_t limit = policy_limit_get(r, l), least, most, n = size_hist_execs(h, m);
		char v[32];

		if (!limit || !n)
			continue;
		size_hist_over(h, m, limit, &least, &most);
		size_format(v, sizeof(v), limit, size_metric_bytes(m));
		fprintf(out, "  %s = %s would have %s ", policy_limits[l].key, v,
			l < ARGGUARD_NR_SIZE_METRICS ? "denied" : "logged as would-deny");
		print_count_range(out, least, most);
		fprintf(out, " of %" PRIu64 "\n", n);
	}
}

/*
 * The cgroups a pattern's rule (slot s) judged, each a line: its container
 * ("docker 4f1c2a9e8b7d", the id cut as docker ps cuts it), else its path,
 * else its id once it is gone; then its execs and total_bytes.
 */
static void print_cgroups(FILE *out, const struct size_data *d, size_t s)
{
	bool first = true;

	for (size_t i = 0; i < d->n_cgroups; i++) {
		const struct size_cgroup *c = &d->cgroups[i];
		uint64_t n = size_hist_execs(&c->hist, ARGGUARD_SIZE_TOTAL_BYTES);
		char name[300], safe[TERMINAL_SAFE_SIZE(sizeof(name))], max[32];
		struct container ct;

		if (c->slot != (uint32_t)s || !n)
			continue;
		if (first)
			fprintf(out, "  by cgroup (container):\n");
		first = false;
		if (c->cgroup && container_from_cgroup(c->cgroup, &ct))
			snprintf(name, sizeof(name), "%s %.12s", ct.runtime, ct.id);
		else if (c->cgroup)
			snprintf(name, sizeof(name), "%s", c->cgroup);
		else
			snprintf(name, sizeof(name), "cgroup %" PRIu64 " (gone)", c->cgroup_id);
		size_format(max, sizeof(max), c->hist.max[ARGGUARD_SIZE_TOTAL_BYTES], false);
		fprintf(out,
			"    %-24s %8" PRIu64 " execs, total_bytes largest %s, mean %" PRIu64 "\n",
			terminal_safe(safe, sizeof(safe), name), n, max,
			c->hist.sum[ARGGUARD_SIZE_TOTAL_BYTES] / n);
	}
}

void size_time_format(char *buf, size_t len, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!t || !gmtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "unknown");
}

/* "Counted from START to END on HOST, exact sizes (argv and envp apart)." */
static void print_window(FILE *out, const struct size_origin *o)
{
	char start[32], end[32], safe[TERMINAL_SAFE_SIZE(sizeof(o->host))];

	size_time_format(start, sizeof(start), o->start);
	size_time_format(end, sizeof(end), o->end);
	fprintf(out, "Counted from %s to %s on %s, %s.\n", start, end,
		terminal_safe(safe, sizeof(safe), o->host),
		o->exact ? "exact sizes (argv and envp apart)"
			 : "total sizes (argv and envp together)");
}

/* A scope's execs that ran, and those argguard denied. */
static uint64_t ran(const struct size_data *d, size_t s)
{
	return size_hist_execs(&d->hist[s], ARGGUARD_SIZE_TOTAL_BYTES);
}

static uint64_t denied(const struct size_data *d, size_t s)
{
	return size_hist_execs(&d->denied[s], ARGGUARD_SIZE_TOTAL_BYTES);
}

/* Whether report shows scope s: it counted, and stands for a scope. */
static bool shown(const struct size_data *d, size_t s)
{
	return size_data_counted(d, s) && size_scope_shown(&d->scopes[s]);
}

/* " since 2024-05-01T12:00:00Z" for epoch seconds t, or "" if unknown. */
static void since_text(char *buf, size_t len, uint64_t t)
{
	time_t when = (time_t)t;
	struct tm tm;

	buf[0] = '\0';
	if (t && gmtime_r(&when, &tm))
		strftime(buf, len, " since %Y-%m-%dT%H:%M:%SZ", &tm);
}

static void print_largest(FILE *out, const struct size_data *d, const struct size_exec *list,
			  size_t n, const char *title)
{
	char name[300], safe[TERMINAL_SAFE_SIZE(sizeof(name))];

	if (!n)
		return;
	fprintf(out, "\n%s:\n  %10s %10s %10s %8s %8s %8s  %-16s %-20s %s\n", title, "total",
		"argv", "envp", "argc", "envc", "uid", "comm", "scope", "cgroup");
	for (size_t i = 0; i < n; i++) {
		const struct size_exec *e = &list[i];
		char argv[24] = "-", envp[24] = "-", comm[TERMINAL_SAFE_SIZE(sizeof(e->comm))];

		if (e->exact) {
			snprintf(argv, sizeof(argv), "%" PRIu64, e->argv_bytes);
			snprintf(envp, sizeof(envp), "%" PRIu64, e->envp_bytes);
		}
		size_scope_name(scope_at(d, e->slot), name, sizeof(name));
		/* comm and the cgroup's path are the exec's own: any account's choice */
		fprintf(out, "  %10" PRIu64 " %10s %10s %8u %8u %8u  %-16s %-20s ", e->total_bytes,
			argv, envp, e->argc, e->envc, e->uid,
			terminal_safe(comm, sizeof(comm), e->comm),
			terminal_safe(safe, sizeof(safe), name));
		terminal_safe_fputs(out, "", e->cgroup ? e->cgroup : "(gone)", "\n");
	}
}

static void print_text(FILE *out, const struct size_data *d, const struct policy *policy,
		       const char *policy_name)
{
	char name[300], safe[TERMINAL_SAFE_SIZE(sizeof(name))], since[40];
	bool any = false;

	print_window(out, &d->origin);
	fprintf(out, "Exec sizes by scope (limits as in %s):\n", policy_name);
	for (size_t s = 0; s < d->n_scopes; s++) {
		const struct size_hist *h = &d->hist[s];
		const struct argguard_rule *r = size_slots_rule(policy, &d->scopes[s]);

		if (!shown(d, s))
			continue;
		any = true;
		size_scope_name(&d->scopes[s], name, sizeof(name));
		since_text(since, sizeof(since), h->since);
		fprintf(out, "\n[%s] %" PRIu64 " execs ran, %" PRIu64 " denied%s\n",
			terminal_safe(safe, sizeof(safe), name), ran(d, s), denied(d, s), since);
		for (int m = 0; m < ARGGUARD_NR_SIZE_METRICS; m++)
			print_chart(out, h, m);
		if (r)
			print_limits(out, h, r);
		else if (!d->scopes[s].other)
			fprintf(out, "  (no such rule in %s)\n", policy_name);
		print_cgroups(out, d, s);
		if (!denied(d, s))
			continue;
		fprintf(out, "  denied (suggest counts none of them):\n");
		for (int m = 0; m < ARGGUARD_NR_SIZE_METRICS; m++)
			print_chart(out, &d->denied[s], m);
	}
	if (!any)
		fprintf(out, "\nNo exec counted yet.\n");
	print_largest(out, d, d->largest, d->n_largest, "Largest execs that ran");
	print_largest(out, d, d->largest_denied, d->n_largest_denied, "Largest execs denied");
}

/*
 * Bytes an exec or a rule chose (a comm, a cgroup path): as a string where
 * they are UTF-8, else in hex with "<key>_encoding": "hex", as the records
 * write them, so the JSON stays JSON whatever they hold.
 */
static void write_bytes(struct json_writer *w, const char *key, const char *s)
{
	char enc_key[64];

	if (!s || record_is_utf8(s, strlen(s))) {
		json_str(w, key, s);
		return;
	}
	json_hex(w, key, s, strlen(s));
	snprintf(enc_key, sizeof(enc_key), "%s_encoding", key);
	json_str(w, enc_key, "hex");
}

/* {"count", "max", "sum", "buckets": [{"low", "high", "count"}]}: the buckets that counted. */
static void write_metric(struct json_writer *w, const struct size_hist *h, int m)
{
	json_begin_object(w, size_metric_name(m));
	json_u64(w, "count", size_hist_execs(h, m));
	json_u64(w, "max", h->max[m]);
	json_u64(w, "sum", h->sum[m]);
	json_begin_array(w, "buckets");
	for (int b = 0; b < ARGGUARD_SIZE_BUCKETS; b++) {
		if (!h->count[m][b])
			continue;
		json_begin_object(w, NULL);
		json_u64(w, "low", size_bucket_low(b));
		json_u64(w, "high", size_bucket_high(b));
		json_u64(w, "count", h->count[m][b]);
		json_end_object(w);
	}
	json_end_array(w);
	json_end_object(w);
}

/* {metric: write_metric()}, for each metric that counted an exec. */
static void write_metrics(struct json_writer *w, const struct size_hist *h)
{
	json_begin_object(w, "metrics");
	for (int m = 0; m < ARGGUARD_NR_SIZE_METRICS; m++)
		if (size_hist_execs(h, m))
			write_metric(w, h, m);
	json_end_object(w);
}

/* [{"limit", "value", "over_at_least", "over_at_most"}]: r's limits on what was counted. */
static void write_limits(struct json_writer *w, const struct size_hist *h,
			 const struct argguard_rule *r)
{
	json_begin_array(w, "limits");
	for (int l = 0; r && l < POLICY_NR_LIMITS; l++) {
		int m = l % ARGGUARD_NR_SIZE_METRICS;
		uint64_t limit = policy_limit_get(r, l), least, most;

		if (!limit || !size_hist_execs(h, m))
			continue;
		size_hist_over(h, m, limit, &least, &most);
		json_begin_object(w, NULL);
		json_str(w, "limit", policy_limits[l].key);
		json_u64(w, "value", limit);
		json_u64(w, "over_at_least", least);
		json_u64(w, "over_at_most", most);
		json_end_object(w);
	}
	json_end_array(w);
}

/* {"cgroup": path or null, "cgroup_id", "container": {"runtime", "id"} or null, "execs", "metrics"} */
static void write_cgroup(struct json_writer *w, const struct size_cgroup *c)
{
	struct container ct;

	json_begin_object(w, NULL);
	write_bytes(w, "cgroup", c->cgroup);
	json_u64(w, "cgroup_id", c->cgroup_id);
	if (c->cgroup && container_from_cgroup(c->cgroup, &ct)) {
		json_begin_object(w, "container");
		json_str(w, "runtime", ct.runtime);
		json_str(w, "id", ct.id);
		json_end_object(w);
	} else {
		json_null(w, "container");
	}
	json_u64(w, "execs", size_hist_execs(&c->hist, ARGGUARD_SIZE_TOTAL_BYTES));
	write_metrics(w, &c->hist);
	json_end_object(w);
}

/* [{"uid", "execs", "metrics"}]: scope s's large execs that ran, by uid. */
static void write_by_uid(struct json_writer *w, const struct size_data *d, size_t s)
{
	json_begin_array(w, "by_uid");
	for (size_t i = 0; i < d->n_uids; i++) {
		const struct size_hist *h = &d->uids[i].hist;

		if (d->uids[i].slot != s || !size_hist_execs(h, ARGGUARD_SIZE_TOTAL_BYTES))
			continue;
		json_begin_object(w, NULL);
		json_u64(w, "uid", d->uids[i].uid);
		json_u64(w, "execs", size_hist_execs(h, ARGGUARD_SIZE_TOTAL_BYTES));
		write_metrics(w, h);
		json_end_object(w);
	}
	json_end_array(w);
}

/* An exec's sizes, uid and comm, into the object open in w. */
static void write_exec(struct json_writer *w, const struct size_exec *e)
{
	json_u64(w, "total_bytes", e->total_bytes);
	json_u64_or_null(w, "argv_bytes", e->exact, e->argv_bytes);
	json_u64_or_null(w, "envp_bytes", e->exact, e->envp_bytes);
	json_u64(w, "argc", e->argc);
	json_u64(w, "envc", e->envc);
	json_u64(w, "uid", e->uid);
	write_bytes(w, "comm", e->comm);
}

static void write_scope(struct json_writer *w, const struct size_data *d, size_t s,
			const struct policy *policy)
{
	const struct size_scope *sc = &d->scopes[s];
	char name[300];

	size_scope_name(sc, name, sizeof(name));
	json_begin_object(w, NULL);
	write_bytes(w, "scope", name);
	if (!sc->other && sc->scope == ARGGUARD_SCOPE_UID)
		json_u64(w, "uid", sc->uid);
	if (!sc->other && sc->scope == ARGGUARD_SCOPE_CGROUP)
		write_bytes(w, "cgroup", sc->path);
	if (d->hist[s].since)
		json_u64(w, "since", d->hist[s].since);
	else
		json_null(w, "since");
	json_u64(w, "execs", ran(d, s));
	write_metrics(w, &d->hist[s]);
	write_limits(w, &d->hist[s], policy ? size_slots_rule(policy, sc) : NULL);
	if (d->slot_largest[s].total_bytes) {
		json_begin_object(w, "largest");
		write_exec(w, &d->slot_largest[s]);
		json_end_object(w);
	} else {
		json_null(w, "largest");
	}
	json_begin_object(w, "denied");
	json_u64(w, "execs", denied(d, s));
	write_metrics(w, &d->denied[s]);
	json_end_object(w);
	write_by_uid(w, d, s);
	if (!sc->other && sc->scope == ARGGUARD_SCOPE_CGROUP && cgroup_is_pattern(sc->path)) {
		json_begin_array(w, "cgroups");
		for (size_t i = 0; i < d->n_cgroups; i++)
			if (d->cgroups[i].slot == (uint32_t)s)
				write_cgroup(w, &d->cgroups[i]);
		json_end_array(w);
	}
	json_end_object(w);
}

static void write_largest(struct json_writer *w, const struct size_data *d,
			  const struct size_exec *e)
{
	char name[300];

	size_scope_name(scope_at(d, e->slot), name, sizeof(name));
	json_begin_object(w, NULL);
	write_exec(w, e);
	write_bytes(w, "scope", name);
	write_bytes(w, "cgroup", e->cgroup);
	json_end_object(w);
}

static void write_time(struct json_writer *w, const char *key, int64_t t)
{
	char buf[32];

	if (!t) {
		json_null(w, key);
		return;
	}
	size_time_format(buf, sizeof(buf), t);
	json_str(w, key, buf);
}

void size_report_write_envelope(struct json_writer *w, const struct size_origin *o)
{
	json_u64(w, "schema", SIZE_REPORT_SCHEMA);
	write_bytes(w, "host", o->host);
	json_str(w, "boot_id", o->boot_id[0] ? o->boot_id : NULL);
	json_begin_object(w, "window");
	write_time(w, "start", o->start);
	write_time(w, "end", o->end);
	json_end_object(w);
	json_str(w, "sizes", o->exact ? "exact" : "total");
}

void size_report_write_counts(struct json_writer *w, const struct size_data *d,
			      const struct policy *policy)
{
	json_begin_array(w, "scopes");
	for (size_t s = 0; s < d->n_scopes; s++)
		if (shown(d, s))
			write_scope(w, d, s, policy);
	json_end_array(w);
	json_begin_array(w, "largest");
	for (size_t i = 0; i < d->n_largest; i++)
		write_largest(w, d, &d->largest[i]);
	json_end_array(w);
	json_begin_array(w, "largest_denied");
	for (size_t i = 0; i < d->n_largest_denied; i++)
		write_largest(w, d, &d->largest_denied[i]);
	json_end_array(w);
}

/*
 * {envelope ("schema", "host", "boot_id", "window": {"start", "end"},
 * "sizes"), "policy": name, "scopes": [{"scope", "uid"|"cgroup", "since",
 * "execs", "metrics": {metric: {"count", "max", "sum", "buckets": [{"low",
 * "high", "count"}]}}, "limits": [{"limit", "value", "over_at_least",
 * "over_at_most"}], "largest": {exec} or null, "denied": {"execs",
 * "metrics"}, "by_uid": [{"uid", "execs", "metrics"}], and for a pattern's
 * rule "cgroups": [write_cgroup()]}], "largest": [{...}], "largest_denied":
 * [{...}]}. "execs", "metrics" and "largest" are the execs that ran.
 */
static int print_json(FILE *out, const struct size_data *d, const struct policy *policy,
		      const char *policy_name)
{
	struct json_writer w;

	json_writer_init(&w, false);
	json_begin_object(&w, NULL);
	size_report_write_envelope(&w, &d->origin);
	json_str(&w, "policy", policy_name);
	size_report_write_counts(&w, d, policy);
	json_end_object(&w);
	return json_writer_print(&w, out);
}

int size_report_print(FILE *out, const struct size_data *d, const struct policy *policy,
		      const char *policy_name, bool json)
{
	if (json)
		return print_json(out, d, policy, policy_name);
	print_text(out, d, policy, policy_name);
	return 0;
}
