// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a report's JSON read back, as suggest --from reads
 * another host's and the daemon its state file. Any input is refused with
 * a reason, or reads into size data that, written again as the report
 * writes it, reads back to the same counts, scopes and largest execs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_reader.h"
#include "json_writer.h"
#include "size_json.h"
#include "size_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what, const char *text)
{
	fprintf(stderr, "%s\n%s\n", what, text ? text : "");
	abort();
}

/* text parsed into d (made here); 0, or why in why. */
static int read_report(const char *text, size_t len, struct size_data *d, char *why, size_t n)
{
	struct json_value *root = json_parse(text, len, why, n);
	int err;

	if (size_data_init(d))
		abort();
	if (!root)
		return -1;
	err = size_json_origin(root, &d->origin, why, n);
	if (!err)
		err = size_json_counts(root, d, why, n);
	json_free(root);
	return err;
}

static char *write_report(const struct size_data *d, size_t *len)
{
	struct json_writer w;

	json_writer_init(&w, false);
	json_begin_object(&w, NULL);
	size_report_write_envelope(&w, &d->origin);
	size_report_write_counts(&w, d, NULL);
	json_end_object(&w);
	return json_writer_finish(&w, len);
}

static bool same_exec(const struct size_exec *x, const struct size_exec *y)
{
	return x->total_bytes == y->total_bytes && x->uid == y->uid && x->slot == y->slot &&
	       !strcmp(x->comm, y->comm) && !x->cgroup == !y->cgroup &&
	       (!x->cgroup || !strcmp(x->cgroup, y->cgroup));
}

static bool same(const struct size_data *a, const struct size_data *b)
{
	char na[300], nb[300];

	if (a->n_scopes != b->n_scopes || a->n_largest != b->n_largest ||
	    a->n_largest_denied != b->n_largest_denied || a->n_uids != b->n_uids ||
	    memcmp(&a->origin, &b->origin, sizeof(a->origin)))
		return false;
	for (size_t s = 0; s < a->n_scopes; s++) {
		size_scope_name(&a->scopes[s], na, sizeof(na));
		size_scope_name(&b->scopes[s], nb, sizeof(nb));
		if (strcmp(na, nb) || memcmp(&a->hist[s], &b->hist[s], sizeof(a->hist[s])) ||
		    memcmp(&a->denied[s], &b->denied[s], sizeof(a->denied[s])) ||
		    !same_exec(&a->slot_largest[s], &b->slot_largest[s]))
			return false;
	}
	for (size_t i = 0; i < a->n_uids; i++)
		if (a->uids[i].slot != b->uids[i].slot || a->uids[i].uid != b->uids[i].uid ||
		    memcmp(&a->uids[i].hist, &b->uids[i].hist, sizeof(a->uids[i].hist)))
			return false;
	for (size_t i = 0; i < a->n_largest; i++)
		if (!same_exec(&a->largest[i], &b->largest[i]))
			return false;
	for (size_t i = 0; i < a->n_largest_denied; i++)
		if (!same_exec(&a->largest_denied[i], &b->largest_denied[i]))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[SIZE_JSON_WHY_MAX] = "", why2[SIZE_JSON_WHY_MAX] = "", *text;
	struct size_data d, again;
	size_t len;

	if (read_report((const char *)data, size, &d, why, sizeof(why))) {
		if (!why[0])
			die("refused with no reason", NULL);
		size_data_free(&d);
		return 0;
	}
	text = write_report(&d, &len);
	if (!text)
		abort();
	if (read_report(text, len, &again, why2, sizeof(why2)))
		die(why2, text);
	if (!same(&d, &again))
		die("read back, it is not what was written", text);
	free(text);
	size_data_free(&again);
	size_data_free(&d);
	return 0;
}
