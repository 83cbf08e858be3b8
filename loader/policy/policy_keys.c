// SPDX-License-Identifier: GPL-2.0
/* What each section and key of a policy file means: the rules and settings they make. */
#include "policy_keys.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_pattern.h"
#include "names.h"
#include "units.h"

static int lookup(const char *const *names, size_t n, const char *text)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], text))
			return (int)i;
	return -1;
}

#define KEY_NAME(key, name) [KEY_##key] = name,
#define LIMIT_KEY_NAME(key, unit, floor) [KEY_LIMIT + POLICY_LIMIT_##key] = #key,
static const char *const key_names[NR_KEYS] = { POLICY_KEYS(KEY_NAME)
							POLICY_LIMITS(LIMIT_KEY_NAME) };

static bool parse_number(const char *value, uint64_t max, uint64_t *out)
{
	return !parse_bytes(value, out) && *out <= max;
}

/* A count: decimal digits, no K, M or G. */
static bool parse_count(const char *value, uint64_t max, uint64_t *out)
{
	return !strpbrk(value, "kKmMgG") && parse_number(value, max, out);
}

/* Whether a table that holds n of what (at most max) has room for one more; else why not. */
static bool has_room(struct policy_parser *ps, size_t n, size_t max, const char *what)
{
	if (n < max)
		return true;
	policy_fail(ps, "more than %zu %s", max, what);
	return false;
}

/* The rule just added; NULL, and why, when out of memory. */
static struct argguard_rule *added(struct policy_parser *ps, struct argguard_rule *rule)
{
	if (!rule)
		policy_fail(ps, "out of memory");
	return rule;
}

static struct argguard_rule *add_uid_rule(struct policy_parser *ps, uint32_t uid)
{
	struct argguard_rule rule = policy_rule_default();
	struct policy *p = ps->p;
	char first[POLICY_WHERE_MAX];

	for (size_t i = 0; i < p->n_uids; i++) {
		if (p->uids[i].uid == uid) {
			policy_fail(ps, "a second rule for uid %u (the first is at %s)", uid,
				    policy_line_from(ps, p->uids[i].line, ps->line, first));
			return NULL;
		}
	}
	if (!has_room(ps, p->n_uids, ARGGUARD_MAX_UID_RULES, "uid rules"))
		return NULL;
	return added(ps, policy_add_uid(p, uid, &rule, ps->line));
}

/* Whether path has a "." or ".." component: a pattern spells its path out. */
static bool has_dot_component(const char *path)
{
	size_t n;

	for (const char *c = path; *c; c += n) {
		c += strspn(c, "/");
		n = strcspn(c, "/");
		if ((n == 1 && c[0] == '.') || (n == 2 && !strncmp(c, "..", 2)))
			return true;
	}
	return false;
}

/*
 * A rule names a path, not a directory: the cgroup need not exist yet, and
 * the rule holds for each cgroup made at that path later.
 */
static struct argguard_rule *add_cgroup_rule(struct policy_parser *ps, const char *path)
{
	struct argguard_rule rule = policy_rule_default();
	char canonical[ARGGUARD_CGROUP_PATH_LEN - 1], why[128], first[POLICY_WHERE_MAX];
	struct policy *p = ps->p;
	size_t patterns = 0;
	int err;

