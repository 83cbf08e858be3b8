// SPDX-License-Identifier: GPL-2.0
/*
 * Records as the sinks get them: the JSON with the cgroup paths, the
 * one-line message journald shows, the Linux audit message, and the cgroup
 * cache that names a record's cgroups.
 */
#define _GNU_SOURCE /* mkdtemp() */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "check.h"
#include "cri_names.h"
#include "event_json.h"
#include "journal.h"
#include "json_writer.h"
#include "linux_audit.h"
#include "record_spell.h"
#include "sample_event.h"

/* The sample event, decided by a cgroup rule and denied with E2BIG. */
static struct argguard_event sample(void)
{
	struct argguard_event e = sample_event();

	e.rule_id = 4242;
	e.cgroup_id = 4243;
	e.scope = ARGGUARD_SCOPE_CGROUP;
	e.ppid = 1;
	e.euid = 1000;
	e.err = 7;
	return e;
}

static const char *str(json_object *obj, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(obj, key, &v))
		return "(missing)";
	return v ? json_object_get_string(v) : "(null)";
}

/* The record's JSON line, parsed; NULL if it does not format or parse. */
static json_object *record_object(const struct record *r)
{
	char *line = record_to_json(r, NULL);
	json_object *obj = line ? json_tokener_parse(line) : NULL;

	free(line);
	return obj;
}

static void exec_record_carries_its_cgroup_paths(void)
{
	struct argguard_event e = sample();
	struct record r = { .kind = RECORD_EXEC,
			    .event = &e,
			    .cgroup = "/system.slice/ci.service/job",
			    .rule_cgroup = "/system.slice/ci.service" };
	json_object *obj = record_object(&r);

	CHECK(!strcmp(str(obj, "cgroup"), "/system.slice/ci.service/job"),
	      "cgroup is the caller's path: %s", str(obj, "cgroup"));
	CHECK(!strcmp(str(obj, "rule_cgroup"), "/system.slice/ci.service"),
	      "rule_cgroup is the rule's path: %s", str(obj, "rule_cgroup"));
	json_object_put(obj);
	r.cgroup = r.rule_cgroup = NULL;
	r.cgroup_err = r.rule_cgroup_err = -ENOENT;
	obj = record_object(&r);
	CHECK(!strcmp(str(obj, "cgroup"), "(null)") && !strcmp(str(obj, "rule_cgroup"), "(null)") &&
		      !strcmp(str(obj, "cgroup_error"), "ENOENT") &&
		      !strcmp(str(obj, "rule_cgroup_error"), "ENOENT"),
	      "cgroups that are gone are null, with _error ENOENT: %s, %s",
	      str(obj, "cgroup_error"), str(obj, "rule_cgroup_error"));
	json_object_put(obj);
	r.cgroup_err = -ENAMETOOLONG;
	obj = record_object(&r);
	CHECK(!strcmp(str(obj, "cgroup"), "(null)") &&
		      !strcmp(str(obj, "cgroup_error"), "ENAMETOOLONG"),
	      "a cgroup whose path could not be found is null, and cgroup_error says why: %s",
	      str(obj, "cgroup_error"));
	json_object_put(obj);
	r.cgroup = "/ci";
	obj = record_object(&r);
	CHECK(!strcmp(str(obj, "cgroup_error"), "(missing)"), "no cgroup_error with a path");
	json_object_put(obj);
	r.cgroup = NULL;
	e.scope = ARGGUARD_SCOPE_UID;
	obj = record_object(&r);
	CHECK(!strcmp(str(obj, "rule_cgroup"), "(missing)"),
	      "no rule_cgroup outside a cgroup rule");
	json_object_put(obj);
}

/* Whether line parses as strict JSON whose strings are all valid UTF-8. */
static bool is_utf8_json(const char *line)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *obj;
	bool ok;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	obj = json_tokener_parse_ex(tok, line, (int)strlen(line));
	ok = obj && json_tokener_get_error(tok) == json_tokener_success;
	json_object_put(obj);
	json_tokener_free(tok);
	return ok;
}

