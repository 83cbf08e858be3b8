/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How argguard spells the values that the BPF program and userspace share:
 * modes, actions, scopes, verdicts, limits, drop reasons, policy states and
 * deny errnos, as records, the policy file, argguard status and the metrics
 * name them. The names come from the tables in bpf/argguard.h.
 */
#ifndef ARGGUARD_NAMES_H
#define ARGGUARD_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "argguard.h"
#include "pins.h"

/* The name of a value of its table; "unknown" for a value past the table. */
const char *mode_name(uint32_t value);
const char *action_name(uint32_t value);
const char *scope_name(uint32_t value);
const char *verdict_name(uint32_t value);
const char *limit_name(uint32_t value);
const char *drop_name(uint32_t value);
const char *policy_state_name(uint32_t value);

/* The value that name stands for, or -1. */
int mode_parse(const char *name);
int action_parse(const char *name);

/* The name of a rule's deny errno as the BPF side reads it: past the table, "E2BIG". */
const char *deny_errno_name(int32_t err);

/* The positive errno that name ("EPERM") stands for, if a rule may deny with it; else -1. */
int deny_errno_parse(const char *name);

/* The pin's file name, below ARGGUARD_PIN_DIR. */
const char *pin_file(enum pin pin);

/* ARGGUARD_PIN_DIR "/" and the pin's file name, into path. */
void pin_path(enum pin pin, char *path, size_t len);

#endif /* ARGGUARD_NAMES_H */
