// SPDX-License-Identifier: GPL-2.0
/*
 * argguard preflight on the host: the kernel's cap for a stack limit, the
 * rule that judges a cgroup and uid, and whole runs over a /proc of plain
 * files and a systemctl that is a shell script: which units and processes
 * it names, that a process's own comm and cgroup reach the text escaped,
 * and the JSON.
 */
#define _GNU_SOURCE /* nftw()'s flags */
#include <errno.h>
#include <ftw.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "parse_quietly.h"
#include "preflight.h"

#define M (1ULL << 20)
#define K (1ULL << 10)

static void check_cap(void)
{
	CHECK(preflight_kernel_cap(8 * M, false, 0) == 2 * M, "8M of stack: 2M of strings");
	CHECK(preflight_kernel_cap(8 * M + 64 * K, false, 0) == 2 * M + 16 * K,
	      "8M + 64K of stack: 2M + 16K");
	CHECK(preflight_kernel_cap(0, true, 0) == 6 * M, "no stack limit: 3/4 of _STK_LIM");
	CHECK(preflight_kernel_cap(64 * M, false, 0) == 6 * M, "64M of stack: still 6M");
	CHECK(preflight_kernel_cap(256 * K, false, 0) == 128 * K, "256K of stack: ARG_MAX, 128K");
	CHECK(preflight_kernel_cap(0, true, 1 * M) == 1 * M, "fs.exec_arg_max caps it");
	CHECK(preflight_kernel_cap(8 * M, false, 4 * M) == 2 * M,
	      "fs.exec_arg_max above the stack's share changes nothing");
}

static void check_limits(void)
{
	static const char limits[] =
		"Limit                     Soft Limit           Hard Limit           Units     \n"
		"Max cpu time              unlimited            unlimited            seconds   \n"
		"Max stack size            8388608              unlimited            bytes     \n"
		"Max core file size        0                    unlimited            bytes     \n";
	uint64_t soft, hard;
	bool soft_u, hard_u;

	CHECK(!preflight_parse_limits(limits, &soft, &soft_u, &hard, &hard_u) && soft == 8 * M &&
		      !soft_u && hard_u,
	      "Max stack size: 8388608 soft, unlimited hard");
	CHECK(!preflight_parse_limits("Max stack size            unlimited            unlimited  "
				      "          bytes\n",
				      &soft, &soft_u, &hard, &hard_u) &&
		      soft_u && hard_u,
	      "Max stack size: unlimited");
	CHECK(preflight_parse_limits("Max cpu time unlimited unlimited seconds\n", &soft, &soft_u,
				     &hard, &hard_u) == -EINVAL,
	      "no Max stack size line: -EINVAL");
}

static const char policy_text[] = "[global]\n"
				  "mode = audit\n"
				  "max_total_bytes = 2M\n"
				  "audit_max_total_bytes = 1M\n"
				  "[uid 1000]\n"
				  "max_total_bytes = 4M\n"
				  "[cgroup /system.slice/ci.service]\n"
				  "max_total_bytes = 64M\n"
				  "[cgroup /system.slice/build-*.service]\n"
				  "max_argv_bytes = 1M\n"
				  "[cgroup /loose]\n"
				  "action = allow\n";

static bool parse_text(const char *text, struct policy *p)
{
	char err[512];
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!in)
		return false;
	ret = parse_quietly(in, "test.conf", p, err, sizeof(err));
	fclose(in);
	if (ret)
		printf("# %s\n", err);
	return !ret;
}

