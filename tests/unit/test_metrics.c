// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <json-c/json.h>

#include "check.h"
#include "log.h"
#include "metrics.h"

/* What metrics_print() writes, as a string to free(). */
static char *print(enum metrics_format format, const struct argguard_metrics *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (metrics_print(out, format, m))
		fputs("<error>", out);
	fclose(out);
	return buf;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

/* A machine seen by status: mode enforce, some decisions and drops, an apply. */
static void example(struct argguard_metrics *m)
{
	*m = (struct argguard_metrics){ .mode = ARGGUARD_MODE_ENFORCE,
					.attached = { true, true },
					.policy_state = ARGGUARD_POLICY_APPLIED };
	m->decisions[ARGGUARD_COUNTER(ARGGUARD_SCOPE_GLOBAL, ARGGUARD_VERDICT_ALLOW)] = 1234;
	m->decisions[ARGGUARD_COUNTER(ARGGUARD_SCOPE_GLOBAL, ARGGUARD_VERDICT_DENY)] = 7;
	m->decisions[ARGGUARD_COUNTER(ARGGUARD_SCOPE_KERNEL, ARGGUARD_VERDICT_KERNEL_REFUSED)] =
		UINT64_MAX;
	m->dropped[ARGGUARD_DROP_RING_FULL] = 3;
	apply_status_parse("last apply: 2026-12-03T10:00:00Z: applied /etc/argguard/argguard.conf\n"
			   "success=1\ntimestamp=1796292000\n",
			   &m->last_apply);
}

static void format_names_parse(void)
{
	CHECK(metrics_format_parse("text") == METRICS_TEXT, "text");
	CHECK(metrics_format_parse("json") == METRICS_JSON, "json");
	CHECK(metrics_format_parse("prometheus") == METRICS_PROMETHEUS, "prometheus");
	CHECK(metrics_format_parse("Prometheus") < 0 && metrics_format_parse("") < 0 &&
		      metrics_format_parse("yaml") < 0,
	      "any other format is refused");
}

static void text_is_the_status_of_old(void)
{
	static const char head[] =
		"mode: enforce\n"
		"last apply: 2026-12-03T10:00:00Z: applied /etc/argguard/argguard.conf\n"
		"attached: bprm_check_security bprm_creds_from_file\n"
		"policy_state: applied\n"
		"global.allow: 1234\n"
		"global.audit: 0\n"
		"global.would-deny: 0\n"
		"global.deny: 7\n"
		"global.kernel-refused: 0\n"
		"uid.allow: 0\n";
	struct argguard_metrics m;
	char *text;

	example(&m);
	text = print(METRICS_TEXT, &m);
	CHECK(!strncmp(text, head, strlen(head)),
	      "text starts with the mode, the human apply line, the hooks and the counters");
	CHECK(has_line(text, "kernel.kernel-refused: 18446744073709551615"),
	      "a counter prints whole, up to 2^64 - 1");
	CHECK(has_line(text, "records_dropped.rate_limited: 0") &&
		      has_line(text, "records_dropped.ring_full: 3"),
	      "drops by reason");
	CHECK(!strstr(text, "success=") && !strstr(text, "timestamp="),
	      "the status file's machine fields stay out of the text");
	free(text);
}

static void text_without_an_apply_has_no_apply_line(void)
{
	static const char head[] = "mode: enforce\n"
				   "attached: bprm_check_security bprm_creds_from_file\n"
				   "policy_state: applied\n"
				   "global.allow: 0\n";
	struct argguard_metrics m = { .mode = 7,
				      .attached = { true, true },
				      .policy_state = ARGGUARD_POLICY_APPLIED };
	char *text;

	apply_status_parse("", &m.last_apply);
	text = print(METRICS_TEXT, &m);
	CHECK(!strncmp(text, head, strlen(head)),
	      "a mode above enforce reads as enforce, and no apply line");
	free(text);
}

/* A hook's link pin removed: the mode still reads enforce, so the hooks say what is not. */
static void unattached_hooks_are_named(void)
{
	struct argguard_metrics m;
	json_object *obj, *v;
	char *text;

	example(&m);
	m.attached[METRICS_HOOK_BPRM_CREDS] = false;
	text = print(METRICS_TEXT, &m);
	CHECK(strstr(text, "\nattached: bprm_check_security: NOT bprm_creds_from_file, so the "
			   "[setuid] rule is not enforced"),
	      "the missing hook, and what it leaves unjudged: %s", text);
	free(text);
	m.attached[METRICS_HOOK_BPRM_CHECK] = false;
	text = print(METRICS_TEXT, &m);
	CHECK(strstr(text, "\nattached: NONE: NO exec is judged, whatever the mode"),
	      "no hook at all: %s", text);
	free(text);
	text = print(METRICS_JSON, &m);
	obj = json_tokener_parse(text);
	CHECK(obj && json_object_object_get_ex(obj, "attached", &v) &&
		      json_object_object_get_ex(v, "bprm_check_security", &v) &&
		      json_object_is_type(v, json_type_boolean) && !json_object_get_boolean(v),
	      "JSON: attached.bprm_check_security is false: %s", text);
	json_object_put(obj);
	free(text);
	m.attached[METRICS_HOOK_BPRM_CREDS] = true;
	text = print(METRICS_PROMETHEUS, &m);
	CHECK(has_line(text, "# TYPE argguard_hook_attached gauge") &&
		      has_line(text, "argguard_hook_attached{hook=\"bprm_check_security\"} 0") &&
		      has_line(text, "argguard_hook_attached{hook=\"bprm_creds_from_file\"} 1"),
	      "Prometheus: a gauge for each hook: %s", text);
	free(text);
}

/* A start that died before its apply: the maps hold the interim policy, and status says so. */
static void an_unfinished_start_is_named(void)
{
	struct argguard_metrics m;
	json_object *obj, *v;
	char *text;

	example(&m);
	m.policy_state = ARGGUARD_POLICY_INTERIM;
	text = print(METRICS_TEXT, &m);
	CHECK(strstr(text, "\npolicy_state: interim (the start that made the maps died before it "
			   "applied the policy file; in force is the last policy that applied, or "
			   "the built-in default): systemctl restart argguard\n"),
	      "text: the interim state, what is in force and what to do: %s", text);
	free(text);
	text = print(METRICS_JSON, &m);
	obj = json_tokener_parse(text);
	CHECK(obj && json_object_object_get_ex(obj, "policy_state", &v) &&
		      !strcmp(json_object_get_string(v), "interim"),
	      "JSON: policy_state is interim: %s", text);
	json_object_put(obj);
	free(text);
	m.policy_state = ARGGUARD_POLICY_UNSET;
	text = print(METRICS_PROMETHEUS, &m);
	CHECK(has_line(text, "# TYPE argguard_policy_state gauge") &&
		      has_line(text, "argguard_policy_state{state=\"unset\"} 1") &&
		      has_line(text, "argguard_policy_state{state=\"interim\"} 0") &&
		      has_line(text, "argguard_policy_state{state=\"applied\"} 0"),
	      "Prometheus: one gauge a state, 1 for the live one: %s", text);
	free(text);
}

/* The live policy beside the file: a line, an object and a gauge, or nothing when not compared. */
static void policy_file_drift_in_every_format(void)
{
	struct argguard_metrics m;
	json_object *obj, *v, *f;
	char *text;

	example(&m);
	text = print(METRICS_TEXT, &m);
	CHECK(!strstr(text, "policy_file"), "not compared: no policy_file line");
	free(text);
	text = print(METRICS_PROMETHEUS, &m);
	CHECK(!strstr(text, "argguard_policy_drift"), "not compared: no drift gauge");
	free(text);
	text = print(METRICS_JSON, &m);
	obj = json_tokener_parse(text);
	CHECK(obj && json_object_object_get_ex(obj, "policy_file", &v) && !v,
	      "not compared: policy_file is null: %s", text);
	json_object_put(obj);
	free(text);

	m.policy_file = (struct policy_file_check){ .state = POLICY_FILE_MATCHES,
						    .path = "/etc/argguard/argguard.conf" };
	text = print(METRICS_TEXT, &m);
	CHECK(strstr(text, "\npolicy_state: applied\npolicy_file: matches "
			   "/etc/argguard/argguard.conf\nglobal.allow: "),
	      "text: matches, after the policy state: %s", text);
	free(text);
	text = print(METRICS_PROMETHEUS, &m);
	CHECK(has_line(text, "# TYPE argguard_policy_drift gauge") &&
		      has_line(text, "argguard_policy_drift 0"),
	      "Prometheus: drift 0: %s", text);
	free(text);
	text = print(METRICS_JSON, &m);
	obj = json_tokener_parse(text);
	CHECK(obj && json_object_object_get_ex(obj, "policy_file", &f) &&
		      json_object_object_get_ex(f, "path", &v) &&
		      !strcmp(json_object_get_string(v), "/etc/argguard/argguard.conf") &&
		      json_object_object_get_ex(f, "matches", &v) &&
		      json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v) &&
		      json_object_object_get_ex(f, "error", &v) && !v,
	      "JSON: policy_file {path, matches: true, error: null}: %s", text);
	json_object_put(obj);
	free(text);

	m.policy_file.state = POLICY_FILE_DIFFERS;
	text = print(METRICS_TEXT, &m);
	CHECK(strstr(text, "\npolicy_file: DIFFERS from /etc/argguard/argguard.conf: argguard "
			   "policy show --diff (systemctl reload argguard applies the file)\n"),
	      "text: DIFFERS, and the command that shows how: %s", text);
	free(text);
	m.policy_file.path = "/srv/site.conf";
	text = print(METRICS_TEXT, &m);
	CHECK(strstr(text, "\npolicy_file: DIFFERS from /srv/site.conf: argguard policy show "
			   "--diff /srv/site.conf "),
	      "another file: the command names it: %s", text);
	free(text);
	text = print(METRICS_PROMETHEUS, &m);
	CHECK(has_line(text, "argguard_policy_drift 1"), "Prometheus: drift 1: %s", text);
	free(text);
	text = print(METRICS_JSON, &m);
	obj = json_tokener_parse(text);
	CHECK(obj && json_object_object_get_ex(obj, "policy_file", &f) &&
		      json_object_object_get_ex(f, "matches", &v) &&
		      json_object_is_type(v, json_type_boolean) && !json_object_get_boolean(v),
	      "JSON: matches false: %s", text);
	json_object_put(obj);
	free(text);

	m.policy_file.state = POLICY_FILE_INVALID;
	snprintf(m.policy_file.error, sizeof(m.policy_file.error),
		 "/srv/site.conf:3: max_total_bytes = lots: expected a byte count");
	text = print(METRICS_TEXT, &m);
	CHECK(strstr(text, "\npolicy_file: INVALID: /srv/site.conf:3: max_total_bytes = lots: "
			   "expected a byte count; the live policy stays as it is"),
	      "text: INVALID, naming FILE:LINE: %s", text);
	free(text);
	text = print(METRICS_PROMETHEUS, &m);
	CHECK(has_line(text, "argguard_policy_drift 1"),
	      "Prometheus: a file with an error is drift");
	free(text);
	text = print(METRICS_JSON, &m);
	obj = json_tokener_parse(text);
	CHECK(obj && json_object_object_get_ex(obj, "policy_file", &f) &&
		      json_object_object_get_ex(f, "error", &v) &&
		      !strcmp(json_object_get_string(v),
			      "/srv/site.conf:3: max_total_bytes = lots: expected a byte count") &&
		      !json_object_get_boolean(json_object_object_get(f, "matches")),
	      "JSON: the error, and matches false: %s", text);
	json_object_put(obj);
	free(text);
}

