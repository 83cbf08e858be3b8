// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup rule patterns: what a pattern matches (by the steps the
 * cgroup_mkdir program takes), how patterns rank, which files are refused,
 * and paths a hostile user could make.
 */
#include <stdlib.h>
#include <string.h>

#include "cgroup_pattern.h" /* and argguard.h */
#include "cgroup_glob.h"
#include "check.h"
#include "log.h"
#include "policy.h"
#include "policy_diff.h"

#define ID "4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a"
#define ID2 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define POD_ "2c9a6b1e_7f3d_4a5b_9c8d_1e2f3a4b5c6d"
#define DOCKER "/system.slice/docker-*.scope"
#define KUBE "/kubepods.slice/**/cri-containerd-*.scope"
#define USER "/user.slice/user-1000.slice/user@1000.service"

/* Parse text; err gets the error the parser logs (quietly), if any. */
static int parse(const char *text, struct policy *p, char *err, size_t err_len)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	struct log_capture c;
	int ret;

	log_capture_start(&c, LOG_ERR, err, err_len, true);
	ret = policy_parse(in, "test.conf", p);
	log_capture_stop(&c);
	fclose(in);
	return ret;
}

struct want {
	const char *pat, *path;
	bool match;
};

static const struct want cases[] = {
	{ DOCKER, "/system.slice/docker-" ID ".scope", true },
	{ DOCKER, "/system.slice/docker-" ID2 ".scope", true },
	{ DOCKER, "/system.slice/docker-.scope", true }, /* '*' takes nothing too */
	{ DOCKER, "/system.slice/ssh.service", false },
	{ DOCKER, "/system.slice", false },
	{ DOCKER, "/", false },
	/* One component: not the cgroups below, which their ancestor's rule judges. */
	{ DOCKER, "/system.slice/docker-" ID ".scope/init", false },
	{ DOCKER, "/system.slice/docker-a/b.scope", false },
	{ DOCKER, "/system.slice/docker-" ID ".scope.d", false },
	/* Anchored at the root: a look-alike in a user's delegated subtree is not it. */
	{ DOCKER, USER "/system.slice/docker-" ID ".scope", false },
	{ DOCKER, "/system.slice//docker-" ID ".scope", false },
	{ DOCKER, "/system.slice/../system.slice/docker-" ID ".scope", false },
	{ KUBE,
	  "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_
	  ".slice/cri-containerd-" ID ".scope",
	  true },
	{ KUBE, "/kubepods.slice/kubepods-pod" POD_ ".slice/cri-containerd-" ID ".scope", true },
	{ KUBE, "/kubepods.slice/cri-containerd-" ID ".scope", true }, /* "**": none */
	{ KUBE, "/kubepods.slice/kubepods-pod" POD_ ".slice/crio-" ID ".scope", false },
	{ KUBE, "/kubepods.slice/kubepods-pod" POD_ ".slice/cri-containerd-" ID ".scope/x", false },
	{ KUBE, "/kubepods.slicex/cri-containerd-" ID ".scope", false },
	{ KUBE, "/system.slice/kubepods.slice/cri-containerd-" ID ".scope", false },
	{ "/**/libpod-*.scope", USER "/user.slice/libpod-" ID ".scope", true },
	{ "/**/libpod-*.scope", "/machine.slice/libpod-" ID ".scope", true },
	{ "/**/libpod-*.scope", "/libpod-" ID ".scope", true },
	{ "/**/libpod-*.scope", "/machine.slice/libpod-conmon-" ID ".scope", true },
	{ "/**/libpod-*.scope", "/machine.slice/libpod-" ID ".scope/container", false },
	{ "/a/**/b/**/c", "/a/b/c", true },
	{ "/a/**/b/**/c", "/a/x/b/y/z/c", true },
	{ "/a/**/b/**/c", "/a/x/b/y/z/cc", false },
	{ "/a/**/b/**/c", "/a/xb/c", false },
	{ "/*/*", "/a/b", true },
	{ "/*/*", "/a", false },
	{ "/*/*", "/a/b/c", false },
	{ "/a*b*c", "/aXbYc", true },
	{ "/a*b*c", "/abcbc", true },
	{ "/a*b*c", "/ab/c", false },
	{ "/a*/b", "/ab/b", true },
	{ "/a*b/c", "/ab/bb/c", false },
};

static void patterns_match_their_cgroups(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(cgroup_pattern_match(cases[i].pat, cases[i].path, NULL) == cases[i].match,
		      "%s %s %s", cases[i].pat, cases[i].match ? "matches" : "does not match",
		      cases[i].path);
}

