// SPDX-License-Identifier: GPL-2.0
#include "names.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#define ARGGUARD_NAME(id, name) [id] = name,

static const char *const mode_names[] = { ARGGUARD_MODES(ARGGUARD_NAME) };
static const char *const action_names[] = { ARGGUARD_ACTIONS(ARGGUARD_NAME) };
static const char *const scope_names[] = { ARGGUARD_SCOPES(ARGGUARD_NAME) };
static const char *const verdict_names[] = { ARGGUARD_VERDICTS(ARGGUARD_NAME) };
static const char *const limit_names[] = { ARGGUARD_LIMITS(ARGGUARD_NAME) };
static const char *const drop_names[] = { ARGGUARD_DROPS(ARGGUARD_NAME) };
static const char *const policy_state_names[] = { ARGGUARD_POLICY_STATES(ARGGUARD_NAME) };

/* The BPF side has no errno.h: the numbers it takes from the table must be these. */
#define ARGGUARD_ERRNO_MATCHES(name, nr) \
	_Static_assert(name == nr, "errno.h numbers " #name " otherwise than bpf/argguard.h");
ARGGUARD_DENY_ERRNOS(ARGGUARD_ERRNO_MATCHES)

#define ARGGUARD_ERRNO_ENTRY(name, nr) { #name, nr },

static const struct {
	const char *name;
	int value;
} deny_errnos[] = { ARGGUARD_DENY_ERRNOS(ARGGUARD_ERRNO_ENTRY) };

#define COUNT(table) (sizeof(table) / sizeof(table[0]))
#define NAME_OF(table, i) ((i) < COUNT(table) ? table[i] : "unknown")

const char *mode_name(uint32_t mode)
{
	return NAME_OF(mode_names, mode);
}

const char *action_name(uint32_t action)
{
	return NAME_OF(action_names, action);
}

const char *scope_name(uint32_t scope)
{
	return NAME_OF(scope_names, scope);
}

const char *verdict_name(uint32_t verdict)
{
	return NAME_OF(verdict_names, verdict);
}

const char *limit_name(uint32_t limit)
{
	return NAME_OF(limit_names, limit);
}

const char *drop_name(uint32_t reason)
{
	return NAME_OF(drop_names, reason);
}

const char *policy_state_name(uint32_t state)
{
	return NAME_OF(policy_state_names, state);
}

static int lookup(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

int mode_parse(const char *name)
{
	return lookup(mode_names, COUNT(mode_names), name);
}

int action_parse(const char *name)
{
	return lookup(action_names, COUNT(action_names), name);
}

const char *deny_errno_name(int32_t err)
{
	for (size_t i = 0; i < COUNT(deny_errnos); i++)
		if (deny_errnos[i].value == err)
			return deny_errnos[i].name;
	return deny_errnos[0].name; /* how the BPF side reads any other value */
}

int deny_errno_parse(const char *name)
{
	for (size_t i = 0; i < COUNT(deny_errnos); i++)
		if (!strcmp(deny_errnos[i].name, name))
			return deny_errnos[i].value;
	return -1;
}