static json_object *parse_json(const char *text)
{
	return json_tokener_parse(text);
}

static uint64_t json_u64(json_object *obj, const char *a, const char *b, const char *c)
{
	json_object *o = obj;

	if (!json_object_object_get_ex(o, a, &o) || !json_object_object_get_ex(o, b, &o) ||
	    (c && !json_object_object_get_ex(o, c, &o)))
		return 42;
	return json_object_get_uint64(o);
}

static void json_is_one_object_with_everything(void)
{
	struct argguard_metrics m;
	json_object *obj, *v;
	char *text;

	example(&m);
	text = print(METRICS_JSON, &m);
	obj = parse_json(text);
	CHECK(obj && json_object_is_type(obj, json_type_object), "JSON parses to an object: %s",
	      text);
	CHECK(strchr(text, '\n') == text + strlen(text) - 1, "one line, ended by a newline");
	CHECK(json_object_object_get_ex(obj, "mode", &v) &&
		      !strcmp(json_object_get_string(v), "enforce"),
	      "mode");
	CHECK(json_u64(obj, "decisions", "global", "deny") == 7, "decisions.global.deny");
	CHECK(json_u64(obj, "decisions", "global", "allow") == 1234, "decisions.global.allow");
	CHECK(json_u64(obj, "decisions", "kernel", "kernel-refused") == UINT64_MAX,
	      "decisions.kernel.kernel-refused keeps all 64 bits");
	CHECK(json_u64(obj, "decisions", "cgroup", "would-deny") == 0, "zero counters are there");
	CHECK(json_object_object_length(json_object_object_get(obj, "decisions")) ==
		      ARGGUARD_NR_SCOPES,
	      "every scope");
	CHECK(json_u64(obj, "records_dropped", "ring_full", NULL) == 3 &&
		      json_u64(obj, "records_dropped", "rate_limited", NULL) == 0,
	      "records_dropped by reason");
	CHECK(json_object_object_get_ex(obj, "last_apply", &v) &&
		      json_object_get_boolean(json_object_object_get(v, "success")) &&
		      json_object_get_int64(json_object_object_get(v, "timestamp")) == 1796292000 &&
		      !strcmp(json_object_get_string(json_object_object_get(v, "message")),
			      "applied /etc/argguard/argguard.conf"),
	      "last_apply: success, timestamp, message");
	CHECK(!strstr(text, "\\/"), "slashes are not escaped");
	json_object_put(obj);
	free(text);

	apply_status_parse("", &m.last_apply);
	text = print(METRICS_JSON, &m);
	obj = parse_json(text);
	CHECK(obj && json_object_object_get_ex(obj, "last_apply", &v) && !v,
	      "last_apply is null before any apply: %s", text);
	json_object_put(obj);
	free(text);
}