	if (path[0] != '/') {
		policy_fail(ps,
			    "cgroup path '%s' must start with '/' (relative to the cgroup v2 root)",
			    path);
		return NULL;
	}
	if (strchr(path, '*') && has_dot_component(path)) {
		policy_fail(ps, "cgroup pattern '%s' has a '.' or '..' component: spell it out",
			    path);
		return NULL;
	}
	err = cgroup_path_canonical(path, canonical, sizeof(canonical));
	if (err == -ENAMETOOLONG) {
		policy_fail(ps, "cgroup path '%s' is longer than %zu bytes", path,
			    sizeof(canonical) - 1);
		return NULL;
	}
	if (err) {
		policy_fail(ps, "cgroup path '%s' leads above the cgroup root", path);
		return NULL;
	}
	if (cgroup_is_pattern(canonical) && !cgroup_pattern_check(canonical, why, sizeof(why))) {
		policy_fail(ps, "cgroup pattern '%s': %s", path, why);
		return NULL;
	}
	for (size_t i = 0; i < p->n_cgroups; i++) {
		patterns += cgroup_is_pattern(p->cgroups[i].path);
		if (!strcmp(p->cgroups[i].path, canonical)) {
			policy_fail(ps, "a second rule for cgroup %s (the first is at %s)",
				    canonical,
				    policy_line_from(ps, p->cgroups[i].line, ps->line, first));
			return NULL;
		}
	}
	if ((cgroup_is_pattern(canonical) &&
	     !has_room(ps, patterns, ARGGUARD_MAX_CGROUP_PATTERNS, "cgroup patterns")) ||
	    !has_room(ps, p->n_cgroups, ARGGUARD_MAX_CGROUP_RULES, "cgroup rules"))
		return NULL;
	return added(ps, policy_add_cgroup(p, canonical, &rule, ps->line));
}

/*
 * [global] or [setuid]: one rule, from a section in each file at most
 * (*line the first's, *last the one before this), each of its keys set once
 * in all of them (key_line).
 */
static struct argguard_rule *enter_single(struct policy_parser *ps, const char *section,
					  unsigned int *line, unsigned int *last,
					  unsigned int *key_line, struct argguard_rule *rule)
{
	char first[POLICY_WHERE_MAX];

	if (*last > ps->first) {
		policy_fail(ps, "a second [%s] section (the first is at %s)", section,
			    policy_line_from(ps, *last, ps->line, first));
		return NULL;
	}
	if (!*line)
		*line = ps->line;
	*last = ps->line;
	ps->key_line = key_line;
	return rule;
}

/*
 * [user NAME]: the rule of NAME's uid; NULL, and why, if there is none.
 * A name this host does not know is skipped: its section is read, and
 * dropped.
 */
static struct argguard_rule *enter_user(struct policy_parser *ps, const char *name)
{
	struct passwd *pw = getpwnam(name);

	if (!pw) {
		policy_unknown_name(ps, "rule skipped", "[user %s]: no such user on this host",
				    name);
		ps->skipped = policy_rule_default();
		return ps->failed ? NULL : &ps->skipped;
	}
	if (pw->pw_uid == (uid_t)-1) {
		policy_fail(ps, "[user %s]: uid %u is no one's", name, (unsigned int)pw->pw_uid);
		return NULL;
	}
	return add_uid_rule(ps, pw->pw_uid);
}

/* Start a section: find or create the rule its keys go into, or fail. */
void policy_enter_section(struct policy_parser *ps, const char *section)
{
	const char *arg = strchr(section, ' ');
	struct policy *p = ps->p;
	char kind[16];
	uint64_t uid;

	snprintf(ps->section, sizeof(ps->section), "%s", section);
	ps->section_line = ps->line;
	ps->key_in_section = false;
	ps->rule = NULL;
	memset(ps->rule_key_line, 0, sizeof(ps->rule_key_line));
	ps->key_line = ps->rule_key_line;
	if (!strcmp(section, "global")) {
		ps->rule = enter_single(ps, section, &p->global_line, &ps->global_header,
					ps->global_key_line, &p->global);
		return;
	}
	if (!strcmp(section, "setuid")) {
		ps->rule = enter_single(ps, section, &p->setuid_line, &ps->setuid_header,
					ps->setuid_key_line, &p->setuid);
		return;
	}
	if (!arg || (size_t)(arg - section) >= sizeof(kind))
		goto bad;
	snprintf(kind, sizeof(kind), "%.*s", (int)(arg - section), section);
	arg += strspn(arg, " ");
	if (!strcmp(kind, "uid")) {
		if (!parse_count(arg, UINT32_MAX - 1, &uid)) {
			policy_fail(ps, "[uid %s]: expected a numeric uid from 0 to %u", arg,
				    UINT32_MAX - 1);
			return;
		}
		ps->rule = add_uid_rule(ps, (uint32_t)uid);
	} else if (!strcmp(kind, "user")) {
		ps->rule = enter_user(ps, arg);
	} else if (!strcmp(kind, "cgroup")) {
		ps->rule = add_cgroup_rule(ps, arg);
	} else {
		goto bad;
	}
	return;
bad:
	policy_fail(ps,
		    "unknown section [%s]: expected [global], [setuid], [uid N], [user NAME] or "
		    "[cgroup "
		    "/PATH]",
		    section);
}

