// SPDX-License-Identifier: GPL-2.0
/*
 * argguard report and argguard suggest: read the live policy (which slot
 * is whose) and the window's size distributions, the pinned maps' and the
 * state file's (size_window.c), or for suggest --from other hosts' reports
 * (size_json.c), then print them (size_report.c) or a policy made from
 * them (size_suggest.c).
 */
#include "size_commands.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "options.h"
#include "names.h"
#include "policy_diff.h"
#include "policy_maps.h"
#include "size_json.h"
#include "size_report.h"
#include "size_suggest.h"
#include "size_window.h"

/* The live policy and the window's distributions. 0, or 1 with the error logged. */
static int read_live(struct policy *live, struct size_data *d)
{
	struct policy_maps maps;
	int ret;

	if (policy_maps_open(&maps))
		return 1;
	ret = size_window_read(&maps, live, d);
	policy_maps_close(&maps);
	return ret ? 1 : 0;
}

/* The policy file at path, or 2 with its FILE:LINE error logged. */
static int read_file(const char *path, struct policy *p)
{
	return policy_parse_file(path, p) ? 2 : 0;
}

/*
 * What report and suggest both read, once the options are parsed: the
 * policy file, when one is named, into *file (else it stays empty), then
 * the live policy and the distributions. 0; or the exit code, with the
 * error logged and nothing left to free.
 */
static int read_inputs(const char *command, int argc, char **argv, const char *policy_path,
		       struct policy *file, struct policy *live, struct size_data *d)
{
	int ret;

	if (optind != argc) {
		log_error("unexpected argument '%s' to %s", argv[optind], command);
		return 2;
	}
	policy_init(file);
	if (policy_path) {
		ret = read_file(policy_path, file);
		if (ret)
			return ret;
	}
	ret = read_live(live, d);
	if (ret)
		policy_free(file);
	return ret;
}

int report_command(int argc, char **argv)
{
	const char *policy_path = NULL;
	struct policy live, file, *judge = &live;
	struct size_data d;
	bool json = false;
	int ret;

	ret = format_and_policy_options(
		argc, argv, "usage: argguard report [--format text|json] [--policy FILE]",
		&policy_path, &json);
	if (ret)
		return ret;
	ret = read_inputs("report", argc, argv, policy_path, &file, &live, &d);
	if (ret)
		return ret;
	if (policy_path)
		judge = &file;
	ret = size_report_print(stdout, &d, judge, policy_path ? policy_path : "the live policy",
				json);
	if (ret)
		log_error("failed to format the report: %s", strerror(-ret));
	size_data_free(&d);
	policy_free(&live);
	policy_free(&file);
	return ret ? 1 : 0;
}

/* A number from start to end, all of text, into *v. */
static bool parse_double(const char *text, double min, double max, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(text, &end);
	return !errno && end != text && !*end && *v >= min && *v <= max;
}

/*
 * The reports in files[0..n) summed into d, made here, d->origin their
 * window: the earliest start (unknown if one is) to the latest end. One of
 * another schema or size mode than the first's is refused, by name. 0, or
 * 2 with the error logged.
 */
static int read_reports(char **files, int n, struct size_data *d)
{
	char why[SIZE_JSON_WHY_MAX];
	struct size_data one;
	bool start_known = true;
	int err;

	if (size_data_init(d)) {
		log_error("failed to merge the reports: %s", strerror(ENOMEM));
		return 2;
	}
	for (int i = 0; i < n; i++) {
		err = size_json_read_file(files[i], &one, why, sizeof(why));
		if (!err && i && one.origin.exact != d->origin.exact) {
			snprintf(why, sizeof(why), "%s sizes, where %s has %s ones",
				 one.origin.exact ? "exact" : "total", files[0],
				 d->origin.exact ? "exact" : "total");
			err = -EINVAL;
		}
		if (!err)
			err = size_data_add(d, &one);
		if (err) {
			log_error("%s: %s", files[i], err == -ENOMEM ? strerror(ENOMEM) : why);
			size_data_free(&one);
			size_data_free(d);
			return 2;
		}
		if (!i)
			d->origin = one.origin;
		start_known = start_known && one.origin.start;
		if (one.origin.start && one.origin.start < d->origin.start)
			d->origin.start = one.origin.start;
		if (one.origin.end > d->origin.end)
			d->origin.end = one.origin.end;
		size_data_free(&one);
	}
	if (!start_known)
		d->origin.start = 0;
	return 0;
}

/*
 * With --from: the reports, and the policy to start from, _FILE_ of
 * --policy (in *base) or else the live one (in *live). 0, or the exit code
 * with the error logged and nothing left to free.
 */
static int read_from(char **files, int n, const char *policy_path, struct policy *base,
		     struct policy *live, struct size_data *d)
{
	struct policy_maps maps;
	int ret;

	policy_init(base);
	policy_init(live);
	if (policy_path) {
		ret = read_file(policy_path, base);
		if (ret)
			return ret;
	} else {
		if (policy_maps_open(&maps)) {
			log_error("suggest --from starts from the live policy: give --policy FILE "
				  "where none is loaded");
			return 1;
		}
		ret = policy_maps_read(&maps, live);
		policy_maps_close(&maps);
		if (ret) {
			log_error("failed to read the live policy: %s", strerror(-ret));
			return 1;
		}
	}
	ret = read_reports(files, n, d);
	if (ret) {
		policy_free(base);
		policy_free(live);
	}
	return ret;
}