/* [a-zA-Z_:], and digits after the first. */
static bool name_char(char c, bool first)
{
	return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first && c >= '0' && c <= '9');
}

/*
 * Each line is a comment, or NAME{LABELS} VALUE with a name in
 * [a-zA-Z_:][a-zA-Z0-9_:]*, every label quoted, and a number.
 */
static bool exposition_lines_are_valid(const char *text, char *bad, size_t bad_len)
{
	const char *p = text;

	while (*p) {
		size_t len = strcspn(p, "\n");
		const char *q = p, *end = p + len;

		if (*p != '#') {
			if (!name_char(*q, true))
				goto bad;
			while (q < end && name_char(*q, false))
				q++;
			if (q < end && *q == '{') {
				q = memchr(q, '}', (size_t)(end - q));
				if (!q)
					goto bad;
				q++;
			}
			if (q >= end || *q != ' ' ||
			    strspn(q + 1, "0123456789") != (size_t)(end - q - 1))
				goto bad;
		}
		if (!p[len])
			return false; /* the last line has no newline */
		p += len + 1;
		continue;
bad:
		snprintf(bad, bad_len, "%.*s", (int)len, p);
		return false;
	}
	return true;
}

static void prometheus_exposition(void)
{
	struct argguard_metrics m;
	char *text, bad[256] = "";

	example(&m);
	text = print(METRICS_PROMETHEUS, &m);
	CHECK(exposition_lines_are_valid(text, bad, sizeof(bad)), "every line is well formed: '%s'",
	      bad);
	CHECK(has_line(text, "# TYPE argguard_decisions_total counter") &&
		      strstr(text, "# HELP argguard_decisions_total "),
	      "decisions: a counter with help");
	CHECK(has_line(text, "argguard_decisions_total{scope=\"global\",verdict=\"deny\"} 7"),
	      "decisions by scope and verdict");
	CHECK(has_line(text,
		       "argguard_decisions_total{scope=\"kernel\",verdict=\"kernel-refused\"} "
		       "18446744073709551615"),
	      "a counter prints whole");
	CHECK(has_line(text, "argguard_decisions_total{scope=\"uid\",verdict=\"allow\"} 0"),
	      "zero counters are there, so rate() has a start");
	CHECK(has_line(text, "# TYPE argguard_records_dropped_total counter") &&
		      has_line(text, "argguard_records_dropped_total{reason=\"ring_full\"} 3") &&
		      has_line(text, "argguard_records_dropped_total{reason=\"rate_limited\"} 0"),
	      "drops by reason");
	CHECK(has_line(text, "# TYPE argguard_policy_mode gauge") &&
		      has_line(text, "argguard_policy_mode{mode=\"enforce\"} 1") &&
		      has_line(text, "argguard_policy_mode{mode=\"audit\"} 0") &&
		      has_line(text, "argguard_policy_mode{mode=\"off\"} 0"),
	      "mode: 1 for the live one, 0 for the others");
	CHECK(has_line(text, "# TYPE argguard_last_apply_success gauge") &&
		      has_line(text, "argguard_last_apply_success 1"),
	      "the last apply succeeded");
	CHECK(has_line(text, "# TYPE argguard_last_apply_timestamp_seconds gauge") &&
		      has_line(text, "argguard_last_apply_timestamp_seconds 1796292000"),
	      "and when");
	free(text);

	m.mode = ARGGUARD_MODE_AUDIT;
	apply_status_parse("last apply: 2026-12-03T10:00:00Z: /x not applied: /x:4: bad\n"
			   "success=0\ntimestamp=1796292001\n",
			   &m.last_apply);
	text = print(METRICS_PROMETHEUS, &m);
	CHECK(has_line(text, "argguard_policy_mode{mode=\"audit\"} 1") &&
		      has_line(text, "argguard_policy_mode{mode=\"enforce\"} 0"),
	      "audit mode");
	CHECK(has_line(text, "argguard_last_apply_success 0"), "a failed apply");
	free(text);

	apply_status_parse("", &m.last_apply);
	text = print(METRICS_PROMETHEUS, &m);
	CHECK(!strstr(text, "argguard_last_apply"), "no apply this boot: no apply gauges");
	CHECK(exposition_lines_are_valid(text, bad, sizeof(bad)), "still well formed: '%s'", bad);
	free(text);
}