static void set_choice(struct policy_parser *ps, const char *name, const char *value,
		       int (*parse)(const char *), const char *expected, uint32_t *out)
{
	int v = parse(value);

	if (v < 0)
		policy_fail(ps, "%s = %s: expected %s", name, value, expected);
	else
		*out = (uint32_t)v;
}

static void set_count(struct policy_parser *ps, const char *name, const char *value, uint64_t max,
		      const char *meaning, uint32_t *out)
{
	uint64_t n;

	if (!parse_count(value, max, &n))
		policy_fail(ps, "%s = %s: expected a count from 0 to %llu%s", name, value,
			    (unsigned long long)max, meaning);
	else
		*out = (uint32_t)n;
}

static void set_yes_no(struct policy_parser *ps, const char *name, const char *value, bool *out)
{
	if (strcmp(value, "yes") && strcmp(value, "no"))
		policy_fail(ps, "%s = %s: expected yes or no", name, value);
	else
		*out = !strcmp(value, "yes");
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
 * admin_groups = sudo, adm, ops: groups, each named once, few enough that
 * policy_print() writes them on one line. The list is checked whole before
 * any group is looked up. A group this host does not know is kept, with a
 * warning: policy_admins_lookup() counts each uid a rule names as maybe
 * its member, so the gate does not protect fewer admins for it.
 */
static void set_admin_groups(struct policy_parser *ps, const char *value)
{
	struct policy *p = ps->p;
	char list[POLICY_LINE_MAX + 1], *item, *next, **more;

	snprintf(list, sizeof(list), "%s", value);
	for (item = list; item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		item = policy_trim(item);
		if (!*item) {
			policy_fail(ps,
				    "admin_groups = %s: expected group names separated by commas, "
				    "such as sudo, adm",
				    value);
			return;
		}
		for (size_t i = 0; i < p->n_admin_groups; i++) {
			if (!strcmp(p->admin_groups[i], item)) {
				policy_fail(ps, "admin_groups = %s: group %s is named twice", value,
					    item);
				return;
			}
		}
		more = realloc(p->admin_groups, (p->n_admin_groups + 1) * sizeof(*more));
		if (!more) {
			policy_fail(ps, "out of memory");
			return;
		}
		p->admin_groups = more;
		p->admin_groups[p->n_admin_groups] = strdup(item);
		if (!p->admin_groups[p->n_admin_groups]) {
			policy_fail(ps, "out of memory");
			return;
		}
		p->n_admin_groups++;
	}
	if (admin_groups_printed(p) > POLICY_LINE_MAX) {
		policy_fail(ps,
			    "admin_groups: %zu groups take %zu bytes as 'admin_groups = A, B, "
			    "...', more "
			    "than a line's %d: name fewer groups",
			    p->n_admin_groups, admin_groups_printed(p), POLICY_LINE_MAX);
		return;
	}
	for (size_t i = 0; i < p->n_admin_groups && !ps->failed; i++)
		if (!getgrnam(p->admin_groups[i]))
			policy_unknown_name(ps,
					    "the lockout gate counts each uid a rule names as "
					    "maybe its member",
					    "admin_groups = %s: no such group %s on this host",
					    value, p->admin_groups[i]);
}

/* The keys that take a count of records: its bound, what it means, and where it goes. */
static const struct {
	uint64_t max;
	const char *meaning;
	size_t offset; /* of its uint32_t in struct policy */
} count_keys[] = {
	[KEY_EVENT_RATE] = { POLICY_EVENT_RATE_MAX, " records a second (0: no limit)",
			     offsetof(struct policy, event_rate) },
	[KEY_EVENT_BURST] = { POLICY_EVENT_BURST_MAX, " records (0: 1)",
			      offsetof(struct policy, event_burst) },
	[KEY_EVENT_RATE_TOTAL] = { POLICY_EVENT_RATE_MAX, " records a second (0: no limit)",
				   offsetof(struct policy, event_rate_total) },
};

static void set_global_key(struct policy_parser *ps, enum policy_key key, const char *value)
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
			policy_fail(ps, "%s = %s: expected a byte count from 0 to %d (0: %d)", name,
				    value, ARGGUARD_HEAD_MAX, ARGGUARD_HEAD_DEFAULT);
		else
			p->head_bytes = (uint32_t)n;
		break;
	case KEY_EVENT_RATE:
	case KEY_EVENT_BURST:
	case KEY_EVENT_RATE_TOTAL:
		set_count(ps, name, value, count_keys[key].max, count_keys[key].meaning,
			  (uint32_t *)((char *)p + count_keys[key].offset));
		break;
	case KEY_ALLOW_LOCKOUT:
	case KEY_LEARN_SIZES:
		set_yes_no(ps, name, value,
			   key == KEY_ALLOW_LOCKOUT ? &p->allow_lockout : &p->learn_sizes);
		break;
	case KEY_ADMIN_GROUPS:
		set_admin_groups(ps, value);
		break;
	case KEY_UNKNOWN_NAMES:
		if (strcmp(value, "warn") && strcmp(value, "error"))
			policy_fail(ps, "%s = %s: expected warn or error", name, value);
		else
			p->unknown_names_error = !strcmp(value, "error");
		break;
	default:
		break;
	}
}

