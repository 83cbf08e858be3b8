// SPDX-License-Identifier: GPL-2.0
#include "recovery.h"

#include <string.h>
#include <linux/types.h>

#include "argguard.h"

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

			if (vlen == 3 && !strncmp(v, "off", 3)) {
				mode = ARGGUARD_MODE_OFF;
			} else if (vlen == 5 && !strncmp(v, "audit", 5)) {
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
