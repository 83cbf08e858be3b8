// SPDX-License-Identifier: GPL-2.0
#include "size_report.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <json-c/json.h>

#include "cgroup_pattern.h"
#include "container.h"
#include "json_writer.h"
#include "log.h"
#include "size_bucket.h"

#define BAR_WIDTH 40

void size_format(char *buf, size_t len, uint64_t v, bool bytes)
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
static void print_cgroups(FILE *out, const struct size_data *d, int s)
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

static void print_text(FILE *out, const struct size_data *d, const struct policy *policy,
		       const char *policy_name)
{
	char name[300], safe[TERMINAL_SAFE_SIZE(sizeof(name))];
	bool any = false;

	fprintf(out, "Exec sizes by scope (limits as in %s):\n", policy_name);
	for (int s = 1; s < ARGGUARD_SIZE_SLOTS; s++) {
		const struct size_hist *h = &d->hist[s];
		const struct argguard_rule *r = size_slots_rule(policy, &d->scopes[s]);
		uint64_t n = size_hist_execs(h, ARGGUARD_SIZE_TOTAL_BYTES);

		if (!n || !size_scope_shown(&d->scopes[s]))
			continue;
		any = true;
		size_scope_name(&d->scopes[s], name, sizeof(name));
		fprintf(out, "\n[%s] %" PRIu64 " execs\n", terminal_safe(safe, sizeof(safe), name),
			n);
		for (int m = 0; m < ARGGUARD_NR_SIZE_METRICS; m++)
			print_chart(out, h, m);
		if (r)
			print_limits(out, h, r);
		else if (!d->scopes[s].other)
			fprintf(out, "  (no such rule in %s)\n", policy_name);
		print_cgroups(out, d, s);
	}
	if (!any)
		fprintf(out, "\nNo exec counted yet.\n");
	if (!d->n_largest)
		return;
	fprintf(out, "\nLargest execs:\n  %10s %10s %10s %8s %8s %8s  %-16s %-20s %s\n", "total",
		"argv", "envp", "argc", "envc", "uid", "comm", "scope", "cgroup");
	for (size_t i = 0; i < d->n_largest; i++) {
		const struct size_exec *e = &d->largest[i];
		char argv[24] = "-", envp[24] = "-", comm[TERMINAL_SAFE_SIZE(sizeof(e->comm))];

		if (e->exact) {
			snprintf(argv, sizeof(argv), "%" PRIu64, e->argv_bytes);
			snprintf(envp, sizeof(envp), "%" PRIu64, e->envp_bytes);
		}
		size_scope_name(&d->scopes[e->slot % ARGGUARD_SIZE_SLOTS], name, sizeof(name));
		/* comm and the cgroup's path are the exec's own: any account's choice */
		fprintf(out, "  %10" PRIu64 " %10s %10s %8u %8u %8u  %-16s %-20s ", e->total_bytes,
			argv, envp, e->argc, e->envc, e->uid,
			terminal_safe(comm, sizeof(comm), e->comm),
			terminal_safe(safe, sizeof(safe), name));
		terminal_safe_fputs(e->cgroup ? e->cgroup : "(gone)", out);
		fputc('\n', out);
	}
}

static json_object *metric_object(const struct size_hist *h, int m)
{
	json_object *obj = json_object_new_object(), *buckets = json_object_new_array();

	if (!obj || !buckets) {
		json_object_put(obj);
		json_object_put(buckets);
		return NULL;
	}
	json_object_object_add(obj, "count", json_object_new_uint64(size_hist_execs(h, m)));
	json_object_object_add(obj, "max", json_object_new_uint64(h->max[m]));
	json_object_object_add(obj, "sum", json_object_new_uint64(h->sum[m]));
	json_object_object_add(obj, "buckets", buckets);
	for (int b = 0; b < ARGGUARD_SIZE_BUCKETS; b++) {
		json_object *bucket;

		if (!h->count[m][b])
			continue;
		bucket = json_object_new_object();
		if (!bucket)
			continue;
		json_object_object_add(bucket, "low", json_object_new_uint64(size_bucket_low(b)));
		json_object_object_add(bucket, "high", json_object_new_uint64(size_bucket_high(b)));
		json_object_object_add(bucket, "count", json_object_new_uint64(h->count[m][b]));
		json_object_array_add(buckets, bucket);
	}
	return obj;
}

