// SPDX-License-Identifier: GPL-2.0
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "event_json.h"
#include "sample_event.h"

static json_object *parse(const struct argguard_event *e, int64_t offset)
{
	char *line = event_to_json(e, offset);
	json_object *obj;

	CHECK(line && !strchr(line, '\n'), "formats to a single line");
	obj = line ? json_tokener_parse(line) : NULL;
	CHECK(obj != NULL, "the line parses as JSON: %s", line ? line : "(null)");
	free(line);
	return obj;
}

static const char *str(json_object *obj, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(obj, key, &v) ? json_object_get_string(v) : "(missing)";
}

static int64_t num(json_object *obj, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(obj, key, &v) ? json_object_get_int64(v) : -1;
}

static void exact_event_carries_every_field(void)
{
	struct argguard_event e = sample_event();
	json_object *obj = parse(&e, 1700000000LL * 1000000000LL);

	if (!obj)
		return;
	CHECK(!strcmp(str(obj, "time"), "2023-11-14T22:13:25.000000Z"), "time is UTC: %s",
	      str(obj, "time"));
	CHECK(!strcmp(str(obj, "verdict"), "deny"), "verdict is deny");
	CHECK(num(obj, "argv_bytes") == 4194304, "argv_bytes is exact");
	CHECK(num(obj, "envp_bytes") == 17, "envp_bytes is exact");
	CHECK(num(obj, "total_bytes") == 4194321, "total_bytes is the sum");
	CHECK(num(obj, "limit_value") == 1048576, "limit_value is the limit crossed");
	CHECK(!strcmp(str(obj, "limit"), "max_total_bytes"), "limit names the limit crossed");
	CHECK(!strcmp(str(obj, "scope"), "uid"), "scope names the deciding rule's scope");
	CHECK(num(obj, "rule_id") == 1000, "rule_id is the uid");
	CHECK(num(obj, "orig_argc") == 33, "orig_argc is carried");
	CHECK(!strcmp(str(obj, "filename"), "/bin/true"), "filename is unescaped: %s",
	      str(obj, "filename"));
	CHECK(!strcmp(str(obj, "sizes"), "exact"), "sizes says exact");
	json_object_put(obj);
}

static void userns_owner_is_null_in_the_initial_namespace(void)
{
	struct argguard_event e = sample_event();
	json_object *obj, *v;

	e.userns_owner = ARGGUARD_NO_USERNS_OWNER;
	obj = parse(&e, 0);
	if (!obj)
		return;
	CHECK(json_object_object_get_ex(obj, "userns_owner", &v) && v == NULL,
	      "userns_owner is null without ARGGUARD_EV_USERNS");
	json_object_put(obj);

	e.flags |= ARGGUARD_EV_USERNS;
	e.uid = 100005;
	e.userns_owner = 1000;
	obj = parse(&e, 0);
	if (!obj)
		return;
	CHECK(num(obj, "userns_owner") == 1000 && num(obj, "uid") == 100005,
	      "a subordinate uid's record names the namespace's owner: %lld",
	      (long long)num(obj, "userns_owner"));
	json_object_put(obj);

	e.userns_owner = 0;
	obj = parse(&e, 0);
	if (!obj)
		return;
	CHECK(json_object_object_get_ex(obj, "userns_owner", &v) && v &&
		      json_object_get_int64(v) == 0,
	      "root as the owner is 0, not null");
	json_object_put(obj);
}

