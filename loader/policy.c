// SPDX-License-Identifier: GPL-2.0
#include "policy.h"

#include <errno.h>
#include <ini.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "units.h"

static const char *const mode_names[] = { "off", "audit", "enforce" };
static const char *const action_names[] = { "allow", "audit", "deny" };
static const char *const verdict_names[] = { "allow", "audit", "would-deny", "deny",
					     "kernel-refused" };
static const char *const scope_names[] = { "global", "uid",	   "cgroup",
					   "setuid", "empty_argv", "kernel" };
static const char *const limit_names[] = {
	"none",	    "max_argv_bytes", "max_envp_bytes", "max_total_bytes", "max_argc",
	"max_envc", "empty_argv",     "kernel",		"exec_arg_max"
};

static const char *const drop_names[] = { "rate_limited", "ring_full" };

static const struct {
	const char *name;
	int value;
} errnos[] = { { "E2BIG", E2BIG }, { "EPERM", EPERM }, { "EACCES", EACCES }, { "ENOMEM", ENOMEM } };

#define NAME_OF(table, i) ((i) < sizeof(table) / sizeof(table[0]) ? table[i] : "unknown")

const char *mode_name(uint32_t mode)
{
	return NAME_OF(mode_names, mode);
}

const char *action_name(uint32_t action)
{
	return NAME_OF(action_names, action);
}

const char *verdict_name(uint32_t verdict)
{
	return NAME_OF(verdict_names, verdict);
}

const char *drop_name(uint32_t reason)
{
	return NAME_OF(drop_names, reason);
}

const char *scope_name(uint32_t scope)
{
	return NAME_OF(scope_names, scope);
}

const char *limit_name(uint32_t limit)
{
	return NAME_OF(limit_names, limit);
}

static int lookup(const char *const *names, size_t n, const char *text)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], text))
			return (int)i;
	return -1;
}

static const char *errno_name(int err)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (errnos[i].value == err)
			return errnos[i].name;
	return "E2BIG"; /* how the BPF side reads any other value */
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
	free(p->uids);
	free(p->cgroups);
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

/* The state of one parse. inih reports no line numbers, so the reader counts them. */
struct parser {
	FILE *in;
	const char *name;
	struct policy *p;
	unsigned int line;
	bool at_line_start;
	char section[256]; /* the section the current rule belongs to */
	struct argguard_rule *rule; /* NULL in a section that is not a rule */
	unsigned int empty_section_line; /* a section header with no key yet */
	char pending[256]; /* that header's name */
	char *err;
	size_t err_len;
	bool failed;
};

static void fail(struct parser *ps, const char *fmt, ...)
{
	int n;
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = true;
	n = snprintf(ps->err, ps->err_len, "%s:%u: ", ps->name, ps->line);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < ps->err_len)
		vsnprintf(ps->err + n, ps->err_len - n, fmt, ap);
	va_end(ap);
}

static char *read_line(char *buf, int size, void *stream)
{
	struct parser *ps = stream;
	const char *s;

	if (!fgets(buf, size, ps->in))
		return NULL;
	if (ps->at_line_start)
		ps->line++;
	ps->at_line_start = strchr(buf, '\n') != NULL;
	s = buf + strspn(buf, " \t");
	if (*s == '[') {
		if (ps->empty_section_line) {
			unsigned int line = ps->line;

			ps->line = ps->empty_section_line;
			fail(ps, "section [%s] has no keys: give it at least 'action = ...'",
			     ps->pending);
			ps->line = line;
		}
		ps->empty_section_line = ps->line;
		snprintf(ps->pending, sizeof(ps->pending), "%.*s", (int)strcspn(s + 1, "]\n"),
			 s + 1);
	}
	return buf;
}

static bool parse_number(const char *value, uint64_t max, uint64_t *out)
{
	return !parse_bytes(value, out) && *out <= max;
}

