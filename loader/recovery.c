// SPDX-License-Identifier: GPL-2.0
#include "recovery.h"

#include <stdbool.h>
#include <string.h>

#include "names.h"

/* Whether the len bytes at v spell mode's name. */
static bool is_mode(const char *v, size_t len, uint32_t mode)
{
	const char *name = mode_name(mode);

	return len == strlen(name) && !strncmp(v, name, len);
}

int recovery_mode(const char *cmdline, const char **bad)
{
	static const char key[] = ARGGUARD_RECOVERY_PARAM "=";
	const char *p = cmdline;
	int mode = -1;
	size_t len;

	*bad = NULL;
	while (*(p += strspn(p, " \t\n"))) {
		len = strcspn(p, " \t\n");
		if (len > sizeof(key) - 1 && !strncmp(p, key, sizeof(key) - 1)) {
			const char *v = p + sizeof(key) - 1;
			size_t vlen = len - (sizeof(key) - 1);

			if (is_mode(v, vlen, ARGGUARD_MODE_OFF)) {
				mode = ARGGUARD_MODE_OFF;
			} else if (is_mode(v, vlen, ARGGUARD_MODE_AUDIT)) {
				mode = ARGGUARD_MODE_AUDIT;
			} else {
				*bad = v; /* the last one counts, as with any kernel parameter */
				mode = -1;
			}
		}
		p += len;
	}
	return mode;
}