/*
 * Only the daemon's textfile says which build wrote it and what each sink
 * lost: status, which knows neither, leaves both families out.
 */
static void build_info_and_sink_losses(void)
{
	struct argguard_metrics m;
	char *text, bad[256] = "";

	example(&m);
	text = print(METRICS_PROMETHEUS, &m);
	CHECK(!strstr(text, "argguard_build_info") && !strstr(text, "argguard_records_lost_total"),
	      "no version, no sinks: neither family");
	free(text);

	m.version = "1.2.3";
	m.build_id = 0x00c0ffee12345678ULL;
	m.n_sinks = 3;
	m.sinks[0] = (struct metrics_sink_loss){ .sink = "log", .lost = 0 };
	m.sinks[1] = (struct metrics_sink_loss){ .sink = "journald", .lost = 4 };
	m.sinks[2] = (struct metrics_sink_loss){ .sink = "audit", .lost = UINT64_MAX };
	text = print(METRICS_PROMETHEUS, &m);
	CHECK(exposition_lines_are_valid(text, bad, sizeof(bad)), "well formed: '%s'", bad);
	CHECK(has_line(text, "# TYPE argguard_build_info gauge") &&
		      has_line(text, "argguard_build_info{version=\"1.2.3\","
				     "bpf_object=\"00c0ffee12345678\"} 1"),
	      "build info: the version, and the object's id in 16 hex digits");
	CHECK(has_line(text, "# TYPE argguard_records_lost_total counter") &&
		      has_line(text, "argguard_records_lost_total{sink=\"log\"} 0") &&
		      has_line(text, "argguard_records_lost_total{sink=\"journald\"} 4") &&
		      has_line(text, "argguard_records_lost_total{sink=\"audit\"} "
				     "18446744073709551615"),
	      "each sink's losses, 0 too, so increase() has a start");
	free(text);

	m.version = "1.2\"3\\";
	m.n_sinks = 1;
	text = print(METRICS_PROMETHEUS, &m);
	CHECK(has_line(text, "argguard_build_info{version=\"1.2\\\"3\\\\\","
			     "bpf_object=\"00c0ffee12345678\"} 1"),
	      "a version's quote and backslash escaped");
	CHECK(strstr(text, "sink=\"log\"") && !strstr(text, "sink=\"journald\""),
	      "only the sinks the daemon opened");
	free(text);
}

