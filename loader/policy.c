// SPDX-License-Identifier: GPL-2.0
#include "policy.h"

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <ini.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "names.h"
#include "units.h"

static int lookup(const char *const *names, size_t n, const char *text)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], text))
			return (int)i;
	return -1;
}

static struct argguard_rule default_rule(void)
{
	return (struct argguard_rule){ .action = ARGGUARD_ACTION_DENY, .deny_errno = E2BIG };
}

void policy_init(struct policy *p)
{
	*p = (struct policy){
		.mode = ARGGUARD_MODE_OFF,
		.empty_argv_action = ARGGUARD_ACTION_ALLOW,
		.global = default_rule(),
		.setuid = default_rule(),
	};
}

void policy_free(struct policy *p)
{
	for (size_t i = 0; i < p->n_cgroups; i++)
		free(p->cgroups[i].path);
	for (size_t i = 0; i < p->n_admin_groups; i++)
		free(p->admin_groups[i]);
	free(p->uids);
	free(p->cgroups);
	free(p->admin_groups);
	policy_init(p);
}

struct argguard_rule *policy_add_uid(struct policy *p, uint32_t uid,
				     const struct argguard_rule *rule)
{
	struct uid_rule *more = realloc(p->uids, (p->n_uids + 1) * sizeof(*more));

	if (!more)
		return NULL;
	p->uids = more;
	p->uids[p->n_uids] = (struct uid_rule){ .uid = uid, .rule = *rule };
	return &p->uids[p->n_uids++].rule;
}

struct argguard_rule *policy_add_cgroup(struct policy *p, const char *path,
					const struct argguard_rule *rule)
{
	struct cgroup_rule *more = realloc(p->cgroups, (p->n_cgroups + 1) * sizeof(*more));
	char *copy = strdup(path);

	if (!more || !copy) {
		free(copy);
		if (more)
			p->cgroups = more;
		return NULL;
	}
	p->cgroups = more;
	p->cgroups[p->n_cgroups] = (struct cgroup_rule){ .path = copy, .rule = *rule };
	return &p->cgroups[p->n_cgroups++].rule;
}

/* The keys a policy file knows; those before FIRST_RULE_KEY are [global]'s alone. */
enum key {
	KEY_MODE,
	KEY_EMPTY_ARGV,
	KEY_HEAD_BYTES,
	KEY_EVENT_RATE,
	KEY_EVENT_BURST,
	KEY_EVENT_RATE_TOTAL,
	KEY_ALLOW_LOCKOUT,
	KEY_ADMIN_GROUPS,
	KEY_MAX_ARGV_BYTES,
	KEY_MAX_ENVP_BYTES,
	KEY_MAX_TOTAL_BYTES,
	KEY_MAX_ARGC,
	KEY_MAX_ENVC,
	KEY_ACTION,
	KEY_ERRNO,
	NR_KEYS,
};

#define FIRST_RULE_KEY KEY_MAX_ARGV_BYTES

static const char *const key_names[NR_KEYS] = {
	[KEY_MODE] = "mode",
	[KEY_EMPTY_ARGV] = "empty_argv",
	[KEY_HEAD_BYTES] = "argv_head_bytes",
	[KEY_EVENT_RATE] = "event_rate",
	[KEY_EVENT_BURST] = "event_burst",
	[KEY_EVENT_RATE_TOTAL] = "event_rate_total",
	[KEY_ALLOW_LOCKOUT] = "allow_lockout",
	[KEY_ADMIN_GROUPS] = "admin_groups",
	[KEY_MAX_ARGV_BYTES] = "max_argv_bytes",
	[KEY_MAX_ENVP_BYTES] = "max_envp_bytes",
	[KEY_MAX_TOTAL_BYTES] = "max_total_bytes",
	[KEY_MAX_ARGC] = "max_argc",
	[KEY_MAX_ENVC] = "max_envc",
	[KEY_ACTION] = "action",
	[KEY_ERRNO] = "errno",
};

/*
 * The state of one parse. The reader hands inih one line at a time and
 * counts them, as inih reports no line numbers to the handler.
 */