static void check_judge(void)
{
	struct preflight_denial d[PREFLIGHT_MAX_DENIALS];
	char long_path[400];
	struct policy p;
	int n;

	if (!parse_text(policy_text, &p)) {
		CHECK(false, "the test policy parses");
		return;
	}
	n = preflight_judge(&p, "/system.slice/x.service", true, 0, 6 * M, d);
	CHECK(n == 1 && d[0].limit == POLICY_LIMIT_max_total_bytes && d[0].bytes == 2 * M &&
		      !strcmp(d[0].scope, "[global]"),
	      "a unit of root's under a 6M cap: [global] denies over 2M");
	CHECK(preflight_judge(&p, "/system.slice/x.service", true, 0, 2 * M, d) == 0,
	      "under the 2M cap of an 8M stack: nothing");
	n = preflight_judge(&p, "/user.slice/user-1000.slice/session-1.scope", true, 1000, 6 * M,
			    d);
	CHECK(n == 1 && d[0].bytes == 4 * M && !strcmp(d[0].scope, "[uid 1000]"),
	      "uid 1000: its own rule's 4M, not [global]'s");
	CHECK(preflight_judge(&p, "/user.slice", true, 1000, 4 * M, d) == 0,
	      "uid 1000 under a 4M cap: nothing over its 4M");
	CHECK(preflight_judge(&p, "/system.slice/x.service", false, 0, 6 * M, d) == 1 &&
		      !strcmp(d[0].scope, "[global]"),
	      "no uid known: [global]");
	CHECK(preflight_judge(&p, "/system.slice/ci.service", true, 0, 6 * M, d) == 0,
	      "ci.service's own 64M: nothing under the cap");
	CHECK(preflight_judge(&p, "/system.slice/ci.service/job/step", true, 1000, 6 * M, d) == 0,
	      "below ci.service: its rule, not uid 1000's");
	n = preflight_judge(&p, "/system.slice/build-7.service", true, 0, 6 * M, d);
	CHECK(n == 2 && d[0].limit == POLICY_LIMIT_max_total_bytes && d[0].bytes == 2 * M &&
		      !strcmp(d[0].scope, "[global]") &&
		      d[1].limit == POLICY_LIMIT_max_argv_bytes && d[1].bytes == 1 * M &&
		      !strcmp(d[1].scope, "[cgroup /system.slice/build-*.service]"),
	      "a pattern's rule tightens [global], which still judges above it");
	CHECK(preflight_judge(&p, "/loose/a", true, 0, 6 * M, d) == 0,
	      "below an allow rule: nothing is denied");
	CHECK(preflight_judge(&p, NULL, true, 0, 6 * M, d) == 1, "no cgroup known: [global]");
	memset(long_path, 'a', sizeof(long_path));
	memcpy(long_path, "/system.slice/ci.service/", 25);
	long_path[sizeof(long_path) - 1] = '\0';
	CHECK(preflight_judge(&p, long_path, true, 0, 6 * M, d) == 0,
	      "a path too long for a rule: judged by its ancestor's rule");
	policy_free(&p);
}

/* write_file DIR NAME TEXT: DIR/NAME holding TEXT. */
static void write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static const char stack_line[] =
	"Max stack size            %s              unlimited            bytes\n";

/* A process of the fake /proc: its directory and the files preflight reads. */
static void fake_process(const char *proc, int pid, bool kthread, const char *stack, unsigned uid,
			 const char *cgroup, const char *comm)
{
	char dir[4096], text[4096];

	snprintf(dir, sizeof(dir), "%s/%d", proc, pid);
	mkdir(dir, 0755);
	snprintf(text, sizeof(text), "%d (%s) S 1 %d %d 0 -1 %u 0 0\n", pid, comm, pid, pid,
		 kthread ? 0x00208040U : 0x00400100U);
	write_file(dir, "stat", text);
	snprintf(text, sizeof(text), stack_line, stack);
	write_file(dir, "limits", text);
	snprintf(text, sizeof(text), "Name:\tx\nPid:\t%d\nUid:\t%u\t%u\t%u\t%u\n", pid, uid, uid,
		 uid, uid);
	write_file(dir, "status", text);
	snprintf(text, sizeof(text), "0::%s\n", cgroup);
	write_file(dir, "cgroup", text);
	snprintf(text, sizeof(text), "%s\n", comm);
	write_file(dir, "comm", text);
}

/*
 * systemctl, faked: the listings name a running unit with no stack limit,
 * one with Debian's, a unit file not loaded (32M, in a slice of its own,
 * as nobody) and a template; show answers for each unit it is given, and
 * every call's arguments go to calls.
 */
