// SPDX-License-Identifier: GPL-2.0
/* Command-line options that more than one command reads the same way (options.h). */
#include "options.h"

#include <getopt.h>
#include <string.h>

#include "log.h"

int format_and_policy_options(int argc, char **argv, const char *usage, const char **policy_path,
			      bool *json)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'F' },
		{ "policy", required_argument, NULL, 'p' },
		{},
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "p:", longopts, NULL)) != -1) {
		if (c == 'p') {
			*policy_path = optarg;
		} else if (c == 'F' && (!strcmp(optarg, "text") || !strcmp(optarg, "json"))) {
			*json = !strcmp(optarg, "json");
		} else if (c == 'F') {
			log_error("--format takes text or json, not '%s'", optarg);
			return 2;
		} else {
			log_error("%s", usage);
			return 2;
		}
	}
	return 0;
}
