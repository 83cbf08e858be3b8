// SPDX-License-Identifier: GPL-2.0
/*
 * The lockout gate: would a policy deny admins' own commands? With the
 * lookup of which uids that rules name are admins.
 */
#include "cgroup_pattern.h"
#include "log.h"
#include "policy.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

/* A limit of r that would deny common admin commands, or POLICY_NR_LIMITS. */
static enum policy_limit locking_limit(const struct argguard_rule *r)
{
	uint64_t value;

	/* An action out of range reads as deny. */
	if (r->action == ARGGUARD_ACTION_ALLOW || r->action == ARGGUARD_ACTION_AUDIT)
		return POLICY_NR_LIMITS;
	for (enum policy_limit l = 0; l < POLICY_NR_LIMITS; l++) {
		value = policy_limit_get(r, l);
		if (value && value < policy_limits[l].lockout_floor)
			return l;
	}
	return POLICY_NR_LIMITS;
}

/*
 * Does a cgroup rule at path hold for root's shell, sudo, or what starts
 * them: the root, systemd's own scope, the system and user slices, a login
 * session, or an ssh or getty unit? A pattern is tried on sample cgroups
 * there, as well as on root's and the admins' own (admin_cgroup_held()).
 */
static bool admin_cgroup(const char *path)
{
	/* Where a pattern meets admins: the cgroups that the paths below name, as systemd names them. */
	static const char *const admins[] = {
		"/init.scope",
		"/system.slice",
		"/system.slice/ssh.service",
		"/system.slice/getty@tty1.service",
		"/system.slice/serial-getty@ttyS0.service",
		"/user.slice",
		"/user.slice/user-0.slice",
		"/user.slice/user-0.slice/session-1.scope",
		"/user.slice/user-0.slice/user@0.service",
		"/user.slice/user-1000.slice/session-1.scope",
	};
	const char *unit;

	if (cgroup_is_pattern(path)) {
		for (size_t i = 0; i < sizeof(admins) / sizeof(admins[0]); i++)
			if (cgroup_pattern_match(path, admins[i], NULL))
				return true;
		return false;
	}

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

/*
 * Copy the size bytes at one to the end of an array of *n: 0, or -ENOMEM
 * with the array as it was. list is the address of the array's pointer,
 * whatever its element type (every object pointer is alike on Linux).
 */
static int append(void *list, size_t *n, const void *one, size_t size)
{
	char *items, *more;

	memcpy(&items, list, sizeof(items));
	more = realloc(items, (*n + 1) * size);
	if (!more)
		return -ENOMEM;
	memcpy(more + *n * size, one, size);
	memcpy(list, &more, sizeof(more));
	(*n)++;
	/* cppcheck-suppress memleak ; cppcheck loses more in the memcpy() into *list */
	return 0;
}

static int add_admin(struct policy_admins *a, uint32_t uid, const char *user, const char *group,
		     bool maybe)
{
	struct policy_admin one = { .uid = uid, .maybe = maybe };

	snprintf(one.user, sizeof(one.user), "%s", user);
	snprintf(one.group, sizeof(one.group), "%s", group);
	return append(&a->list, &a->n, &one, sizeof(one));
}

static const struct policy_admin *find_admin(const struct policy_admins *a, uint32_t uid)
{
	for (size_t i = 0; a && i < a->n; i++)
		if (a->list[i].uid == uid)
			return &a->list[i];
	return NULL;
}

/* Are the len bytes at name head, then one byte or more, then tail? */
static bool named_between(const char *name, size_t len, const char *head, const char *tail)
{
	size_t h = strlen(head), t = strlen(tail);

	return len > h + t && !strncmp(name, head, h) && !strncmp(name + len - t, tail, t);
}

/*
 * Call each(name, ctx) for each entry of the cgroup directory
 * cgroup_root/dir (dir starts with a '/') named head, something, then
 * tail, until one fails: 0, or its error. None where the tree is not
 * known or the directory cannot be read.
 */
static int each_cgroup_named(const char *cgroup_root, const char *dir, const char *head,
			     const char *tail, int (*each)(const char *name, void *ctx), void *ctx)
{
	char path[4096];
	struct dirent *e;
	DIR *d;
	int ret = 0;

	if (!cgroup_root)
		return 0;
	snprintf(path, sizeof(path), "%s%s", cgroup_root, dir);
	d = opendir(path);
	if (!d)
		return 0;
	while (!ret && (e = readdir(d)))
		if (named_between(e->d_name, strlen(e->d_name), head, tail))
			ret = each(e->d_name, ctx);
	closedir(d);
	return ret;
}

/* Is the len bytes at name "user-UID.slice", systemd's slice of one user? Its uid into *uid. */
static bool user_slice_uid(const char *name, size_t len, uint32_t *uid)
{
	const size_t head = strlen("user-"), tail = strlen(".slice");
	unsigned long long n = 0;
	size_t i;

	if (!named_between(name, len, "user-", ".slice"))
		return false;
	for (i = head; i < len - tail; i++) {
		if (name[i] < '0' || name[i] > '9' || n > UINT32_MAX / 10)
			return false;
		n = n * 10 + (unsigned int)(name[i] - '0');
	}
	if (n >= UINT32_MAX)
		return false;
	*uid = (uint32_t)n;
	return true;
}

/* The admin groups as this machine knows them: p's, or the defaults it has. */
struct admin_gids {
	const char *const *names;
	size_t n;
	gid_t *gids;
	bool *exists;
	const char *unknown; /* the first group p names that this machine does not know */
};

/*
 * uid as an admin if its primary group is an admin group; else, if p names
 * a group this machine does not know, as maybe one: it may be a member.
 */
static int add_by_primary_group(const struct admin_gids *g, uint32_t uid, struct policy_admins *out)
{
	struct passwd *pw;
	char user[64];

	if (!uid || find_admin(out, uid))
		return 0;
	pw = getpwuid(uid);
	for (size_t i = 0; pw && i < g->n; i++)
		if (g->exists[i] && pw->pw_gid == g->gids[i])
			return add_admin(out, uid, pw->pw_name, g->names[i], false);
	if (!g->unknown)
		return 0;
	if (pw)
		snprintf(user, sizeof(user), "%s", pw->pw_name);
	else
		snprintf(user, sizeof(user), "uid %u", uid);
	return add_admin(out, uid, user, g->unknown, true);
}

/* The uids whose slice ("user-UID.slice") a cgroup rule's path names, by primary group. */
static int add_slices_named(const struct policy *p, const struct admin_gids *g,
			    struct policy_admins *out)
{
	const char *c;
	uint32_t uid;
	size_t n;
	int ret;

	for (size_t i = 0; i < p->n_cgroups; i++) {
		for (c = p->cgroups[i].path; *c; c += n) {
			c += strspn(c, "/");
			n = strcspn(c, "/");
			if (!user_slice_uid(c, n, &uid))
				continue;
			ret = add_by_primary_group(g, uid, out);
			if (ret)
				return ret;
		}
	}
	return 0;
}

struct primary_groups {
	const struct admin_gids *g;
	struct policy_admins *out;
};

/*
 * A uid with a slice under cgroup_root/user.slice, logged in or lingering
 * now, by primary group. A cgroup tree that cannot be read adds none: the
 * gate judges every admin it knows of by the cgroups systemd would give them.
 */
static int add_slice_present(const char *name, void *ctx)
{
	const struct primary_groups *p = ctx;
	uint32_t uid;

	if (!user_slice_uid(name, strlen(name), &uid))
		return 0;
	return add_by_primary_group(p->g, uid, p->out);
}

/*
 * First every member that each group lists, in the order the file names
 * the groups; then, by their primary group, the uids that uid rules name,
 * that cgroup rules name the slice of, and that have a slice now. Only
 * those uids are looked up, so a large user directory is never walked.
 */
int policy_admins_lookup(const struct policy *p, const char *cgroup_root, struct policy_admins *out)
{
	struct admin_gids g = { 0 };
	struct passwd *pw;
	struct group *gr;
	int ret = -ENOMEM;

	*out = (struct policy_admins){ 0 };
	g.names = admin_group_names(p, &g.n);
	g.gids = calloc(g.n, sizeof(*g.gids));
	g.exists = calloc(g.n, sizeof(*g.exists));
	if (!g.gids || !g.exists)
		goto out;
	for (size_t i = 0; i < g.n; i++) {
		gr = getgrnam(g.names[i]);
		if (!gr)
			continue; /* a default group this machine lacks, or one gone since the parse */
		g.exists[i] = true;
		g.gids[i] = gr->gr_gid;
		for (char **m = gr->gr_mem; *m; m++) {
			pw = getpwnam(*m);
			if (pw && pw->pw_uid && !find_admin(out, pw->pw_uid) &&
			    add_admin(out, pw->pw_uid, *m, g.names[i], false))
				goto out;
		}
	}
	/*
	 * A group the file names and this machine does not know (yet: a
	 * directory service not up) is not no group: its members are unknown.
	 */
	for (size_t i = 0; p->n_admin_groups && !g.unknown && i < g.n; i++)
		if (!g.exists[i])
			g.unknown = g.names[i];
	for (size_t i = 0; i < p->n_uids; i++)
		if (add_by_primary_group(&g, p->uids[i].uid, out))
			goto out;
	if (add_slices_named(p, &g, out) ||
	    each_cgroup_named(cgroup_root, "/user.slice", "user-", ".slice", add_slice_present,
			      &(struct primary_groups){ .g = &g, .out = out }))
		goto out;
	ret = 0;
out:
	if (ret)
		policy_admins_free(out);
	free(g.gids);
	free(g.exists);
	return ret;
}

void policy_admins_free(struct policy_admins *a)
{
	free(a->list);
	*a = (struct policy_admins){ 0 };
}

/* Room for a cgroup path in an admin's slice: a session's name is 255 bytes at most. */
#define ADMIN_CGROUP_LEN 512

/* A cgroup that an admin's shell or sudo runs in, and whose. */
struct admin_cgroup {
	const struct policy_admin *who;
	char path[ADMIN_CGROUP_LEN];
};

struct admin_cgroups {
	struct admin_cgroup *list;
	size_t n;
};

static int add_admin_cgroup(struct admin_cgroups *c, const struct policy_admin *who,
			    const char *dir, const char *leaf)
{
	struct admin_cgroup one = { .who = who };

	snprintf(one.path, sizeof(one.path), "%s%s", dir, leaf);
	return append(&c->list, &c->n, &one, sizeof(one));
}

struct user_slice {
	struct admin_cgroups *c;
	const struct policy_admin *who;
	const char *slice;
};

/*
 * A session scope ("session-N.scope") in a user's slice now. With no one
 * logged in, none: the sessions systemd would make stand for them.
 */
static int add_live_session(const char *name, void *ctx)
{
	const struct user_slice *u = ctx;
	char leaf[258];

	snprintf(leaf, sizeof(leaf), "/%s", name);
	return add_admin_cgroup(u->c, u->who, u->slice, leaf);
}

/*
 * Where who's shells and sudo run, as systemd names it: the user's slice,
 * its login sessions (those in cgroup_root now; then a console and a
 * non-console one, so a pattern for sessions counts with no one logged in),
 * and the user's service manager with the units it starts.
 */
static int add_user_cgroups(struct admin_cgroups *c, const struct policy_admin *who,
			    const char *cgroup_root)
{
	static const char *const in_slice[] = { "", "/session-1.scope", "/session-c1.scope" };
	static const char *const in_service[] = { "", "/app.slice", "/session.slice",
						  "/init.scope" };
	char slice[64], service[96];
	int ret;

	snprintf(slice, sizeof(slice), "/user.slice/user-%u.slice", who->uid);
	snprintf(service, sizeof(service), "%s/user@%u.service", slice, who->uid);
	ret = add_admin_cgroup(c, who, slice, in_slice[0]);
	if (!ret)
		ret = each_cgroup_named(cgroup_root, slice, "session-", ".scope", add_live_session,
					&(struct user_slice){ .c = c, .who = who, .slice = slice });
	for (size_t i = 1; !ret && i < sizeof(in_slice) / sizeof(in_slice[0]); i++)
		ret = add_admin_cgroup(c, who, slice, in_slice[i]);
	for (size_t i = 0; !ret && i < sizeof(in_service) / sizeof(in_service[0]); i++)
		ret = add_admin_cgroup(c, who, service, in_service[i]);
	return ret;
}

static const struct policy_admin root_admin = { .uid = 0, .user = "root", .group = "root" };

/* The cgroups of root's and each admin's sessions into *c. 0, or -ENOMEM with *c empty. */
static int admin_cgroups_find(const struct policy_admins *admins, const char *cgroup_root,
			      struct admin_cgroups *c)
{
	int ret;

	*c = (struct admin_cgroups){ 0 };
	ret = add_user_cgroups(c, &root_admin, cgroup_root);
	for (size_t i = 0; !ret && admins && i < admins->n; i++)
		ret = add_user_cgroups(c, &admins->list[i], cgroup_root);
	if (ret) {
		free(c->list);
		*c = (struct admin_cgroups){ 0 };
	}
	return ret;
}

/*
 * Does the cgroup rule at rule, a path or a pattern, hold for the cgroup at
 * path? It does if it matches path or one of its ancestors: a rule holds
 * for the cgroups below those it matches.
 */
static bool rule_holds_in(const char *rule, const char *path)
{
	bool pattern = cgroup_is_pattern(rule);
	char at[ADMIN_CGROUP_LEN];
	char *slash;

	if (!strcmp(rule, "/"))
		return true;
	snprintf(at, sizeof(at), "%s", path);
	do {
		if (pattern ? cgroup_pattern_match(rule, at, NULL) : !strcmp(rule, at))
			return true;
		slash = strrchr(at, '/');
		if (slash)
			*slash = '\0';
	} while (slash && slash != at);
	return false;
}

/* The first of the admins' cgroups that the cgroup rule at rule holds for; NULL if none. */
static const struct admin_cgroup *admin_cgroup_held(const char *rule, const struct admin_cgroups *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (rule_holds_in(rule, c->list[i].path))
			return &c->list[i];
	return NULL;
}

/* A rule that locks admins out: where it is, and whom it locks out. */
struct lockout {
	unsigned int line;
	char section[4096 + 8];
	const struct argguard_rule *rule;
	enum policy_limit limit;
	const struct policy_admin *who; /* the admin the rule holds for; NULL: root and sudo */
	char cgroup[ADMIN_CGROUP_LEN]; /* the cgroup of who's it holds in; "" if none named */
};

/*
 * Does the rule r lock admins out? Into *out if so. Its section is at line,
 * or, where the files have one each ([global], [setuid]), at the line
 * limit_line gives for the limit.
 */
static bool rule_locks_out(unsigned int line, const unsigned int *limit_line, const char *section,
			   const struct argguard_rule *r, const struct policy_admin *who,
			   struct lockout *out)
{
	enum policy_limit l = locking_limit(r);

	if (l == POLICY_NR_LIMITS)
		return false;
	if (limit_line && limit_line[l])
		line = limit_line[l];
	*out = (struct lockout){ .line = line, .rule = r, .limit = l, .who = who };
	snprintf(out->section, sizeof(out->section), "%s", section);
	return true;
}

/*
 * The first cgroup rule of p that would deny root or an admin in one of
 * their sessions' cgroups (cgroups), or in a cgroup that admin_cgroup()
 * names, into *out.
 */
static bool find_cgroup_lockout(const struct policy *p, const struct admin_cgroups *cgroups,
				struct lockout *out)
{
	const struct admin_cgroup *held;
	char section[4096 + 8];

	for (size_t i = 0; i < p->n_cgroups; i++) {
		if (locking_limit(&p->cgroups[i].rule) == POLICY_NR_LIMITS)
			continue;
		held = admin_cgroup_held(p->cgroups[i].path, cgroups);
		if (!held && !admin_cgroup(p->cgroups[i].path))
			continue;
		snprintf(section, sizeof(section), "cgroup %s", p->cgroups[i].path);
		if (!rule_locks_out(p->cgroups[i].line, NULL, section, &p->cgroups[i].rule,
				    held ? held->who : NULL, out))
			continue;
		if (held)
			snprintf(out->cgroup, sizeof(out->cgroup), "%s", held->path);
		return true;
	}
	return false;
}

/*
 * The first rule of p that root's shell or sudo would meet, and that would
 * deny them (policy_lockout_gate() says which count), into *out.
 */
static bool find_lockout(const struct policy *p, const struct policy_admins *admins,
			 const struct admin_cgroups *cgroups, struct lockout *out)
{
	const struct policy_admin *admin;
	char section[4096 + 8];

	if (p->mode == ARGGUARD_MODE_OFF || p->mode == ARGGUARD_MODE_AUDIT)
		return false; /* nothing is denied; a mode out of range reads as enforce */
	if (rule_locks_out(p->global_line, p->global_limit_line, "global", &p->global, NULL, out) ||
	    rule_locks_out(p->setuid_line, p->setuid_limit_line, "setuid", &p->setuid, NULL, out))
		return true;
	for (size_t i = 0; i < p->n_uids; i++) {
		admin = p->uids[i].uid ? find_admin(admins, p->uids[i].uid) : NULL;
		if (p->uids[i].uid && !admin)
			continue;
		snprintf(section, sizeof(section), "uid %u", p->uids[i].uid);
		if (rule_locks_out(p->uids[i].line, NULL, section, &p->uids[i].rule, admin, out))
			return true;
	}
	return find_cgroup_lockout(p, cgroups, out);
}

/* Log the lockout at priority, naming FILE:LINE (where), the rule, whom it locks out, and verdict. */
static void log_lockout(int priority, const char *where, const struct lockout *k,
			const char *verdict)
{
	const struct policy_limit_info *limit = &policy_limits[k->limit];
	uint64_t least = limit->lockout_floor;
	bool in_k = limit->unit == POLICY_BYTES && !(least % 1024);
	char whose[1024], in[ADMIN_CGROUP_LEN + 8] = "", who[96];

	if (k->cgroup[0])
		snprintf(in, sizeof(in), " in %s", k->cgroup);
	if (k->who && k->who->maybe) {
		if (strncmp(k->who->user, "uid ", 4))
			snprintf(who, sizeof(who), "%s (uid %u)", k->who->user, k->who->uid);
		else
			snprintf(who, sizeof(who), "%s", k->who->user); /* no name known */
		snprintf(whose, sizeof(whose),
			 "%s may be in group %s, which administers this machine (admin_groups) "
			 "and which this host does not know now: for %s's shell and sudo%s",
			 who, k->who->group, k->who->user, in);
	} else if (k->cgroup[0] && k->who && !k->who->uid)
		snprintf(whose, sizeof(whose), "for root's (uid 0) shell and sudo in %s",
			 k->cgroup);
	else if (k->cgroup[0] && k->who)
		snprintf(whose, sizeof(whose),
			 "%s (uid %u) is in group %s, which administers this machine "
			 "(admin_groups): for %s's shell and sudo in %s",
			 k->who->user, k->who->uid, k->who->group, k->who->user, k->cgroup);
	else if (k->who)
		snprintf(whose, sizeof(whose),
			 "%s is in group %s, which administers this machine (admin_groups): for "
			 "%s's shell and sudo",
			 k->who->user, k->who->group, k->who->user);
	else
		snprintf(whose, sizeof(whose), "for root's shell and sudo");
	log_at(priority,
	       "%s: [%s] %s = %llu with action deny in enforce mode would lock admins out: "
	       "%s it must be 0 (no limit) or at least %llu%s; %s",
	       where, k->section, limit->key,
	       (unsigned long long)policy_limit_get(k->rule, k->limit), whose,
	       (unsigned long long)(in_k ? least >> 10 : least), in_k ? "K" : "", verdict);
}

int policy_lockout_gate(const struct policy *p, const struct policy_admins *admins,
			const char *cgroup_root, const char *name, bool force)
{
	char where[POLICY_WHERE_MAX];
	struct admin_cgroups cgroups;
	struct lockout k;
	bool found;

	if (admin_cgroups_find(admins, cgroup_root, &cgroups)) {
		log_error("%s: failed to list the admins' cgroups: %s", name, strerror(ENOMEM));
		return -ENOMEM;
	}
	found = find_lockout(p, admins, &cgroups, &k);
	free(cgroups.list);
	if (!found)
		return 0;
	policy_where(p, k.line, name, where, sizeof(where));
	if (force || p->allow_lockout) {
		log_lockout(LOG_WARNING, where, &k,
			    force ? "accepted, as --force says"
				  : "accepted, as allow_lockout = yes says");
		return 1;
	}
	log_lockout(LOG_ERR, where, &k,
		    "refused: fix the rule, try it in mode = audit first, or pass --force to "
		    "check or apply it anyway (the daemon never forces: it applies such a file, at "
		    "boot and on reload, only if its [global] says allow_lockout = yes)");
	return -EPERM;
}

int policy_lockout_gate_here(const struct policy *p, const char *name, bool force)
{
	struct policy_admins admins;
	int ret = policy_admins_lookup(p, DEFAULT_CGROUP_ROOT, &admins);

	if (ret) {
		log_error("%s: failed to look up the admin groups' members: %s", name,
			  strerror(-ret));
		return ret;
	}
	ret = policy_lockout_gate(p, &admins, DEFAULT_CGROUP_ROOT, name, force);
	policy_admins_free(&admins);
	return ret;
}