/* A fixed sequence, the same on every run. */
static unsigned int next(unsigned int *seed)
{
	*seed = *seed * 1103515245U + 12345U;
	return *seed >> 16;
}

/*
 * A literal path is a pattern without '*': the product of the two automata
 * (cgroup_patterns_overlap()) says what the greedy steps must.
 */
static void greedy_steps_agree_with_the_automaton(void)
{
	static const char *const parts[] = { "a", "b", "*", "/", "**/", "ab", "*b" };
	static const char *const path_parts[] = { "a", "b", "/", "ab", "ba", "/a" };
	char pat[64], path[64], why[128];
	unsigned int seed = 1, disagree = 0, tried = 0, matched = 0;

	for (int i = 0; i < 20000; i++) {
		strcpy(pat, "/");
		strcpy(path, "/");
		for (int n = next(&seed) % 6; n >= 0; n--)
			strcat(pat, parts[next(&seed) % 7]);
		for (int n = next(&seed) % 7; n >= 0; n--)
			strcat(path, path_parts[next(&seed) % 6]);
		if (strstr(pat, "//") || strstr(pat, "***") || pat[strlen(pat) - 1] == '/' ||
		    !cgroup_pattern_check(pat, why, sizeof(why)))
			continue;
		tried++;
		matched += cgroup_pattern_match(pat, path, NULL);
		if (cgroup_pattern_match(pat, path, NULL) != cgroup_patterns_overlap(pat, path)) {
			if (!disagree++)
				printf("# first disagreement: %s on %s\n", pat, path);
		}
	}
	CHECK(tried > 1000 && matched > 100, "enough random patterns tried (%u) and matched (%u)",
	      tried, matched);
	CHECK(!disagree, "the greedy steps agree with the automaton (%u of %u disagree)", disagree,
	      tried);
}

/* Hostile paths of the longest the maps hold: the steps stay within the budget. */
static void steps_stay_within_the_budget(void)
{
	char pat[ARGGUARD_CGROUP_PATH_LEN], path[ARGGUARD_CGROUP_PATH_LEN];
	unsigned long steps, most = 0;
	const char *const worst[] = { "/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b",
				      "/**/**/**/**/**/**/*a*a*a*a*a*a*b/*a*a*b",
				      "/**/a/**/a/**/a/**/a/**/a/**/b",
				      "/**/*a*a*a*a*a*a*a*a*a*/b" };

	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 2] = '\0'; /* 254 bytes, the longest a rule holds */
	for (size_t i = 0; i < sizeof(worst) / sizeof(worst[0]); i++) {
		CHECK(!cgroup_pattern_match(worst[i], path, &steps) &&
			      steps < CGROUP_GLOB_MAX_STEPS,
		      "%s on 254 bytes of 'a': no match, in %lu steps", worst[i], steps);
		most = steps > most ? steps : most;
		for (size_t j = 1; j + 2 < sizeof(path) - 2; j += 2)
			path[j] = '/'; /* 127 components of "a" */
		CHECK(!cgroup_pattern_match(worst[i], path, &steps) &&
			      steps < CGROUP_GLOB_MAX_STEPS,
		      "%s on 127 components: no match, in %lu steps", worst[i], steps);
		most = steps > most ? steps : most;
		memset(path + 1, 'a', sizeof(path) - 3);
	}
	printf("# most steps taken: %lu of %u\n", most, CGROUP_GLOB_MAX_STEPS);
	memset(pat, 0, sizeof(pat));
	snprintf(pat, sizeof(pat), "/**/%.*s*", 240, path + 1);
	CHECK(cgroup_pattern_match(pat, path, NULL), "a pattern of 246 bytes matches 254 of 'a'");
	memset(path, 'a', sizeof(path));
	path[0] = '/';
	path[sizeof(path) - 1] = '\0'; /* 255 bytes: longer than any rule's path */
	CHECK(!cgroup_pattern_match("/*", path, NULL), "a path longer than a rule's matches none");
}

/*
 * The matcher's real worst case, well past the shapes above: one path
 * component of 253 'a' and a '*' followed by a run of m 'a' and a 'b', so
 * never a match. The '*' moves on 253 times and the run is matched again
 * each time: about 253 * m - m * m / 2 steps, most for the longest such
 * pattern the maps hold. A leading "**" adds little: after the one
 * component it has none to take.
 */
