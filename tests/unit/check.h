/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal TAP-printing check for host unit tests. Each CHECK is one test
 * point; main() ends with check_done(), which returns the exit status.
 */
#ifndef ARGGUARD_CHECK_H
#define ARGGUARD_CHECK_H

#include <stdio.h>

static int check_count, check_failed;

#define CHECK(cond, ...)                                                                \
	do {                                                                            \
		check_count++;                                                          \
		if (cond) {                                                             \
			printf("ok %d - ", check_count);                                \
		} else {                                                                \
			check_failed++;                                                 \
			printf("not ok %d - %s:%d: ", check_count, __FILE__, __LINE__); \
		}                                                                       \
		printf(__VA_ARGS__);                                                    \
		putchar('\n');                                                          \
	} while (0)

static inline int check_done(void)
{
	printf("1..%d\n# %d passed, %d failed\n", check_count, check_count - check_failed,
	       check_failed);
	return check_failed ? 1 : 0;
}

#endif /* ARGGUARD_CHECK_H */