static void head_is_an_array_with_an_explicit_truncated_flag(void)
{
	struct argguard_event e = sample_event();
	json_object *obj, *head, *v;

	memcpy(e.head, "ls\0-l\0/tm", 10);
	e.head_len = 10;
	e.argv_bytes = 4096;
	obj = parse(&e, 0);
	if (!obj)
		return;
	CHECK(json_object_object_get_ex(obj, "argv_head", &head) &&
		      json_object_array_length(head) == 3 &&
		      !strcmp(json_object_get_string(json_object_array_get_idx(head, 2)), "/tm"),
	      "argv_head holds the arguments, the last one cut");
	CHECK(json_object_object_get_ex(obj, "argv_head_truncated", &v) &&
		      json_object_get_boolean(v),
	      "argv_head_truncated is true when argv_bytes is larger");
	json_object_put(obj);

	e.argv_bytes = 10;
	obj = parse(&e, 0);
	if (!obj)
		return;
	CHECK(json_object_object_get_ex(obj, "argv_head_truncated", &v) &&
		      !json_object_get_boolean(v),
	      "argv_head_truncated is false when the head is the whole argv");
	json_object_put(obj);

	CHECK(!strcmp(str(obj = parse(&e, 0), "head_source"), "caller"),
	      "a head read from the caller's memory says so");
	json_object_put(obj);
	e.flags |= ARGGUARD_EV_HEAD_KERNEL;
	CHECK(!strcmp(str(obj = parse(&e, 0), "head_source"), "kernel"),
	      "a head from the kernel's copy says so");
	json_object_put(obj);
	e.flags &= ~ARGGUARD_EV_HEAD_KERNEL;

	memcpy(e.head, "a\0\xff", 4);
	e.head_len = 4;
	obj = parse(&e, 0);
	if (!obj)
		return;
	CHECK(!strcmp(str(obj, "argv_head_encoding"), "hex") &&
		      json_object_object_get_ex(obj, "argv_head", &head) &&
		      !strcmp(json_object_get_string(json_object_array_get_idx(head, 1)), "ff"),
	      "a head with invalid UTF-8 is hex, and says so");
	json_object_put(obj);
}

static void derived_event_leaves_split_sizes_null(void)
{
	struct argguard_event e = sample_event();
	json_object *obj, *v;

	e.flags = 0;
	obj = parse(&e, 0);
	if (!obj)
		return;
	CHECK(json_object_object_get_ex(obj, "argv_bytes", &v) && v == NULL,
	      "argv_bytes is null when the kernel cannot tell");
	CHECK(!strcmp(str(obj, "sizes"), "derived"), "sizes says derived");
	json_object_put(obj);
}

static void odd_bytes_stay_valid_json(void)
{
	struct argguard_event e = sample_event();
	json_object *obj;

	strcpy(e.filename, "/tmp/a\"b\\c\nd\x01");
	obj = parse(&e, 0);
	if (obj) {
		CHECK(!strcmp(str(obj, "filename"), "/tmp/a\"b\\c\nd\x01"),
		      "quotes and control bytes round-trip");
		json_object_put(obj);
	}

	strcpy(e.filename, "/tmp/\xff\xfe");
	obj = parse(&e, 0);
	if (obj) {
		CHECK(!strcmp(str(obj, "filename"), "2f746d702ffffe"), "invalid UTF-8 is hex: %s",
		      str(obj, "filename"));
		CHECK(!strcmp(str(obj, "filename_encoding"), "hex"), "and says so");
		json_object_put(obj);
	}

	memset(e.filename, 'x', sizeof(e.filename)); /* no NUL at all */
	obj = parse(&e, 0);
	if (obj) {
		CHECK(strlen(str(obj, "filename")) == sizeof(e.filename),
		      "an unterminated filename stops at the buffer's end");
		json_object_put(obj);
	}
}

static void script_records_name_the_interpreter(void)
{
	struct argguard_event e = sample_event();
	json_object *obj;

	obj = parse(&e, 0);
	if (obj) {
		CHECK(!json_object_object_get_ex(obj, "interpreter", NULL),
		      "no interpreter without ARGGUARD_EV_SCRIPT");
		json_object_put(obj);
	}
	e.flags |= ARGGUARD_EV_SCRIPT;
	strcpy(e.shebang, " \t/usr/bin/env python3\nprint()\n");
	obj = parse(&e, 0);
	if (obj) {
		CHECK(!strcmp(str(obj, "interpreter"), "/usr/bin/env"),
		      "blanks skipped, the name ends at a blank: %s", str(obj, "interpreter"));
		json_object_put(obj);
	}
	memset(e.shebang, 'x', sizeof(e.shebang)); /* no end in the buffer */
	obj = parse(&e, 0);
	if (obj) {
		CHECK(strlen(str(obj, "interpreter")) == sizeof(e.shebang),
		      "an unterminated name stops at the buffer's end");
		json_object_put(obj);
	}
}