/* Every string a caller can choose, in bytes that are not UTF-8: the line still is. */
static void hostile_bytes_give_valid_utf8_json(void)
{
	static const char odd[] = "\xff\xc0\x80\xed\xa0\x80\"\\\n";
	struct argguard_event e = sample();
	char cgroup[64], rule_cgroup[64];
	struct record r = {
		.kind = RECORD_EXEC, .event = &e, .cgroup = cgroup, .rule_cgroup = rule_cgroup
	};
	json_object *obj;
	char *line;

	snprintf(e.comm, sizeof(e.comm), "%s", odd);
	snprintf(e.filename, sizeof(e.filename), "/tmp/%s", odd);
	snprintf(e.shebang, sizeof(e.shebang), "/bin/%s", odd);
	e.flags |= ARGGUARD_EV_SCRIPT;
	e.head_len = (uint32_t)snprintf(e.head, sizeof(e.head), "%s", odd) + 1;
	snprintf(cgroup, sizeof(cgroup), "/ci/%s", odd);
	snprintf(rule_cgroup, sizeof(rule_cgroup), "/%s", odd);
	line = record_to_json(&r, NULL);
	obj = line ? json_tokener_parse(line) : NULL;
	CHECK(line && is_utf8_json(line), "the record is valid UTF-8 JSON: %s",
	      line ? line : "(null)");
	for (const char *const *key = (const char *const[]){ "comm", "filename", "interpreter",
							     "cgroup", "rule_cgroup", NULL };
	     *key; key++) {
		char enc[64];

		snprintf(enc, sizeof(enc), "%s_encoding", *key);
		CHECK(!strcmp(str(obj, enc), "hex"), "%s is in hex: %s", *key, str(obj, *key));
	}
	CHECK(!strcmp(str(obj, "cgroup"), "2f63692fffc080eda080225c0a"), "the cgroup's bytes: %s",
	      str(obj, "cgroup"));
	free(line);
	json_object_put(obj);
}

/* The field NAME=... among journald's NUL-separated fields, or NULL. */
static const char *field(const char *fields, size_t len, const char *name)
{
	size_t n = strlen(name);

	for (size_t off = 0; off < len; off += strlen(fields + off) + 1)
		if (!strncmp(fields + off, name, n) && fields[off + n] == '=')
			return fields + off + n + 1;
	return NULL;
}

static void journal_entry_has_the_json_members(void)
{
	struct argguard_event e = sample();
	struct record r;
	struct record_losses n = { .suppressed = 2, .top_uids = { { .uid = 65534, .n = 2 } } };
	struct record summary = { .kind = RECORD_SUMMARY, .losses = n, .interval_ns = 1500000000 };
	struct json_writer w;
	const char *v;
	size_t len;
	char *f;

	snprintf(e.filename, sizeof(e.filename), "/tmp/a\"b\nc");
	e.head_len = (uint32_t)snprintf(e.head, sizeof(e.head), "/bin/true") + 1;
	r = (struct record){ .kind = RECORD_EXEC, .event = &e, .cgroup = "/ci/job" };
	f = journal_fields(&r, &len);
	CHECK(f != NULL, "the fields format");
	if (!f)
		return;
	CHECK((v = field(f, len, "ARGGUARD_FILENAME")) && !strcmp(v, "/tmp/a\"b\nc"),
	      "a string field holds the bytes as they are: %s", v ? v : "(missing)");
	CHECK((v = field(f, len, "ARGGUARD_ARGV_BYTES")) && !strcmp(v, "4194304"),
	      "a number is its digits: %s", v ? v : "(missing)");
	CHECK((v = field(f, len, "ARGGUARD_ARGV_HEAD")) && v[0] == '[' &&
		      strstr(v, "\"/bin/true\""),
	      "the head is a JSON array: %s", v ? v : "(missing)");
	CHECK((v = field(f, len, "ARGGUARD_CGROUP")) && !strcmp(v, "/ci/job"), "cgroup: %s",
	      v ? v : "(missing)");
	CHECK(!field(f, len, "ARGGUARD_RULE_CGROUP"), "a null member gives no field");
	CHECK(!field(f, len, "ARGGUARD_USERNS_OWNER"), "no userns_owner in the initial namespace");
	CHECK((v = field(f, len, "MESSAGE")) &&
		      !strcmp(v, "argguard: deny exec of /tmp/a\"b\nc (cgroup max_total_bytes, "
				 "limit 1048576)"),
	      "MESSAGE says argguard and what it decided: %s", v ? v : "(missing)");
	CHECK((v = field(f, len, "PRIORITY")) && !strcmp(v, "4"), "a denial is a warning: %s",
	      v ? v : "(missing)");
	free(f);

	e.flags |= ARGGUARD_EV_USERNS;
	e.userns_owner = 1000;
	f = journal_fields(&r, &len);
	CHECK(f && (v = field(f, len, "ARGGUARD_USERNS_OWNER")) && !strcmp(v, "1000"),
	      "userns_owner in a user namespace: %s", f && v ? v : "(missing)");
	free(f);

	record_to_fields(&summary, &w);
	f = json_writer_finish(&w, &len);
	CHECK(f && (v = field(f, len, "ARGGUARD_SUPPRESSED_BY_UID")) &&
		      !strcmp(v, "[{\"uid\":65534,\"suppressed\":2}]"),
	      "a summary's nested members are JSON: %s", f && v ? v : "(missing)");
	CHECK(f && (v = field(f, len, "ARGGUARD_INTERVAL_S")) && !strcmp(v, "1.500"),
	      "interval_s: %s", f && v ? v : "(missing)");
	free(f);
}

