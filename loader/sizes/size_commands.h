/* SPDX-License-Identifier: GPL-2.0 */
/* argguard report and argguard suggest: the size distributions, read and used. */
#ifndef ARGGUARD_SIZE_COMMANDS_H
#define ARGGUARD_SIZE_COMMANDS_H

/* report [--format text|json] [--policy FILE] */
int report_command(int argc, char **argv);

/* suggest [--keep-share P] [--margin M] [--mode MODE] [--policy FILE] */
int suggest_command(int argc, char **argv);

#endif /* ARGGUARD_SIZE_COMMANDS_H */