static void kernel_refusal_names_the_limit_that_applied(void)
{
	struct argguard_event e = sample_event();
	json_object *obj;

	e.verdict = ARGGUARD_VERDICT_KERNEL_REFUSED;
	e.scope = ARGGUARD_SCOPE_KERNEL;
	e.limit_kind = ARGGUARD_LIMIT_EXEC_ARG_MAX;
	e.limit = 262144;
	obj = parse(&e, 0);
	if (obj) {
		CHECK(!strcmp(str(obj, "limit"), "exec_arg_max"), "limit: %s", str(obj, "limit"));
		CHECK(num(obj, "limit_value") == 262144, "limit_value");
		json_object_put(obj);
	}
}

static void summary_gives_losses_by_reason(void)
{
	struct record_losses n = { .suppressed = 7,
				   .ring_full = 3,
				   .log_backlog = 2,
				   .malformed = 1,
				   .top_uids = { { .uid = 65534, .n = 6 }, { .uid = 0, .n = 1 } } };
	struct record r = { .kind = RECORD_SUMMARY,
			    .losses = n,
			    .interval_ns = 1500000000ULL,
			    .end_ns = 5000000000ULL };
	json_object *by_uid, *obj;
	char *line = record_to_json(&r, NULL);

	CHECK(line != NULL, "a summary formats");
	if (!line)
		return;
	obj = json_tokener_parse(line);
	CHECK(obj && !strcmp(str(obj, "verdict"), "summary"), "verdict summary: %s", line);
	CHECK(num(obj, "suppressed") == 7, "suppressed");
	CHECK(num(obj, "lost") == 6, "lost is the sum over reasons");
	CHECK(num(obj, "lost_ring_full") == 3 && num(obj, "lost_log_backlog") == 2 &&
		      num(obj, "lost_malformed") == 1,
	      "lost by reason");
	CHECK(json_object_object_get_ex(obj, "suppressed_by_uid", &by_uid) &&
		      json_object_array_length(by_uid) == 2 &&
		      num(json_object_array_get_idx(by_uid, 0), "uid") == 65534 &&
		      num(json_object_array_get_idx(by_uid, 0), "suppressed") == 6 &&
		      num(json_object_array_get_idx(by_uid, 1), "uid") == 0,
	      "suppressed_by_uid: the uids that lost the most, most first: %s", line);
	CHECK(strstr(str(obj, "message"), "ring buffer full 3") != NULL, "the message says why: %s",
	      str(obj, "message"));
	json_object_put(obj);
	free(line);
}

static void unknown_errno_is_given_as_its_number(void)
{
	struct argguard_event e = sample_event();
	json_object *obj;

	e.err = 4095; /* no name: strerrorname_np() returns NULL */
	obj = parse(&e, 0);
	if (obj) {
		CHECK(!strcmp(str(obj, "errno"), "4095"), "errno 4095 is \"4095\": %s",
		      str(obj, "errno"));
		json_object_put(obj);
	}
}

static void stamp_past_int64_max_still_formats(void)
{
	struct argguard_event e = sample_event();
	json_object *obj;

	/* ktime_ns + offset overflows int64_t; UBSan (test_event_json_asan) would say so. */
	e.ktime_ns = INT64_MAX;
	obj = parse(&e, 1700000000000000000LL);
	if (obj) {
		CHECK(num(obj, "mono_ns") == INT64_MAX, "mono_ns is the stamp as given");
		json_object_put(obj);
	}
}

int main(void)
{
	exact_event_carries_every_field();
	derived_event_leaves_split_sizes_null();
	userns_owner_is_null_in_the_initial_namespace();
	head_is_an_array_with_an_explicit_truncated_flag();
	odd_bytes_stay_valid_json();
	script_records_name_the_interpreter();
	kernel_refusal_names_the_limit_that_applied();
	summary_gives_losses_by_reason();
	unknown_errno_is_given_as_its_number();
	stamp_past_int64_max_still_formats();
	return check_done();
}