/* journald's native protocol: NAME=value lines, and a length-prefixed value where it has a newline. */
static void journal_datagram_frames_multi_line_values(void)
{
	static const char fields[] = "ARGGUARD_FILENAME=/tmp/a\nb\0ARGGUARD_PID=42\0EMPTY=\0";
	static const char want[] = "ARGGUARD_FILENAME\n\x08\0\0\0\0\0\0\0/tmp/a\nb\n"
				   "ARGGUARD_PID=42\nEMPTY=\n";
	struct journal_datagram *d = journal_datagram(fields);

	CHECK(d && d->len == sizeof(want) - 1 && !memcmp(d->bytes, want, d->len),
	      "the datagram frames each field: %zu bytes, %zu expected", d ? d->len : 0,
	      sizeof(want) - 1);
	free(d);
	CHECK(!journal_datagram("ARGGUARD_PID=42\0NO_VALUE\0"), "a field with no '=' is refused");
	CHECK(!journal_datagram("=42\0"), "a field with no name is refused");
}

static void message_names_verdict_file_rule_and_limit(void)
{
	struct argguard_event e = sample();
	struct record r = { .kind = RECORD_EXEC, .event = &e };
	char *message = record_message(&r);

	CHECK(message && !strcmp(message, "deny exec of /bin/true (cgroup max_total_bytes, "
					  "limit 1048576)"),
	      "the message: %s", message ? message : "(null)");
	free(message);
	strcpy(e.filename, "/tmp/\xff");
	message = record_message(&r);
	CHECK(message && strstr(message, " of 2f746d702fff "),
	      "a filename in hex as in the JSON: %s", message ? message : "(null)");
	free(message);
}

static void summary_message_gives_losses_by_reason(void)
{
	struct record r = {
		.kind = RECORD_SUMMARY,
		.losses = { .suppressed = 5, .ring_full = 2, .log_backlog = 1, .malformed = 1 },
		.interval_ns = 1500000000ULL
	};
	char *message = record_message(&r);

	CHECK(message && !strcmp(message,
				 "suppressed 5 events and lost 4 (ring buffer full 2, log "
				 "backlog full 1, malformed 1, held at exit 0) in the last 1.5 s"),
	      "the summary's message: %s", message ? message : "(null)");
	free(message);
	r.losses.top_uids[0] = (struct uid_suppressed){ .uid = 65534, .n = 4 };
	r.losses.top_uids[1] = (struct uid_suppressed){ .uid = 0, .n = 1 };
	message = record_message(&r);
	CHECK(message && strstr(message, "suppressed 5 events (uid:count 65534:4,0:1) and lost 4 "),
	      "the message names the uids that lost the most: %s", message ? message : "(null)");
	free(message);
}

