// SPDX-License-Identifier: GPL-2.0
/*
 * bench_json [N]
 *
 * Host microbenchmark of argguard's JSON, written both ways: by argguard's
 * JSON writer (json_writer.c), and as json-c's tree of objects built and
 * then printed, as argguard wrote its records before the writer, and its
 * status and report JSON after it. The cases: three kinds of record
 * (event_to_json(); json-c builds the same fields from the same walk of
 * record_fields.c), argguard status --format json (metrics_print()), and a
 * report (size_report_print()) of 40 scopes, a pattern's 24 containers and
 * the 32 largest execs. json-c's status and report are the code argguard had
 * before it dropped json-c, kept here.
 *
 * Each case first checks that both ways print the same bytes; then, in 5
 * rounds (the writer first in odd rounds, json-c first in even ones), writes
 * N records, or as many bytes of the others, each way to /dev/null. One line
 * a case: its name, the writer's and json-c's outputs a second (medians over
 * the rounds), json-c's time over the writer's (the median of the rounds'
 * ratios), and the output's length in bytes. Pure userspace; asserts
 * nothing about speed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "cgroup_pattern.h"
#include "container.h"
#include "event_json.h"
#include "metrics.h"
#include "names.h"
#include "record_fields.h"
#include "record_spell.h"
#include "size_bucket.h"
#include "size_report.h"

#define ROUNDS 5
#define RECORD_BYTES 512 /* N records stand for N times this many bytes of the others */

/* json-c's printer as argguard used it: one line, '/' as it is. */
static int print_tree(FILE *out, json_object *obj)
{
	const char *text;

	if (!obj)
		return -ENOMEM;
	text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
							   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (text)
		fprintf(out, "%s\n", text);
	json_object_put(obj);
	return text ? 0 : -ENOMEM;
}

/* Records: the fields of event_to_json()'s walk, each added to a json-c object. */

static json_object *jc_hex(const char *s, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	char hex[2 * ARGGUARD_HEAD_MAX + 2 * sizeof(((struct argguard_event *)0)->filename)];

	if (len > sizeof(hex) / 2)
		len = sizeof(hex) / 2;
	for (size_t i = 0; i < len; i++) {
		hex[2 * i] = digits[(unsigned char)s[i] >> 4];
		hex[2 * i + 1] = digits[(unsigned char)s[i] & 15];
	}
	return json_object_new_string_len(hex, (int)(2 * len));
}

/* A number, true or false, as json-c holds it: the getters spell it as text. */
static json_object *jc_literal(const char *s, size_t len)
{
	if (len == 4 && !memcmp(s, "true", 4))
		return json_object_new_boolean(1);
	if (len == 5 && !memcmp(s, "false", 5))
		return json_object_new_boolean(0);
	if (*s == '-')
		return json_object_new_int64(strtoll(s, NULL, 10));
	return json_object_new_uint64(strtoull(s, NULL, 10));
}

static json_object *jc_args(const struct field_value *v)
{
	bool hex = !record_is_utf8(v->s, v->len);
	const char *p = v->s, *end = v->s + v->len;
	json_object *arr = json_object_new_array();

	while (arr && p < end) {
		size_t n = strnlen(p, end - p);

		json_object_array_add(arr,
				      hex ? jc_hex(p, n) : json_object_new_string_len(p, (int)n));
		p += n + 1;
	}
	return arr;
}