static void set_limit(struct policy_parser *ps, enum policy_limit l, const char *value)
{
	const struct policy_limit_info *limit = &policy_limits[l];
	uint64_t n;

	if (parse_number(value, limit->max, &n)) {
		policy_limit_set(ps->rule, l, n);
		if (ps->rule == &ps->p->global)
			ps->p->global_limit_line[l] = ps->section_line;
		else if (ps->rule == &ps->p->setuid)
			ps->p->setuid_limit_line[l] = ps->section_line;
	} else if (limit->unit == POLICY_BYTES)
		policy_fail(ps,
			    "%s = %s: expected a byte count such as 4096, 256K or 4M, from 0 (no "
			    "limit) "
			    "to "
			    "%llu",
			    limit->key, value, (unsigned long long)limit->max);
	else
		policy_fail(ps, "%s = %s: expected a count from 0 (no limit) to %llu", limit->key,
			    value, (unsigned long long)limit->max);
}

static void set_rule_key(struct policy_parser *ps, enum policy_key key, const char *value)
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
			policy_fail(ps, "errno = %s: expected E2BIG, EPERM, EACCES or ENOMEM",
				    value);
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

void policy_set_key(struct policy_parser *ps, const char *name, const char *value)
{
	char limits[256], first[POLICY_WHERE_MAX];
	int key;

	if (!ps->rule) {
		policy_fail(ps,
			    "'%s' outside any section: start the file with a section, such as "
			    "[global]",
			    name);
		return;
	}
	ps->key_in_section = true;
	key = lookup(key_names, NR_KEYS, name);
	if (key < 0 || (key < FIRST_RULE_KEY && ps->rule != &ps->p->global)) {
		policy_fail(ps, "unknown key '%s' in [%s]: expected %saction or errno%s", name,
			    ps->section, limit_keys(limits, sizeof(limits)),
			    ps->rule != &ps->p->global
				    ? ""
				    : " (or mode, empty_argv, argv_head_bytes, "
				      "event_rate, event_burst, event_rate_total, "
				      "allow_lockout, learn_sizes, admin_groups, unknown_names)");
		return;
	}
	if (ps->key_line[key]) {
		policy_fail(ps, "a second '%s' in [%s] (the first is at %s)", name, ps->section,
			    policy_line_from(ps, ps->key_line[key], ps->line, first));
		return;
	}
	ps->key_line[key] = ps->line;
	if (key < FIRST_RULE_KEY)
		set_global_key(ps, key, value);
	else
		set_rule_key(ps, key, value);
}