static void the_longest_literal_after_a_star_stays_within_the_budget(void)
{
	char pat[ARGGUARD_CGROUP_PATH_LEN], path[ARGGUARD_CGROUP_PATH_LEN];
	unsigned long steps, most = 0;
	unsigned int over = 0, matched = 0;

	memset(path, 'a', sizeof(path) - 2);
	path[0] = '/';
	path[sizeof(path) - 2] = '\0'; /* 254 bytes: one component of 253 */
	for (int dstar = 0; dstar < 2; dstar++) {
		const char *lead = dstar ? "/**/*" : "/*";

		/* up to 254 bytes: lead, m 'a', 'b' */
		for (int m = 1; m <= 253 - (int)strlen(lead); m++) {
			snprintf(pat, sizeof(pat), "%s%.*sb", lead, m, path + 1);
			matched += cgroup_pattern_match(pat, path, &steps);
			over += steps >= CGROUP_GLOB_MAX_STEPS;
			most = steps > most ? steps : most;
		}
	}
	CHECK(!matched && !over && most > 30000,
	      "'*' then up to 251 'a' and 'b' on 253 'a': %u of 499 match, %u at the budget, "
	      "most steps %lu of %u",
	      matched, over, most, CGROUP_GLOB_MAX_STEPS);
}

static void wildcards_are_checked(void)
{
	static const struct {
		const char *pat;
		bool ok;
	} checks[] = {
		{ DOCKER, true },	{ KUBE, true },	     { "/**/a", true },
		{ "/a/***/b", false },	{ "/a/**b", false }, { "/a/b**", false },
		{ "/a/**", false },	{ "/**", false },    { "/a/*", true },
		{ "/a/**/**/b", true },
	};
	char why[128];

	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		CHECK(cgroup_pattern_check(checks[i].pat, why, sizeof(why)) == checks[i].ok,
		      "%s is %s", checks[i].pat, checks[i].ok ? "a pattern" : "refused");
}

static void patterns_rank_and_overlap(void)
{
	CHECK(cgroup_pattern_rank(DOCKER) == strlen(DOCKER) - 1, "rank: bytes besides '*'");
	CHECK(cgroup_pattern_rank("/**/a") == 3, "rank of /**/a is 3");
	CHECK(cgroup_patterns_overlap("/a/*", "/*/a"), "/a/* and /*/a can match /a/a");
	CHECK(!cgroup_patterns_overlap("/a/*", "/b/*"), "/a/* and /b/* cannot match one path");
	CHECK(!cgroup_patterns_overlap("/*", "/*/*"), "/* and /*/* differ in depth");
	CHECK(cgroup_patterns_overlap("/**/x", "/a/*/x"), "/**/x and /a/*/x can match /a/b/x");
	CHECK(!cgroup_patterns_overlap("/**/x", "/a/*/y"), "/**/x and /a/*/y end apart");
	CHECK(!cgroup_patterns_overlap("/a*", "/b*"), "/a* and /b* start apart");
	CHECK(cgroup_patterns_overlap("/*a", "/a*"), "/*a and /a* can match /a");
}

#define A "action = deny"

static const char head[] = "[global]\nmode = enforce\n";

static void literal_beats_pattern_and_longer_beats_shorter(void)
{
	const char *text = "[global]\nmode = enforce\n"
			   "[cgroup /system.slice/docker-*.scope]\nmax_total_bytes = 100K\n"
			   "[cgroup /system.slice/*]\nmax_total_bytes = 200K\n"
			   "[cgroup /system.slice/docker-" ID ".scope]\nmax_total_bytes = 300K\n";
	struct policy p;
	char err[512];
	long r;

	CHECK(!parse(text, &p, err, sizeof(err)), "three overlapping rules of distinct rank parse");
	r = cgroup_rule_for(&p, "/system.slice/docker-" ID ".scope");
	CHECK(r == 2, "the literal path judges its cgroup (rule %ld)", r);
	r = cgroup_rule_for(&p, "/system.slice/docker-" ID2 ".scope");
	CHECK(r == 0, "the docker pattern judges another docker scope (rule %ld)", r);
	r = cgroup_rule_for(&p, "/system.slice/cron.service");
	CHECK(r == 1, "/system.slice/* judges the rest (rule %ld)", r);
	r = cgroup_rule_for(&p, "/system.slice/cron.service/x");
	CHECK(r == -1, "no rule for a cgroup below: its ancestor's judges it (rule %ld)", r);
	r = cgroup_rule_for(&p, USER "/system.slice/docker-" ID2 ".scope");
	CHECK(r == -1, "no rule for a look-alike in a user's subtree (rule %ld)", r);
	policy_free(&p);
}

