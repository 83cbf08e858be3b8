// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "kallsyms.h"

static char path[] = "/tmp/test_kallsyms.XXXXXX";

/* A kallsyms file of filler lines, with text at the first line start from byte at (-1: at the end). */
static void write_file(const char *text, long at, int filler_lines)
{
	FILE *f = fopen(path, "w");
	long written = 0;
	int placed = 0;

	for (int i = 0; i < filler_lines; i++) {
		if (!placed && at >= 0 && written >= at) {
			written += fprintf(f, "%s", text);
			placed = 1;
		}
		written += fprintf(f, "ffffffff81%06x t filler_symbol_%d\n", i, i);
	}
	if (!placed)
		fprintf(f, "%s", text);
	fclose(f);
}

static void expect(const char *what, const char *name, int want_err, uint64_t want_addr)
{
	uint64_t addr = 0;
	int err = kallsyms_address(path, name, &addr);

	CHECK(err == want_err && (err || addr == want_addr),
	      "%s: %s gives %d, 0x%llx (got %d, 0x%llx)", what, name, want_err,
	      (unsigned long long)want_addr, err, (unsigned long long)addr);
}

int main(void)
{
	const char *line = "ffffffff8244e0e0 D exec_arg_max\n";
	const uint64_t addr = 0xffffffff8244e0e0ULL;
	long boundary = 64 * 1024;

	close(mkstemp(path));
	write_file(line, 0, 100);
	expect("first line", "exec_arg_max", 0, addr);
	write_file(line, -1, 100);
	expect("last line", "exec_arg_max", 0, addr);
	write_file("ffffffff8244e0e0 D exec_arg_max", -1, 100);
	expect("last line without its newline", "exec_arg_max", 0, addr);
	/* Lines are 38 to 44 bytes: the line lands before, across or after the first and second 64 KiB reads. */
	for (long at = boundary - 50; at <= 2 * boundary + 10;
	     at += at < boundary + 10 ? 7 : boundary - 60) {
		char what[64];

		write_file(line, at, 20000);
		snprintf(what, sizeof(what), "at byte %ld of a 20,000-line file", at);
		expect(what, "exec_arg_max", 0, addr);
	}
	write_file("ffffffff8244e0e0 D my_exec_arg_max\nffffffff8244e0e8 D exec_arg_max_x\n", 500,
		   1000);
	expect("only longer names", "exec_arg_max", -ENOENT, 0);
	write_file("ffffffffc0001000 d exec_arg_max\t[some_module]\n", 500, 1000);
	expect("a module's symbol", "exec_arg_max", -ENOENT, 0);
	write_file("0000000000000000 D exec_arg_max\n", 500, 1000);
	expect("addresses hidden", "exec_arg_max", -EACCES, 0);
	write_file("", -1, 30000);
	expect("absent", "exec_arg_max", -ENOENT, 0);
	expect("a filler symbol far in", "filler_symbol_29999", 0, 0xffffffff81007530ULL - 1);
	expect("empty name", "", -EINVAL, 0);
	unlink(path);
	expect("no such file", "exec_arg_max", -ENOENT, 0);
	return check_done();
}
