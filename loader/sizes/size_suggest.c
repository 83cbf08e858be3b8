// SPDX-License-Identifier: GPL-2.0
#include "size_suggest.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "size_bucket.h"
#include "size_report.h"

static int copy_policy(const struct policy *base, struct policy *out)
{
	policy_init(out);
	*out = *base;
	out->uids = NULL;
	out->n_uids = 0;
	out->cgroups = NULL;
	out->n_cgroups = 0;
	out->admin_groups = NULL;
	out->n_admin_groups = 0;
	out->parts = NULL;
	out->n_parts = 0;
	for (size_t i = 0; i < base->n_uids; i++) {
		struct argguard_rule *r =
			policy_add_uid(out, base->uids[i].uid, &base->uids[i].rule, 0);

		if (!r)
			goto out_free;
		out->uids[out->n_uids - 1].line = base->uids[i].line;
	}
	for (size_t i = 0; i < base->n_cgroups; i++) {
		if (!policy_add_cgroup(out, base->cgroups[i].path, &base->cgroups[i].rule, 0))
			goto out_free;
		out->cgroups[out->n_cgroups - 1].line = base->cgroups[i].line;
	}
	if (base->n_admin_groups) {
		out->admin_groups = calloc(base->n_admin_groups, sizeof(*out->admin_groups));
		if (!out->admin_groups)
			goto out_free;
		for (size_t i = 0; i < base->n_admin_groups; i++) {
			out->admin_groups[i] = strdup(base->admin_groups[i]);
			out->n_admin_groups = i + 1;
			if (!out->admin_groups[i])
				goto out_free;
		}
	}
	if (base->n_parts) {
		/* The files the lines are in. */
		out->parts = calloc(base->n_parts, sizeof(*out->parts));
		if (!out->parts)
			goto out_free;
		for (size_t i = 0; i < base->n_parts; i++) {
			out->parts[i].first = base->parts[i].first;
			out->parts[i].name = strdup(base->parts[i].name);
			out->n_parts = i + 1;
			if (!out->parts[i].name)
				goto out_free;
		}
	}
	return 0;
out_free:
	policy_free(out);
	return -ENOMEM;
}

/* A quantile at or past the share need, up to rounding. */
static bool reached(double acc, double need)
{
	return acc >= need * (1 - 1e-12);
}

/*
 * Where the weight of n uids, per bucket in w (less one uid's, in out,
 * when out is not NULL), reaches keep_share of n: the top of that bucket,
 * at most max; 0 for no uid.
 */
static uint64_t weighted_share(const double *w, const double *out, size_t n, __u32 from,
			       double keep_share, uint64_t max)
{
	double acc = 0;

	if (!n)
		return 0;
	for (__u32 b = from; b < ARGGUARD_SIZE_BUCKETS; b++) {
		acc += w[b] - (out ? out[b] : 0);
		if (reached(acc, keep_share * (double)n))
			return size_bucket_high(b) < max ? size_bucket_high(b) : max;
	}
	return max;
}

/* One uid's execs of metric m from bucket from on, as a weight of one in total, into w. */
static bool uid_weight(const uint64_t *count, __u32 from, double *w)
{
	uint64_t n = 0;

	memset(w, 0, ARGGUARD_SIZE_BUCKETS * sizeof(*w));
	for (__u32 b = from; b < ARGGUARD_SIZE_BUCKETS; b++)
		n += count[b];
	if (!n)
		return false;
	for (__u32 b = from; b < ARGGUARD_SIZE_BUCKETS; b++)
		w[b] = (double)count[b] / (double)n;
	return true;
}

