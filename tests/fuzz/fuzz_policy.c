// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the policy file parser. Any input either fails with
 * -EINVAL and an "input:LINE: ..." message logged, or parses to a policy that policy_print()
 * writes as a file that parses again and prints the same text. The lockout
 * gate then judges both alike: printing a policy neither makes it a lockout
 * nor hides one. A lockout is named "input:LINE: [section] ...", and
 * --force always lets it through.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what, const char *text)
{
	fprintf(stderr, "%s\n%s\n", what, text);
	abort();
}

/* Parse size bytes of text; the error message, if any, goes to err. */
static int parse(const void *text, size_t size, struct policy *p, char *err, size_t err_len)
{
	FILE *in = fmemopen((void *)text, size, "r");
	struct log_capture c;
	int ret;

	if (!in)
		abort();
	log_capture_start(&c, LOG_ERR, err, err_len, true);
	ret = policy_parse(in, "input", p);
	log_capture_stop(&c);
	fclose(in);
	return ret;
}

/* The text policy_print() writes for p; free() it. */
static char *print(const struct policy *p, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);

	if (!out)
		abort();
	policy_print(out, p);
	if (fclose(out))
		abort();
	return text;
}

/*
 * The gate's verdict on p, checking what holds for any policy. Uid 1000 is
 * an admin, so that [uid 1000] rules meet the gate as an admin's would.
 */
static int gate(const struct policy *p, const char *text)
{
	struct policy_admin admin = { .uid = 1000, .user = "fuzz", .group = "sudo" };
	const struct policy_admins admins = { .list = &admin, .n = 1 };
	char msg[POLICY_LOCKOUT_MSG];
	struct log_capture c;
	int ret, forced;

	log_capture_start(&c, LOG_WARNING, msg, sizeof(msg), true);
	ret = policy_lockout_gate(p, &admins, NULL, "input", false);
	log_capture_stop(&c);
	if (ret && strncmp(msg, "input:", strlen("input:")) != 0)
		die("a lockout that does not name the file and line:", msg);
	if (!ret && c.caught)
		die("the lockout gate logged a policy it let through:", msg);
	if (ret != 0 && ret != 1 && ret != -EPERM)
		die("the lockout gate said neither yes nor no:", text);
	log_capture_start(&c, LOG_WARNING, msg, sizeof(msg), true);
	forced = policy_lockout_gate(p, &admins, NULL, "input", true);
	log_capture_stop(&c);
	if (forced != (ret ? 1 : 0))
		die("--force did not let a lockout through, or made one:", text);
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy p, again;
	char err[512] = "";
	char *first, *second;
	size_t first_len, second_len;
	int ret = parse(data, size, &p, err, sizeof(err));

	if (ret) {
		if (ret != -EINVAL)
			die("a parse error that is not -EINVAL:", err);
		if (strncmp(err, "input:", strlen("input:")) != 0)
			die("a parse error that does not name the file and line:", err);
		return 0;
	}
	first = print(&p, &first_len);
	if (parse(first, first_len, &again, err, sizeof(err)))
		die(err, first);
	second = print(&again, &second_len);
	if (first_len != second_len || memcmp(first, second, first_len) != 0)
		die("printed, parsed and printed again, the policy changed:", second);
	if (gate(&p, first) != gate(&again, first))
		die("printed, the policy's lockout verdict changed:", first);
	free(first);
	free(second);
	policy_free(&p);
	policy_free(&again);
	return 0;
}