#define PWNED "\x1b]0;pwned\x07"

/*
 * Status's text quotes a policy file and what an apply said of it: a line
 * that sets root's terminal title shows escaped, with no ESC or BEL of its
 * own, a newline in it starts no line; the JSON keeps the exact bytes.
 */
static void status_text_escapes_what_it_quotes(void)
{
	struct argguard_metrics m;
	json_object *obj, *file, *apply;
	char *text;

	example(&m);
	apply_status_parse("last apply: 2026-12-03T10:00:00Z: /etc/argguard/argguard.conf:3: "
			   "cgroup path '/" PWNED "\\' must start with '/'\n"
			   "success=0\ntimestamp=1796292000\n",
			   &m.last_apply);
	m.policy_file = (struct policy_file_check){ .state = POLICY_FILE_INVALID,
						    .path = "/srv/" PWNED ".conf" };
	snprintf(m.policy_file.error, sizeof(m.policy_file.error), "/srv/%s.conf:1: '%s\n'", PWNED,
		 PWNED);
	text = print(METRICS_TEXT, &m);
	CHECK(!strchr(text, '\x1b') && !strchr(text, '\x07'), "the text holds no ESC and no BEL");
	CHECK(has_line(text, "last apply: 2026-12-03T10:00:00Z: /etc/argguard/argguard.conf:3: "
			     "cgroup path '/\\x1b]0;pwned\\x07\\\\' must start with '/'"),
	      "the apply's message, escaped, its backslash doubled: %s", text);
	CHECK(has_line(text, "policy_file: INVALID: /srv/\\x1b]0;pwned\\x07.conf:1: "
			     "'\\x1b]0;pwned\\x07\\x0a'; the live policy stays as it is, and a "
			     "reload would change nothing"),
	      "the policy file's error, escaped, its newline too");
	free(text);
	text = print(METRICS_JSON, &m);
	obj = json_tokener_parse(text);
	file = obj ? json_object_object_get(obj, "policy_file") : NULL;
	apply = obj ? json_object_object_get(obj, "last_apply") : NULL;
	CHECK(file && !strcmp(json_object_get_string(json_object_object_get(file, "error")),
			      m.policy_file.error),
	      "the JSON keeps the error's bytes: %s", text);
	CHECK(apply && strstr(json_object_get_string(json_object_object_get(apply, "message")),
			      "'/" PWNED "\\'"),
	      "and the apply's message's");
	json_object_put(obj);
	free(text);
}