struct parser {
	FILE *in;
	const char *name;
	struct policy *p;
	unsigned int line;
	char section[256]; /* the section the current rule belongs to */
	struct argguard_rule *rule; /* NULL in a section that is not a rule */
	unsigned int empty_section_line; /* a section header with no key yet */
	char pending[256]; /* that header's name */
	bool key_in_section; /* inih reads an indented line after a key as more of its value */
	unsigned int key_line[NR_KEYS]; /* where the current section set each key */
	bool have_mode;
	char *err;
	size_t err_len;
	bool failed;
};

_Static_assert(POLICY_LINE_MAX + 3 <= INI_MAX_LINE, "a policy line must fit inih's buffer");

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

/*
 * Read one whole line into buf, which holds size bytes. A line that would
 * not fit is an error here: inih would split it, and read its tail as a
 * line of its own.
 */
static bool get_line(struct parser *ps, char *buf, int size)
{
	size_t limit = POLICY_LINE_MAX, len = 0;
	bool nul = false;
	int c, last = 0;

	if (size < 3)
		return false;
	if ((size_t)size - 3 < limit)
		limit = (size_t)size - 3; /* an inih built with a smaller buffer */
	c = getc(ps->in);
	if (c == EOF)
		return false;
	ps->line++;
	for (; c != EOF && c != '\n'; c = getc(ps->in)) {
		if (len < limit)
			buf[len] = (char)c;
		nul |= c == '\0';
		last = c;
		len++;
	}
	if (last == '\r')
		len--; /* "\r\n" ends a line too */
	if (len > limit) {
		fail(ps, "line longer than %zu bytes", limit);
		return false;
	}
	if (nul) {
		fail(ps, "a NUL byte: a policy file is text");
		return false;
	}
	buf[len] = '\n';
	buf[len + 1] = '\0';
	if (ps->line == 1 && !strncmp(buf, "\xef\xbb\xbf", 3))
		memmove(buf, buf + 3, len - 1); /* a UTF-8 byte order mark */
	return true;
}

