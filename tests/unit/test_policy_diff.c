// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "check.h"
#include "log.h"
#include "policy_diff.h"
#include "parse_quietly.h"

/* The canonical text of a policy file's text, or NULL if it does not parse. */
static char *canonical(const char *text)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	struct policy p;
	char err[256] = "", *out = NULL;

	if (!parse_quietly(in, "test.conf", &p, err, sizeof(err))) {
		out = policy_canonical_text(&p);
		policy_free(&p);
	} else {
		printf("# %s\n", err);
	}
	fclose(in);
	return out;
}

/* text_diff() into a string to free(); its return value in *ret. */
static char *diff(const char *old, const char *new, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	*ret = text_diff(out, "live", old, "file", new);
	fclose(out);
	return buf;
}

static const char site[] = "[global]\n"
			   "mode = enforce\n"
			   "max_total_bytes = 1M\n"
			   "[uid 1000]\n"
			   "max_argv_bytes = 256K\n"
			   "action = audit\n"
			   "[cgroup /ci]\n"
			   "max_total_bytes = 4M\n";

static void spelling_order_and_comments_do_not_count(void)
{
	static const char same[] = "; the same policy, written otherwise\n"
				   "[cgroup /ci/./]\n"
				   "max_total_bytes = 4194304 ; 4M\n"
				   "[user root]\n"
				   "action = deny\n"
				   "[global]\n"
				   "max_total_bytes = 1048576\n"
				   "allow_lockout = yes\n"
				   "mode = enforce\n"
				   "\n"
				   "[uid 1000]\n"
				   "action = audit\n"
				   "max_argv_bytes = 262144\n";
	char *a = canonical(site), *b = canonical(same), *out;
	int ret;

	CHECK(a && b, "both parse");
	if (!a || !b)
		return;
	/* [user root] with no limits prints as a [uid 0] rule: add it to a too. */
	free(a);
	a = canonical("[global]\nmode = enforce\nmax_total_bytes = 1M\n[uid 1000]\n"
		      "max_argv_bytes = 256K\naction = audit\n[cgroup /ci]\nmax_total_bytes = 4M\n"
		      "[uid 0]\naction = deny\n");
	out = diff(a, b, &ret);
	CHECK(ret == 0 && !strcmp(out, ""),
	      "comments, order, 1M or 1048576, [user root] or [uid 0], a cgroup path's spelling "
	      "and allow_lockout (no map holds it) make no difference: %d '%s'",
	      ret, out);
	CHECK(!strstr(b, "allow_lockout"), "allow_lockout is left out of the canonical text");
	CHECK(strstr(b, "[uid 0]\n") > strstr(b, "[global]\n") &&
		      strstr(b, "[uid 1000]\n") > strstr(b, "[uid 0]\n") &&
		      strstr(b, "[cgroup /ci]\n") > strstr(b, "[uid 1000]\n"),
	      "global, then uid rules by uid, then cgroup rules: %s", b);
	free(out);
	free(a);
	free(b);
}

static void rules_sort_by_uid_and_path(void)
{
	struct policy p;
	static const struct argguard_rule r = { .action = ARGGUARD_ACTION_DENY };

	policy_init(&p);
	policy_add_uid(&p, 70000, &r, 0);
	policy_add_uid(&p, 5, &r, 0);
	policy_add_uid(&p, 4000000000U, &r, 0);
	policy_add_cgroup(&p, "/b", &r, 0);
	policy_add_cgroup(&p, "/a/z", &r, 0);
	policy_add_cgroup(&p, "/a", &r, 0);
	policy_sort(&p);
	CHECK(p.uids[0].uid == 5 && p.uids[1].uid == 70000 && p.uids[2].uid == 4000000000U,
	      "uids in numeric order, above 2^31 too");
	CHECK(!strcmp(p.cgroups[0].path, "/a") && !strcmp(p.cgroups[1].path, "/a/z") &&
		      !strcmp(p.cgroups[2].path, "/b"),
	      "cgroup paths in byte order");
	policy_free(&p);
}