static const char fake_systemctl[] =
	"#!/bin/sh\n"
	"echo \"$*\" >>\"$(dirname \"$0\")/calls\"\n"
	"case $1 in\n"
	"list-units) printf 'big.service loaded active running Big\\n"
	"small.service loaded active running Small\\n' ;;\n"
	"list-unit-files) printf 'big.service enabled enabled\\nidle.service disabled enabled\\n"
	"t@.service static -\\n' ;;\n"
	"show)\n"
	"  shift 4\n"
	"  for u; do case $u in\n"
	"  big.service) printf 'Id=big.service\\nLoadState=loaded\\nLimitSTACKSoft=infinity\\n"
	"ControlGroup=/system.slice/big.service\\nSlice=system.slice\\nUser=\\n\\n' ;;\n"
	"  small.service) printf 'Id=small.service\\nLoadState=loaded\\nLimitSTACKSoft=8388608\\n"
	"ControlGroup=/system.slice/small.service\\nSlice=system.slice\\nUser=\\n\\n' ;;\n"
	"  idle.service) printf 'Id=idle.service\\nLoadState=loaded\\nLimitSTACKSoft=33554432\\n"
	"ControlGroup=\\nSlice=system-idle.slice\\nUser=nobody\\n\\n' ;;\n"
	"  *) printf 'Id=%s\\nLoadState=not-found\\n\\n' \"$u\" ;;\n"
	"  esac; done ;;\n"
	"*) exit 1 ;;\n"
	"esac\n";

/* preflight_run() over the fake sources into *text (to free); its return. */
static int run(const struct policy *p, const struct preflight_sources *src, bool json, char **text)
{
	size_t len;
	FILE *out = open_memstream(text, &len);
	int ret;

	if (!out)
		return -ENOMEM;
	ret = preflight_run(out, p, "test.conf", src, json);
	fclose(out);
	return ret;
}