uint64_t size_keep_by_uid(const struct size_data *d, size_t s, enum argguard_size_metric m,
			  double keep_share, uint64_t floor)
{
	const struct size_hist *h = &d->hist[s];
	__u32 from = size_bucket(floor);
	uint64_t attributed[ARGGUARD_SIZE_BUCKETS] = { 0 }, others[ARGGUARD_SIZE_BUCKETS] = { 0 };
	double all[ARGGUARD_SIZE_BUCKETS] = { 0 }, w[ARGGUARD_SIZE_BUCKETS];
	uint64_t best, v;
	size_t n = 0;
	bool any_others;

	if (!size_hist_execs(h, m))
		return 0;
	if (keep_share >= 1)
		return h->max[m];
	for (size_t i = 0; i < d->n_uids; i++) {
		if (d->uids[i].slot != s)
			continue;
		for (__u32 b = from; b < ARGGUARD_SIZE_BUCKETS; b++)
			attributed[b] += d->uids[i].hist.count[m][b];
		if (!uid_weight(d->uids[i].hist.count[m], from, w))
			continue;
		n++;
		for (__u32 b = from; b < ARGGUARD_SIZE_BUCKETS; b++)
			all[b] += w[b];
	}
	/* The execs no uid was kept for (the map was full): one uid more. */
	for (__u32 b = from; b < ARGGUARD_SIZE_BUCKETS; b++)
		others[b] = h->count[m][b] > attributed[b] ? h->count[m][b] - attributed[b] : 0;
	any_others = uid_weight(others, from, w);
	if (any_others) {
		n++;
		for (__u32 b = from; b < ARGGUARD_SIZE_BUCKETS; b++)
			all[b] += w[b];
	}
	if (!n)
		return h->max[m]; /* all of it under the floor */
	best = weighted_share(all, NULL, n, from, keep_share, h->max[m]);
	for (size_t i = 0; i < d->n_uids; i++) {
		if (d->uids[i].slot != s || !uid_weight(d->uids[i].hist.count[m], from, w))
			continue;
		v = weighted_share(all, w, n - 1, from, keep_share, h->max[m]);
		if (v > best)
			best = v;
	}
	if (any_others) {
		uid_weight(others, from, w);
		v = weighted_share(all, w, n - 1, from, keep_share, h->max[m]);
		if (v > best)
			best = v;
	}
	return best;
}

/* Whether r, in force under mode, denies an exec over its limit l. */
static bool denies_by(const struct argguard_rule *r, uint32_t mode, enum policy_limit l)
{
	return r && mode != ARGGUARD_MODE_OFF && mode != ARGGUARD_MODE_AUDIT &&
	       r->action != ARGGUARD_ACTION_ALLOW && r->action != ARGGUARD_ACTION_AUDIT &&
	       policy_limit_get(r, l);
}

/* v plus margin percent, rounded up to a whole K for bytes, at most the limit's largest. */
static uint64_t with_margin(uint64_t v, enum argguard_size_metric m, unsigned int margin)
{
	const struct policy_limit_info *info = &policy_limits[m];
	uint64_t add = v / 100 * margin + (v % 100 * margin + 99) / 100;

	v = v > info->max - add ? info->max : v + add;
	if (size_metric_bytes(m) && v <= info->max - 1023)
		v = (v + 1023) & ~1023ULL;
	return v ? v : 1;
}

/* The largest exec that ran in scope s, and whose. */
static void note_largest(const struct size_data *d, size_t s, struct suggest_note *n)
{
	const struct size_exec *e = &d->slot_largest[s];

	n->largest_bytes = d->hist[s].max[ARGGUARD_SIZE_TOTAL_BYTES];
	n->largest_argc = (uint32_t)d->hist[s].max[ARGGUARD_SIZE_ARGC];
	if (!e->total_bytes || e->total_bytes != n->largest_bytes)
		return; /* a table cleared, or not read */
	n->largest_argc = e->argc;
	n->uid_known = true;
	n->uid = e->uid;
	memcpy(n->comm, e->comm, sizeof(n->comm));
}

/* What the rule in force let run over its own deny limits, when it did not deny. */
static void note_in_force(const struct size_hist *h, const struct argguard_rule *f, uint32_t mode,
			  struct suggest_note *n)
{
	uint64_t least, most;

	if (!f || f->action == ARGGUARD_ACTION_ALLOW)
		return;
	n->not_denying = mode == ARGGUARD_MODE_AUDIT || f->action == ARGGUARD_ACTION_AUDIT;
	if (!n->not_denying)
		return;
	for (int m = 0; m < ARGGUARD_NR_SIZE_METRICS; m++) {
		size_hist_over(h, m, policy_limit_get(f, (enum policy_limit)m), &least, &most);
		if (least > n->over_in_force)
			n->over_in_force = least;
	}
}