static void a_changed_limit_is_one_line_out_one_in(void)
{
	char *live = canonical(site), *file, *out;
	int ret;

	file = canonical(
		"[global]\nmode = enforce\nmax_total_bytes = 2M\n[uid 1000]\n"
		"max_argv_bytes = 256K\naction = audit\n[cgroup /ci]\nmax_total_bytes = 4M\n");
	out = diff(live, file, &ret);
	CHECK(ret == 1, "they differ: %d", ret);
	CHECK(!strcmp(out, "--- live\n"
			   "+++ file\n"
			   "@@ -1,7 +1,7 @@ [global]\n"
			   " [global]\n"
			   " mode = enforce\n"
			   " empty_argv = allow\n"
			   "-max_total_bytes = 1048576\n"
			   "+max_total_bytes = 2097152\n"
			   " action = deny\n"
			   " errno = E2BIG\n"
			   " \n"),
	      "one hunk: the old line out, the new in, 3 lines of context: '%s'", out);
	free(out);
	free(live);
	free(file);
}

static void an_added_and_a_removed_rule_name_their_sections(void)
{
	char *live = canonical(site), *file, *out;
	int ret;

	file = canonical("[global]\nmode = enforce\nmax_total_bytes = 1M\n[uid 1000]\n"
			 "max_argv_bytes = 256K\naction = audit\n[uid 1001]\nmax_argc = 100\n");
	out = diff(live, file, &ret);
	CHECK(ret == 1, "they differ");
	CHECK(!strcmp(out, "--- live\n"
			   "+++ file\n"
			   "@@ -10,7 +10,7 @@ [cgroup /ci]\n"
			   " action = audit\n"
			   " errno = E2BIG\n"
			   " \n"
			   "-[cgroup /ci]\n"
			   "-max_total_bytes = 4194304\n"
			   "+[uid 1001]\n"
			   "+max_argc = 100\n"
			   " action = deny\n"
			   " errno = E2BIG\n"),
	      "the cgroup rule out, the uid rule in, under the section removed: '%s'", out);
	free(out);
	out = diff(file, live, &ret);
	CHECK(ret == 1 && strstr(out, "@@ -10,7 +10,7 @@ [uid 1001]\n") &&
		      strstr(out, "\n+[cgroup /ci]\n+max_total_bytes = 4194304\n") &&
		      strstr(out, "\n-[uid 1001]\n-max_argc = 100\n"),
	      "and the other way round: '%s'", out);
	free(out);
	free(live);
	free(file);
}

static void an_addition_alone_has_an_empty_old_range(void)
{
	int ret;
	char *out = diff("a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\nd\nX\ne\nf\ng\nh\n", &ret);

	CHECK(ret == 1 &&
		      !strcmp(out, "--- live\n+++ file\n@@ -2,6 +2,7 @@\n b\n c\n d\n+X\n e\n f\n"
				   " g\n"),
	      "-2,6 +2,7: three lines either side: '%s'", out);
	free(out);
	out = diff("a\n", "a\nb\n", &ret);
	CHECK(ret == 1 && !strcmp(out, "--- live\n+++ file\n@@ -1,1 +1,2 @@\n a\n+b\n"),
	      "a line added at the end: '%s'", out);
	free(out);
	out = diff("", "a\n", &ret);
	CHECK(ret == 1 && !strcmp(out, "--- live\n+++ file\n@@ -0,0 +1,1 @@\n+a\n"),
	      "to an empty text: -0,0, as diff -u says: '%s'", out);
	free(out);
	out = diff("a\nb\n", "a\nb", &ret);
	CHECK(ret == 1 && strstr(out, "No newline"),
	      "texts that differ in their last newline alone still differ: '%s'", out);
	free(out);
}

static void changes_far_apart_are_hunks_of_their_own(void)
{
	char old[256] = "", new[256] = "", *out;
	int ret;

	for (int i = 0; i < 20; i++) {
		snprintf(old + strlen(old), sizeof(old) - strlen(old), "%d\n", i);
		snprintf(new + strlen(new), sizeof(new) - strlen(new), "%d\n",
			 i == 2 || i == 17 ? 100 + i : i);
	}
	out = diff(old, new, &ret);
	CHECK(ret == 1 && strstr(out, "@@ -1,6 +1,6 @@\n") && strstr(out, "@@ -15,6 +15,6 @@\n") &&
		      !strstr(out, " 9\n"),
	      "two hunks, the lines between them left out: '%s'", out);
	free(out);
	new[strlen(new) - 1] = '\0';
}

/*
 * Apply a diff that text_diff() printed to old: what comes out. Checks
 * every context and removed line against old on the way; NULL if one does
 * not match, or the diff is malformed.
 */
