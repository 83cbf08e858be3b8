// SPDX-License-Identifier: GPL-2.0
/* The policy file reader: text to struct policy, strictly, every error naming FILE:LINE. */
#include "policy.h"

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "units.h"

static int lookup(const char *const *names, size_t n, const char *text)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], text))
			return (int)i;
	return -1;
}

/*
 * The keys a policy file knows; those before FIRST_RULE_KEY are [global]'s
 * alone. KEY_LIMIT + l is the key of policy_limits[l].
 */
enum key {
	KEY_MODE,
	KEY_EMPTY_ARGV,
	KEY_HEAD_BYTES,
	KEY_EVENT_RATE,
	KEY_EVENT_BURST,
	KEY_EVENT_RATE_TOTAL,
	KEY_ALLOW_LOCKOUT,
	KEY_ADMIN_GROUPS,
	KEY_ACTION,
	KEY_ERRNO,
	KEY_LIMIT,
	NR_KEYS = KEY_LIMIT + POLICY_NR_LIMITS,
};

#define FIRST_RULE_KEY KEY_ACTION

#define LIMIT_KEY_NAME(key, unit, floor) [KEY_LIMIT + POLICY_LIMIT_##key] = #key,
static const char *const key_names[NR_KEYS] = {
	[KEY_MODE] = "mode",
	[KEY_EMPTY_ARGV] = "empty_argv",
	[KEY_HEAD_BYTES] = "argv_head_bytes",
	[KEY_EVENT_RATE] = "event_rate",
	[KEY_EVENT_BURST] = "event_burst",
	[KEY_EVENT_RATE_TOTAL] = "event_rate_total",
	[KEY_ALLOW_LOCKOUT] = "allow_lockout",
	[KEY_ADMIN_GROUPS] = "admin_groups",
	[KEY_ACTION] = "action",
	[KEY_ERRNO] = "errno",
	/* and from KEY_LIMIT on, one per row of POLICY_LIMITS */
	POLICY_LIMITS(LIMIT_KEY_NAME)
};

/*
 * The state of one parse: the line just read, and the section it is in.
 * The reader stops at the first error.
 */
struct parser {
	FILE *in;
	const char *name;
	struct policy *p;
	unsigned int line;
	char text[POLICY_LINE_MAX + 1]; /* the line just read, its line ending left out */
	char section[POLICY_LINE_MAX + 1]; /* the name of the section being read */
	unsigned int section_line; /* its header's line; 0 before the first */
	struct argguard_rule *rule; /* its rule; NULL before the first section */
	bool key_in_section; /* a key was read since its header */
	unsigned int key_line[NR_KEYS]; /* where the section set each key */
	bool have_mode;
	char *err;
	size_t err_len;
	bool failed;
};

static void vfail_at(struct parser *ps, unsigned int line, const char *fmt, va_list ap)
{
	int n;

	if (ps->failed)
		return;
	ps->failed = true;
	n = snprintf(ps->err, ps->err_len, "%s:%u: ", ps->name, line);
	if (n >= 0 && (size_t)n < ps->err_len)
		vsnprintf(ps->err + n, ps->err_len - n, fmt, ap);
}

/* Fail with "FILE:LINE: " and the message, LINE being the line just read. */
static __attribute__((format(printf, 2, 3))) void fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_at(ps, ps->line, fmt, ap);
	va_end(ap);
}

/* Fail, naming another line: a section's header, say. */
static __attribute__((format(printf, 3, 4))) void fail_at(struct parser *ps, unsigned int line,
							  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail_at(ps, line, fmt, ap);
	va_end(ap);
}

