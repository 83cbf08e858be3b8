// SPDX-License-Identifier: GPL-2.0
#include "names.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define ARGGUARD_NAME(id, name) [id] = name,

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

/* The table fn##s of one kind of value's names, and fn(): "unknown" past its end. */
#define NAMES(fn, list)                                                 \
	static const char *const fn##s[] = { list(ARGGUARD_NAME) };     \
	const char *fn(uint32_t value)                                  \
	{                                                               \
		return value < COUNT(fn##s) ? fn##s[value] : "unknown"; \
	}

NAMES(mode_name, ARGGUARD_MODES)
NAMES(action_name, ARGGUARD_ACTIONS)
NAMES(scope_name, ARGGUARD_SCOPES)
NAMES(verdict_name, ARGGUARD_VERDICTS)
NAMES(limit_name, ARGGUARD_LIMITS)
NAMES(drop_name, ARGGUARD_DROPS)
NAMES(policy_state_name, ARGGUARD_POLICY_STATES)

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

#define ARGGUARD_PIN_FILE(pin, file, ...) [pin] = file,

static const char *const files[NR_PINS] = { ARGGUARD_MAP_PINS(ARGGUARD_PIN_FILE)
						    ARGGUARD_LINK_PINS(ARGGUARD_PIN_FILE) };

const char *pin_file(enum pin pin)
{
	return files[pin];
}

void pin_path(enum pin pin, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", ARGGUARD_PIN_DIR, files[pin]);
}
