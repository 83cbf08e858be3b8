// SPDX-License-Identifier: GPL-2.0
#include "log.h"

#include <stdarg.h>
#include <stdio.h>

void log_error(const char *fmt, ...)
{
	va_list ap;

	fputs("argguard: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
