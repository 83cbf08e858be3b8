// SPDX-License-Identifier: GPL-2.0
/*
 * The runner of one BPF selftest built against test_progs.h here: it calls
 * TEST_FUNC and prints TAP, "ok N NAME", "not ok N NAME" or
 * "ok N NAME # SKIP", one line for each subtest (or one for the test, if it
 * has none), and exits 1 if any failed.
 */
#include <stdarg.h>
#include <stdlib.h>
#include "test_progs.h"

#define STR_(x) #x
#define STR(x) STR_(x)

void TEST_FUNC(void);

static const char *current; /* the open subtest, or NULL */
static int number, failed_tests;
static bool failed, skipped;

static void finish(void)
{
	if (!current)
		return;
	if (failed)
		failed_tests++;
	printf("%sok %d %s%s\n", failed ? "not " : "", ++number, current,
	       skipped && !failed ? " # SKIP" : "");
	fflush(stdout);
	current = NULL;
}

static void start(const char *name)
{
	finish();
	current = name;
	failed = false;
	skipped = false;
}

bool test__start_subtest(const char *name)
{
	static char names[64][128];

	if (number >= 64)
		abort();
	snprintf(names[number], sizeof(names[number]), "%s/%s", STR(TEST_FUNC), name);
	start(names[number]);
	return true;
}

void test__skip(void)
{
	skipped = true;
}

void test__fail(void)
{
	failed = true;
}

bool test__check(bool ok, const char *file, int line, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return true;
	failed = true;
	printf("# %s:%d: %s: ", file, line, name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return false;
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	printf("# ");
	return vprintf(fmt, ap);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(print_libbpf);
	printf("TAP version 13\n");
	start(STR(TEST_FUNC));
	/* The test's own line covers what it runs before its first subtest. */
	TEST_FUNC();
	finish();
	printf("1..%d\n", number);
	return failed_tests ? 1 : 0;
}
