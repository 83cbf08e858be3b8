// SPDX-License-Identifier: GPL-2.0
#include "pins.h"

#include <stdio.h>

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