static void apply_status_round_trips(void)
{
	struct apply_status st;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	apply_status_format(out, false, 1796292000,
			    "/etc/a.conf not applied: x; in force: the built-in default");
	fclose(out);
	CHECK(!strcmp(buf, "last apply: 2026-12-03T10:00:00Z: /etc/a.conf not applied: x; in "
			   "force: the built-in default\nsuccess=0\ntimestamp=1796292000\n"),
	      "the human line first, then the fields");
	apply_status_parse(buf, &st);
	CHECK(st.known && st.has_result && !st.success && st.timestamp == 1796292000,
	      "parsed back");
	CHECK(!strcmp(st.message, "/etc/a.conf not applied: x; in force: the built-in default"),
	      "the message without the time: %s", st.message);
	free(buf);

	buf = NULL;
	out = open_memstream(&buf, &len);
	apply_status_format(out, false, 1796292000, "applied /tmp/a\nsuccess=1");
	fclose(out);
	apply_status_parse(buf, &st);
	CHECK(!st.success && !strchr(st.line, '\n') && strstr(st.line, "/tmp/a success=1"),
	      "a newline in a file name cannot forge a field");
	free(buf);

	apply_status_parse("last apply: 2026-12-03T10:00:00Z: applied /a\nsuccess=1\n"
			   "timestamp=1796292000\nreload_started=123456789\n",
			   &st);
	CHECK(st.has_result && st.success && st.reload_started_ns == 123456789,
	      "a reload's apply says when it began: %llu",
	      (unsigned long long)st.reload_started_ns);
	apply_status_parse("last apply: 2026-12-03T10:00:00Z: applied /a\nsuccess=1\n"
			   "timestamp=1796292000\n",
			   &st);
	CHECK(st.reload_started_ns == 0, "any other apply says 0");
	buf = NULL;
	out = open_memstream(&buf, &len);
	apply_status_format(out, true, 1796292000, "applied /tmp/a\nreload_started=99999999999");
	fclose(out);
	apply_status_parse(buf, &st);
	CHECK(st.reload_started_ns == 0, "a file name cannot pass an apply off as a reload's");
	free(buf);
}

