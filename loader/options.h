/* SPDX-License-Identifier: GPL-2.0 */
/* Command-line options that more than one command reads the same way. */
#ifndef ARGGUARD_OPTIONS_H
#define ARGGUARD_OPTIONS_H

#include <stdbool.h>

/*
 * --format text|json and --policy FILE from argv, which holds no other
 * option; optind is then at the first operand. 0, or 2 with the error
 * logged: usage is the command's usage line.
 */
int format_and_policy_options(int argc, char **argv, const char *usage, const char **policy_path,
			      bool *json);

#endif /* ARGGUARD_OPTIONS_H */