static void refused(const char *sections, const char *want)
{
	char text[1024], err[512];
	struct policy p;

	snprintf(text, sizeof(text), "%s%s", head, sections);
	err[0] = '\0';
	CHECK(parse(text, &p, err, sizeof(err)) && strstr(err, want),
	      "refused with '%s' (got '%s')", want, err);
}

static void bad_files_are_refused(void)
{
	refused("[cgroup /a/*]\n" A "\n[cgroup /*/a]\n" A "\n",
		"test.conf:5: [cgroup /*/a] and [cgroup /a/*] (line 3) can match the same cgroup");
	refused("[cgroup /system.slice/*.scope]\n" A "\n[cgroup /system.slice/docker*]\n" A "\n"
		"[cgroup /system.slice/*-1.scope]\n" A "\n",
		"test.conf:5: [cgroup /system.slice/docker*] and [cgroup /system.slice/*.scope] "
		"(line 3) can match the same cgroup and rank equal (20 bytes besides '*')");
	refused("[cgroup /a/***/b]\n",
		"test.conf:3: cgroup pattern '/a/***/b': '**' must be a whole");
	refused("[cgroup /a/**]\n", "test.conf:3: cgroup pattern '/a/**': a trailing '**'");
	refused("[cgroup /a/*/../b]\n",
		"test.conf:3: cgroup pattern '/a/*/../b' has a '.' or '..'");
	refused("[cgroup /a/./*]\n", "has a '.' or '..' component");
	refused("[cgroup /a/*]\n" A "\n[cgroup /a//*/]\n" A "\n",
		"test.conf:5: a second rule for cgroup /a/*");
}

static void too_many_patterns_are_refused(void)
{
	char *text = malloc(64 * 1024), err[512];
	struct policy p;
	size_t len = 0;

	len += sprintf(text + len, "%s", head);
	for (int i = 0; i <= ARGGUARD_MAX_CGROUP_PATTERNS; i++)
		len += sprintf(text + len, "[cgroup /p%d/*]\naction = deny\n", i);
	CHECK(parse(text, &p, err, sizeof(err)) && strstr(err, "more than 128 cgroup patterns"),
	      "a 129th pattern is refused (got '%s')", err);
	free(text);
}

/* policy show prints what policy check reads back, the same. */
static void patterns_print_back(void)
{
	const char *text = "[global]\nmode = enforce\n"
			   "[cgroup /kubepods.slice//**/cri-containerd-*.scope/]\nmax_argc = 5\n"
			   "[cgroup /system.slice/docker-*.scope]\nmax_total_bytes = 100K\n";
	struct policy p, again;
	char err[512], *printed, *reprinted = NULL;
	bool ok;

	CHECK(!parse(text, &p, err, sizeof(err)), "patterns parse (%s)", err);
	printed = policy_canonical_text(&p);
	CHECK(printed && strstr(printed, "[cgroup " KUBE "]") &&
		      strstr(printed, "[cgroup " DOCKER "]"),
	      "printed in one spelling");
	ok = printed && !parse(printed, &again, err, sizeof(err));
	CHECK(ok, "the printed file parses (%s)", err);
	if (ok) {
		reprinted = policy_canonical_text(&again);
		policy_free(&again);
	}
	CHECK(reprinted && !strcmp(printed, reprinted), "and prints the same again");
	free(printed);
	free(reprinted);
	policy_free(&p);
}

static void ranked_in_the_order_tried(void)
{
	const char *text = "[global]\nmode = enforce\n"
			   "[cgroup /**/xy]\naction = deny\n[cgroup /a/*]\naction = deny\n"
			   "[cgroup /a/b/*]\naction = deny\n[cgroup /lit]\naction = deny\n";
	size_t order[4], n;
	struct policy p;
	char err[512];

	CHECK(!parse(text, &p, err, sizeof(err)), "parses (%s)", err);
	n = cgroup_patterns_ranked(&p, order);
	CHECK(n == 3 && order[0] == 2 && order[1] == 0 && order[2] == 1,
	      "patterns only, highest rank first: /a/b/* (5), /**/xy (4), /a/* (3)");
	policy_free(&p);
}

int main(void)
{
	patterns_match_their_cgroups();
	greedy_steps_agree_with_the_automaton();
	steps_stay_within_the_budget();
	the_longest_literal_after_a_star_stays_within_the_budget();
	wildcards_are_checked();
	patterns_rank_and_overlap();
	literal_beats_pattern_and_longer_beats_shorter();
	bad_files_are_refused();
	too_many_patterns_are_refused();
	patterns_print_back();
	ranked_in_the_order_tried();
	return check_done();
}