static void apply_status_of_an_older_daemon(void)
{
	struct apply_status st;

	apply_status_parse(
		"last apply: 2026-12-03T10:00:00Z: applied /etc/argguard/argguard.conf\n", &st);
	CHECK(st.known && !st.has_result, "the line alone: known, but no result");
	CHECK(!strcmp(st.line,
		      "last apply: 2026-12-03T10:00:00Z: applied /etc/argguard/argguard.conf"),
	      "the line, for the text");
	apply_status_parse("success=1\ntimestamp=5\n", &st);
	CHECK(!st.known && !st.has_result, "fields without the line are not an apply");
	apply_status_parse("last apply: x: y\nsuccess=2\ntimestamp=5\n", &st);
	CHECK(st.known && !st.has_result, "success must be 0 or 1");
	apply_status_parse("last apply: x: y\nsuccess=1\ntimestamp=5s\n", &st);
	CHECK(st.known && !st.has_result, "timestamp must be a number");
}

/* metrics_write_textfile(), with the error it logs kept in why and not printed. */
static int write_quietly(const char *dir, const struct argguard_metrics *m, char *why,
			 size_t why_len)
{
	struct log_capture c;
	int ret;

	log_capture_start(&c, LOG_ERR, why, why_len, true);
	ret = metrics_write_textfile(dir, m);
	log_capture_stop(&c);
	return ret;
}

/*
 * A scratch directory gone with all it holds, whatever the test (or a
 * mutant under test, tests/mutants/) left in it: no directory of the
 * tests' stays in /tmp, not even one a test gave to uid 65534.
 */