static json_object *jc_top_uids(const struct field_value *v)
{
	const struct record_losses *n = v->losses;
	json_object *arr = json_object_new_array();

	for (int i = 0; arr && i < RECORD_TOP_UIDS && n->top_uids[i].n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "uid", json_object_new_int64(n->top_uids[i].uid));
		json_object_object_add(o, "suppressed", json_object_new_uint64(n->top_uids[i].n));
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *jc_other_sinks(const struct field_value *v)
{
	const struct record_losses *n = v->losses;
	json_object *obj = json_object_new_object();

	for (int i = 0; obj && i < RECORD_OTHER_SINKS; i++)
		if (n->other_sinks[i].name)
			json_object_object_add(obj, n->other_sinks[i].name,
					       json_object_new_uint64(n->other_sinks[i].n));
	return obj;
}

static json_object *jc_container(const struct field_value *v)
{
	const struct container *c = &v->container;
	json_object *obj = json_object_new_object(), *nested = NULL;

	if (!obj)
		return NULL;
	json_object_object_add(obj, "runtime", json_object_new_string(c->runtime));
	json_object_object_add(obj, "id", json_object_new_string(c->id));
	json_object_object_add(obj, "pod_uid",
			       *c->pod_uid ? json_object_new_string(c->pod_uid) : NULL);
	json_object_object_add(obj, "rootless", json_object_new_boolean(c->rootless));
	if (c->nested_runtime) {
		nested = json_object_new_object();
		json_object_object_add(nested, "runtime",
				       json_object_new_string(c->nested_runtime));
		json_object_object_add(nested, "id", json_object_new_string(c->nested_id));
	}
	json_object_object_add(obj, "nested", nested);
	return obj;
}

static void jc_field(void *ctx, const struct record_field *f, const struct field_value *v)
{
	json_object *obj = ctx;
	char enc_key[64];

	if (v->state == FIELD_NULL) {
		json_object_object_add(obj, f->name, NULL);
		return;
	}
	switch (f->kind) {
	case FIELD_TEXT:
		json_object_object_add(obj, f->name, json_object_new_string_len(v->s, (int)v->len));
		break;
	case FIELD_BYTES:
		if (record_is_utf8(v->s, v->len)) {
			json_object_object_add(obj, f->name,
					       json_object_new_string_len(v->s, (int)v->len));
			break;
		}
		json_object_object_add(obj, f->name, jc_hex(v->s, v->len));
		snprintf(enc_key, sizeof(enc_key), "%s_encoding", f->name);
		json_object_object_add(obj, enc_key, json_object_new_string("hex"));
		break;
	case FIELD_LITERAL:
		json_object_object_add(obj, f->name, jc_literal(v->s, v->len));
		break;
	case FIELD_ARGS:
		json_object_object_add(obj, f->name, jc_args(v));
		break;
	case FIELD_UIDS:
		json_object_object_add(obj, f->name, jc_top_uids(v));
		break;
	case FIELD_SINKS:
		json_object_object_add(obj, f->name, jc_other_sinks(v));
		break;
	case FIELD_CONTAINER:
		json_object_object_add(obj, f->name, jc_container(v));
		break;
	}
}

#define REALTIME_OFFSET 1700000000000000000LL

static int record_writer(FILE *out, const void *in)
{
	char *line = event_to_json(in, REALTIME_OFFSET);

	if (!line)
		return -ENOMEM;
	fprintf(out, "%s\n", line);
	free(line);
	return 0;
}

static int record_json_c(FILE *out, const void *in)
{
	struct record r = { .kind = RECORD_EXEC,
			    .realtime_offset_ns = REALTIME_OFFSET,
			    .event = in };
	json_object *obj = json_object_new_object();

	if (obj)
		record_walk(&r, FIELD_NO_LOG | FIELD_NOT_EVENT, jc_field, obj);
	return print_tree(out, obj);
}

/* argguard status --format json, as loader/metrics.c built it with json-c. */

static __u32 live_mode(const struct argguard_metrics *m)
{
	return m->mode <= ARGGUARD_MODE_ENFORCE ? m->mode : ARGGUARD_MODE_ENFORCE;
}

static json_object *last_apply_object(const struct apply_status *st)
{
	json_object *obj;

	if (!st->known)
		return NULL;
	obj = json_object_new_object();
	if (!obj)
		return NULL;
	json_object_object_add(obj, "success",
			       st->has_result ? json_object_new_boolean(st->success) : NULL);
	json_object_object_add(obj, "timestamp",
			       st->has_result ? json_object_new_int64(st->timestamp) : NULL);
	json_object_object_add(obj, "message", json_object_new_string(st->message));
	return obj;
}

static json_object *policy_file_object(const struct policy_file_check *c)
{
	json_object *obj;

	if (c->state == POLICY_FILE_UNCHECKED)
		return NULL;
	obj = json_object_new_object();
	if (!obj)
		return NULL;
	json_object_object_add(obj, "path", json_object_new_string(c->path));
	json_object_object_add(obj, "matches",
			       json_object_new_boolean(c->state == POLICY_FILE_MATCHES));
	json_object_object_add(obj, "error",
			       c->state == POLICY_FILE_INVALID ? json_object_new_string(c->error)
							       : NULL);
	return obj;
}

static json_object *metrics_object(const struct argguard_metrics *m)
{
	json_object *obj = json_object_new_object(), *by_scope, *by_verdict, *drops, *hooks;

	if (!obj)
		return NULL;
	json_object_object_add(obj, "mode", json_object_new_string(mode_name(live_mode(m))));
	hooks = json_object_new_object();
	json_object_object_add(obj, "attached", hooks);
	for (int h = 0; hooks && h < METRICS_NR_HOOKS; h++)
		json_object_object_add(hooks, metrics_hook_name(h),
				       json_object_new_boolean(m->attached[h]));
	json_object_object_add(obj, "policy_state",
			       json_object_new_string(policy_state_name(m->policy_state)));
	json_object_object_add(obj, "last_apply", last_apply_object(&m->last_apply));
	json_object_object_add(obj, "policy_file", policy_file_object(&m->policy_file));
	by_scope = json_object_new_object();
	json_object_object_add(obj, "decisions", by_scope);
	for (__u32 s = 0; by_scope && s < ARGGUARD_NR_SCOPES; s++) {
		by_verdict = json_object_new_object();
		json_object_object_add(by_scope, scope_name(s), by_verdict);
		for (__u32 v = 0; by_verdict && v < ARGGUARD_NR_VERDICTS; v++)
			json_object_object_add(
				by_verdict, verdict_name(v),
				json_object_new_uint64(m->decisions[ARGGUARD_COUNTER(s, v)]));
	}
	drops = json_object_new_object();
	json_object_object_add(obj, "records_dropped", drops);
	for (__u32 r = 0; drops && r < ARGGUARD_NR_DROPS; r++)
		json_object_object_add(drops, drop_name(r), json_object_new_uint64(m->dropped[r]));
	json_object_object_add(obj, "cgroups_unindexed",
			       json_object_new_uint64(m->cgroup_unindexed));
	return obj;
}

static int status_writer(FILE *out, const void *in)
{
	return metrics_print(out, METRICS_JSON, in);
}

static int status_json_c(FILE *out, const void *in)
{
	return print_tree(out, metrics_object(in));
}

/* argguard report --format json, as loader/sizes/size_report.c built it with json-c. */

struct report {
	struct size_data d;
	struct policy policy;
};

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

static int report_json_c(FILE *out, const void *in)
{
	const struct report *rep = in;
	const struct size_data *d = &rep->d;
	json_object *obj = json_object_new_object(), *scopes = json_object_new_array(),
		    *largest = json_object_new_array();

	if (!obj || !scopes || !largest) {
		json_object_put(obj);
		json_object_put(scopes);
		json_object_put(largest);
		return -ENOMEM;
	}
	json_object_object_add(obj, "policy", json_object_new_string("the live policy"));
	json_object_object_add(obj, "scopes", scopes);
	json_object_object_add(obj, "largest", largest);
	for (int s = 1; s < ARGGUARD_SIZE_SLOTS; s++)
		if (size_hist_execs(&d->hist[s], ARGGUARD_SIZE_TOTAL_BYTES) &&
		    size_scope_shown(&d->scopes[s]))
			json_object_array_add(scopes, scope_object(d, s, &rep->policy));
	for (size_t i = 0; i < d->n_largest; i++)
		json_object_array_add(largest, largest_object(d, &d->largest[i]));
	return print_tree(out, obj);
}

static int report_writer(FILE *out, const void *in)
{
	const struct report *rep = in;

	return size_report_print(out, &rep->d, &rep->policy, "the live policy", true);
}

/* The inputs. */

/* Lay out argc NUL-terminated arguments of arg_len bytes each in the head. */
static void fill_head(struct argguard_event *e, unsigned int argc, size_t arg_len, char fill)
{
	size_t off = 0;

	for (unsigned int i = 0; i < argc && off + arg_len + 1 <= ARGGUARD_HEAD_DEFAULT; i++) {
		memset(e->head + off, fill, arg_len);
		e->head[off + arg_len] = '\0';
		off += arg_len + 1;
	}
	e->head_len = off;
}

static struct argguard_event base(void)
{
	struct argguard_event e = {
		.ktime_ns = 123456789012ULL,
		.argv_bytes = 4194304,
		.envp_bytes = 2048,
		.total_bytes = 4194304 + 2048,
		.limit = 1048576,
		.rule_id = 0,
		.cgroup_id = 4242,
		.verdict = ARGGUARD_VERDICT_DENY,
		.scope = ARGGUARD_SCOPE_GLOBAL,
		.limit_kind = ARGGUARD_LIMIT_TOTAL_BYTES,
		.flags = ARGGUARD_EV_EXACT_SIZES,
		.pid = 31337,
		.ppid = 1,
		.uid = 1000,
		.euid = 1000,
		.gid = 1000,
		.argc = 33,
		.envc = 12,
		.orig_argc = 33,
		.err = E2BIG,
	};

	strcpy(e.comm, "bash");
	strcpy(e.filename, "/usr/bin/x86_64-linux-gnu-gcc-12");
	return e;
}

static void status_input(struct argguard_metrics *m)
{
	*m = (struct argguard_metrics){
		.mode = ARGGUARD_MODE_ENFORCE,
		.attached = { true, true },
		.policy_state = ARGGUARD_POLICY_APPLIED,
		.cgroup_unindexed = 0,
		.policy_file = { .state = POLICY_FILE_DIFFERS, .path = DEFAULT_POLICY_FILE },
	};
	for (int i = 0; i < ARGGUARD_NR_COUNTERS; i++)
		m->decisions[i] = 1000003ULL * (i + 1) * (i % 3);
	m->dropped[0] = 12;
	apply_status_parse("last apply: 2026-12-03T10:00:00Z: applied /etc/argguard/argguard.conf\n"
			   "success=1\ntimestamp=1796292000\n",
			   &m->last_apply);
}

/* Some execs of each metric in a few buckets about size. */
static void fill_hist(struct size_hist *h, uint64_t size, uint64_t n)
{
	struct argguard_sizes cpu = { 0 };
	uint64_t of[ARGGUARD_NR_SIZE_METRICS] = { size * 3 / 4, size / 4, size, size / 40,
						  size / 200 };

	for (int m = 0; m < ARGGUARD_NR_SIZE_METRICS; m++)
		for (int k = 0; k < 4; k++) {
			uint64_t v = (of[m] << k) + 1;

			cpu.count[m][size_bucket(v)] += n << k;
			cpu.sum[m] += (n << k) * v;
			if (v > cpu.max[m])
				cpu.max[m] = v;
		}
	size_hist_add(h, &cpu);
}

#define REPORT_UIDS 32
#define REPORT_CGROUPS 6 /* the last a pattern */
#define REPORT_CONTAINERS 24

/* 32 uid rules, 5 cgroup paths and a pattern whose 24 containers each ran execs. */
static int report_input(struct report *rep)
{
	struct argguard_rule r = policy_rule_default();
	struct size_data *d = &rep->d;
	char path[128];
	uint32_t slot;

	policy_init(&rep->policy);
	r.max_total_bytes = 1 << 20;
	r.max_argv_bytes = 768 << 10;
	for (int i = 0; i < REPORT_UIDS; i++)
		if (!policy_add_uid(&rep->policy, 2000 + i, &r, 0))
			return -ENOMEM;
	for (int i = 0; i < REPORT_CGROUPS - 1; i++) {
		snprintf(path, sizeof(path), "/system.slice/build-%d.service", i);
		if (!policy_add_cgroup(&rep->policy, path, &r, 0))
			return -ENOMEM;
	}
	if (!policy_add_cgroup(&rep->policy, "/system.slice/docker-*.scope", &r, 0))
		return -ENOMEM;
	memset(d, 0, sizeof(*d));
	size_slots_assign(&rep->policy, NULL, true);
	size_slots_scopes(&rep->policy, d->scopes);
	for (int s = 1; s < ARGGUARD_SIZE_SLOTS; s++)
		if (d->scopes[s].ruled)
			fill_hist(&d->hist[s], 3000 + 977 * s, 10 + s);
	slot = rep->policy.cgroups[REPORT_CGROUPS - 1].rule.size_slot;
	d->cgroups = calloc(REPORT_CONTAINERS, sizeof(*d->cgroups));
	if (!d->cgroups)
		return -ENOMEM;
	for (int i = 0; i < REPORT_CONTAINERS; i++) {
		struct size_cgroup *c = &d->cgroups[d->n_cgroups++];

		if (asprintf(&c->cgroup, "/system.slice/docker-%064x.scope", 0x4f1c2a9 + i) < 0)
			return -ENOMEM;
		c->cgroup_id = 9000 + i;
		c->slot = slot;
		fill_hist(&c->hist, 5000 + 311 * i, 3 + i);
	}
	for (size_t i = 0; i < sizeof(d->largest) / sizeof(d->largest[0]); i++) {
		struct size_exec *e = &d->largest[d->n_largest++];

		*e = (struct size_exec){ .total_bytes = 4000000 - 1000 * i,
					 .argv_bytes = 3900000 - 1000 * i,
					 .envp_bytes = 100000,
					 .argc = 20000 + i,
					 .envc = 40,
					 .uid = 2000 + i % REPORT_UIDS,
					 .slot = rep->policy.uids[i % REPORT_UIDS].rule.size_slot,
					 .exact = true };
		strcpy(e->comm, "cc1plus");
		if (asprintf(&e->cgroup, "/user.slice/user-%zu.slice/session-%zu.scope",
			     2000 + i % REPORT_UIDS, i) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Timing. */

struct bench_case {
	const char *name;
	const void *in;
	int (*writer)(FILE *out, const void *in);
	int (*json_c)(FILE *out, const void *in);
	size_t bytes;
	unsigned long n;
	double writer_ns[ROUNDS], json_c_ns[ROUNDS], ratio[ROUNDS];
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* What a way prints, for the check. */
static char *output(int (*way)(FILE *out, const void *in), const void *in, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f || way(f, in) || fclose(f)) {
		fprintf(stderr, "bench_json: failed to write JSON: out of memory\n");
		exit(1);
	}
	return text;
}

static void check_same(struct bench_case *c)
{
	size_t a_len, b_len;
	char *a = output(c->writer, c->in, &a_len), *b = output(c->json_c, c->in, &b_len);

	if (a_len != b_len || memcmp(a, b, a_len)) {
		fprintf(stderr, "bench_json: %s: the writer and json-c print different JSON:\n%s%s",
			c->name, a, b);
		exit(1);
	}
	c->bytes = a_len;
	free(a);
	free(b);
}

/* Nanoseconds an output, over n of them. */
static double run(int (*way)(FILE *out, const void *in), const void *in, unsigned long n,
		  FILE *sink)
{
	double start = now_ns();

	for (unsigned long i = 0; i < n; i++)
		if (way(sink, in)) {
			fprintf(stderr, "bench_json: failed to write JSON: out of memory\n");
			exit(1);
		}
	return (now_ns() - start) / n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v)
{
	double s[ROUNDS];

	memcpy(s, v, sizeof(s));
	qsort(s, ROUNDS, sizeof(s[0]), cmp_double);
	return s[ROUNDS / 2];
}

static struct argguard_event deny, kernel, hex;
static struct argguard_metrics status;
static struct report report;

static struct bench_case cases[] = {
	{ .name = "deny_256B_head", .in = &deny, .writer = record_writer, .json_c = record_json_c },
	{ .name = "kernel_refused",
	  .in = &kernel,
	  .writer = record_writer,
	  .json_c = record_json_c },
	{ .name = "deny_hex_head", .in = &hex, .writer = record_writer, .json_c = record_json_c },
	{ .name = "status", .in = &status, .writer = status_writer, .json_c = status_json_c },
	{ .name = "report", .in = &report, .writer = report_writer, .json_c = report_json_c },
};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

int main(int argc, char **argv)
{
	unsigned long n = 50000;
	FILE *sink;
	char *end;

	if (argc > 2 || (argc == 2 && ((n = strtoul(argv[1], &end, 0)) == 0 || *end))) {
		fprintf(stderr, "usage: bench_json [N]\n");
		return 2;
	}
	/* A denial with a full 256-byte head of short ASCII arguments. */
	deny = base();
	fill_head(&deny, 64, 7, 'a');
	deny.flags |= ARGGUARD_EV_HEAD_TRUNCATED;
	/* A kernel refusal: sizes unknown, a short head. */
	kernel = base();
	kernel.verdict = ARGGUARD_VERDICT_KERNEL_REFUSED;
	kernel.scope = ARGGUARD_SCOPE_KERNEL;
	kernel.limit_kind = ARGGUARD_LIMIT_KERNEL;
	kernel.flags = 0;
	kernel.argc = kernel.envc = kernel.orig_argc = -1;
	fill_head(&kernel, 2, 8, 'b');
	/* A head that is not UTF-8 goes out as hex. */
	hex = base();
	fill_head(&hex, 16, 15, '\xff');
	status_input(&status);
	if (report_input(&report)) {
		fprintf(stderr, "bench_json: failed to make the report's input: out of memory\n");
		return 1;
	}
	sink = fopen("/dev/null", "we");
	if (!sink) {
		perror("bench_json: /dev/null");
		return 1;
	}
	for (size_t i = 0; i < N_CASES; i++) {
		struct bench_case *c = &cases[i];

		check_same(c);
		c->n = c->writer == record_writer ? n : n * RECORD_BYTES / c->bytes + 1;
	}
	for (int r = 0; r < ROUNDS; r++)
		for (size_t i = 0; i < N_CASES; i++) {
			struct bench_case *c = &cases[i];

			if (r % 2) {
				c->json_c_ns[r] = run(c->json_c, c->in, c->n, sink);
				c->writer_ns[r] = run(c->writer, c->in, c->n, sink);
			} else {
				c->writer_ns[r] = run(c->writer, c->in, c->n, sink);
				c->json_c_ns[r] = run(c->json_c, c->in, c->n, sink);
			}
			c->ratio[r] = c->json_c_ns[r] / c->writer_ns[r];
		}
	printf("# case\twriter/s\tjson-c/s\tjson-c/writer\tbytes\n");
	for (size_t i = 0; i < N_CASES; i++) {
		struct bench_case *c = &cases[i];

		printf("%s\t%.0f\t%.0f\t%.2f\t%zu\n", c->name, 1e9 / median(c->writer_ns),
		       1e9 / median(c->json_c_ns), median(c->ratio), c->bytes);
	}
	fclose(sink);
	size_data_free(&report.d);
	policy_free(&report.policy);
	return 0;
}