static char *patch(const char *old, const char *d)
{
	char *buf = NULL;
	size_t len = 0, at = 1, from, count;
	FILE *out = open_memstream(&buf, &len);
	const char *o = old, *p = d;
	bool ok = true;

	p = strchr(p, '\n') + 1;
	p = strchr(p, '\n') + 1; /* past --- and +++ */
	while (ok && *p) {
		size_t n = strcspn(p, "\n");

		if (*p == '@') {
			char *end;

			ok = !strncmp(p, "@@ -", 4);
			from = strtoul(p + 4, &end, 10);
			ok = ok && *end == ',';
			count = strtoul(end + 1, &end, 10);
			ok = ok && *end == ' ';
			if (!count)
				from++;
			for (; ok && at < from; at++) { /* lines before the hunk, as they are */
				size_t l = strcspn(o, "\n");

				fprintf(out, "%.*s\n", (int)l, o);
				o += l + 1;
			}
		} else if (*p == ' ' || *p == '-') {
			size_t l = strcspn(o, "\n");

			ok = l == n - 1 && !strncmp(o, p + 1, l);
			if (*p == ' ')
				fprintf(out, "%.*s\n", (int)l, o);
			o += l + 1;
			at++;
		} else if (*p == '+') {
			fprintf(out, "%.*s\n", (int)(n - 1), p + 1);
		} else {
			ok = false;
		}
		p += n + 1;
	}
	fputs(o, out);
	fclose(out);
	if (!ok) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int lines_marked(const char *d, char mark)
{
	int n = 0;

	for (const char *p = strchr(strchr(d, '\n') + 1, '\n') + 1; *p; p = strchr(p, '\n') + 1)
		n += *p == mark;
	return n;
}

/* The longest common subsequence of the one-character lines of a and b, by the table. */
static int lcs_length(const char *a, int n, const char *b, int m)
{
	int t[13][13] = { { 0 } };

	for (int i = n - 1; i >= 0; i--)
		for (int j = m - 1; j >= 0; j--)
			t[i][j] = a[2 * i] == b[2 * j]	      ? t[i + 1][j + 1] + 1
				  : t[i + 1][j] > t[i][j + 1] ? t[i + 1][j]
							      : t[i][j + 1];
	return t[0][0];
}

/* A small xorshift generator: the same texts on every run. */
static unsigned int next_random(unsigned int *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

/* Random texts over three lines: each diff turns old into new, and keeps a longest run. */
static void every_diff_turns_old_into_new(void)
{
	char old[64], new[64], *out, *got;
	int ret, bad = 0, longer = 0;
	unsigned int seed = 29;

	for (int t = 0; t < 2000; t++) {
		int n = next_random(&seed) % 12, m = next_random(&seed) % 12, i;

		for (i = 0; i < n; i++)
			old[2 * i] = "abc"[next_random(&seed) % 3], old[2 * i + 1] = '\n';
		old[2 * n] = '\0';
		for (i = 0; i < m; i++)
			new[2 * i] = "abc"[next_random(&seed) % 3], new[2 * i + 1] = '\n';
		new[2 * m] = '\0';
		out = diff(old, new, &ret);
		got = ret == 1 ? patch(old, out) : strdup(old);
		if (!got || strcmp(got, new) || (ret == 0) != !strcmp(old, new)) {
			if (!bad++)
				printf("# old '%s' new '%s' diff '%s'\n", old, new, out);
		}
		/* A shortest edit keeps a longest common subsequence, and no more changes. */
		if (ret == 1 && (lines_marked(out, '-') != n - lcs_length(old, n, new, m) ||
				 lines_marked(out, '+') != m - lcs_length(old, n, new, m)))
			longer++;
		free(got);
		free(out);
	}
	CHECK(!bad, "2000 random pairs: patching old with the diff gives new (%d did not)", bad);
	CHECK(!longer, "each removes and adds only what a longest common run leaves (%d did more)",
	      longer);
}

/* A policy of thousands of rules with one change: one small hunk, found fast. */
static void a_large_policy_diffs_by_its_changed_middle(void)
{
	char *old = NULL, *new = NULL, *out, *got;
	size_t len;
	FILE *a = open_memstream(&old, &len), *b;
	int ret;

	for (int i = 0; i < 4000; i++)
		fprintf(a, "[uid %d]\nmax_argc = 9\naction = deny\nerrno = E2BIG\n\n", i);
	fclose(a);
	b = open_memstream(&new, &len);
	for (int i = 0; i < 4000; i++)
		fprintf(b, "[uid %d]\nmax_argc = %d\naction = deny\nerrno = E2BIG\n\n", i,
			i == 2500 || i == 10 ? 10 : 9);
	fclose(b);
	out = diff(old, new, &ret);
	CHECK(ret == 1 && strstr(out, "@@ -49,7 +49,7 @@ [uid 10]\n") &&
		      strstr(out, "@@ -12499,7 +12499,7 @@ [uid 2500]\n") &&
		      lines_marked(out, '-') == 2 && lines_marked(out, '+') == 2,
	      "20000 lines, two changed: two hunks, a line out and in each: '%.300s'", out);
	got = patch(old, out);
	CHECK(got && !strcmp(got, new), "and it patches old into new");
	free(got);
	free(out);

	/* Past the matching table's size: still a true diff, if not the shortest. */
	for (char *p = new; (p = strstr(p, "max_argc = 9")); p++)
		p[11] = '8';
	out = diff(old, new, &ret);
	got = out ? patch(old, out) : NULL;
	CHECK(ret == 1 && got && !strcmp(got, new),
	      "every rule changed: a diff that still patches old into new");
	free(got);
	free(out);
	free(old);
	free(new);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static void drift_parses_the_file_only_when_it_changes(void)
{
	char path[] = "/tmp/argguard-drift-XXXXXX";
	struct policy_file_check c;
	struct policy_drift d;
	char *live = canonical(site);
	int fd = mkstemp(path);

	close(fd);
	write_file(path, site);
	policy_drift_init(&d, path);
	/* A file just written is trusted here: settle_just_written_files has the rest. */
	d.settle_ns = 0;
	policy_drift_check(&d, live, &c);
	CHECK(c.state == POLICY_FILE_MATCHES && c.path == d.path && d.parses == 1,
	      "the file as applied matches: state %d, %u parses", c.state, d.parses);
	for (int i = 0; i < 10; i++)
		policy_drift_check(&d, live, &c);
	CHECK(c.state == POLICY_FILE_MATCHES && d.parses == 1,
	      "ten checks more, the file unchanged: still one parse (%u)", d.parses);

	write_file(path, "[global]\nmode = audit\n");
	policy_drift_check(&d, live, &c);
	CHECK(c.state == POLICY_FILE_DIFFERS && d.parses == 2,
	      "an edited file is parsed again, and differs: state %d, %u parses", c.state,
	      d.parses);
	policy_drift_forget(&d);
	policy_drift_check(&d, live, &c);
	CHECK(d.parses == 3, "after a reload (forget), parsed again though unchanged");

	write_file(path, "[global]\nmode = enforce\nmax_total_bytes = lots\n");
	policy_drift_check(&d, live, &c);
	CHECK(c.state == POLICY_FILE_INVALID && !strncmp(c.error, path, strlen(path)) &&
		      strstr(c.error, ":3: max_total_bytes = lots"),
	      "a file with an error is invalid, and the error names FILE:LINE: '%s'", c.error);
	policy_drift_check(&d, live, &c);
	CHECK(c.state == POLICY_FILE_INVALID && d.parses == 4 && strstr(c.error, ":3: "),
	      "and stays so without a parse more, error kept (%u parses)", d.parses);
	write_file(path, site);
	policy_drift_check(&d, NULL, &c);
	CHECK(c.state == POLICY_FILE_UNCHECKED, "a live policy that could not be read: unchecked");
	unlink(path);
	policy_drift_check(&d, live, &c);
	CHECK(c.state == POLICY_FILE_INVALID && strstr(c.error, "No such file"),
	      "a missing file is invalid, and says so: '%s'", c.error);
	policy_drift_check(&d, live, &c);
	write_file(path, site);
	policy_drift_check(&d, live, &c);
	CHECK(c.state == POLICY_FILE_MATCHES, "a file made again is found again");
	unlink(path);
	policy_drift_free(&d);
	free(live);
}

/* A FIFO (or a device) is not read: that would take what its writer meant for
 * the daemon, or wait for a writer for ever. */
static void drift_reads_no_fifo(void)
{
	char path[] = "/tmp/argguard-drift-fifo-XXXXXX";
	struct policy_file_check c;
	struct policy_drift d;
	int fd = mkstemp(path);

	close(fd);
	unlink(path);
	CHECK(!mkfifo(path, 0600), "made the FIFO %s: %s", path, strerror(errno));
	policy_drift_init(&d, path);
	policy_drift_check(&d, "[global]\n", &c);
	CHECK(c.state == POLICY_FILE_INVALID && strstr(c.error, "not a regular file") &&
		      d.parses == 0,
	      "a FIFO is invalid, unread: state %d, '%s', %u parses", c.state, c.error, d.parses);
	unlink(path);
	policy_drift_free(&d);
}

/*
 * Issue 40: the drift gauge reads the file with its fragments, and parses
 * again when a fragment is added, edited or removed, not otherwise.
 */
static void drift_reads_the_fragments_and_sees_them_change(void)
{
	char dir[] = "/tmp/argguard-drift-d-XXXXXX", path[128], frags[160], frag[200];
	char *live = canonical("[global]\nmode = enforce\nmax_total_bytes = 1M\n[uid 5]\n"
			       "max_argc = 10\n");
	struct policy_file_check c;
	struct policy_drift d;
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	unsigned int parses;

	CHECK(mkdtemp(dir) != NULL, "made %s", dir);
	snprintf(path, sizeof(path), "%s/argguard.conf", dir);
	snprintf(frags, sizeof(frags), "%s.d", path);
	snprintf(frag, sizeof(frag), "%s/10-uid.conf", frags);
	write_file(path, "[global]\nmode = enforce\nmax_total_bytes = 1M\n");
	policy_drift_init(&d, path);
	d.settle_ns = 0;
	policy_drift_check(&d, live, &c);
	CHECK(c.state == POLICY_FILE_DIFFERS && d.parses == 1,
	      "without the fragment, the file differs from the live policy: state %d", c.state);
	mkdir(frags, 0755);
	write_file(frag, "[uid 5]\nmax_argc = 10\n");
	policy_drift_check(&d, live, &c);
	CHECK(c.state == POLICY_FILE_MATCHES && d.parses == 2,
	      "a fragment added is read, merged: the file matches (state %d, %u parses)", c.state,
	      d.parses);
	for (int i = 0; i < 5; i++)
		policy_drift_check(&d, live, &c);
	CHECK(c.state == POLICY_FILE_MATCHES && d.parses == 2,
	      "and not parsed again while nothing changes (%u parses)", d.parses);
	parses = d.parses;
	nanosleep(&pause, NULL);
	write_file(frag, "[uid 5]\nmax_argc = 11\n");
	policy_drift_check(&d, live, &c);
	CHECK(c.state == POLICY_FILE_DIFFERS && d.parses == parses + 1,
	      "a fragment edited is parsed again, and differs (state %d)", c.state);
	write_file(frag, "[uid 5]\nmax_argc = lots\n");
	policy_drift_check(&d, live, &c);
	CHECK(c.state == POLICY_FILE_INVALID && strstr(c.error, "/10-uid.conf:2: max_argc = lots"),
	      "a fragment with an error makes the policy invalid, naming it: '%s'", c.error);
	parses = d.parses;
	unlink(frag);
	policy_drift_check(&d, live, &c);
	CHECK(c.state == POLICY_FILE_DIFFERS && d.parses == parses + 1,
	      "a fragment removed is missed, parsed again (state %d, %u parses)", c.state,
	      d.parses - parses);
	policy_drift_check(&d, live, &c);
	CHECK(d.parses == parses + 1, "and then not again (%u parses)", d.parses - parses);
	rmdir(frags);
	unlink(path);
	rmdir(dir);
	policy_drift_free(&d);
	free(live);
}

/*
 * Issue 42: a file's times are only as fine as the filesystem's clock, and
 * a rewrite of the same size within one tick of it looks the same to
 * stat(). Files changed within settle_ns of a parse are parsed again at
 * the next check, so no rewrite just after a check is missed; once they
 * have settled, a check parses no more.
 */
static void settle_just_written_files(void)
{
	char path[] = "/tmp/argguard-drift-settle-XXXXXX";
	struct timespec pause = { 0, 60 * 1000 * 1000 };
	char *live = canonical("[global]\nmode = enforce\nmax_argc = 100\n");
	struct policy_file_check c;
	struct policy_drift d;
	int fd = mkstemp(path);
	unsigned int parses;

	close(fd);
	write_file(path, "[global]\nmode = enforce\nmax_argc = 100\n");
	policy_drift_init(&d, path);
	CHECK(d.settle_ns == POLICY_DRIFT_SETTLE_NS, "the daemon's files settle in %lld ns",
	      d.settle_ns);
	d.settle_ns = 50 * 1000 * 1000;
	policy_drift_check(&d, live, &c);
	CHECK(c.state == POLICY_FILE_MATCHES && d.parses == 1 && !d.settled,
	      "a file just written matches, not settled (%u parses)", d.parses);
	/* The same size, at once: within one tick of a coarse clock, the same times. */
	write_file(path, "[global]\nmode = enforce\nmax_argc = 200\n");
	policy_drift_check(&d, live, &c);
	CHECK(c.state == POLICY_FILE_DIFFERS && d.parses == 2,
	      "a same-size rewrite just after a check is seen: state %d, %u parses", c.state,
	      d.parses);
	nanosleep(&pause, NULL);
	policy_drift_check(&d, live, &c);
	CHECK(c.state == POLICY_FILE_DIFFERS && d.parses == 3 && d.settled,
	      "once settled, parsed once more (%u parses), and trusted", d.parses);
	parses = d.parses;
	for (int i = 0; i < 5; i++)
		policy_drift_check(&d, live, &c);
	CHECK(d.parses == parses, "then not parsed again (%u more)", d.parses - parses);
	unlink(path);
	policy_drift_free(&d);
	free(live);
}

/* sorted: text parsed and sorted, as policy_maps_read_live() leaves a policy. */
static void sorted(const char *text, struct policy *p)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	char err[256] = "";

	CHECK(!parse_quietly(in, "test.conf", p, err, sizeof(err)), "parses (%s)", err);
	fclose(in);
	policy_sort(p);
}

/*
 * Issue 42: the daemon prints the live policy's text again only when a
 * tick reads it changed. Any change of a setting, a limit, a uid or a
 * cgroup path is a change; the order the maps gave the rules in is not.
 */
static void same_live_policy_is_byte_for_byte(void)
{
	static const char *const changed[] = {
		"[global]\nmode = audit\nmax_total_bytes = 1M\n[uid 1000]\nmax_argv_bytes = "
		"256K\naction = audit\n[cgroup /ci]\nmax_total_bytes = 4M\n",
		"[global]\nmode = enforce\nmax_total_bytes = 1M\n[uid 1000]\nmax_argv_bytes = "
		"257K\naction = audit\n[cgroup /ci]\nmax_total_bytes = 4M\n",
		"[global]\nmode = enforce\nmax_total_bytes = 1M\n[uid 1001]\nmax_argv_bytes = "
		"256K\naction = audit\n[cgroup /ci]\nmax_total_bytes = 4M\n",
		"[global]\nmode = enforce\nmax_total_bytes = 1M\n[uid 1000]\nmax_argv_bytes = "
		"256K\naction = audit\n[cgroup /cj]\nmax_total_bytes = 4M\n",
		"[global]\nmode = enforce\nmax_total_bytes = 1M\n[uid 1000]\nmax_argv_bytes = "
		"256K\naction = audit\n",
		"[global]\nmode = enforce\nmax_total_bytes = 1M\nevent_rate = 5\n[uid 1000]\n"
		"max_argv_bytes = 256K\naction = audit\n[cgroup /ci]\nmax_total_bytes = 4M\n",
	};
	struct policy a, b;

	sorted(site, &a);
	sorted("[cgroup /ci]\nmax_total_bytes = 4M\n[uid 1000]\naction = audit\n"
	       "max_argv_bytes = 256K\n[global]\nmax_total_bytes = 1M\nmode = enforce\n",
	       &b);
	CHECK(policy_same_live(&a, &b) && policy_same_live(&b, &a),
	      "the same policy, written in another order, is the same");
	policy_free(&b);
	for (size_t i = 0; i < sizeof(changed) / sizeof(changed[0]); i++) {
		sorted(changed[i], &b);
		CHECK(!policy_same_live(&a, &b) && !policy_same_live(&b, &a),
		      "change %zu is a change", i);
		policy_free(&b);
	}
	policy_free(&a);
}

int main(void)
{
	spelling_order_and_comments_do_not_count();
	rules_sort_by_uid_and_path();
	a_changed_limit_is_one_line_out_one_in();
	an_added_and_a_removed_rule_name_their_sections();
	an_addition_alone_has_an_empty_old_range();
	changes_far_apart_are_hunks_of_their_own();
	every_diff_turns_old_into_new();
	a_large_policy_diffs_by_its_changed_middle();
	drift_parses_the_file_only_when_it_changes();
	drift_reads_no_fifo();
	drift_reads_the_fragments_and_sees_them_change();
	settle_just_written_files();
	same_live_policy_is_byte_for_byte();
	return check_done();
}
