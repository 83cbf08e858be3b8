/* SPDX-License-Identifier: GPL-2.0 */
/* What the sections and keys of a policy file mean (policy_keys.c). */
#ifndef ARGGUARD_POLICY_KEYS_H
#define ARGGUARD_POLICY_KEYS_H

#include "policy_parser.h"

/* A section header's name, and a key's value: what they mean, or an error. */
void policy_enter_section(struct policy_parser *ps, const char *section);
void policy_set_key(struct policy_parser *ps, const char *name, const char *value);

#endif /* ARGGUARD_POLICY_KEYS_H */