/* The limits of rule r, scope s, as o asks, from what ran. */
static void suggest_rule(struct argguard_rule *r, const struct argguard_rule *f, uint32_t mode,
			 const struct size_hist *h, const struct size_data *d, size_t s,
			 const struct suggest_options *o, struct suggest_note *n)
{
	for (int m = 0; m < ARGGUARD_NR_SIZE_METRICS; m++) {
		enum policy_limit l = (enum policy_limit)(
			o->tier == SUGGEST_TIER_DENY ? m : m + ARGGUARD_NR_SIZE_METRICS);
		uint64_t floor = size_metric_bytes(m) ? SUGGEST_MIN_BYTES : SUGGEST_MIN_COUNT;
		uint64_t v;

		if (!size_metric_bytes(m) && !o->counts)
			continue;
		if (!size_hist_execs(h, m))
			continue; /* argv and envp on a stock kernel */
		v = with_margin(size_keep_by_uid(d, s, m, o->keep_share, floor), m, o->margin);
		if (v < floor) {
			v = floor;
			n->floored |= 1U << l;
		}
		/* What it denied was never seen: nothing seen says its limit is too low. */
		if (denies_by(f, mode, (enum policy_limit)m) &&
		    v > policy_limit_get(f, (enum policy_limit)m)) {
			v = policy_limit_get(f, (enum policy_limit)m);
			n->capped |= 1U << l;
			n->floored &= ~(1U << l);
		}
		policy_limit_set(r, l, v);
	}
}

_Static_assert(POLICY_LIMIT_max_argv_bytes == (int)ARGGUARD_SIZE_ARGV_BYTES &&
		       POLICY_LIMIT_max_envc == (int)ARGGUARD_SIZE_ENVC &&
		       (int)POLICY_LIMIT_audit_max_argv_bytes == (int)ARGGUARD_NR_SIZE_METRICS,
	       "a metric is the index of its rule limit in POLICY_LIMITS, then of its tier's");
_Static_assert(POLICY_NR_LIMITS <= 32, "a note's capped and floored hold a bit a limit");

int size_suggest(const struct policy *base, const struct policy *in_force,
		 const struct size_data *d, const struct suggest_options *o, struct policy *out,
		 struct suggest_note *notes)
{
	int err = copy_policy(base, out);

	if (err)
		return err;
	if (!in_force)
		in_force = base;
	out->mode = o->mode;
	memset(notes, 0, d->n_scopes * sizeof(*notes));
	for (size_t s = 0; s < d->n_scopes; s++) {
		struct argguard_rule *r =
			(struct argguard_rule *)size_slots_rule(out, &d->scopes[s]);
		const struct argguard_rule *f = size_slots_rule(in_force, &d->scopes[s]);
		const struct size_hist *h = &d->hist[s];
		struct suggest_note *n = &notes[s];

		if (!r)
			continue;
		n->execs = size_hist_execs(h, ARGGUARD_SIZE_TOTAL_BYTES);
		n->denied = size_hist_execs(&d->denied[s], ARGGUARD_SIZE_TOTAL_BYTES);
		n->counted = n->execs || n->denied;
		n->since = h->since;
		if (n->since && n->since < o->now)
			n->hours = (double)(o->now - n->since) / 3600;
		if (!n->counted)
			continue;
		note_largest(d, s, n);
		note_in_force(h, f, in_force->mode, n);
		n->kept = n->execs < o->min_execs || n->hours < o->min_hours || !n->execs;
		if (!n->kept)
			suggest_rule(r, f, in_force->mode, h, d, s, o, n);
	}
	return 0;
}

/* The index of the scope that is this section's, or -1. */
static int slot_of(const struct size_data *d, enum argguard_scope scope, uint32_t uid,
		   const char *path)
{
	for (size_t s = 0; s < d->n_scopes && s <= INT32_MAX; s++) {
		const struct size_scope *sc = &d->scopes[s];

		if (sc->other || !sc->ruled || sc->scope != scope)
			continue;
		if ((scope == ARGGUARD_SCOPE_UID && sc->uid != uid) ||
		    (scope == ARGGUARD_SCOPE_CGROUP && strcmp(sc->path, path)))
			continue;
		return (int)s;
	}
	return -1;
}

struct print_ctx {
	const struct size_data *d;
	const struct suggest_options *o;
	const struct suggest_note *notes;
};

/* ", " between the keys of a mask's limits. */
static void print_limits(FILE *f, uint32_t mask)
{
	bool first = true;

	for (int l = 0; l < POLICY_NR_LIMITS; l++) {
		if (!(mask & (1U << l)))
			continue;
		fprintf(f, "%s%s", first ? "" : ", ", policy_limits[l].key);
		first = false;
	}
}

