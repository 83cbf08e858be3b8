// SPDX-License-Identifier: GPL-2.0
/*
 * terminal_safe() and terminal_safe_fputs() (log.c): printable ASCII as it
 * is, a backslash doubled, every other byte as \xHH, and a string cut only
 * between escapes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "log.h"

static void expect(const char *s, const char *want)
{
	char buf[TERMINAL_SAFE_SIZE(64)], line[TERMINAL_SAFE_SIZE(64) + 3], *streamed = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&streamed, &len);

	terminal_safe_fputs(out, "<", s, ">\n");
	fclose(out);
	CHECK(!strcmp(terminal_safe(buf, sizeof(buf), s), want), "expected '%s', got '%s'", want,
	      buf);
	snprintf(line, sizeof(line), "<%s>\n", want);
	CHECK(!strcmp(streamed, line),
	      "and the same to a stream, between what comes before and after: got '%s'", streamed);
	free(streamed);
}

int main(void)
{
	char buf[8];

	expect("/system.slice/cron.service", "/system.slice/cron.service");
	expect("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07");
	expect("a\\x1b", "a\\\\x1b");
	expect("tab\there\nnext\r", "tab\\x09here\\x0anext\\x0d");
	expect("\x7f\x9b[31m", "\\x7f\\x9b[31m");
	expect("caf\xc3\xa9", "caf\\xc3\\xa9");
	expect("", "");
	CHECK(!strcmp(terminal_safe(buf, 7, "abc\x1b"), "abc"),
	      "an escape that does not fit is left out whole: got '%s'", buf);
	CHECK(!strcmp(terminal_safe(buf, 5, "abc\\"), "abc"),
	      "so is a doubled backslash, never halved: got '%s'", buf);
	CHECK(!strcmp(terminal_safe(buf, 1, "abc"), ""), "room for the NUL alone: empty");
	return check_done();
}