/* Past leading white space, as inih skips it. */
static const char *skip_space(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

/* A section header: nothing but a comment may follow its ']'. */
static void start_section(struct parser *ps, const char *s)
{
	const char *end = strchr(s, ']');

	if (ps->empty_section_line)
		fail_at(ps, ps->empty_section_line,
			"section [%s] has no keys: give it at least 'action = ...'", ps->pending);
	if (!end) {
		fail(ps, "expected '[section]', 'key = value' or a comment");
		return;
	}
	end = skip_space(end + 1);
	if (*end && *end != ';' && *end != '#')
		fail(ps, "text after the section header: '%.*s'", (int)strcspn(end, "\r\n"), end);
	ps->empty_section_line = ps->line;
	ps->key_in_section = false;
	snprintf(ps->pending, sizeof(ps->pending), "%.*s", (int)strcspn(s + 1, "]"), s + 1);
}

/*
 * The reader inih calls for each line. It reports here what inih would let
 * through or misread: a long line, a NUL, an indented line that inih would
 * add to the value above, text after a section header.
 */
static char *read_line(char *buf, int size, void *stream)
{
	struct parser *ps = stream;
	const char *s;

	if (ps->failed || !get_line(ps, buf, size))
		return NULL;
	s = skip_space(buf);
	if (!*s || *s == ';' || *s == '#')
		return buf;
	if (s > buf && ps->key_in_section)
		fail(ps, "an indented line would continue the value above: unindent it");
	else if (*s == '[')
		start_section(ps, s);
	else if (!strpbrk(s, "=:"))
		fail(ps, "expected '[section]', 'key = value' or a comment");
	return ps->failed ? NULL : buf;
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
	struct argguard_rule rule = default_rule(), *added;
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
 * path in one spelling: no empty or '.' parts, '..' taken back, no trailing
 * '/'. Nothing is looked up: the cgroup need not exist. Returns 0, or -1 if
 * the path leads above the root or is too long for the maps.
 */
int cgroup_path_canonical(const char *path, char *out, size_t out_len)
{
	size_t len = 0, n;

	if (path[0] != '/' || out_len < 2)
		return -1;
	out[0] = '\0';
	for (const char *c = path; *c; c += n) {
		c += strspn(c, "/");
		n = strcspn(c, "/");
		if (!n || (n == 1 && c[0] == '.'))
			continue;
		if (n == 2 && !strncmp(c, "..", 2)) {
			if (!len)
				return -1;
			while (out[--len] != '/')
				;
			out[len] = '\0';
			continue;
		}
		if (len + 1 + n >= out_len)
			return -1;
		out[len++] = '/';
		memcpy(out + len, c, n);
		len += n;
		out[len] = '\0';
	}
	if (!len)
		strcpy(out, "/");
	return 0;
}

/*
 * A rule names a path, not a directory: the cgroup need not exist yet, and
 * the rule holds for each cgroup made at that path later.
 */
static struct argguard_rule *add_cgroup_rule(struct parser *ps, const char *path)
{
	struct argguard_rule rule = default_rule(), *added;
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

/* Start a section: find or create the rule its keys go into. */
static bool enter_section(struct parser *ps, const char *section)
{
	const char *arg = strchr(section, ' ');
	char kind[16];
	uint64_t uid;
	struct passwd *pw;

	snprintf(ps->section, sizeof(ps->section), "%s", section);
	memset(ps->key_line, 0, sizeof(ps->key_line));
	if (!strcmp(section, "global")) {
		ps->rule = enter_single(ps, section, &ps->p->global_line, &ps->p->global);
		return ps->rule != NULL;
	}
	if (!strcmp(section, "setuid")) {
		ps->rule = enter_single(ps, section, &ps->p->setuid_line, &ps->p->setuid);
		return ps->rule != NULL;
	}
	if (!arg || (size_t)(arg - section) >= sizeof(kind))
		goto bad;
	snprintf(kind, sizeof(kind), "%.*s", (int)(arg - section), section);
	arg += strspn(arg, " ");
	if (!strcmp(kind, "uid")) {
		if (!parse_count(arg, UINT32_MAX - 1, &uid)) {
			fail(ps, "[uid %s]: expected a numeric uid from 0 to %u", arg,
			     UINT32_MAX - 1);
			return false;
		}
		ps->rule = add_uid_rule(ps, (uint32_t)uid);
	} else if (!strcmp(kind, "user")) {
		pw = getpwnam(arg);
		if (!pw) {
			fail(ps, "[user %s]: no such user", arg);
			return false;
		}
		if (pw->pw_uid == (uid_t)-1) {
			fail(ps, "[user %s]: uid %u is no one's", arg, (unsigned int)pw->pw_uid);
			return false;
		}
		ps->rule = add_uid_rule(ps, pw->pw_uid);
	} else if (!strcmp(kind, "cgroup")) {
		ps->rule = add_cgroup_rule(ps, arg);
	} else {
		goto bad;
	}
	return ps->rule != NULL;
bad:
	fail(ps,
	     "unknown section [%s]: expected [global], [setuid], [uid N], [user NAME] or [cgroup "
	     "/PATH]",
	     section);
	return false;
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
 * enough that policy_print() writes them on one line.
 */
static void set_admin_groups(struct parser *ps, const char *value)
{
	struct policy *p = ps->p;
	char list[INI_MAX_LINE], *item, *next, *end, **more;

	snprintf(list, sizeof(list), "%s", value);
	for (item = list; item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		item = (char *)skip_space(item);
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
		if (!getgrnam(item)) {
			fail(ps, "admin_groups = %s: no such group %s", value, item);
			return;
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
	if (admin_groups_printed(p) > POLICY_LINE_MAX)
		fail(ps,
		     "admin_groups: %zu groups take %zu bytes as 'admin_groups = A, B, ...', more "
		     "than a line's %d: name fewer groups",
		     p->n_admin_groups, admin_groups_printed(p), POLICY_LINE_MAX);
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

static void set_rule_key(struct parser *ps, enum key key, const char *value)
{
	struct argguard_rule *r = ps->rule;
	const char *name = key_names[key];
	uint64_t n;
	int v;

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
	case KEY_MAX_ARGV_BYTES:
	case KEY_MAX_ENVP_BYTES:
	case KEY_MAX_TOTAL_BYTES:
		if (!parse_number(value, UINT64_MAX, &n)) {
			fail(ps,
			     "%s = %s: expected a byte count such as 4096, 256K or 4M, from 0 (no "
			     "limit) to %llu",
			     name, value, (unsigned long long)UINT64_MAX);
			return;
		}
		if (key == KEY_MAX_ARGV_BYTES)
			r->max_argv_bytes = n;
		else if (key == KEY_MAX_ENVP_BYTES)
			r->max_envp_bytes = n;
		else
			r->max_total_bytes = n;
		break;
	case KEY_MAX_ARGC:
	case KEY_MAX_ENVC:
		if (!parse_number(value, UINT32_MAX, &n)) {
			fail(ps, "%s = %s: expected a count from 0 (no limit) to %u", name, value,
			     UINT32_MAX);
			return;
		}
		if (key == KEY_MAX_ARGC)
			r->max_argc = (uint32_t)n;
		else
			r->max_envc = (uint32_t)n;
		break;
	default:
		break;
	}
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct parser *ps = user;
	int key;

	if (ps->failed)
		return 1;
	if (ps->empty_section_line) {
		unsigned int line = ps->line;
		bool entered;

		/* Errors about a section name its header's line. */
		ps->line = ps->empty_section_line;
		ps->empty_section_line = 0;
		entered = enter_section(ps, section);
		ps->line = line;
		if (!entered)
			return 1;
	}
	if (!ps->rule) {
		fail(ps, "'%s' outside any section: start with [global]", name);
		return 1;
	}
	ps->key_in_section = true;
	key = lookup(key_names, NR_KEYS, name);
	if (key < 0 || (key < FIRST_RULE_KEY && ps->rule != &ps->p->global)) {
		fail(ps,
		     "unknown key '%s' in [%s]: expected max_argv_bytes, max_envp_bytes, "
		     "max_total_bytes, max_argc, max_envc, action or errno%s",
		     name, ps->section,
		     ps->rule != &ps->p->global ? ""
						: " (or mode, empty_argv, argv_head_bytes, "
						  "event_rate, event_burst, event_rate_total, "
						  "allow_lockout, admin_groups)");
		return 1;
	}
	if (ps->key_line[key]) {
		fail(ps, "a second '%s' in [%s] (the first is at line %u)", name, ps->section,
		     ps->key_line[key]);
		return 1;
	}
	ps->key_line[key] = ps->line;
	if (key < FIRST_RULE_KEY)
		set_global_key(ps, key, value);
	else
		set_rule_key(ps, key, value);
	return 1;
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
	int line;

	policy_init(p);
	line = ini_parse_stream(read_line, &ps, on_key, &ps);
	if (!ps.failed && line > 0) {
		ps.line = (unsigned int)line;
		fail(&ps, "expected '[section]', 'key = value' or a comment");
	}
	if (!ps.failed && ps.empty_section_line)
		fail_at(&ps, ps.empty_section_line,
			"section [%s] has no keys: give it at least 'action = ...'", ps.pending);
	if (!ps.failed && line < 0)
		fail(&ps, "cannot read the file");
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

/* A limit of r that would deny common admin commands: its name and value, or NULL. */
static const char *locking_limit(const struct argguard_rule *r, uint64_t *value, uint64_t *least)
{
	const struct {
		const char *name;
		uint64_t value, least;
	} limits[] = {
		{ "max_argv_bytes", r->max_argv_bytes, LOCKOUT_MIN_BYTES },
		{ "max_envp_bytes", r->max_envp_bytes, LOCKOUT_MIN_BYTES },
		{ "max_total_bytes", r->max_total_bytes, LOCKOUT_MIN_BYTES },
		{ "max_argc", r->max_argc, LOCKOUT_MIN_COUNT },
		{ "max_envc", r->max_envc, LOCKOUT_MIN_COUNT },
	};

	/* An action out of range reads as deny. */
	if (r->action == ARGGUARD_ACTION_ALLOW || r->action == ARGGUARD_ACTION_AUDIT)
		return NULL;
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		if (limits[i].value && limits[i].value < limits[i].least) {
			*value = limits[i].value;
			*least = limits[i].least;
			return limits[i].name;
		}
	}
	return NULL;
}

/*
 * Does a cgroup rule at path hold for root's shell, sudo, or what starts
 * them: the root, systemd's own scope, the system and user slices, a login
 * session, or an ssh or getty unit?
 */
static bool admin_cgroup(const char *path)
{
	const char *unit;

	if (!strcmp(path, "/") || !strcmp(path, "/init.scope") || !strcmp(path, "/system.slice") ||
	    !strcmp(path, "/user.slice") || !strncmp(path, "/user.slice/", strlen("/user.slice/")))
		return true;
	if (strncmp(path, "/system.slice/", strlen("/system.slice/")))
		return false;
	unit = path + strlen("/system.slice/");
	return strstr(unit, "ssh") || strstr(unit, "getty");
}

/* The groups whose members administer the machine: as the file names them, or the defaults. */
static const char *const *admin_group_names(const struct policy *p, size_t *n)
{
	static const char *const defaults[] = { POLICY_DEFAULT_ADMIN_GROUPS };

	if (!p->n_admin_groups) {
		*n = sizeof(defaults) / sizeof(defaults[0]);
		return defaults;
	}
	*n = p->n_admin_groups;
	return (const char *const *)p->admin_groups;
}

static int add_admin(struct policy_admins *a, uint32_t uid, const char *user, const char *group)
{
	struct policy_admin *more = realloc(a->list, (a->n + 1) * sizeof(*more));

	if (!more)
		return -ENOMEM;
	a->list = more;
	more = &a->list[a->n++];
	more->uid = uid;
	snprintf(more->user, sizeof(more->user), "%s", user);
	snprintf(more->group, sizeof(more->group), "%s", group);
	return 0;
}

static const struct policy_admin *find_admin(const struct policy_admins *a, uint32_t uid)
{
	for (size_t i = 0; a && i < a->n; i++)
		if (a->list[i].uid == uid)
			return &a->list[i];
	return NULL;
}

/* Does a uid rule name uid? */
static bool rule_names_uid(const struct policy *p, uint32_t uid)
{
	for (size_t i = 0; i < p->n_uids; i++)
		if (p->uids[i].uid == uid)
			return true;
	return false;
}

/*
 * First the members that each group lists, in the order the file names the
 * groups; then, for each uid a rule names, its primary group. Only those
 * uids are looked up, so a large user directory is never walked.
 */
int policy_admins_lookup(const struct policy *p, struct policy_admins *out)
{
	size_t n_groups;
	const char *const *groups = admin_group_names(p, &n_groups);
	gid_t *gids = calloc(n_groups, sizeof(*gids));
	bool *exists = calloc(n_groups, sizeof(*exists));
	struct passwd *pw;
	struct group *gr;
	int ret = -ENOMEM;

	*out = (struct policy_admins){ 0 };
	if (!gids || !exists)
		goto out;
	for (size_t g = 0; g < n_groups; g++) {
		gr = getgrnam(groups[g]);
		if (!gr)
			continue; /* a default group this machine lacks, or one gone since the parse */
		exists[g] = true;
		gids[g] = gr->gr_gid;
		for (char **m = gr->gr_mem; *m; m++) {
			pw = getpwnam(*m);
			if (pw && pw->pw_uid && rule_names_uid(p, pw->pw_uid) &&
			    !find_admin(out, pw->pw_uid) &&
			    add_admin(out, pw->pw_uid, *m, groups[g]))
				goto out;
		}
	}
	for (size_t i = 0; i < p->n_uids; i++) {
		uint32_t uid = p->uids[i].uid;

		if (!uid || find_admin(out, uid))
			continue;
		pw = getpwuid(uid);
		for (size_t g = 0; pw && g < n_groups; g++) {
			if (!exists[g] || pw->pw_gid != gids[g])
				continue;
			if (add_admin(out, uid, pw->pw_name, groups[g]))
				goto out;
			break;
		}
	}
	ret = 0;
out:
	if (ret)
		policy_admins_free(out);
	free(gids);
	free(exists);
	return ret;
}

void policy_admins_free(struct policy_admins *a)
{
	free(a->list);
	*a = (struct policy_admins){ 0 };
}

/* who: the admin the rule holds for, or NULL for root and sudo. */
static bool say_lockout(const char *name, unsigned int line, const char *section,
			const struct argguard_rule *r, const struct policy_admin *who, char *why,
			size_t why_len)
{
	uint64_t value, least;
	const char *limit = locking_limit(r, &value, &least);
	char whose[512];

	if (!limit)
		return false;
	if (who)
		snprintf(whose, sizeof(whose),
			 "%s is in group %s, which administers this machine (admin_groups): for "
			 "%s's shell and sudo",
			 who->user, who->group, who->user);
	else
		snprintf(whose, sizeof(whose), "for root's shell and sudo");
	snprintf(why, why_len,
		 "%s:%u: [%s] %s = %llu with action deny in enforce mode would lock admins out: "
		 "%s it must be 0 (no limit) or at least %llu%s",
		 name, line, section, limit, (unsigned long long)value, whose,
		 (unsigned long long)(least == LOCKOUT_MIN_BYTES ? least >> 10 : least),
		 least == LOCKOUT_MIN_BYTES ? "K" : "");
	return true;
}

bool policy_locks_out(const struct policy *p, const struct policy_admins *admins, const char *name,
		      char *why, size_t why_len)
{
	const struct policy_admin *admin;
	char section[4096 + 8];

	if (p->mode == ARGGUARD_MODE_OFF || p->mode == ARGGUARD_MODE_AUDIT)
		return false; /* nothing is denied; a mode out of range reads as enforce */
	if (say_lockout(name, p->global_line, "global", &p->global, NULL, why, why_len) ||
	    say_lockout(name, p->setuid_line, "setuid", &p->setuid, NULL, why, why_len))
		return true;
	for (size_t i = 0; i < p->n_uids; i++) {
		admin = p->uids[i].uid ? find_admin(admins, p->uids[i].uid) : NULL;
		if (p->uids[i].uid && !admin)
			continue;
		snprintf(section, sizeof(section), "uid %u", p->uids[i].uid);
		if (say_lockout(name, p->uids[i].line, section, &p->uids[i].rule, admin, why,
				why_len))
			return true;
	}
	for (size_t i = 0; i < p->n_cgroups; i++) {
		if (!admin_cgroup(p->cgroups[i].path))
			continue;
		snprintf(section, sizeof(section), "cgroup %s", p->cgroups[i].path);
		if (say_lockout(name, p->cgroups[i].line, section, &p->cgroups[i].rule, NULL, why,
				why_len))
			return true;
	}
	return false;
}

int policy_lockout_gate(const struct policy *p, const struct policy_admins *admins,
			const char *name, bool force, char *msg, size_t msg_len)
{
	char why[POLICY_LOCKOUT_MSG - 512];

	if (!policy_locks_out(p, admins, name, why, sizeof(why)))
		return 0;
	if (force || p->allow_lockout) {
		snprintf(msg, msg_len, "%s; accepted, as %s says", why,
			 force ? "--force" : "allow_lockout = yes");
		return 1;
	}
	snprintf(msg, msg_len,
		 "%s; refused: fix the rule, try it in mode = audit first, or pass --force to "
		 "check or apply it anyway (the daemon never forces: it applies such a file, at "
		 "boot and on reload, only if its [global] says allow_lockout = yes)",
		 why);
	return -EPERM;
}

int policy_lockout_gate_here(const struct policy *p, const char *name, bool force, char *msg,
			     size_t msg_len)
{
	struct policy_admins admins;
	int ret = policy_admins_lookup(p, &admins);

	if (ret) {
		snprintf(msg, msg_len, "%s: failed to look up the admin groups' members: %s", name,
			 strerror(-ret));
		return ret;
	}
	ret = policy_lockout_gate(p, &admins, name, force, msg, msg_len);
	policy_admins_free(&admins);
	return ret;
}

static void print_rule(FILE *out, const struct argguard_rule *r)
{
	if (r->max_argv_bytes)
		fprintf(out, "max_argv_bytes = %llu\n", (unsigned long long)r->max_argv_bytes);
	if (r->max_envp_bytes)
		fprintf(out, "max_envp_bytes = %llu\n", (unsigned long long)r->max_envp_bytes);
	if (r->max_total_bytes)
		fprintf(out, "max_total_bytes = %llu\n", (unsigned long long)r->max_total_bytes);
	if (r->max_argc)
		fprintf(out, "max_argc = %u\n", r->max_argc);
	if (r->max_envc)
		fprintf(out, "max_envc = %u\n", r->max_envc);
	/* Values that bpftool wrote out of range are printed as the BPF side reads them. */
	fprintf(out, "action = %s\n",
		action_name(r->action <= ARGGUARD_ACTION_DENY ? r->action : ARGGUARD_ACTION_DENY));
	fprintf(out, "errno = %s\n", deny_errno_name(r->deny_errno));
}

static bool rule_is_empty(const struct argguard_rule *r)
{
	return !r->max_argv_bytes && !r->max_envp_bytes && !r->max_total_bytes && !r->max_argc &&
	       !r->max_envc;
}

static uint32_t at_most(uint32_t value, uint32_t max)
{
	return value < max ? value : max;
}

void policy_print(FILE *out, const struct policy *p)
{
	uint32_t mode = p->mode <= ARGGUARD_MODE_ENFORCE ? p->mode : ARGGUARD_MODE_ENFORCE;
	uint32_t empty = p->empty_argv_action <= ARGGUARD_ACTION_DENY ? p->empty_argv_action
								      : ARGGUARD_ACTION_DENY;

	fprintf(out, "[global]\nmode = %s\nempty_argv = %s\n", mode_name(mode), action_name(empty));
	if (p->head_bytes)
		fprintf(out, "argv_head_bytes = %u\n",
			p->head_bytes < ARGGUARD_HEAD_MAX ? p->head_bytes : ARGGUARD_HEAD_MAX);
	/* bpftool may have written more than a file may say; show what a file can. */
	if (p->event_rate > POLICY_EVENT_RATE_MAX || p->event_burst > POLICY_EVENT_BURST_MAX)
		fprintf(out,
			"# in the map: event_rate = %u, event_burst = %u; a file says at most %u\n",
			p->event_rate, p->event_burst, POLICY_EVENT_RATE_MAX);
	if (p->event_rate_total > POLICY_EVENT_RATE_MAX)
		fprintf(out, "# in the map: event_rate_total = %u; a file says at most %u\n",
			p->event_rate_total, POLICY_EVENT_RATE_MAX);
	if (p->event_rate)
		fprintf(out, "event_rate = %u\nevent_burst = %u\n",
			at_most(p->event_rate, POLICY_EVENT_RATE_MAX),
			p->event_burst ? at_most(p->event_burst, POLICY_EVENT_BURST_MAX) : 1);
	if (p->event_rate_total)
		fprintf(out, "event_rate_total = %u\n",
			at_most(p->event_rate_total, POLICY_EVENT_RATE_MAX));
	if (p->allow_lockout)
		fprintf(out, "allow_lockout = yes\n");
	for (size_t i = 0; i < p->n_admin_groups; i++)
		fprintf(out, "%s%s", i ? ", " : "admin_groups = ", p->admin_groups[i]);
	if (p->n_admin_groups)
		fprintf(out, "\n");
	print_rule(out, &p->global);
	if (!rule_is_empty(&p->setuid)) {
		fprintf(out, "\n[setuid]\n");
		print_rule(out, &p->setuid);
	}
	for (size_t i = 0; i < p->n_uids; i++) {
		fprintf(out, "\n[uid %u]\n", p->uids[i].uid);
		print_rule(out, &p->uids[i].rule);
	}
	for (size_t i = 0; i < p->n_cgroups; i++) {
		fprintf(out, "\n[cgroup %s]\n", p->cgroups[i].path);
		print_rule(out, &p->cgroups[i].rule);
	}
}
