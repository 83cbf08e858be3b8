// SPDX-License-Identifier: GPL-2.0
/*
 * argguard preflight (preflight.h): the stack limits of systemd's units
 * (systemctl show) and of the running processes (/proc/PID/limits), each
 * judged by the rule the programs would judge its execs by, and printed.
 */
#define _GNU_SOURCE /* O_DIRECTORY, pipe2() */
#include "preflight.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup_pattern.h"
#include "json_writer.h"
#include "log.h"
#include "options.h"
#include "names.h"
#include "record_spell.h"
#include "units.h"

const struct preflight_sources preflight_system = {
	.proc = "/proc",
	.systemd_dir = "/run/systemd/system",
	.systemctl = "systemctl",
	.exec_arg_max = "/proc/sys/fs/exec_arg_max",
};

/* The byte limits a stack limit bears on, in the order they are printed. */
static const enum policy_limit byte_limits[PREFLIGHT_MAX_DENIALS] = {
	POLICY_LIMIT_max_total_bytes,
	POLICY_LIMIT_max_argv_bytes,
	POLICY_LIMIT_max_envp_bytes,
};

/* What each byte limit counts, as the text output says it. */
static const char *limit_word(enum policy_limit l)
{
	return l == POLICY_LIMIT_max_argv_bytes	  ? "argv"
	       : l == POLICY_LIMIT_max_envp_bytes ? "envp"
						  : "total";
}

uint64_t preflight_kernel_cap(uint64_t soft, bool unlimited, uint64_t arg_max)
{
	uint64_t cap = unlimited || soft / 4 > PREFLIGHT_CAP_MAX ? PREFLIGHT_CAP_MAX : soft / 4;

	if (cap < PREFLIGHT_CAP_MIN)
		cap = PREFLIGHT_CAP_MIN;
	if (arg_max && arg_max < cap)
		cap = arg_max;
	return cap;
}

/* A limit as /proc/PID/limits and systemctl show write it: digits, or "unlimited"/"infinity". */
static int parse_limit(const char *s, const char *word, uint64_t *v, bool *unlimited)
{
	char *end;

	*unlimited = !strncmp(s, word, strlen(word));
	*v = 0;
	if (*unlimited)
		return 0;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s ? -EINVAL : 0;
}

int preflight_parse_limits(const char *text, uint64_t *soft, bool *soft_unlimited, uint64_t *hard,
			   bool *hard_unlimited)
{
	static const char key[] = "Max stack size";
	const char *line = text, *s;

	for (; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, key, sizeof(key) - 1))
			continue;
		s = line + sizeof(key) - 1;
		s += strspn(s, " ");
		if (parse_limit(s, "unlimited", soft, soft_unlimited))
			return -EINVAL;
		s += strcspn(s, " \n");
		s += strspn(s, " ");
		return parse_limit(s, "unlimited", hard, hard_unlimited);
	}
	return -EINVAL;
}

/* Fold rule r, of scope, into out: each of its deny byte limits under cap, the tighter kept. */
static void judge_rule(const struct argguard_rule *r, const char *scope, uint64_t cap,
		       struct preflight_denial *out, bool *set)
{
	uint64_t v;

	if (r->action != ARGGUARD_ACTION_DENY)
		return;
	for (int i = 0; i < PREFLIGHT_MAX_DENIALS; i++) {
		v = policy_limit_get(r, byte_limits[i]);
		if (!v || v >= cap || (set[i] && out[i].bytes <= v))
			continue;
		out[i].limit = byte_limits[i];
		out[i].bytes = v;
		snprintf(out[i].scope, sizeof(out[i].scope), "%s", scope);
		set[i] = true;
	}
}

/* The rule of [uid uid] in p, or NULL. */
static const struct uid_rule *uid_rule_of(const struct policy *p, uint32_t uid)
{
	for (size_t i = 0; i < p->n_uids; i++)
		if (p->uids[i].uid == uid)
			return &p->uids[i];
	return NULL;
}