static json_object *limits_array(const struct size_hist *h, const struct argguard_rule *r)
{
	json_object *arr = json_object_new_array();

	for (int l = 0; arr && r && l < POLICY_NR_LIMITS; l++) {
		int m = l % ARGGUARD_NR_SIZE_METRICS;
		uint64_t limit = policy_limit_get(r, l), least, most;
		json_object *o;

		if (!limit || !size_hist_execs(h, m))
			continue;
		size_hist_over(h, m, limit, &least, &most);
		o = json_object_new_object();
		if (!o)
			continue;
		json_object_object_add(o, "limit", json_object_new_string(policy_limits[l].key));
		json_object_object_add(o, "value", json_object_new_uint64(limit));
		json_object_object_add(o, "over_at_least", json_object_new_uint64(least));
		json_object_object_add(o, "over_at_most", json_object_new_uint64(most));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* {"cgroup": path or null, "cgroup_id", "container": {"runtime", "id"} or null, "execs", "metrics"} */
static json_object *cgroup_object(const struct size_cgroup *c)
{
	json_object *obj = json_object_new_object(), *metrics = json_object_new_object(),
		    *container = NULL;
	struct container ct;

	if (!obj || !metrics) {
		json_object_put(obj);
		json_object_put(metrics);
		return NULL;
	}
	if (c->cgroup && container_from_cgroup(c->cgroup, &ct)) {
		container = json_object_new_object();
		if (container) {
			json_object_object_add(container, "runtime",
					       json_object_new_string(ct.runtime));
			json_object_object_add(container, "id", json_object_new_string(ct.id));
		}
	}
	json_object_object_add(obj, "cgroup", c->cgroup ? json_object_new_string(c->cgroup) : NULL);
	json_object_object_add(obj, "cgroup_id", json_object_new_uint64(c->cgroup_id));
	json_object_object_add(obj, "container", container);
	json_object_object_add(
		obj, "execs",
		json_object_new_uint64(size_hist_execs(&c->hist, ARGGUARD_SIZE_TOTAL_BYTES)));
	json_object_object_add(obj, "metrics", metrics);
	for (int m = 0; m < ARGGUARD_NR_SIZE_METRICS; m++)
		if (size_hist_execs(&c->hist, m))
			json_object_object_add(metrics, size_metric_name(m),
					       metric_object(&c->hist, m));
	return obj;
}

static json_object *scope_object(const struct size_data *d, int s, const struct policy *policy)
{
	const struct size_scope *sc = &d->scopes[s];
	json_object *obj = json_object_new_object(), *metrics = json_object_new_object();
	char name[300];

	if (!obj || !metrics) {
		json_object_put(obj);
		json_object_put(metrics);
		return NULL;
	}
	size_scope_name(sc, name, sizeof(name));
	json_object_object_add(obj, "scope", json_object_new_string(name));
	if (!sc->other && sc->scope == ARGGUARD_SCOPE_UID)
		json_object_object_add(obj, "uid", json_object_new_uint64(sc->uid));
	if (!sc->other && sc->scope == ARGGUARD_SCOPE_CGROUP)
		json_object_object_add(obj, "cgroup", json_object_new_string(sc->path));
	json_object_object_add(
		obj, "execs",
		json_object_new_uint64(size_hist_execs(&d->hist[s], ARGGUARD_SIZE_TOTAL_BYTES)));
	json_object_object_add(obj, "metrics", metrics);
	for (int m = 0; m < ARGGUARD_NR_SIZE_METRICS; m++)
		if (size_hist_execs(&d->hist[s], m))
			json_object_object_add(metrics, size_metric_name(m),
					       metric_object(&d->hist[s], m));
	json_object_object_add(obj, "limits",
			       limits_array(&d->hist[s], size_slots_rule(policy, sc)));
	if (!sc->other && sc->scope == ARGGUARD_SCOPE_CGROUP && cgroup_is_pattern(sc->path)) {
		json_object *cgroups = json_object_new_array();

		for (size_t i = 0; cgroups && i < d->n_cgroups; i++)
			if (d->cgroups[i].slot == (uint32_t)s)
				json_object_array_add(cgroups, cgroup_object(&d->cgroups[i]));
		json_object_object_add(obj, "cgroups", cgroups);
	}
	return obj;
}

static json_object *largest_object(const struct size_data *d, const struct size_exec *e)
{
	json_object *o = json_object_new_object();
	char name[300];

	if (!o)
		return NULL;
	size_scope_name(&d->scopes[e->slot % ARGGUARD_SIZE_SLOTS], name, sizeof(name));
	json_object_object_add(o, "total_bytes", json_object_new_uint64(e->total_bytes));
	json_object_object_add(o, "argv_bytes",
			       e->exact ? json_object_new_uint64(e->argv_bytes) : NULL);
	json_object_object_add(o, "envp_bytes",
			       e->exact ? json_object_new_uint64(e->envp_bytes) : NULL);
	json_object_object_add(o, "argc", json_object_new_uint64(e->argc));
	json_object_object_add(o, "envc", json_object_new_uint64(e->envc));
	json_object_object_add(o, "uid", json_object_new_uint64(e->uid));
	json_object_object_add(o, "comm", json_object_new_string(e->comm));
	json_object_object_add(o, "scope", json_object_new_string(name));
	json_object_object_add(o, "cgroup", e->cgroup ? json_object_new_string(e->cgroup) : NULL);
	return o;
}

/*
 * {"policy": name, "scopes": [{"scope", "uid"|"cgroup", "execs", "metrics": {metric:
 * {"count", "max", "sum", "buckets": [{"low", "high", "count"}]}}, "limits": [{"limit",
 * "value", "over_at_least", "over_at_most"}], and for a pattern's rule "cgroups":
 * [cgroup_object()]}], "largest": [{...}]}
 */
static int print_json(FILE *out, const struct size_data *d, const struct policy *policy,
		      const char *policy_name)
{
	json_object *obj = json_object_new_object(), *scopes = json_object_new_array(),
		    *largest = json_object_new_array();

	if (!obj || !scopes || !largest) {
		json_object_put(obj);
		json_object_put(scopes);
		json_object_put(largest);
		return -ENOMEM;
	}
	json_object_object_add(obj, "policy", json_object_new_string(policy_name));
	json_object_object_add(obj, "scopes", scopes);
	json_object_object_add(obj, "largest", largest);
	for (int s = 1; s < ARGGUARD_SIZE_SLOTS; s++)
		if (size_hist_execs(&d->hist[s], ARGGUARD_SIZE_TOTAL_BYTES) &&
		    size_scope_shown(&d->scopes[s]))
			json_object_array_add(scopes, scope_object(d, s, policy));
	for (size_t i = 0; i < d->n_largest; i++)
		json_object_array_add(largest, largest_object(d, &d->largest[i]));
	return json_print_object(out, obj);
}

int size_report_print(FILE *out, const struct size_data *d, const struct policy *policy,
		      const char *policy_name, bool json)
{
	if (json)
		return print_json(out, d, policy, policy_name);
	print_text(out, d, policy, policy_name);
	return 0;
}