/* The record's fields in its order, but the head of the command line last. */
static void audit_message_has_the_fields_in_order(void)
{
	struct argguard_event e = sample();
	struct record r = {
		.kind = RECORD_EXEC, .event = &e, .cgroup = "/ci/job", .rule_cgroup = "/ci"
	};
	char msg[8192];

	memcpy(e.head, "/bin/true", 10);
	e.head_len = 10;

	CHECK(linux_audit_message(&r, msg, sizeof(msg)) == 0 &&
		      !strcmp(msg,
			      "op=argguard-exec verdict=\"deny\" scope=\"cgroup\" rule_id=4242 "
			      "limit=\"max_total_bytes\" limit_value=1048576 errno=\"E2BIG\" "
			      "pid=42 ppid=1 uid=1000 euid=1000 gid=100 "
			      "cgroup_id=4243 comm=\"execsize\" filename=\"/bin/true\" "
			      "argc=33 envc=1 total_bytes=4194321 "
			      "argv_bytes=4194304 envp_bytes=17 orig_argc=33 "
			      "sizes=\"exact\" secureexec=false argv_head_bytes=10 "
			      "argv_head_truncated=true head_source=\"caller\" "
			      "cgroup=\"/ci/job\" "
			      "rule_cgroup=\"/ci\" argv_head=2F62696E2F7472756500"),
	      "the exec's audit message: %s", msg);
}

static void audit_message_leaves_out_what_is_unknown(void)
{
	struct argguard_event e = sample();
	struct record r = { .kind = RECORD_EXEC, .event = &e };
	char msg[8192];

	e.verdict = ARGGUARD_VERDICT_KERNEL_REFUSED;
	e.scope = ARGGUARD_SCOPE_KERNEL;
	e.flags = 0;
	e.argc = e.envc = e.orig_argc = -1;
	e.err = 0;
	r.cgroup_err = -ENOENT;
	CHECK(linux_audit_message(&r, msg, sizeof(msg)) == 0 && !strstr(msg, "rule_id=") &&
		      !strstr(msg, "errno=") && !strstr(msg, "argc=") && !strstr(msg, "envc=") &&
		      !strstr(msg, " total_bytes=") && !strstr(msg, " argv_bytes=") &&
		      !strstr(msg, " envp_bytes=") && !strstr(msg, "cgroup=") &&
		      !strstr(msg, "userns_owner=") && strstr(msg, " cgroup_error=\"ENOENT\""),
	      "no rule_id, errno, counts, sizes, cgroup or userns_owner, and why no cgroup: %s",
	      msg);
}

/* A subordinate uid's exec, in a namespace that owner made. */
static bool audit_message_of_subordinate_uid(uint32_t owner, char *msg, size_t len)
{
	struct argguard_event e = sample();
	struct record r = { .kind = RECORD_EXEC, .event = &e };

	e.uid = e.euid = 100005;
	e.flags |= ARGGUARD_EV_USERNS;
	e.userns_owner = owner;
	return linux_audit_message(&r, msg, len) == 0;
}

static void audit_message_names_the_user_namespace_owner(void)
{
	char msg[8192];

	CHECK(audit_message_of_subordinate_uid(1000, msg, sizeof(msg)) &&
		      strstr(msg, " uid=100005 euid=100005 gid=100 userns_owner=1000 "),
	      "userns_owner follows the ids: %s", msg);
	CHECK(audit_message_of_subordinate_uid(0, msg, sizeof(msg)) &&
		      strstr(msg, " userns_owner=0 "),
	      "a namespace root made: %s", msg);
}

/* The message for e, with cgroup, in msg; "(failed)" if there is none. */
static const char *audit_message(struct argguard_event *e, const char *cgroup, char *msg,
				 size_t size)
{
	struct record r = { .kind = RECORD_EXEC, .event = e, .cgroup = cgroup };

	if (linux_audit_message(&r, msg, size))
		strcpy(msg, "(failed)");
	return msg;
}

