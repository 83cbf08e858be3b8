// SPDX-License-Identifier: GPL-2.0
#include "size_metrics.h"

#include <inttypes.h>

#include "names.h"
#include "size_bucket.h"

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
		for (int s = 1; s < ARGGUARD_SIZE_SLOTS; s++) {
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
