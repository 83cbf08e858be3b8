/* SPDX-License-Identifier: GPL-2.0 */
/*
 * argguard's help: argguard --help (every command), argguard COMMAND
 * --help (one command, or the policy group), and the synopsis alone after
 * a usage error. The man page, doc/argguard.8.scd, names everything the
 * help names: tests/checks/help-man-sync.sh checks.
 */
#ifndef ARGGUARD_HELP_H
#define ARGGUARD_HELP_H

#include <stdbool.h>
#include <stddef.h>

/* argguard --help: every command, on stdout. */
void print_usage(void);

/* No command, or an unknown one: the synopsis alone, on stderr. */
void print_short_usage(void);

/* argguard CMD --help: CMD's synopsis, description, options and sections. */
void print_command_help(const char *name);

/* Whether arg asks for help: -h or --help. */
bool is_help(const char *arg);

/*
 * argguard CMD ... --help, wherever --help is among CMD's arguments (up to a
 * "--"), or argguard help CMD: the name of CMD, whose help to print (in buf,
 * or an argv string), or NULL.
 */
const char *help_asked(int argc, char **argv, char *buf, size_t len);

#endif /* ARGGUARD_HELP_H */