/* Past leading white space. */
static char *skip_space(char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

/* Cut the white space off the end of s. */
static void cut_space(char *s)
{
	char *end = s + strlen(s);

	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
}

static bool parse_number(const char *value, uint64_t max, uint64_t *out)
{
	return !parse_bytes(value, out) && *out <= max;
}

/* A count: decimal digits, no K, M or G. */
static bool parse_count(const char *value, uint64_t max, uint64_t *out)
{
	return !strpbrk(value, "kKmMgG") && parse_number(value, max, out);
}

static struct argguard_rule *add_uid_rule(struct parser *ps, uint32_t uid)
{
	struct argguard_rule rule = policy_rule_default(), *added;
	struct policy *p = ps->p;

	for (size_t i = 0; i < p->n_uids; i++) {
		if (p->uids[i].uid == uid) {
			fail(ps, "a second rule for uid %u (the first is at line %u)", uid,
			     p->uids[i].line);
			return NULL;
		}
	}
	if (p->n_uids == ARGGUARD_MAX_UID_RULES) {
		fail(ps, "more than %d uid rules", ARGGUARD_MAX_UID_RULES);
		return NULL;
	}
	added = policy_add_uid(p, uid, &rule);
	if (!added)
		fail(ps, "out of memory");
	else
		p->uids[p->n_uids - 1].line = ps->line;
	return added;
}

/*
 * A rule names a path, not a directory: the cgroup need not exist yet, and
 * the rule holds for each cgroup made at that path later.
 */
static struct argguard_rule *add_cgroup_rule(struct parser *ps, const char *path)
{
	struct argguard_rule rule = policy_rule_default(), *added;
	char canonical[ARGGUARD_CGROUP_PATH_LEN - 1];
	struct policy *p = ps->p;

	if (path[0] != '/') {
		fail(ps, "cgroup path '%s' must start with '/' (relative to the cgroup v2 root)",
		     path);
		return NULL;
	}
	if (cgroup_path_canonical(path, canonical, sizeof(canonical))) {
		fail(ps, "cgroup path '%s' leads above the cgroup root or is longer than %zu bytes",
		     path, sizeof(canonical) - 1);
		return NULL;
	}
	for (size_t i = 0; i < p->n_cgroups; i++) {
		if (!strcmp(p->cgroups[i].path, canonical)) {
			fail(ps, "a second rule for cgroup %s (the first is at line %u)", canonical,
			     p->cgroups[i].line);
			return NULL;
		}
	}
	if (p->n_cgroups == ARGGUARD_MAX_CGROUP_RULES) {
		fail(ps, "more than %d cgroup rules", ARGGUARD_MAX_CGROUP_RULES);
		return NULL;
	}
	added = policy_add_cgroup(p, canonical, &rule);
	if (!added)
		fail(ps, "out of memory");
	else
		p->cgroups[p->n_cgroups - 1].line = ps->line;
	return added;
}

/* [global] or [setuid]: one rule, one section. */
static struct argguard_rule *enter_single(struct parser *ps, const char *section,
					  unsigned int *line, struct argguard_rule *rule)
{
	if (*line) {
		fail(ps, "a second [%s] section (the first is at line %u)", section, *line);
		return NULL;
	}
	*line = ps->line;
	return rule;
}

/* Start a section: find or create the rule its keys go into, or fail. */
static void enter_section(struct parser *ps, const char *section)
{
	const char *arg = strchr(section, ' ');
	char kind[16];
	uint64_t uid;
	struct passwd *pw;

	snprintf(ps->section, sizeof(ps->section), "%s", section);
	ps->section_line = ps->line;
	ps->key_in_section = false;
	memset(ps->key_line, 0, sizeof(ps->key_line));
	if (!strcmp(section, "global")) {
		ps->rule = enter_single(ps, section, &ps->p->global_line, &ps->p->global);
		return;
	}
	if (!strcmp(section, "setuid")) {
		ps->rule = enter_single(ps, section, &ps->p->setuid_line, &ps->p->setuid);
		return;
	}
	if (!arg || (size_t)(arg - section) >= sizeof(kind))
		goto bad;
	snprintf(kind, sizeof(kind), "%.*s", (int)(arg - section), section);
	arg += strspn(arg, " ");
	if (!strcmp(kind, "uid")) {
		if (!parse_count(arg, UINT32_MAX - 1, &uid)) {
			fail(ps, "[uid %s]: expected a numeric uid from 0 to %u", arg,
			     UINT32_MAX - 1);
			return;
		}
		ps->rule = add_uid_rule(ps, (uint32_t)uid);
	} else if (!strcmp(kind, "user")) {
		pw = getpwnam(arg);
		if (!pw) {
			fail(ps, "[user %s]: no such user", arg);
			return;
		}
		if (pw->pw_uid == (uid_t)-1) {
			fail(ps, "[user %s]: uid %u is no one's", arg, (unsigned int)pw->pw_uid);
			return;
		}
		ps->rule = add_uid_rule(ps, pw->pw_uid);
	} else if (!strcmp(kind, "cgroup")) {
		ps->rule = add_cgroup_rule(ps, arg);
	} else {
		goto bad;
	}
	return;
bad:
	fail(ps,
	     "unknown section [%s]: expected [global], [setuid], [uid N], [user NAME] or [cgroup "
	     "/PATH]",
	     section);
}

static void set_choice(struct parser *ps, const char *name, const char *value,
		       int (*parse)(const char *), const char *expected, uint32_t *out)
{
	int v = parse(value);

	if (v < 0)
		fail(ps, "%s = %s: expected %s", name, value, expected);
	else
		*out = (uint32_t)v;
}

static void set_count(struct parser *ps, const char *name, const char *value, uint64_t max,
		      const char *meaning, uint32_t *out)
{
	uint64_t n;

	if (!parse_count(value, max, &n))
		fail(ps, "%s = %s: expected a count from 0 to %llu%s", name, value,
		     (unsigned long long)max, meaning);
	else
		*out = (uint32_t)n;
}

/* How many bytes "admin_groups = A, B, ..." takes on a line of its own. */
static size_t admin_groups_printed(const struct policy *p)
{
	size_t len = strlen("admin_groups = ");

	for (size_t i = 0; i < p->n_admin_groups; i++)
		len += (i ? strlen(", ") : 0) + strlen(p->admin_groups[i]);
	return len;
}

/*
 * admin_groups = sudo, adm, ops: groups that exist, each named once, few
 * enough that policy_print() writes them on one line. The list is checked
 * whole before any group is looked up.
 */
static void set_admin_groups(struct parser *ps, const char *value)
{
	struct policy *p = ps->p;
	char list[POLICY_LINE_MAX + 1], *item, *next, *end, **more;

	snprintf(list, sizeof(list), "%s", value);
	for (item = list; item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		item = skip_space(item);
		for (end = item + strlen(item); end > item && isspace((unsigned char)end[-1]);)
			*--end = '\0';
		if (!*item) {
			fail(ps,
			     "admin_groups = %s: expected group names separated by commas, "
			     "such as sudo, adm",
			     value);
			return;
		}
		for (size_t i = 0; i < p->n_admin_groups; i++) {
			if (!strcmp(p->admin_groups[i], item)) {
				fail(ps, "admin_groups = %s: group %s is named twice", value, item);
				return;
			}
		}
		more = realloc(p->admin_groups, (p->n_admin_groups + 1) * sizeof(*more));
		if (!more) {
			fail(ps, "out of memory");
			return;
		}
		p->admin_groups = more;
		p->admin_groups[p->n_admin_groups] = strdup(item);
		if (!p->admin_groups[p->n_admin_groups]) {
			fail(ps, "out of memory");
			return;
		}
		p->n_admin_groups++;
	}
	if (admin_groups_printed(p) > POLICY_LINE_MAX) {
		fail(ps,
		     "admin_groups: %zu groups take %zu bytes as 'admin_groups = A, B, ...', more "
		     "than a line's %d: name fewer groups",
		     p->n_admin_groups, admin_groups_printed(p), POLICY_LINE_MAX);
		return;
	}
	for (size_t i = 0; i < p->n_admin_groups; i++) {
		if (!getgrnam(p->admin_groups[i])) {
			fail(ps, "admin_groups = %s: no such group %s", value, p->admin_groups[i]);
			return;
		}
	}
}

static void set_global_key(struct parser *ps, enum key key, const char *value)
{
	struct policy *p = ps->p;
	const char *name = key_names[key];
	uint64_t n;

	switch (key) {
	case KEY_MODE:
		set_choice(ps, name, value, mode_parse, "off, audit or enforce", &p->mode);
		ps->have_mode = true;
		break;
	case KEY_EMPTY_ARGV:
		set_choice(ps, name, value, action_parse, "allow, audit or deny",
			   &p->empty_argv_action);
		break;
	case KEY_HEAD_BYTES:
		if (!parse_number(value, ARGGUARD_HEAD_MAX, &n))
			fail(ps, "%s = %s: expected a byte count from 0 to %d (0: %d)", name, value,
			     ARGGUARD_HEAD_MAX, ARGGUARD_HEAD_DEFAULT);
		else
			p->head_bytes = (uint32_t)n;
		break;
	case KEY_EVENT_RATE:
		set_count(ps, name, value, POLICY_EVENT_RATE_MAX, " records a second (0: no limit)",
			  &p->event_rate);
		break;
	case KEY_EVENT_BURST:
		set_count(ps, name, value, POLICY_EVENT_BURST_MAX, " records (0: 1)",
			  &p->event_burst);
		break;
	case KEY_EVENT_RATE_TOTAL:
		set_count(ps, name, value, POLICY_EVENT_RATE_MAX, " records a second (0: no limit)",
			  &p->event_rate_total);
		break;
	case KEY_ALLOW_LOCKOUT:
		if (strcmp(value, "yes") && strcmp(value, "no"))
			fail(ps, "%s = %s: expected yes or no", name, value);
		else
			p->allow_lockout = !strcmp(value, "yes");
		break;
	case KEY_ADMIN_GROUPS:
		set_admin_groups(ps, value);
		break;
	default:
		break;
	}
}

static void set_limit(struct parser *ps, enum policy_limit l, const char *value)
{
	const struct policy_limit_info *limit = &policy_limits[l];
	uint64_t n;

	if (parse_number(value, limit->max, &n))
		policy_limit_set(ps->rule, l, n);
	else if (limit->unit == POLICY_BYTES)
		fail(ps,
		     "%s = %s: expected a byte count such as 4096, 256K or 4M, from 0 (no limit) "
		     "to "
		     "%llu",
		     limit->key, value, (unsigned long long)limit->max);
	else
		fail(ps, "%s = %s: expected a count from 0 (no limit) to %llu", limit->key, value,
		     (unsigned long long)limit->max);
}

static void set_rule_key(struct parser *ps, enum key key, const char *value)
{
	struct argguard_rule *r = ps->rule;
	const char *name = key_names[key];
	int v;

	if (key >= KEY_LIMIT) {
		set_limit(ps, (enum policy_limit)(key - KEY_LIMIT), value);
		return;
	}
	switch (key) {
	case KEY_ACTION:
		set_choice(ps, name, value, action_parse, "allow, audit or deny", &r->action);
		break;
	case KEY_ERRNO:
		v = deny_errno_parse(value);
		if (v < 0)
			fail(ps, "errno = %s: expected E2BIG, EPERM, EACCES or ENOMEM", value);
		else
			r->deny_errno = v;
		break;
	default:
		break;
	}
}

/* "max_argv_bytes, max_envp_bytes, ..., " into buf. */
static const char *limit_keys(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (enum policy_limit l = 0; l < POLICY_NR_LIMITS && n < len; l++)
		n += (size_t)snprintf(buf + n, len - n, "%s, ", policy_limits[l].key);
	return buf;
}

static void set_key(struct parser *ps, const char *name, const char *value)
{
	char limits[256];
	int key;

	if (!ps->rule) {
		fail(ps, "'%s' outside any section: start with [global]", name);
		return;
	}
	ps->key_in_section = true;
	key = lookup(key_names, NR_KEYS, name);
	if (key < 0 || (key < FIRST_RULE_KEY && ps->rule != &ps->p->global)) {
		fail(ps, "unknown key '%s' in [%s]: expected %saction or errno%s", name,
		     ps->section, limit_keys(limits, sizeof(limits)),
		     ps->rule != &ps->p->global ? ""
						: " (or mode, empty_argv, argv_head_bytes, "
						  "event_rate, event_burst, event_rate_total, "
						  "allow_lockout, admin_groups)");
		return;
	}
	if (ps->key_line[key]) {
		fail(ps, "a second '%s' in [%s] (the first is at line %u)", name, ps->section,
		     ps->key_line[key]);
		return;
	}
	ps->key_line[key] = ps->line;
	if (key < FIRST_RULE_KEY)
		set_global_key(ps, key, value);
	else
		set_rule_key(ps, key, value);
}

/*
 * Read the next line into ps->text, without its line ending ("\n", or
 * "\r\n"). Returns false at the end of the file, or on a line longer than
 * POLICY_LINE_MAX or with a NUL byte: an error, not a line cut in two.
 */
static bool get_line(struct parser *ps)
{
	size_t len = 0;
	bool nul = false;
	int c, last = 0;

	c = getc(ps->in);
	if (c == EOF)
		return false;
	ps->line++;
	for (; c != EOF && c != '\n'; c = getc(ps->in)) {
		if (len <= POLICY_LINE_MAX)
			ps->text[len] = (char)c;
		nul |= c == '\0';
		last = c;
		len++;
	}
	if (last == '\r')
		len--;
	if (len > POLICY_LINE_MAX) {
		fail(ps, "line longer than %d bytes", POLICY_LINE_MAX);
		return false;
	}
	if (nul) {
		fail(ps, "a NUL byte: a policy file is text");
		return false;
	}
	ps->text[len] = '\0';
	return true;
}

/*
 * The first of chars in s, or the ';' of a comment (one that follows white
 * space), or the end of s.
 */
static char *find_or_comment(char *s, const char *chars)
{
	bool after_space = false;

	for (; *s && !strchr(chars, *s) && !(after_space && *s == ';'); s++)
		after_space = isspace((unsigned char)*s);
	return s;
}

/* The section being read must have a key: one with none is a mistake, not a no-op. */
static void end_section(struct parser *ps)
{
	if (ps->section_line && !ps->key_in_section)
		fail_at(ps, ps->section_line,
			"section [%s] has no keys: give it at least 'action = ...'", ps->section);
}

/* "[NAME]": nothing but a comment may follow the ']'. */
static void read_section(struct parser *ps, char *s)
{
	char *end = find_or_comment(s + 1, "]"), *rest;

	end_section(ps);
	if (ps->failed)
		return;
	if (*end != ']') {
		fail(ps, "expected '[section]', 'key = value' or a comment");
		return;
	}
	rest = skip_space(end + 1);
	if (*rest && *rest != ';' && *rest != '#') {
		fail(ps, "text after the section header: '%s'", rest);
		return;
	}
	*end = '\0';
	enter_section(ps, s + 1);
}

/* "KEY = VALUE" (or "KEY: VALUE"), and maybe a comment: white space, then ';'. */
static void read_key(struct parser *ps, char *s)
{
	char *sep = find_or_comment(s, "=:"), *value;

	if (*sep != '=' && *sep != ':') {
		fail(ps, "expected '[section]', 'key = value' or a comment");
		return;
	}
	*sep = '\0';
	cut_space(s);
	value = sep + 1;
	*find_or_comment(value, "") = '\0';
	value = skip_space(value);
	cut_space(value);
	set_key(ps, s, value);
}

/*
 * One line: blank, a comment (';' or '#' first), a section header or a
 * key. An indented line after a key is an error: INI readers take it for
 * more of that key's value.
 */
static void read_line(struct parser *ps)
{
	char *start = ps->text, *s;

	if (ps->line == 1 && !strncmp(start, "\xef\xbb\xbf", 3))
		start += 3; /* a UTF-8 byte order mark */
	s = skip_space(start);
	cut_space(s);
	if (!*s || *s == ';' || *s == '#')
		return;
	if (s > start && ps->key_in_section)
		fail(ps, "an indented line would continue the value above: unindent it");
	else if (*s == '[')
		read_section(ps, s);
	else
		read_key(ps, s);
}

int policy_parse(FILE *in, const char *name, struct policy *p, char *err, size_t err_len)
{
	struct parser ps = {
		.in = in,
		.name = name,
		.p = p,
		.err = err,
		.err_len = err_len,
	};

	policy_init(p);
	while (!ps.failed && get_line(&ps))
		read_line(&ps);
	if (!ps.failed)
		end_section(&ps);
	if (!ps.failed && ferror(in))
		fail(&ps, "cannot read the file");
	if (!ps.failed && !p->global_line)
		fail_at(&ps, 1,
			"no [global] section: start the file with [global] and 'mode = enforce', "
			"'audit' or 'off'");
	if (!ps.failed && !ps.have_mode)
		fail_at(&ps, p->global_line,
			"[global] has no 'mode': add 'mode = enforce', 'audit' or 'off' (a file "
			"without one is refused, not read as off)");
	if (ps.failed) {
		policy_free(p);
		return -1;
	}
	return 0;
}

int policy_parse_file(const char *path, struct policy *p, char *err, size_t err_len)
{
	FILE *in = fopen(path, "r");
	int ret;

	if (!in) {
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		policy_init(p);
		return -1;
	}
	ret = policy_parse(in, path, p, err, err_len);
	fclose(in);
	return ret;
}