/*
 * As the kernel writes an untrusted string: quoted as it is, or, where a
 * byte needs it, as bare hex. A name made of hex digits keeps its quotes,
 * so it never reads as the bytes those digits spell.
 */
static void audit_message_tells_hex_from_a_name_of_hex_digits(void)
{
	struct argguard_event e = sample();
	char msg[8192], other[8192];

	strcpy(e.comm, "a b");
	strcpy(e.filename, "/tmp/a\xff");
	audit_message(&e, "/ci/\xc3\xa9", msg, sizeof(msg));
	CHECK(strstr(msg, " comm=612062 ") && strstr(msg, " filename=2F746D702F61FF ") &&
		      strstr(msg, " cgroup=2F63692FC3A9"),
	      "a blank, a byte past 0x7e: the value in bare hex: %s", msg);
	strcpy(e.filename, "2F746D702F61FF");
	audit_message(&e, "/ci/\xc3\xa9", other, sizeof(other));
	CHECK(strstr(other, " filename=\"2F746D702F61FF\" ") && strcmp(msg, other),
	      "the name 2F746D702F61FF, quoted: another message than /tmp/a\\xff's: %s", other);
	strcpy(e.filename, "2f746d702f61ff");
	audit_message(&e, "/ci/\xc3\xa9", other, sizeof(other));
	CHECK(strstr(other, " filename=\"2f746d702f61ff\" ") && strcmp(msg, other),
	      "the name 2f746d702f61ff, quoted: another message than /tmp/a\\xff's: %s", other);
	strcpy(e.filename, "/tmp/\"a\"");
	audit_message(&e, NULL, msg, sizeof(msg));
	CHECK(strstr(msg, " filename=2F746D702F226122 "), "a quote: the value in hex: %s", msg);
}

/*
 * ausearch finds a user message's fields by the first "uid=", "exe=",
 * "res=" or "comm=" past the kernel's own (ausearch-parse.c, parse_user()):
 * names the caller chose may not hold one. The offender's uid is the first
 * uid= of the message, bare.
 */
static void audit_message_holds_no_field_a_caller_named(void)
{
	struct argguard_event e = sample();
	char msg[8192];
	const char *uid;

	strcpy(e.comm, " pid=1 uid=0");
	strcpy(e.filename, "/tmp/res=ok;exe=/bin/su");
	audit_message(&e, "/ci/uid=0", msg, sizeof(msg));
	uid = strstr(msg, "uid=");
	CHECK(strstr(msg, " comm=207069643D31207569643D30 ") &&
		      strstr(msg, " filename=2F746D702F7265733D6F6B3B6578653D2F62696E2F7375 ") &&
		      strstr(msg, " cgroup=2F63692F7569643D30") && !strstr(msg, "res=") &&
		      !strstr(msg, "exe=") && strstr(msg, " pid=") == strstr(msg, " pid=42 ") &&
		      uid && uid == strstr(msg, " uid=1000 ") + 1,
	      "a name with an '=': in hex; the first pid= and uid= the offender's: %s", msg);
}

/* A field that does not fit is left out, and the message says which. */
static void audit_message_names_the_fields_it_leaves_out(void)
{
	struct argguard_event e = sample();
	char *cgroup = malloc(10001), msg[8192];
	size_t len;

	if (!cgroup) {
		CHECK(0, "allocated a cgroup path");
		return;
	}
	cgroup[0] = '/';
	memset(cgroup + 1, 'a', 9999);
	cgroup[10000] = '\0';
	audit_message(&e, cgroup, msg, sizeof(msg));
	len = strlen(msg);
	CHECK(len < sizeof(msg) && strstr(msg, " filename=\"/bin/true\" ") &&
		      !strstr(msg, "cgroup=") && len > 17 &&
		      !strcmp(msg + len - 17, " omitted=\"cgroup\""),
	      "a 10000-byte cgroup path in 8192 bytes: left out, and named last: ...%s",
	      len > 80 ? msg + len - 80 : msg);
	cgroup[7000] = '\0';
	audit_message(&e, cgroup, msg, sizeof(msg));
	CHECK(strstr(msg, " cgroup=\"/aaa") && !strstr(msg, "omitted="),
	      "a 7000-byte one fits, and nothing is named left out");
	audit_message(&e, "/ci", msg, LINUX_AUDIT_MESSAGE_MIN);
	len = strlen(msg);
	CHECK(len < LINUX_AUDIT_MESSAGE_MIN && strstr(msg, "omitted=\"") &&
		      !strcmp(msg + len - 4, "...\""),
	      "in %d bytes, as many named as fit, then \"...\": %s", LINUX_AUDIT_MESSAGE_MIN, msg);
	CHECK(!strcmp(audit_message(&e, "/ci", msg, LINUX_AUDIT_MESSAGE_MIN - 1), "(failed)"),
	      "less room than LINUX_AUDIT_MESSAGE_MIN is refused");
	free(cgroup);
}

