/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a tools/testing/selftests/bpf/prog_tests/ file needs of test_progs.h,
 * for the series' BPF selftests built on their own (vm/kernel.sh): the
 * ASSERT_* macros, test__start_subtest() and test__skip(). test_progs.c
 * runs the one test named by -DTEST_FUNC and prints TAP, one line a subtest.
 */
#ifndef ARGGUARD_TEST_PROGS_H
#define ARGGUARD_TEST_PROGS_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

bool test__start_subtest(const char *name);
void test__skip(void);
void test__fail(void);

/* Each macro prints what failed, marks the subtest failed and returns
 * whether the check held, as test_progs.h's do. */
bool test__check(bool ok, const char *file, int line, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#define ASSERT_CMP_(a, op, b, name)                                                               \
	({                                                                                        \
		long long a_ = (long long)(a), b_ = (long long)(b);                               \
		test__check(a_ op b_, __FILE__, __LINE__, name, "%s: expected %lld " #op " %lld", \
			    #a, a_, b_);                                                          \
	})
#define ASSERT_EQ(a, b, name) ASSERT_CMP_(a, ==, b, name)
#define ASSERT_NEQ(a, b, name) ASSERT_CMP_(a, !=, b, name)
#define ASSERT_LT(a, b, name) ASSERT_CMP_(a, <, b, name)
#define ASSERT_LE(a, b, name) ASSERT_CMP_(a, <=, b, name)
#define ASSERT_GT(a, b, name) ASSERT_CMP_(a, >, b, name)
#define ASSERT_GE(a, b, name) ASSERT_CMP_(a, >=, b, name)
#define ASSERT_TRUE(a, name) ASSERT_CMP_(!!(a), ==, 1, name)
#define ASSERT_FALSE(a, name) ASSERT_CMP_(!!(a), ==, 0, name)
#define ASSERT_OK(res, name)                                                         \
	({                                                                           \
		long long r_ = (long long)(res);                                     \
		test__check(r_ == 0, __FILE__, __LINE__, name,                       \
			    "%s: expected 0, got %lld (errno %d)", #res, r_, errno); \
	})
#define ASSERT_ERR(res, name)                                                                    \
	({                                                                                       \
		long long r_ = (long long)(res);                                                 \
		test__check(r_ < 0, __FILE__, __LINE__, name, "%s: expected an error, got %lld", \
			    #res, r_);                                                           \
	})
#define ASSERT_OK_PTR(ptr, name)                                                           \
	({                                                                                 \
		const void *p_ = (ptr);                                                    \
		test__check(p_ && !libbpf_get_error(p_), __FILE__, __LINE__, name,         \
			    "%s: expected a pointer, got %p (errno %d)", #ptr, p_, errno); \
	})
#define ASSERT_STREQ(a, b, name)                                              \
	({                                                                    \
		const char *sa_ = (a), *sb_ = (b);                            \
		test__check(!strcmp(sa_, sb_), __FILE__, __LINE__, name,      \
			    "%s: expected \"%s\", got \"%s\"", #a, sb_, sa_); \
	})
#define ASSERT_HAS_SUBSTR(str, sub, name)                                                \
	({                                                                               \
		const char *hs_ = (str), *ss_ = (sub);                                   \
		test__check(strstr(hs_, ss_) != NULL, __FILE__, __LINE__, name,          \
			    "%s: expected to contain \"%s\", got:\n%s", #str, ss_, hs_); \
	})

#endif