int suggest_command(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "keep-share", required_argument, NULL, 'k' },
		{ "margin", required_argument, NULL, 'M' },
		{ "mode", required_argument, NULL, 'm' },
		{ "policy", required_argument, NULL, 'p' },
		{ "tier", required_argument, NULL, 't' },
		{ "counts", no_argument, NULL, 'c' },
		{ "min-execs", required_argument, NULL, 'e' },
		{ "min-hours", required_argument, NULL, 'H' },
		{},
	};
	struct suggest_options o = {
		.keep_share = 1,
		.margin = 25,
		.mode = ARGGUARD_MODE_ENFORCE,
		.tier = SUGGEST_TIER_DENY,
		.min_execs = SUGGEST_MIN_EXECS,
		.min_hours = SUGGEST_MIN_HOURS,
	};
	struct suggest_note *notes = NULL;
	const char *policy_path = NULL;
	const struct policy *start_from, *in_force;
	struct policy live, base, out;
	struct size_data d;
	char **from, judged[64] = "the live policy judged";
	int n_from = 0;
	double v;
	int c, ret, mode;

	from = calloc(argc, sizeof(*from));
	if (!from) {
		log_error("failed to read the options: %s", strerror(ENOMEM));
		return 1;
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "p:", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			from[n_from++] = optarg;
			break;
		case 'k':
			if (!parse_double(optarg, 0, 100, &v) || v <= 0) {
				log_error(
					"--keep-share takes a percentage above 0 and at most 100, "
					"not '%s'",
					optarg);
				free(from);
				return 2;
			}
			o.keep_share = v / 100;
			break;
		case 'M':
			if (!parse_double(optarg, 0, 1000, &v) || v != (unsigned int)v) {
				log_error("--margin takes a whole percentage from 0 to 1000, not "
					  "'%s'",
					  optarg);
				free(from);
				return 2;
			}
			o.margin = (unsigned int)v;
			break;
		case 'm':
			mode = mode_parse(optarg);
			if (mode < 0) {
				log_error("--mode takes off, audit or enforce, not '%s'", optarg);
				free(from);
				return 2;
			}
			o.mode = mode;
			break;
		case 'p':
			policy_path = optarg;
			break;
		case 't':
			if (strcmp(optarg, "deny") && strcmp(optarg, "would-deny")) {
				log_error("--tier takes deny or would-deny, not '%s'", optarg);
				free(from);
				return 2;
			}
			o.tier = strcmp(optarg, "deny") ? SUGGEST_TIER_WOULD_DENY
							: SUGGEST_TIER_DENY;
			break;
		case 'c':
			o.counts = true;
			break;
		case 'e':
			if (!parse_double(optarg, 0, 1e12, &v) || v != (uint64_t)v) {
				log_error("--min-execs takes a whole number of execs, not '%s'",
					  optarg);
				free(from);
				return 2;
			}
			o.min_execs = (uint64_t)v;
			break;
		case 'H':
			if (!parse_double(optarg, 0, 1e6, &v)) {
				log_error("--min-hours takes a number of hours from 0, not '%s'",
					  optarg);
				free(from);
				return 2;
			}
			o.min_hours = v;
			break;
		default:
			log_error("usage: argguard suggest [--keep-share P] [--margin M] "
				  "[--mode MODE] [--tier deny|would-deny] [--counts] "
				  "[--min-execs N] [--min-hours H] [--policy FILE] "
				  "[--from FILE...]");
			free(from);
			return 2;
		}
	}
	if (n_from) {
		/* Its files are its arguments and every operand: --from A B C. */
		while (optind < argc)
			from[n_from++] = argv[optind++];
		ret = read_from(from, n_from, policy_path, &base, &live, &d);
	} else {
		ret = read_inputs("suggest", argc, argv, policy_path, &base, &live, &d);
	}
	if (ret) {
		free(from);
		return ret;
	}
	start_from = policy_path ? &base : &live;
	/* With --from, the hosts' policies are not known: the one it starts from stands for them. */
	in_force = n_from ? start_from : &live;
	o.now = d.origin.end > 0 ? (uint64_t)d.origin.end : (uint64_t)time(NULL);
	notes = calloc(d.n_scopes, sizeof(*notes));
	ret = notes ? size_suggest(start_from, in_force, &d, &o, &out, notes) : -ENOMEM;
	if (!ret) {
		if (n_from)
			snprintf(judged, sizeof(judged), "of %d report%s", n_from,
				 n_from == 1 ? "" : "s");
		policy_sort(&out);
		size_suggest_print(stdout, &out, &d, &o, notes, in_force,
				   policy_path ? policy_path : "The live policy", judged);
		policy_free(&out);
	} else {
		log_error("failed to make the policy: %s", strerror(-ret));
	}
	free(notes);
	free(from);
	size_data_free(&d);
	policy_free(&live);
	policy_free(&base);
	return ret ? 1 : 0;
}