/*
 * The head of the command line goes last: a message short of room for both
 * it and a long cgroup path keeps the path, and leaves out only the head.
 */
static void audit_message_leaves_out_the_head_first(void)
{
	struct argguard_event e = sample();
	struct record r = { .kind = RECORD_EXEC, .event = &e };
	char cgroup[7001], msg[8192];
	size_t len;

	memset(e.head, 'x', ARGGUARD_HEAD_MAX);
	e.head[9] = '\0'; /* two arguments: in hex, twice as long */
	e.head_len = ARGGUARD_HEAD_MAX;
	memset(cgroup, 'a', sizeof(cgroup) - 1);
	cgroup[0] = '/';
	cgroup[sizeof(cgroup) - 1] = '\0';
	r.cgroup = cgroup;
	CHECK(linux_audit_message(&r, msg, sizeof(msg)) == 0 && strstr(msg, " cgroup=\"/aaa") &&
		      !strstr(msg, "argv_head=") && (len = strlen(msg)) > 20 &&
		      !strcmp(msg + len - 20, " omitted=\"argv_head\""),
	      "a 7000-byte cgroup path and a full head in 8192 bytes: the head left out: ...%s",
	      msg + strlen(msg) - 60);
	cgroup[1000] = '\0';
	CHECK(linux_audit_message(&r, msg, sizeof(msg)) == 0 && strstr(msg, " argv_head=7878") &&
		      strstr(msg, " cgroup=\"/aaa") && !strstr(msg, "omitted="),
	      "with a 1000-byte path both fit");
}

static void audit_summary_says_what_was_lost(void)
{
	struct record r = { .kind = RECORD_SUMMARY,
			    .losses = { .suppressed = 5,
					.ring_full = 2,
					.log_backlog = 1,
					.top_uids = { { .uid = 1000, .n = 5 } } } };
	char msg[8192];

	CHECK(linux_audit_message(&r, msg, sizeof(msg)) == 0 &&
		      !strcmp(msg, "op=argguard-summary verdict=\"summary\" suppressed=5 "
				   "suppressed_by_uid=\"1000:5\" lost=3 lost_ring_full=2 "
				   "lost_log_backlog=1 lost_malformed=0 "
				   "lost_held_at_exit=0 interval_s=0.000"),
	      "the summary's audit message: %s", msg);
}

/* Twenty cgroup directories under a temporary root: more than the cache holds. */
static void cache_keeps_both_paths_of_a_record(void)
{
	char root[] = "/tmp/argguard-cgroups.XXXXXX", dir[PATH_MAX];
	struct cgroup_cache cache = { .root = root };
	uint64_t ids[20];
	const char *first, *second;
	struct stat st;
	bool kept = true;
	int err;

	if (!mkdtemp(root)) {
		CHECK(0, "made a temporary directory");
		return;
	}
	for (int i = 0; i < 20; i++) {
		snprintf(dir, sizeof(dir), "%s/cg%d", root, i);
		mkdir(dir, 0700);
		stat(dir, &st);
		ids[i] = st.st_ino;
	}
	/* Every pair, each lookup a hit or a miss: the first path stays whole. */
	for (int i = 0; i < 20; i++) {
		for (int j = 0; j < 20; j++) {
			char want[16];

			first = cgroup_cache_path(&cache, ids[i], &err);
			second = cgroup_cache_path(&cache, ids[j], &err);
			snprintf(want, sizeof(want), "/cg%d", i);
			kept = kept && first && second && !strcmp(first, want);
		}
	}
	CHECK(kept, "a path stays valid through the next lookup");
	CHECK(cgroup_cache_path(&cache, 1, &err) == NULL && err == -ENOENT,
	      "an id no cgroup has is NULL, and ENOENT");
	cgroup_cache_free(&cache);
	for (int i = 0; i < 20; i++) {
		snprintf(dir, sizeof(dir), "%s/cg%d", root, i);
		rmdir(dir);
	}
	rmdir(root);
}