static struct argguard_rule *add_uid_rule(struct parser *ps, uint32_t uid)
{
	struct argguard_rule rule = default_rule(), *added;
	struct policy *p = ps->p;

	for (size_t i = 0; i < p->n_uids; i++) {
		if (p->uids[i].uid == uid) {
			fail(ps, "a second rule for uid %u", uid);
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
	return added;
}

bool cgroup_path_valid(const char *path)
{
	const char *c = path;
	size_t len;

	if (path[0] != '/' || strlen(path) > ARGGUARD_CGROUP_PATH_LEN - 2)
		return false;
	if (!strcmp(path, "/"))
		return true;
	while (*c == '/') {
		len = strcspn(c + 1, "/");
		if (!len || (len == 1 && c[1] == '.') || (len == 2 && !strncmp(c + 1, "..", 2)))
			return false;
		c += 1 + len;
	}
	return true;
}

/*
 * A rule names a path, not a directory: the cgroup need not exist yet, and
 * the rule holds for each cgroup made at that path later.
 */
static struct argguard_rule *add_cgroup_rule(struct parser *ps, const char *path)
{
	struct argguard_rule rule = default_rule(), *added;
	struct policy *p = ps->p;

	if (!cgroup_path_valid(path)) {
		fail(ps,
		     "cgroup path '%s': expected '/' or '/a/b' below the cgroup v2 root, with no "
		     "empty, '.' or '..' part and at most %d bytes",
		     path, ARGGUARD_CGROUP_PATH_LEN - 2);
		return NULL;
	}
	for (size_t i = 0; i < p->n_cgroups; i++) {
		if (!strcmp(p->cgroups[i].path, path)) {
			fail(ps, "a second rule for cgroup %s", path);
			return NULL;
		}
	}
	if (p->n_cgroups == ARGGUARD_MAX_CGROUP_RULES) {
		fail(ps, "more than %d cgroup rules", ARGGUARD_MAX_CGROUP_RULES);
		return NULL;
	}
	added = policy_add_cgroup(p, path, &rule);
	if (!added)
		fail(ps, "out of memory");
	return added;
}

/* Start a section: find or create the rule its keys go into. */
static bool enter_section(struct parser *ps, const char *section)
{
	const char *arg = strchr(section, ' ');
	char kind[16];
	uint64_t uid;
	struct passwd *pw;

	snprintf(ps->section, sizeof(ps->section), "%s", section);
	if (!strcmp(section, "global")) {
		ps->rule = &ps->p->global;
		return true;
	}
	if (!strcmp(section, "setuid")) {
		ps->rule = &ps->p->setuid;
		return true;
	}
	if (!arg || (size_t)(arg - section) >= sizeof(kind))
		goto bad;
	snprintf(kind, sizeof(kind), "%.*s", (int)(arg - section), section);
	arg += strspn(arg, " ");
	if (!strcmp(kind, "uid")) {
		if (!parse_number(arg, UINT32_MAX - 1, &uid) || strpbrk(arg, "kKmMgG")) {
			fail(ps, "[uid %s]: expected a numeric uid", arg);
			return false;
		}
		ps->rule = add_uid_rule(ps, (uint32_t)uid);
	} else if (!strcmp(kind, "user")) {
		pw = getpwnam(arg);
		if (!pw) {
			fail(ps, "[user %s]: no such user", arg);
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

static bool set_global_key(struct parser *ps, const char *name, const char *value)
{
	int v;

	if (!strcmp(name, "mode")) {
		v = lookup(mode_names, 3, value);
		if (v < 0)
			fail(ps, "mode = %s: expected off, audit or enforce", value);
		else
			ps->p->mode = v;
		return true;
	}
	if (!strcmp(name, "argv_head_bytes")) {
		uint64_t n;

		if (!parse_number(value, ARGGUARD_HEAD_MAX, &n))
			fail(ps, "argv_head_bytes = %s: expected a byte count up to %d", value,
			     ARGGUARD_HEAD_MAX);
		else
			ps->p->head_bytes = (uint32_t)n;
		return true;
	}
	if (!strcmp(name, "event_rate") || !strcmp(name, "event_burst")) {
		uint64_t n;

		if (!parse_number(value, UINT32_MAX, &n) || strpbrk(value, "kKmMgG"))
			fail(ps, "%s = %s: expected a count up to %u", name, value, UINT32_MAX);
		else if (name[6] == 'r')
			ps->p->event_rate = (uint32_t)n;
		else
			ps->p->event_burst = (uint32_t)n;
		return true;
	}
	if (!strcmp(name, "empty_argv")) {
		v = lookup(action_names, 3, value);
		if (v < 0)
			fail(ps, "empty_argv = %s: expected allow, audit or deny", value);
		else
			ps->p->empty_argv_action = v;
		return true;
	}
	return false;
}

static void set_rule_key(struct parser *ps, const char *name, const char *value)
{
	struct argguard_rule *r = ps->rule;
	uint64_t n;
	int v;

	if (!strcmp(name, "action")) {
		v = lookup(action_names, 3, value);
		if (v < 0)
			fail(ps, "action = %s: expected allow, audit or deny", value);
		else
			r->action = v;
	} else if (!strcmp(name, "errno")) {
		for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++) {
			if (!strcmp(errnos[i].name, value)) {
				r->deny_errno = errnos[i].value;
				return;
			}
		}
		fail(ps, "errno = %s: expected E2BIG, EPERM, EACCES or ENOMEM", value);
	} else if (!strcmp(name, "max_argv_bytes") || !strcmp(name, "max_envp_bytes") ||
		   !strcmp(name, "max_total_bytes")) {
		if (!parse_number(value, UINT64_MAX, &n)) {
			fail(ps, "%s = %s: expected a byte count such as 4096, 256K or 4M", name,
			     value);
			return;
		}
		if (name[4] == 'a')
			r->max_argv_bytes = n;
		else if (name[4] == 'e')
			r->max_envp_bytes = n;
		else
			r->max_total_bytes = n;
	} else if (!strcmp(name, "max_argc") || !strcmp(name, "max_envc")) {
		if (!parse_number(value, UINT32_MAX, &n)) {
			fail(ps, "%s = %s: expected a count up to %u", name, value, UINT32_MAX);
			return;
		}
		if (name[4] == 'a')
			r->max_argc = (uint32_t)n;
		else
			r->max_envc = (uint32_t)n;
	} else {
		fail(ps,
		     "unknown key '%s' in [%s]: expected max_argv_bytes, max_envp_bytes, "
		     "max_total_bytes, max_argc, max_envc, action or errno%s",
		     name, ps->section,
		     strcmp(ps->section, "global")
			     ? ""
			     : " (or mode, empty_argv, argv_head_bytes, event_rate, event_burst)");
	}
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct parser *ps = user;

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
	if (ps->rule == &ps->p->global && set_global_key(ps, name, value))
		return 1;
	set_rule_key(ps, name, value);
	return 1;
}

int policy_parse(FILE *in, const char *name, struct policy *p, char *err, size_t err_len)
{
	struct parser ps = {
		.in = in,
		.name = name,
		.p = p,
		.at_line_start = true,
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
	if (!ps.failed && ps.empty_section_line) {
		ps.line = ps.empty_section_line;
		fail(&ps, "section [%s] has no keys: give it at least 'action = ...'", ps.pending);
	}
	if (!ps.failed && line < 0)
		fail(&ps, "cannot read the file");
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
	fprintf(out, "errno = %s\n", errno_name(r->deny_errno));
}

static bool rule_is_empty(const struct argguard_rule *r)
{
	return !r->max_argv_bytes && !r->max_envp_bytes && !r->max_total_bytes && !r->max_argc &&
	       !r->max_envc;
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
	if (p->event_rate)
		fprintf(out, "event_rate = %u\nevent_burst = %u\n", p->event_rate,
			p->event_burst ? p->event_burst : 1);
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