static void check_runs(const char *root)
{
	char proc[4096], systemd_dir[4096], systemctl[4096], calls[4096], arg_max[4096], *text;
	struct preflight_sources src;
	struct json_object *o, *units, *procs, *v;
	struct policy p;
	int ret;

	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(systemd_dir, sizeof(systemd_dir), "%s/systemd", root);
	snprintf(systemctl, sizeof(systemctl), "%s/systemctl", root);
	snprintf(calls, sizeof(calls), "%s/calls", root);
	snprintf(arg_max, sizeof(arg_max), "%s/exec_arg_max", root);
	mkdir(proc, 0755);
	mkdir(systemd_dir, 0755);
	write_file(root, "systemctl", fake_systemctl);
	chmod(systemctl, 0755);
	fake_process(proc, 2, true, "unlimited", 0, "/", "kthreadd");
	fake_process(proc, 100, false, "unlimited", 1001,
		     "/user.slice/user-1001.slice/\x1b]0;pwned\x07.scope", "\x1b]0;pwned\x07");
	fake_process(proc, 101, false, "8388608", 0, "/system.slice/small.service", "small");
	fake_process(proc, 102, false, "16777216", 0, "/system.slice/odd\xff.service", "odd");
	src = (struct preflight_sources){ .proc = proc,
					  .systemd_dir = systemd_dir,
					  .systemctl = systemctl,
					  .exec_arg_max = arg_max };
	if (!parse_text("[global]\nmode = audit\nmax_total_bytes = 2M\n", &p)) {
		CHECK(false, "the shipped limits parse");
		return;
	}

	ret = run(&p, &src, false, &text);
	CHECK(ret == 1, "found some: returns 1 (got %d)", ret);
	for (char *line = text, *end; *line; line = end + (*end != '\0')) {
		end = line + strcspn(line, "\n");
		printf("# %.*s\n", (int)(end - line), line);
	}
	CHECK(strstr(text, "big.service ") && strstr(text, "idle.service "),
	      "names the unit with LimitSTACK=infinity and the one with 32M, loaded or not");
	CHECK(!strstr(text, "small.service "), "not the unit with Debian's 8M");
	CHECK(!strchr(text, '\x1b') && !strchr(text, '\a'),
	      "no raw ESC or BEL from a process's comm or cgroup");
	CHECK(strstr(text, "100      1001     \\x1b]0;pwned\\x07") &&
		      strstr(text, "/user.slice/user-1001.slice/\\x1b]0;pwned\\x07.scope"),
	      "the process with no stack limit, its comm and cgroup escaped");
	CHECK(strstr(text, "102 ") && strstr(text, "odd\\xff.service"),
	      "the process with 16M, its cgroup escaped");
	CHECK(!strstr(text, "\n101 ") && !strstr(text, "kthreadd"),
	      "neither the process with 8M nor the kernel thread");
	CHECK(strstr(text, "2M total ([global])") && strstr(text, "only logged as would-deny"),
	      "what the limit denies, and that audit mode denies nothing");
	free(text);
	{
		FILE *f = fopen(calls, "r");
		char line[4096];
		bool template = false, show = false;

		while (f && fgets(line, sizeof(line), f)) {
			template |= strstr(line, "t@.service") && !strncmp(line, "show", 4);
			show |= !strncmp(line, "show", 4);
		}
		if (f)
			fclose(f);
		CHECK(show && !template, "systemctl show is asked about units, never a template");
	}

	ret = run(&p, &src, true, &text);
	o = json_tokener_parse(text);
	CHECK(ret == 1 && o, "JSON: returns 1 and parses");
	if (o && json_object_object_get_ex(o, "units", &units) &&
	    json_object_object_get_ex(o, "processes", &procs)) {
		CHECK(json_object_array_length(units) == 2 && json_object_array_length(procs) == 2,
		      "JSON: two units and two processes");
		v = json_object_array_get_idx(units, 1);
		CHECK(!strcmp(json_object_get_string(json_object_object_get(v, "unit")),
			      "idle.service") &&
			      !strcmp(json_object_get_string(json_object_object_get(v, "cgroup")),
				      "/system.slice/system-idle.slice/idle.service") &&
			      json_object_get_int64(json_object_object_get(v, "stack_bytes")) ==
				      32 * M &&
			      json_object_get_int64(
				      json_object_object_get(v, "kernel_cap_bytes")) == 6 * M,
		      "JSON: the unit not running, in its slice's cgroup, 32M, 6M");
		v = json_object_array_get_idx(procs, 0);
		CHECK(!strcmp(json_object_get_string(json_object_object_get(v, "comm")),
			      "\x1b]0;pwned\x07") &&
			      json_object_get_boolean(json_object_object_get(v, "stack_unlimited")),
		      "JSON: the comm's exact bytes, no stack limit");
		v = json_object_array_get_idx(procs, 1);
		CHECK(!strcmp(json_object_get_string(json_object_object_get(v, "cgroup_encoding")),
			      "hex"),
		      "JSON: a cgroup that is not UTF-8, in hex");
	} else {
		CHECK(false, "JSON: units and processes");
	}
	json_object_put(o);
	free(text);

	write_file(root, "exec_arg_max", "2097152\n");
	ret = run(&p, &src, false, &text);
	CHECK(ret == 0 && strstr(text, "No unit or process"),
	      "under an fs.exec_arg_max of 2M: nothing found, returns 0 (got %d)", ret);
	free(text);
	unlink(arg_max);

	rmdir(systemd_dir);
	ret = run(&p, &src, false, &text);
	CHECK(ret == 1 && !strstr(text, "big.service") && strstr(text, "pwned"),
	      "where systemd does not run: the processes alone");
	free(text);
	mkdir(systemd_dir, 0755);

	write_file(root, "systemctl", "#!/bin/sh\nexit 1\n");
	{
		struct log_capture c;
		char err[256];

		log_capture_start(&c, LOG_ERR, err, sizeof(err), true);
		ret = run(&p, &src, false, &text);
		log_capture_stop(&c);
		CHECK(ret < 0 && strstr(err, "list-units failed"),
		      "a systemctl that fails: an error, not a clean bill (%s)", err);
		free(text);
	}
	policy_free(&p);
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

int main(void)
{
	char root[] = "/tmp/argguard-preflight.XXXXXX";

	check_cap();
	check_limits();
	check_judge();
	if (mkdtemp(root)) {
		check_runs(root);
		nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	} else {
		CHECK(false, "mkdtemp: %s", strerror(errno));
	}
	return check_done();
}