/*
 * A cgroup deep in a delegated subtree: 20 levels of 250-byte names, a
 * path past PATH_MAX, which readlink() of /proc/self/fd cannot give.
 * Walked up from its directory, or down from the root, its path comes
 * whole.
 */
static void deep_directory_path_is_found_whole(void)
{
	enum { LEVELS = 20 };
	char root[] = "/tmp/argguard-deep.XXXXXX", name[251], want[LEVELS * 251 + 1] = "", *path;
	int fds[LEVELS + 1], made = 0, err;
	struct stat st;

	if (!mkdtemp(root)) {
		CHECK(0, "made a temporary directory");
		return;
	}
	for (int i = 0; i <= LEVELS; i++)
		fds[i] = -1;
	fds[0] = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (; made < LEVELS && fds[made] >= 0; made++) {
		memset(name, 'a' + made, 250);
		name[250] = '\0';
		strcat(strcat(want, "/"), name);
		fds[made + 1] =
			mkdirat(fds[made], name, 0700)
				? -1
				: openat(fds[made], name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	CHECK(fds[LEVELS] >= 0 && strlen(want) > PATH_MAX,
	      "made a directory %zu bytes below the root", strlen(want));
	path = dir_path_below(fds[0], fds[LEVELS], &err);
	CHECK(path && !strcmp(path, want), "its path, walked up: %zu bytes, %s",
	      path ? strlen(path) : 0, path && !strcmp(path, want) ? "whole" : "not the path");
	free(path);
	path = dir_path_below(fds[0], fds[0], &err);
	CHECK(path && !strcmp(path, "/"), "the root's own path is /: %s", path ? path : "(null)");
	free(path);
	path = dir_path_below(fds[LEVELS], fds[0], &err);
	CHECK(!path && err == -EXDEV, "a directory not below the root: EXDEV, not %d", err);
	free(path);
	fstat(fds[LEVELS], &st);
	path = cgroup_path(root, st.st_ino, &err);
	CHECK(path && !strcmp(path, want), "found by a walk down the tree: %zu bytes, %s",
	      path ? strlen(path) : 0, path && !strcmp(path, want) ? "whole" : "not the path");
	free(path);
	for (; made > 0; made--) {
		memset(name, 'a' + made - 1, 250);
		close(fds[made]);
		unlinkat(fds[made - 1], name, AT_REMOVEDIR);
	}
	close(fds[0]);
	rmdir(root);
}

/*
 * The JSON log's envelope stays out of journald and the audit log: their
 * own _HOSTNAME, _BOOT_ID and sequence numbers are trusted, and a copy of
 * ours among ARGGUARD_* fields would look as trusted and not be.
 */
static void envelope_is_the_logs_alone(void)
{
	struct argguard_event e = sample();
	struct record_envelope env = { "envelope-host", "0f6d3c5e-8b1a-4c2d-9e7f-3a5b6c7d8e9f",
				       987654 };
	struct record r = { .kind = RECORD_EXEC, .event = &e, .cgroup = "/ci", .envelope = &env };
	char msg[8192], *f, *json = record_to_json(&r, NULL);
	size_t len;

	CHECK(json && strstr(json, "\"seq\":987654") &&
		      strstr(json, "\"host\":\"envelope-host\"") && strstr(json, "\"schema\":1,"),
	      "the log's line has the envelope: %s", json ? json : "(null)");
	free(json);
	f = journal_fields(&r, &len);
	CHECK(f && !field(f, len, "ARGGUARD_SEQ") && !field(f, len, "ARGGUARD_HOST") &&
		      !field(f, len, "ARGGUARD_BOOT_ID") && !field(f, len, "ARGGUARD_SCHEMA"),
	      "the journal entry has none of it");
	free(f);
	CHECK(linux_audit_message(&r, msg, sizeof(msg)) == 0 && !strstr(msg, "987654") &&
		      !strstr(msg, "envelope-host") && !strstr(msg, "schema="),
	      "the audit message has none of it: %s", msg);
}

/*
 * A CRI container's names: members of container, null when unknown; bytes
 * that are not UTF-8 in hex, as every caller-chosen string; flat in the
 * journal, and none there when unknown.
 */
static void container_names_are_the_bundles(void)
{
	static const struct cri_names names = { "web-7d4f9", "shop", NULL, "app:\xff" };
	struct argguard_event e = sample();
	struct record r = {
		.kind = RECORD_EXEC,
		.event = &e,
		.cgroup = "/kubepods/pod2c9a6b1e-7f3d-4a5b-9c8d-1e2f3a4b5c6d/"
			  "4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a",
		.names = &names
	};
	json_object *obj = record_object(&r), *c = NULL;
	const char *v;
	size_t len;
	char *f;

	CHECK(obj && json_object_object_get_ex(obj, "container", &c) && c &&
		      !strcmp(str(c, "runtime"), "cri") && !strcmp(str(c, "pod"), "web-7d4f9") &&
		      !strcmp(str(c, "namespace"), "shop") && !strcmp(str(c, "name"), "(null)") &&
		      !strcmp(str(c, "image"), "6170703aff") &&
		      !strcmp(str(c, "image_encoding"), "hex"),
	      "container: pod %s, namespace %s, name %s, image %s (%s)", str(c, "pod"),
	      str(c, "namespace"), str(c, "name"), str(c, "image"), str(c, "image_encoding"));
	json_object_put(obj);
	f = journal_fields(&r, &len);
	CHECK(f && (v = field(f, len, "ARGGUARD_CONTAINER_POD")) && !strcmp(v, "web-7d4f9"),
	      "the journal's ARGGUARD_CONTAINER_POD: %s", f && v ? v : "(missing)");
	CHECK(f && (v = field(f, len, "ARGGUARD_CONTAINER_NAMESPACE")) && !strcmp(v, "shop"),
	      "the journal's ARGGUARD_CONTAINER_NAMESPACE: %s", f && v ? v : "(missing)");
	CHECK(f && !field(f, len, "ARGGUARD_CONTAINER_NAME"), "no ARGGUARD_CONTAINER_NAME unknown");
	free(f);
	r.names = NULL;
	obj = record_object(&r);
	CHECK(obj && json_object_object_get_ex(obj, "container", &c) && c &&
		      !strcmp(str(c, "pod"), "(null)") && !strcmp(str(c, "image"), "(null)"),
	      "no bundle: the names are null (%s, %s)", str(c, "pod"), str(c, "image"));
	json_object_put(obj);
}

int main(void)
{
	exec_record_carries_its_cgroup_paths();
	hostile_bytes_give_valid_utf8_json();
	journal_entry_has_the_json_members();
	journal_datagram_frames_multi_line_values();
	message_names_verdict_file_rule_and_limit();
	summary_message_gives_losses_by_reason();
	audit_message_has_the_fields_in_order();
	audit_message_leaves_out_what_is_unknown();
	audit_message_names_the_user_namespace_owner();
	audit_message_tells_hex_from_a_name_of_hex_digits();
	audit_message_holds_no_field_a_caller_named();
	audit_message_names_the_fields_it_leaves_out();
	audit_message_leaves_out_the_head_first();
	audit_summary_says_what_was_lost();
	cache_keeps_both_paths_of_a_record();
	deep_directory_path_is_found_whole();
	envelope_is_the_logs_alone();
	container_names_are_the_bundles();
	return check_done();
}