int preflight_judge(const struct policy *p, const char *cgroup, bool uid_known, uint32_t uid,
		    uint64_t cap, struct preflight_denial out[PREFLIGHT_MAX_DENIALS])
{
	struct preflight_denial found[PREFLIGHT_MAX_DENIALS];
	bool set[PREFLIGHT_MAX_DENIALS] = { 0 };
	char path[ARGGUARD_CGROUP_PATH_LEN], scope[sizeof(found[0].scope)], *slash;
	const struct uid_rule *u;
	int n = 0;
	long i;

	/* The walk up: the programs index no cgroup at a path as long as the maps' keys. */
	if (cgroup && strlen(cgroup) < sizeof(path)) {
		snprintf(path, sizeof(path), "%s", cgroup);
	} else if (cgroup) {
		memcpy(path, cgroup, sizeof(path) - 1);
		path[sizeof(path) - 1] = '\0';
		slash = strrchr(path, '/'); /* its ancestor whose path fits */
		*(slash && slash != path ? slash : path + 1) = '\0';
	}
	while (cgroup) {
		i = cgroup_rule_for(p, path);
		if (i >= 0) {
			snprintf(scope, sizeof(scope), "[cgroup %s]", p->cgroups[i].path);
			judge_rule(&p->cgroups[i].rule, scope, cap, found, set);
			if (!cgroup_is_pattern(p->cgroups[i].path))
				goto done; /* a literal rule: nothing above it judges */
		}
		if (!strcmp(path, "/"))
			break;
		slash = strrchr(path, '/');
		*(slash == path ? slash + 1 : slash) = '\0';
	}
	u = uid_known ? uid_rule_of(p, uid) : NULL;
	if (u) {
		snprintf(scope, sizeof(scope), "[uid %u]", u->uid);
		judge_rule(&u->rule, scope, cap, found, set);
	} else {
		judge_rule(&p->global, "[global]", cap, found, set);
	}
done:
	for (int k = 0; k < PREFLIGHT_MAX_DENIALS; k++)
		if (set[k])
			out[n++] = found[k];
	return n;
}

/* The smallest deny byte limit of any rule of p: under it, no stack limit matters. */
static uint64_t smallest_deny_limit(const struct policy *p)
{
	struct preflight_denial d[PREFLIGHT_MAX_DENIALS];
	bool set[PREFLIGHT_MAX_DENIALS] = { 0 };
	uint64_t min = UINT64_MAX;

	judge_rule(&p->global, "", UINT64_MAX, d, set);
	for (size_t i = 0; i < p->n_uids; i++)
		judge_rule(&p->uids[i].rule, "", UINT64_MAX, d, set);
	for (size_t i = 0; i < p->n_cgroups; i++)
		judge_rule(&p->cgroups[i].rule, "", UINT64_MAX, d, set);
	for (int k = 0; k < PREFLIGHT_MAX_DENIALS; k++)
		if (set[k] && d[k].bytes < min)
			min = d[k].bytes;
	return min;
}

/* A unit or a process whose stack limit lets an exec through that a deny limit denies. */
struct finding {
	char *name; /* the unit's; NULL for a process */
	int pid;
	bool uid_known;
	uint32_t uid;
	char comm[64];
	char *cgroup; /* NULL if unknown */
	uint64_t soft;
	bool unlimited;
	uint64_t cap;
	struct preflight_denial denials[PREFLIGHT_MAX_DENIALS];
	int n_denials;
};

struct findings {
	struct finding *list;
	size_t n;
};

static void findings_free(struct findings *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->list[i].name);
		free(f->list[i].cgroup);
	}
	free(f->list);
}

/* Append *one to f, taking its strings (freed if it cannot). 0 or -ENOMEM. */
static int findings_add(struct findings *f, const struct finding *one)
{
	struct finding *more = realloc(f->list, (f->n + 1) * sizeof(*more));

	if (!more) {
		free(one->name);
		free(one->cgroup);
		return -ENOMEM;
	}
	f->list = more;
	f->list[f->n++] = *one;
	return 0;
}

/* The whole of the small file name in the directory at dir_fd, into buf: its length, or -1. */
static ssize_t read_small(int dir_fd, const char *name, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);

	buf[0] = '\0';
	if (fd < 0)
		return -1;
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return -1;
		}
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

#define PF_KTHREAD 0x00200000 /* include/linux/sched.h */