static void remove_scratch(const char *dir)
{
	char path[512];
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static void textfile_is_written_whole_and_readable(void)
{
	char dir[] = "/tmp/argguard-metrics-XXXXXX", path[256], tmp[300], buf[8192], why[512];
	struct argguard_metrics m;
	struct stat sb;
	mode_t old = umask(0077); /* the unit's is 0027: the file must be 0644 anyway */
	char *want;
	FILE *f;
	size_t n;

	example(&m);
	CHECK(mkdtemp(dir) != NULL, "a scratch directory");
	snprintf(path, sizeof(path), "%s/argguard.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	CHECK(metrics_write_textfile(dir, &m) == 0, "written");
	m.decisions[ARGGUARD_COUNTER(ARGGUARD_SCOPE_GLOBAL, ARGGUARD_VERDICT_DENY)] = 8;
	CHECK(metrics_write_textfile(dir, &m) == 0, "written again, over the first");
	CHECK(stat(path, &sb) == 0 && (sb.st_mode & 07777) == 0644, "mode 0644 under umask 077: %o",
	      sb.st_mode & 07777);
	CHECK(access(tmp, F_OK) && errno == ENOENT, "no temporary file left behind");
	f = fopen(path, "r");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	want = print(METRICS_PROMETHEUS, &m);
	CHECK(!strcmp(buf, want), "the file holds the latest exposition");
	free(want);
	remove_scratch(dir);
	CHECK(write_quietly(dir, &m, why, sizeof(why)) == -ENOENT, "a missing directory: -ENOENT");
	CHECK(strstr(why, dir) != NULL, "the error names the directory: %s", why);
	umask(old);
}

/* The FIFO test's scratch directory and the names in it, for blocked() to remove. */
static char fifo_dir[sizeof("/tmp/argguard-metrics-XXXXXX")], fifo_names[2][300];

/*
 * What a test that hangs prints, rather than hang ctest, after it removed
 * its scratch directory: write(2), unlink(2), rmdir(2) and _exit(2) are
 * safe here.
 */
static void blocked(int sig)
{
	static const char msg[] = "not ok - the textfile's write waited for a FIFO's reader\n";

	(void)sig;
	unlink(fifo_names[0]);
	unlink(fifo_names[1]);
	rmdir(fifo_dir);
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

/* A FIFO at the temporary file's name: the daemon's main loop must not wait in open(). */
static void textfile_write_does_not_wait_for_a_fifo(void)
{
	char dir[] = "/tmp/argguard-metrics-XXXXXX", path[256], tmp[300], why[512];
	struct argguard_metrics m;
	struct stat sb;
	int ret;

	example(&m);
	CHECK(mkdtemp(dir) != NULL, "a scratch directory");
	snprintf(path, sizeof(path), "%s/argguard.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	CHECK(mkfifo(tmp, 0600) == 0, "a FIFO where the temporary file goes");
	snprintf(fifo_dir, sizeof(fifo_dir), "%s", dir);
	snprintf(fifo_names[0], sizeof(fifo_names[0]), "%s", tmp);
	snprintf(fifo_names[1], sizeof(fifo_names[1]), "%s", path);
	fflush(stdout);
	signal(SIGALRM, blocked);
	alarm(10);
	ret = write_quietly(dir, &m, why, sizeof(why));
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	CHECK(ret == 0, "written, the FIFO a leftover in a directory only we can write: %d %s", ret,
	      why);
	CHECK(lstat(path, &sb) == 0 && S_ISREG(sb.st_mode), "the textfile is a regular file");
	CHECK(access(tmp, F_OK) && errno == ENOENT, "and nothing is left at the temporary name");
	remove_scratch(dir);
}

/* A link at the temporary file's name is never followed: its target stays as it was. */
static void textfile_write_does_not_follow_a_link(void)
{
	char dir[] = "/tmp/argguard-metrics-XXXXXX", path[256], tmp[300], target[300], why[512];
	char buf[64] = "";
	struct argguard_metrics m;
	struct stat sb;
	FILE *f;
	int ret;

	example(&m);
	CHECK(mkdtemp(dir) != NULL, "a scratch directory");
	snprintf(path, sizeof(path), "%s/argguard.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(target, sizeof(target), "%s/target", dir);
	f = fopen(target, "w");
	if (f) {
		fputs("untouched\n", f);
		fclose(f);
	}
	CHECK(symlink(target, tmp) == 0, "a link where the temporary file goes");
	ret = write_quietly(dir, &m, why, sizeof(why));
	CHECK(ret == 0, "written: %d %s", ret, why);
	CHECK(lstat(path, &sb) == 0 && S_ISREG(sb.st_mode),
	      "the textfile is a regular file, not the link renamed");
	f = fopen(target, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	CHECK(!strcmp(buf, "untouched\n"), "the link's target is as it was: %s", buf);
	remove_scratch(dir);
}

/* Refused: a directory another account can write, whose refusal names it and says why. */
static void refused_in(const char *dir, mode_t mode, const char *who)
{
	char path[256], why[512];
	struct argguard_metrics m;
	int ret;

	example(&m);
	snprintf(path, sizeof(path), "%s/argguard.prom", dir);
	chmod(dir, mode);
	ret = write_quietly(dir, &m, why, sizeof(why));
	CHECK(ret == -EPERM, "mode %04o: refused with -EPERM (%d)", (unsigned int)mode, ret);
	CHECK(strstr(why, dir) && strstr(why, who), "the refusal names %s and %s: %s", dir, who,
	      why);
	CHECK(access(path, F_OK) && errno == ENOENT, "and writes nothing there");
}

static void textfile_directory_others_can_write_is_refused(void)
{
	char dir[] = "/tmp/argguard-metrics-XXXXXX", why[512];
	struct argguard_metrics m;

	example(&m);
	CHECK(mkdtemp(dir) != NULL, "a scratch directory");
	refused_in(dir, 0770, "its group");
	refused_in(dir, 0722, "every account");
	refused_in(dir, 01777, "every account"); /* sticky: others still make the name first */
	if (geteuid() == 0) {
		chmod(dir, 0755);
		CHECK(chown(dir, 65534, 65534) == 0, "the directory given to uid 65534");
		CHECK(write_quietly(dir, &m, why, sizeof(why)) == -EPERM &&
			      strstr(why, "uid 65534"),
		      "a directory of another account's is refused: %s", why);
	} else {
		printf("# not root: a directory of another account's is not tried\n");
	}
	remove_scratch(dir);
}

int main(void)
{
	format_names_parse();
	text_is_the_status_of_old();
	text_without_an_apply_has_no_apply_line();
	unattached_hooks_are_named();
	an_unfinished_start_is_named();
	policy_file_drift_in_every_format();
	json_is_one_object_with_everything();
	prometheus_exposition();
	build_info_and_sink_losses();
	apply_status_round_trips();
	apply_status_of_an_older_daemon();
	status_text_escapes_what_it_quotes();
	textfile_is_written_whole_and_readable();
	textfile_write_does_not_wait_for_a_fifo();
	textfile_write_does_not_follow_a_link();
	textfile_directory_others_can_write_is_refused();
	return check_done();
}
