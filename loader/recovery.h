/* SPDX-License-Identifier: GPL-2.0 */
/* The recovery switch: argguard.mode= on the kernel command line. */
#ifndef ARGGUARD_RECOVERY_H
#define ARGGUARD_RECOVERY_H

#define ARGGUARD_RECOVERY_PARAM "argguard.mode"

/*
 * The mode that argguard.mode= on the kernel command line forces on every
 * apply in this boot, or -1 when it is absent. cmdline is the text of
 * /proc/cmdline; an unknown value is reported in bad and ignored.
 */
int recovery_mode(const char *cmdline, const char **bad);

#endif /* ARGGUARD_RECOVERY_H */