/* Whether the process whose /proc/PID/stat text is stat is a kernel thread, which never execs. */
static bool is_kthread(const char *stat)
{
	const char *p = strrchr(stat, ')'); /* comm may hold ") " itself */
	unsigned long flags;
	char *end;
	int field = 2;

	/* Field 9 is flags: past state (3), ppid, pgrp, session, tty_nr, tpgid. */
	while (p && field < 9) {
		p = strchr(p + 1, ' ');
		field++;
	}
	if (!p)
		return false;
	flags = strtoul(p, &end, 10);
	return end != p && (flags & PF_KTHREAD);
}

/* The cgroup v2 path of a /proc/PID/cgroup text ("0::PATH"), or NULL. */
static char *cgroup_v2_path(const char *text)
{
	const char *line = text;

	for (; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (!strncmp(line, "0::", 3))
			return strndup(line + 3, strcspn(line + 3, "\n"));
	return NULL;
}

/* The real uid of a /proc/PID/status text. */
static bool real_uid(const char *status, uint32_t *uid)
{
	const char *s = strstr(status, "\nUid:");
	unsigned long v;
	char *end;

	if (!s)
		return false;
	errno = 0;
	v = strtoul(s + 5, &end, 10);
	if (end == s + 5 || errno || v > UINT32_MAX)
		return false;
	*uid = (uint32_t)v;
	return true;
}

/*
 * The process in the directory at dir_fd (its pid), into *f if its stack
 * limit lets an exec through that a deny limit of p denies: 1 then, 0 if
 * not (or if it ended meanwhile), or -ENOMEM.
 */
static int judge_process(const struct policy *p, int dir_fd, int pid, uint64_t arg_max,
			 uint64_t smallest, struct finding *f)
{
	char buf[8192], comm[32], *cgroup = NULL;
	uint64_t hard;
	bool hard_unlimited;
	ssize_t n;

	*f = (struct finding){ .pid = pid };
	if (read_small(dir_fd, "stat", buf, sizeof(buf)) <= 0 || is_kthread(buf))
		return 0;
	if (read_small(dir_fd, "limits", buf, sizeof(buf)) <= 0 ||
	    preflight_parse_limits(buf, &f->soft, &f->unlimited, &hard, &hard_unlimited))
		return 0;
	f->cap = preflight_kernel_cap(f->soft, f->unlimited, arg_max);
	if (f->cap <= smallest)
		return 0;
	if (read_small(dir_fd, "status", buf, sizeof(buf)) > 0)
		f->uid_known = real_uid(buf, &f->uid);
	n = read_small(dir_fd, "comm", comm, sizeof(comm));
	if (n > 0)
		snprintf(f->comm, sizeof(f->comm), "%.*s", (int)strcspn(comm, "\n"), comm);
	/* The path as long as the buffer holds: no rule's path is longer than 254 bytes. */
	if (read_small(dir_fd, "cgroup", buf, sizeof(buf)) > 0) {
		cgroup = cgroup_v2_path(buf);
		if (!cgroup && strstr(buf, "0::"))
			return -ENOMEM;
	}
	f->n_denials = preflight_judge(p, cgroup, f->uid_known, f->uid, f->cap, f->denials);
	if (!f->n_denials) {
		free(cgroup);
		return 0;
	}
	f->cgroup = cgroup;
	return 1;
}

static int by_pid(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Every process in src->proc, into f. 0, or a negative errno, logged. */
static int scan_processes(const struct policy *p, const struct preflight_sources *src,
			  uint64_t arg_max, struct findings *f)
{
	uint64_t smallest = smallest_deny_limit(p);
	DIR *d = opendir(src->proc);
	struct finding one;
	struct dirent *e;
	int fd, ret = 0;
	char *end;
	long pid;

	if (!d) {
		ret = -errno;
		log_error("failed to read %s: %s", src->proc, strerror(-ret));
		return ret;
	}
	while (!ret && (errno = 0, e = readdir(d))) {
		pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue; /* ended */
		ret = judge_process(p, fd, (int)pid, arg_max, smallest, &one);
		close(fd);
		if (ret == 1)
			ret = findings_add(f, &one);
		if (ret)
			log_error("failed to judge the processes: %s", strerror(-ret));
	}
	if (!ret && errno) {
		ret = -errno;
		log_error("failed to read %s: %s", src->proc, strerror(-ret));
	}
	closedir(d);
	if (f->n)
		qsort(f->list, f->n, sizeof(*f->list), by_pid);
	return ret;
}

/* How many units one systemctl show is given. */
#define UNITS_AT_ONCE 200

/*
 * Run src->systemctl with args (NULL-terminated, after the program's name)
 * and take what it prints: 0 and *out (to free), or a negative errno, logged.
 */
static int systemctl(const struct preflight_sources *src, const char *const *args, char **out)
{
	const char *argv[UNITS_AT_ONCE + 16];
	size_t len = 0, cap = 0, n_args = 1;
	char *buf = NULL, *more;
	int pipefd[2], status, ret = 0;
	ssize_t n;
	pid_t pid;

	argv[0] = src->systemctl;
	for (; args[n_args - 1] && n_args < sizeof(argv) / sizeof(argv[0]) - 1; n_args++)
		argv[n_args] = args[n_args - 1];
	argv[n_args] = NULL;
	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		log_error("failed to run %s: %s", src->systemctl, strerror(-ret));
		return ret;
	}
	if (!pid) {
		dup2(pipefd[1], STDOUT_FILENO);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "argguard: failed to run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	for (;;) {
		if (cap - len < 4096) {
			more = realloc(buf, cap + 65536);
			if (!more) {
				ret = -ENOMEM;
				break;
			}
			buf = more;
			cap += 65536;
		}
		n = read(pipefd[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : 0;
			break;
		}
		len += (size_t)n;
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = -1;
			break;
		}
	if (!ret && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		ret = -EIO;
		log_error("%s %s failed", src->systemctl, args[0]);
	}
	if (ret) {
		free(buf);
		return ret;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/* Unit names, gathered once each. */
struct names {
	char **list;
	size_t n;
};

static void names_free(struct names *u)
{
	for (size_t i = 0; i < u->n; i++)
		free(u->list[i]);
	free(u->list);
}

static int names_add(struct names *u, const char *name, size_t len)
{
	char **more;

	for (size_t i = 0; i < u->n; i++)
		if (strlen(u->list[i]) == len && !strncmp(u->list[i], name, len))
			return 0;
	more = realloc(u->list, (u->n + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	u->list = more;
	u->list[u->n] = strndup(name, len);
	if (!u->list[u->n])
		return -ENOMEM;
	u->n++;
	return 0;
}

/* The first word of each line of text that names a unit of ours (no template), into u. */
static int names_from_listing(const char *text, struct names *u)
{
	const char *line = text;
	size_t len;
	int ret = 0;

	for (; !ret && line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		line += strspn(line, " ");
		len = strcspn(line, " \n");
		if (!len || memmem(line, len, "@.", 2))
			continue;
		ret = names_add(u, line, len);
	}
	return ret;
}

/* The value of key in one block of systemctl show's text ("KEY=VALUE" lines), or "". */
static const char *show_value(const char *block, size_t block_len, const char *key, size_t *len)
{
	size_t klen = strlen(key);
	const char *line = block, *end = block + block_len;

	for (; line < end;
	     line = memchr(line, '\n', (size_t)(end - line)), line = line ? line + 1 : end)
		if ((size_t)(end - line) > klen && !strncmp(line, key, klen) && line[klen] == '=') {
			line += klen + 1;
			*len = strcspn(line, "\n");
			if (line + *len > end)
				*len = (size_t)(end - line);
			return line;
		}
	*len = 0;
	return "";
}

/*
 * The cgroup path of a unit not running, from its slice: "a-b.slice" is
 * /a.slice/a-b.slice, "-.slice" (or none) the root. NULL when out of memory.
 */
static char *unit_cgroup(const char *slice, size_t slice_len, const char *id, size_t id_len)
{
	static const char suffix[] = ".slice";
	size_t i, at = 0, room = id_len + 2, name_len = 0;
	char *path;

	if (slice_len > sizeof(suffix) - 1 && strncmp(slice, "-.slice", slice_len) &&
	    !strncmp(slice + slice_len - (sizeof(suffix) - 1), suffix, sizeof(suffix) - 1))
		name_len = slice_len - (sizeof(suffix) - 1);
	/* Each '-' in the slice's name ends the name of a slice above it. */
	for (i = 0; i <= name_len; i++)
		if (i == name_len || slice[i] == '-')
			room += i + sizeof(suffix) + 1;
	path = malloc(room);
	if (!path)
		return NULL;
	for (i = 0; name_len && i <= name_len; i++)
		if (i == name_len || slice[i] == '-')
			at += (size_t)snprintf(path + at, room - at, "/%.*s%s", (int)i, slice,
					       suffix);
	snprintf(path + at, room - at, "/%.*s", (int)id_len, id);
	return path;
}

/* One block of systemctl show, a unit: into *f if its stack limit lets through what p denies. */
static int judge_unit(const struct policy *p, const char *block, size_t block_len, uint64_t arg_max,
		      struct finding *f)
{
	const char *id, *load, *soft, *cg, *slice, *user;
	size_t id_len, load_len, soft_len, cg_len, slice_len, user_len;
	char text[32], name[256], *cgroup, *unit;
	struct passwd *pw;

	*f = (struct finding){ .pid = 0 };
	id = show_value(block, block_len, "Id", &id_len);
	load = show_value(block, block_len, "LoadState", &load_len);
	soft = show_value(block, block_len, "LimitSTACKSoft", &soft_len);
	if (!id_len || load_len != 6 || strncmp(load, "loaded", 6) || !soft_len ||
	    soft_len >= sizeof(text))
		return 0;
	snprintf(text, sizeof(text), "%.*s", (int)soft_len, soft);
	if (parse_limit(text, "infinity", &f->soft, &f->unlimited))
		return 0;
	f->cap = preflight_kernel_cap(f->soft, f->unlimited, arg_max);
	user = show_value(block, block_len, "User", &user_len);
	f->uid_known = true; /* no User=: root */
	if (user_len) {
		snprintf(name, sizeof(name), "%.*s", (int)user_len, user);
		pw = getpwnam(name); /* a DynamicUser= not running has no uid yet */
		f->uid_known = pw != NULL;
		f->uid = pw ? pw->pw_uid : 0;
	}
	cg = show_value(block, block_len, "ControlGroup", &cg_len);
	slice = show_value(block, block_len, "Slice", &slice_len);
	cgroup = cg_len ? strndup(cg, cg_len) : unit_cgroup(slice, slice_len, id, id_len);
	if (!cgroup)
		return -ENOMEM;
	f->n_denials = preflight_judge(p, cgroup, f->uid_known, f->uid, f->cap, f->denials);
	unit = f->n_denials ? strndup(id, id_len) : NULL;
	if (!unit) {
		free(cgroup);
		return f->n_denials ? -ENOMEM : 0;
	}
	f->cgroup = cgroup;
	f->name = unit;
	return 1;
}

static int by_name(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* systemctl show's blocks in text, each a unit, judged into f. 0 or -ENOMEM. */
static int judge_units(const struct policy *p, const char *text, uint64_t arg_max,
		       struct findings *f)
{
	const char *block = text, *end;
	struct finding one;
	int ret = 0;

	while (!ret && *block) {
		end = strstr(block, "\n\n");
		end = end ? end + 1 : block + strlen(block);
		ret = judge_unit(p, block, (size_t)(end - block), arg_max, &one);
		if (ret == 1)
			ret = findings_add(f, &one);
		block = end + strspn(end, "\n");
	}
	return ret;
}

/*
 * Every service and socket systemd has loaded or has a unit file for,
 * judged into f. 0 (nothing to judge where systemd does not run), or a
 * negative errno, logged.
 */
static int scan_units(const struct policy *p, const struct preflight_sources *src, uint64_t arg_max,
		      struct findings *f)
{
	static const char *const loaded[] = { "list-units",
					      "--all",
					      "--plain",
					      "--full",
					      "--no-legend",
					      "--no-pager",
					      "--type=service,socket",
					      NULL };
	static const char *const files[] = { "list-unit-files",	      "--full",
					     "--no-legend",	      "--no-pager",
					     "--type=service,socket", NULL };
	const char *show[UNITS_AT_ONCE + 8] = { "show", "--no-pager",
						"--property=Id,LoadState,LimitSTACKSoft,"
						"ControlGroup,Slice,User",
						"--" };
	struct names u = { 0 };
	char *text = NULL;
	int ret;

	if (access(src->systemd_dir, F_OK))
		return 0;
	ret = systemctl(src, loaded, &text);
	if (!ret)
		ret = names_from_listing(text, &u);
	free(text);
	text = NULL;
	if (!ret)
		ret = systemctl(src, files, &text);
	if (!ret)
		ret = names_from_listing(text, &u);
	free(text);
	for (size_t at = 0; !ret && at < u.n; at += UNITS_AT_ONCE) {
		size_t k = 0;

		for (; k < UNITS_AT_ONCE && at + k < u.n; k++)
			show[4 + k] = u.list[at + k];
		show[4 + k] = NULL;
		text = NULL;
		ret = systemctl(src, show, &text);
		if (!ret)
			ret = judge_units(p, text, arg_max, f);
		free(text);
	}
	names_free(&u);
	if (ret == -ENOMEM)
		log_error("failed to judge the units: %s", strerror(-ret));
	if (f->n)
		qsort(f->list, f->n, sizeof(*f->list), by_name);
	return ret;
}

/* Bytes as argguard.conf(5) writes them where exact ("4K", "2M"), else digits. */
static const char *size_text(char *buf, size_t len, uint64_t v)
{
	if (v && !(v % (1ULL << 20)))
		snprintf(buf, len, "%" PRIu64 "M", v >> 20);
	else if (v && !(v % 1024))
		snprintf(buf, len, "%" PRIu64 "K", v >> 10);
	else
		snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

static const char *stack_text(char *buf, size_t len, const struct finding *f)
{
	return f->unlimited ? "unlimited" : size_text(buf, len, f->soft);
}

/* "2M total ([global])", for each denial, after the columns before it. */
static void print_denials(FILE *out, const struct finding *f)
{
	char size[32];

	for (int i = 0; i < f->n_denials; i++) {
		fprintf(out, "%s%s %s (", i ? ", " : "",
			size_text(size, sizeof(size), f->denials[i].bytes),
			limit_word(f->denials[i].limit));
		terminal_safe_fputs(out, "", f->denials[i].scope, ")");
	}
}

/* The text: a table of units, then one of processes; a line of each finding. */
static void print_text(FILE *out, const struct policy *p, const char *policy_path,
		       const struct findings *units, const struct findings *procs)
{
	char a[32], b[32], safe[TERMINAL_SAFE_SIZE(256)];

	if (!units->n && !procs->n) {
		terminal_safe_fputs(
			out,
			"No unit or process has a stack limit that lets an exec through "
			"that the deny limits of ",
			policy_path, " would deny.\n");
		return;
	}
	terminal_safe_fputs(out, "These stack limits let an exec through that the deny limits of ",
			    policy_path, "");
	fprintf(out, " deny%s.\n",
		p->mode == ARGGUARD_MODE_ENFORCE ? ""
		: p->mode == ARGGUARD_MODE_AUDIT ? " (in mode audit, only logged as would-deny)"
						 : " (in mode off, not judged at all)");
	fputs("The kernel lets an exec copy strings up to CAP, a quarter of the soft stack limit\n"
	      "(at most 6M): the execs over DENIES OVER and up to CAP would be denied.\n",
	      out);
	if (units->n) {
		fprintf(out, "\n%-40s %-10s %-5s %s\n", "UNIT", "STACK", "CAP", "DENIES OVER");
		for (size_t i = 0; i < units->n; i++) {
			const struct finding *f = &units->list[i];

			fprintf(out, "%-40s %-10s %-5s ",
				terminal_safe(safe, sizeof(safe), f->name),
				stack_text(a, sizeof(a), f), size_text(b, sizeof(b), f->cap));
			print_denials(out, f);
			fputc('\n', out);
		}
	}
	if (procs->n) {
		fprintf(out, "\n%-8s %-8s %-16s %-10s %-5s %s\n", "PID", "UID", "COMM", "STACK",
			"CAP", "DENIES OVER, IN CGROUP");
		for (size_t i = 0; i < procs->n; i++) {
			const struct finding *f = &procs->list[i];
			char uid[16] = "?";

			if (f->uid_known)
				snprintf(uid, sizeof(uid), "%u", f->uid);
			/* comm and the cgroup path are the process's own: any account's choice */
			fprintf(out, "%-8d %-8s %-16s %-10s %-5s ", f->pid, uid,
				terminal_safe(safe, sizeof(safe), f->comm),
				stack_text(a, sizeof(a), f), size_text(b, sizeof(b), f->cap));
			print_denials(out, f);
			terminal_safe_fputs(out, ", in ", f->cgroup ? f->cgroup : "?", "\n");
		}
	}
}

/* Bytes a process chose: as they are if UTF-8, else in hex with "<key>_encoding": "hex". */
static void json_bytes(struct json_writer *w, const char *key, const char *s)
{
	char enc_key[64];

	if (!s) {
		json_null(w, key);
		return;
	}
	if (record_is_utf8(s, strlen(s))) {
		json_str(w, key, s);
		return;
	}
	json_hex(w, key, s, strlen(s));
	snprintf(enc_key, sizeof(enc_key), "%s_encoding", key);
	json_str(w, enc_key, "hex");
}

static void json_finding(struct json_writer *w, const struct finding *f)
{
	json_begin_object(w, NULL);
	if (f->name) {
		json_str(w, "unit", f->name);
	} else {
		json_u64(w, "pid", (uint64_t)f->pid);
		json_bytes(w, "comm", f->comm);
	}
	if (f->uid_known)
		json_u64(w, "uid", f->uid);
	else
		json_null(w, "uid");
	json_bytes(w, "cgroup", f->cgroup);
	json_boolean(w, "stack_unlimited", f->unlimited);
	if (f->unlimited)
		json_null(w, "stack_bytes");
	else
		json_u64(w, "stack_bytes", f->soft);
	json_u64(w, "kernel_cap_bytes", f->cap);
	json_begin_array(w, "denies_over");
	for (int i = 0; i < f->n_denials; i++) {
		json_begin_object(w, NULL);
		json_str(w, "limit", policy_limits[f->denials[i].limit].key);
		json_u64(w, "bytes", f->denials[i].bytes);
		json_bytes(w, "scope", f->denials[i].scope);
		json_end_object(w);
	}
	json_end_array(w);
	json_end_object(w);
}

static int print_json(FILE *out, const struct policy *p, const char *policy_path,
		      const struct findings *units, const struct findings *procs)
{
	struct json_writer w;

	json_writer_init(&w, false);
	json_begin_object(&w, NULL);
	json_bytes(&w, "policy", policy_path);
	json_str(&w, "mode", mode_name(p->mode));
	json_begin_array(&w, "units");
	for (size_t i = 0; i < units->n; i++)
		json_finding(&w, &units->list[i]);
	json_end_array(&w);
	json_begin_array(&w, "processes");
	for (size_t i = 0; i < procs->n; i++)
		json_finding(&w, &procs->list[i]);
	json_end_array(&w);
	json_end_object(&w);
	return json_writer_print(&w, out);
}

int preflight_run(FILE *out, const struct policy *p, const char *policy_path,
		  const struct preflight_sources *src, bool json)
{
	struct findings units = { 0 }, procs = { 0 };
	unsigned long long arg_max = 0;
	int ret;

	read_numbers(src->exec_arg_max, &arg_max, 1); /* none without the kernel series */
	ret = scan_units(p, src, arg_max, &units);
	if (!ret)
		ret = scan_processes(p, src, arg_max, &procs);
	if (!ret && json)
		ret = print_json(out, p, policy_path, &units, &procs);
	else if (!ret)
		print_text(out, p, policy_path, &units, &procs);
	if (!ret)
		ret = units.n || procs.n;
	findings_free(&units);
	findings_free(&procs);
	return ret;
}

int preflight_command(int argc, char **argv)
{
	const char *policy_path = DEFAULT_POLICY_FILE;
	struct policy p;
	bool json = false;
	int ret;

	ret = format_and_policy_options(
		argc, argv, "usage: argguard preflight [--format text|json] [--policy FILE]",
		&policy_path, &json);
	if (ret)
		return ret;
	if (optind != argc) {
		log_error("unexpected argument '%s' to preflight", argv[optind]);
		return 2;
	}
	/*
	 * As another user, it would see only what that user may: with /proc
	 * mounted hidepid=, not other users' processes at all. An empty list
	 * from such a run would be no answer, so there is none.
	 */
	if (geteuid()) {
		log_error("preflight reads every process's limits and every unit's: run it as "
			  "root");
		return 2;
	}
	if (policy_parse_file(policy_path, &p))
		return 2;
	ret = preflight_run(stdout, &p, policy_path, &preflight_system, json);
	policy_free(&p);
	return ret < 0 ? 2 : ret;
}
