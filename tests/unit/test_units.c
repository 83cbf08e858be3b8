// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>

#include "check.h"
#include "units.h"

static void expect_bytes(const char *text, uint64_t want)
{
	uint64_t got = 0;
	int err = parse_bytes(text, &got);

	CHECK(err == 0 && got == want, "'%s' parses as %llu (err %d, got %llu)", text,
	      (unsigned long long)want, err, (unsigned long long)got);
}

static void expect_error(const char *text, int want)
{
	uint64_t got = 12345;
	int err = parse_bytes(text, &got);

	CHECK(err == want && got == 12345,
	      "'%s' is rejected with %d and leaves the output alone (err %d)",
	      text ? text : "(null)", want, err);
}

int main(void)
{
	expect_bytes("0", 0);
	expect_bytes("4096", 4096);
	expect_bytes("256K", 256 << 10);
	expect_bytes("256k", 256 << 10);
	expect_bytes("4M", 4 << 20);
	expect_bytes("2G", 2ULL << 30);
	expect_bytes("18446744073709551615", UINT64_MAX);
	expect_bytes("17179869183G", 17179869183ULL << 30);

	expect_error("", -EINVAL);
	expect_error(NULL, -EINVAL);
	expect_error("-1", -EINVAL);
	expect_error(" 1", -EINVAL);
	expect_error("1 ", -EINVAL);
	expect_error("1KB", -EINVAL);
	expect_error("1T", -EINVAL);
	expect_error("K", -EINVAL);
	expect_error("0x10", -EINVAL);
	expect_error("18446744073709551616", -ERANGE);
	expect_error("17179869184G", -ERANGE);
	return check_done();
}