static void print_note(FILE *f, enum argguard_scope scope, uint32_t uid, const char *path,
		       void *ctx)
{
	const struct print_ctx *c = ctx;
	int s = slot_of(c->d, scope, uid, path);
	const struct suggest_note *n = s < 0 ? NULL : &c->notes[s];
	char name[300], when[32] = "an unknown time", comm[TERMINAL_SAFE_SIZE(ARGGUARD_COMM_LEN)];
	time_t since;
	struct tm tm;

	size_scope_name(
		&(struct size_scope){ .scope = scope, .ruled = true, .uid = uid, .path = path },
		name, sizeof(name));
	if (!n || !n->counted) {
		fprintf(f, "# %s: no exec counted; its limits are as they were.\n", name);
		return;
	}
	since = (time_t)n->since;
	if (n->since && gmtime_r(&since, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f,
		"# %s: %" PRIu64 " exec%s ran, %" PRIu64
		" denied (not counted), in %.1f hours since %s.\n",
		name, n->execs, n->execs == 1 ? "" : "s", n->denied, n->hours, when);
	if (n->execs) {
		fprintf(f, "# The largest that ran: %" PRIu64 " bytes, %u arguments, by ",
			n->largest_bytes, n->largest_argc);
		if (n->uid_known && n->comm[0])
			/* comm is the exec's own choice: one line, whatever it holds */
			fprintf(f, "uid %u (%s).\n", n->uid,
				terminal_safe(comm, sizeof(comm), n->comm));
		else if (n->uid_known)
			fprintf(f, "uid %u.\n", n->uid);
		else
			fprintf(f, "a uid not known.\n");
	}
	if (n->not_denying && n->over_in_force)
		fprintf(f,
			"# At least %" PRIu64
			" of them ran over its limits in force, which did not deny "
			"(mode or action audit): they count as seen.\n",
			n->over_in_force);
	if (n->kept) {
		fprintf(f,
			"# Under the minimum sample (%" PRIu64
			" execs that ran, over %g hours): its "
			"limits are as they were.\n",
			c->o->min_execs, c->o->min_hours);
		return;
	}
	if (n->capped) {
		fprintf(f, "# Held at the deny limit in force: ");
		print_limits(f, n->capped);
		fprintf(f, ".\n");
	}
	if (n->floored) {
		fprintf(f, "# Raised to the floor: ");
		print_limits(f, n->floored);
		fprintf(f, ".\n");
	}
}

void size_suggest_print(FILE *f, const struct policy *out, const struct size_data *d,
			const struct suggest_options *o, const struct suggest_note *notes,
			const struct policy *in_force, const char *from, const char *judged)
{
	struct print_ctx c = { .d = d, .o = o, .notes = notes };
	char start[32], end[32];

	size_time_format(start, sizeof(start), d->origin.start);
	size_time_format(end, sizeof(end), d->origin.end);
	fprintf(f,
		"# argguard suggest --keep-share %g --margin %u --tier %s%s --min-execs %" PRIu64
		" --min-hours %g:\n# %s with limits from the execs %s, counted from %s\n# to %s; "
		"check it with argguard policy check.\n",
		o->keep_share * 100, o->margin,
		o->tier == SUGGEST_TIER_DENY ? "deny" : "would-deny", o->counts ? " --counts" : "",
		o->min_execs, o->min_hours, from, judged, start, end);
	fprintf(f, "# Only the execs that ran count: what argguard denied never raises a limit,\n"
		   "# and no limit goes above a deny limit in force.\n");
	fprintf(f,
		"# Floors: byte limits at least %lluK (what xargs and POSIX tools assume); "
		"%s.\n",
		SUGGEST_MIN_BYTES >> 10,
		o->counts ? "max_argc and max_envc at least 32768"
			  : "max_argc and max_envc as they were (--counts sets them)");
	fprintf(f,
		"# A scope with fewer than %" PRIu64 " execs that ran, or fewer than %g hours of "
		"them, keeps its limits.\n",
		o->min_execs, o->min_hours);
	if (o->keep_share < 1)
		fprintf(f,
			"# The largest %g%% of the execs over the floors that ran, each uid's "
			"weighing "
			"as one, are denied.\n",
			100 - o->keep_share * 100);
	if (in_force && in_force->mode == ARGGUARD_MODE_AUDIT)
		fprintf(f, "# The policy in force is in mode audit: the execs over its limits ran "
			   "(would-deny),\n# and count as seen here.\n");
	fputc('\n', f);
	policy_print_noted(f, out, print_note, &c);
}
