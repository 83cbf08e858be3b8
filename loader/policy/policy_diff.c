// SPDX-License-Identifier: GPL-2.0
#include "policy_diff.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

/* Lines of context around each change, as diff -u shows. */
#define DIFF_CONTEXT 3

/*
 * The most lines a diff removes and adds before it gives up on the
 * shortest: its working memory grows as their square (16 MiB here). Past
 * it, the changed middle of the texts (what is left once their common head
 * and tail are set aside) is shown as removed whole, then added whole:
 * still a true diff, only not the shortest.
 */
#define DIFF_MAX_EDITS 2047

static int uid_order(const void *a, const void *b)
{
	const struct uid_rule *x = a, *y = b;

	return (x->uid > y->uid) - (x->uid < y->uid);
}

static int cgroup_order(const void *a, const void *b)
{
	const struct cgroup_rule *x = a, *y = b;

	return strcmp(x->path, y->path);
}

void policy_sort(struct policy *p)
{
	if (p->n_uids)
		qsort(p->uids, p->n_uids, sizeof(*p->uids), uid_order);
	if (p->n_cgroups)
		qsort(p->cgroups, p->n_cgroups, sizeof(*p->cgroups), cgroup_order);
}

char *policy_canonical_text(struct policy *p)
{
	struct policy shown;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	policy_sort(p);
	shown = *p;
	/* The file's word to the gate: no map holds them. */
	shown.allow_lockout = false;
	shown.n_admin_groups = 0;
	shown.unknown_names_error = false;
	f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	policy_print(f, &shown);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

bool policy_same_live(const struct policy *a, const struct policy *b)
{
	if (a->mode != b->mode || a->empty_argv_action != b->empty_argv_action ||
	    a->head_bytes != b->head_bytes || a->event_rate != b->event_rate ||
	    a->event_burst != b->event_burst || a->event_rate_total != b->event_rate_total ||
	    a->learn_sizes != b->learn_sizes || memcmp(&a->global, &b->global, sizeof(a->global)) ||
	    memcmp(&a->setuid, &b->setuid, sizeof(a->setuid)) || a->n_uids != b->n_uids ||
	    a->n_cgroups != b->n_cgroups)
		return false;
	for (size_t i = 0; i < a->n_uids; i++)
		if (a->uids[i].uid != b->uids[i].uid ||
		    memcmp(&a->uids[i].rule, &b->uids[i].rule, sizeof(a->uids[i].rule)))
			return false;
	for (size_t i = 0; i < a->n_cgroups; i++)
		if (strcmp(a->cgroups[i].path, b->cgroups[i].path) ||
		    memcmp(&a->cgroups[i].rule, &b->cgroups[i].rule, sizeof(a->cgroups[i].rule)))
			return false;
	return true;
}

struct line {
	const char *s;
	size_t len; /* without its newline */
};

/* The lines of text: an array to free(), its length in *n. */
static struct line *split_lines(const char *text, size_t *n)
{
	size_t count = 0, i = 0;
	struct line *lines;
	const char *p;

	for (p = text; *p; p += strcspn(p, "\n"), p += *p == '\n')
		count++;
	lines = calloc(count ? count : 1, sizeof(*lines));
	if (!lines)
		return NULL;
	for (p = text; *p; p += lines[i++].len, p += *p == '\n')
		lines[i] = (struct line){ .s = p, .len = strcspn(p, "\n") };
	*n = count;
	return lines;
}

static bool same_line(const struct line *a, const struct line *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->s, b->s, a->len));
}

/* One step of the edit from old to new: a line kept, removed or added. */
struct edit {
	char op; /* ' ', '-' or '+' */
	size_t old_at, new_at; /* the line's index in old (' ', '-') or new (' ', '+') */
};

/*
 * A shortest edit from a[0..n) to b[0..m), appended to e at *k: Myers'
 * greedy algorithm ("An O(ND) Difference Algorithm and Its Variations",
 * 1986), which keeps a longest common subsequence of lines. For each
 * number of edits d it records, on each diagonal (x - y), how far along a
 * the furthest path of d edits gets; the path is then walked back from the
 * end. trace[d * d + d + diagonal] holds that for d. Past DIFF_MAX_EDITS:
 * every line of a removed, then every line of b added. 0 or -ENOMEM.
 */
static int match_middle(const struct line *a, int n, size_t a_at, const struct line *b, int m,
			size_t b_at, struct edit *e, size_t *k)
{
	int d, diag, x, y, limit = n + m < DIFF_MAX_EDITS ? n + m : DIFF_MAX_EDITS, found = -1;
	struct edit *rev;
	int *trace, *v, *prev = NULL;
	size_t r = 0;

	trace = malloc(sizeof(*trace) * (size_t)(limit + 1) * (size_t)(limit + 1));
	if (!trace)
		return -ENOMEM;
	for (d = 0; d <= limit && found < 0; d++) {
		v = trace + d * d + d; /* v[diag], diag from -d to d */
		for (diag = -d; diag <= d; diag += 2) {
			if (d == 0)
				x = 0;
			else if (diag == -d || (diag != d && prev[diag - 1] < prev[diag + 1]))
				x = prev[diag + 1]; /* a line of b added */
			else
				x = prev[diag - 1] + 1; /* a line of a removed */
			for (y = x - diag; x < n && y < m && same_line(&a[x], &b[y]); x++, y++)
				;
			v[diag] = x;
			if (x >= n && y >= m) {
				found = d;
				break;
			}
		}
		prev = v;
	}
	if (found < 0) {
		free(trace);
		for (x = 0; x < n; x++)
			e[(*k)++] = (struct edit){ '-', a_at + x, b_at };
		for (y = 0; y < m; y++)
			e[(*k)++] = (struct edit){ '+', a_at + n, b_at + y };
		return 0;
	}
	/* Walk back from the end: at most n + m edits, last first. */
	rev = e + *k;
	for (x = n, y = m, d = found; x > 0 || y > 0; d--) {
		bool down = false; /* the edit that led here added a line of b */
		int px = 0, py;

		diag = x - y;
		if (d > 0) {
			prev = trace + (d - 1) * (d - 1) + (d - 1);
			down = diag == -d || (diag != d && prev[diag - 1] < prev[diag + 1]);
			px = down ? prev[diag + 1] : prev[diag - 1] + 1;
		}
		py = px - diag;
		for (; x > px && y > py; x--, y--)
			rev[r++] = (struct edit){ ' ', a_at + x - 1, b_at + y - 1 };
		if (d == 0)
			break;
		if (down) /* b[y - 1] added */
			rev[r++] = (struct edit){ '+', a_at + x, b_at + --y };
		else /* a[x - 1] removed */
			rev[r++] = (struct edit){ '-', a_at + --x, b_at + y };
	}
	free(trace);
	for (size_t i = 0; i < r / 2; i++) {
		struct edit t = rev[i];

		rev[i] = rev[r - 1 - i];
		rev[r - 1 - i] = t;
	}
	*k += r;
	return 0;
}

/*
 * The section of old that the first change in e[from..to) is in: the last
 * "[section]" line at or before the line it removes, or before the line it
 * adds in front of. NULL if none.
 */
static const struct line *section_of(const struct edit *e, size_t from, size_t to,
				     const struct line *old)
{
	size_t at;

	while (from < to - 1 && e[from].op == ' ')
		from++;
	at = e[from].old_at + (e[from].op == '-'); /* lines to look back over */
	while (at-- > 0)
		if (old[at].len && old[at].s[0] == '[')
			return &old[at];
	return NULL;
}

/* A "-l,n" or "+l,n" range: a range of no lines starts at the line before it. */
static void print_range(FILE *out, char sign, size_t first, size_t count)
{
	fprintf(out, "%c%zu,%zu", sign, count ? first + 1 : first, count);
}

/* The hunk of edits e[from..to): its header, then its lines. */
static void print_hunk(FILE *out, const struct edit *e, size_t from, size_t to,
		       const struct line *old, const struct line *new)
{
	size_t old_count = 0, new_count = 0;
	const struct line *section = section_of(e, from, to, old);

	for (size_t i = from; i < to; i++) {
		old_count += e[i].op != '+';
		new_count += e[i].op != '-';
	}
	fputs("@@ ", out);
	print_range(out, '-', e[from].old_at, old_count);
	fputc(' ', out);
	print_range(out, '+', e[from].new_at, new_count);
	fputs(" @@", out);
	if (section)
		fprintf(out, " %.*s", (int)section->len, section->s);
	fputc('\n', out);
	for (size_t i = from; i < to; i++) {
		const struct line *l = e[i].op == '+' ? &new[e[i].new_at] : &old[e[i].old_at];

		fprintf(out, "%c%.*s\n", e[i].op, (int)l->len, l->s);
	}
}

/*
 * Group the edits into hunks (changes closer than twice the context share
 * one) and print them. Returns how many there were.
 */
static size_t print_hunks(FILE *out, const struct edit *e, size_t k, const struct line *old,
			  const struct line *new)
{
	size_t i = 0, from, to, last, hunks = 0;

	while (i < k) {
		while (i < k && e[i].op == ' ')
			i++;
		if (i == k)
			break;
		from = i > DIFF_CONTEXT ? i - DIFF_CONTEXT : 0;
		last = i; /* the last change in the hunk */
		for (i++; i < k; i++) {
			if (e[i].op == ' ')
				continue;
			if (i - last > 2 * DIFF_CONTEXT)
				break;
			last = i;
		}
		to = last + 1 + DIFF_CONTEXT < k ? last + 1 + DIFF_CONTEXT : k;
		print_hunk(out, e, from, to, old, new);
		hunks++;
		i = to;
	}
	return hunks;
}

int text_diff(FILE *out, const char *old_name, const char *old, const char *new_name,
	      const char *new)
{
	struct line *a = NULL, *b = NULL;
	struct edit *e = NULL;
	size_t n, m, head = 0, tail = 0, k = 0;
	int ret = -ENOMEM;

	if (!strcmp(old, new))
		return 0;
	a = split_lines(old, &n);
	b = split_lines(new, &m);
	e = a && b ? calloc(n + m + 1, sizeof(*e)) : NULL;
	if (!e)
		goto out;
	while (head < n && head < m && same_line(&a[head], &b[head]))
		head++;
	while (tail < n - head && tail < m - head && same_line(&a[n - 1 - tail], &b[m - 1 - tail]))
		tail++;
	for (size_t i = 0; i < head; i++)
		e[k++] = (struct edit){ ' ', i, i };
	if (match_middle(a + head, (int)(n - head - tail), head, b + head, (int)(m - head - tail),
			 head, e, &k))
		goto out;
	for (size_t i = 0; i < tail; i++)
		e[k++] = (struct edit){ ' ', n - tail + i, m - tail + i };
	fprintf(out, "--- %s\n+++ %s\n", old_name, new_name);
	/* Texts that differ only in a last newline have the same lines. */
	if (!print_hunks(out, e, k, a, b))
		fputs("\\ No newline at end of one of the texts\n", out);
	ret = 1;
out:
	free(a);
	free(b);
	free(e);
	return ret;
}

void policy_drift_init(struct policy_drift *d, const char *path)
{
	*d = (struct policy_drift){ .path = path, .settle_ns = POLICY_DRIFT_SETTLE_NS };
}

void policy_drift_free(struct policy_drift *d)
{
	free(d->text);
	free(d->st);
	policy_drift_init(d, d->path);
}

void policy_drift_forget(struct policy_drift *d)
{
	d->parsed = false;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/*
 * After the file's own stat() (first): its fragment directory's, then each
 * fragment's, all zero for one that is not there; into *out, to free.
 * false if they cannot be listed (the parse says why): no stat stands for
 * such files.
 */
static bool file_stats(const char *path, const struct stat *first, struct stat **out, size_t *n)
{
	char dir[4096], **names;
	size_t n_names;

	*out = NULL;
	*n = 0;
	if ((size_t)snprintf(dir, sizeof(dir), "%s" POLICY_FRAGMENT_DIR_SUFFIX, path) >=
		    sizeof(dir) ||
	    policy_fragments(path, &names, &n_names))
		return false;
	*out = calloc(2 + n_names, sizeof(**out));
	if (!*out) {
		policy_fragments_free(names, n_names);
		return false;
	}
	(*out)[0] = *first;
	if (stat(dir, &(*out)[1]))
		(*out)[1] = (struct stat){ 0 };
	for (size_t i = 0; i < n_names; i++)
		if (stat(names[i], &(*out)[2 + i]))
			(*out)[2 + i] = (struct stat){ 0 };
	*n = 2 + n_names;
	policy_fragments_free(names, n_names);
	return true;
}

static bool same_files(const struct policy_drift *d, const struct stat *st, size_t n)
{
	if (!d->parsed || !d->settled || n != d->n_st)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!same_file(&st[i], &d->st[i]))
			return false;
	return true;
}

/*
 * Parse the files into d->text, or say why not in d->error. Quietly: what
 * is wrong with them is shown where the check is read (argguard status,
 * the metrics), not logged on every check. st: their stat()s, taken before
 * the parse (kept by d); NULL if they could not all be found.
 */
static long long ns_of(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

/*
 * Whether no file of st changed within d->settle_ns before now
 * (or after it: a clock set back), so that a change after the parse
 * would show in their times.
 */
static bool settled(const struct policy_drift *d, const struct stat *st, size_t n,
		    const struct timespec *now)
{
	long long since = ns_of(now) - d->settle_ns;

	for (size_t i = 0; i < n; i++)
		if (ns_of(&st[i].st_mtim) >= since || ns_of(&st[i].st_ctim) >= since)
			return false;
	return true;
}

static void parse_file(struct policy_drift *d, struct stat *st, size_t n_st,
		       const struct timespec *now)
{
	struct log_capture quiet;
	struct policy p;
	int ret;

	free(d->text);
	d->text = NULL;
	d->parses++;
	log_capture_start(&quiet, LOG_ERR, d->error, sizeof(d->error), true);
	ret = policy_parse_file(d->path, &p);
	log_capture_stop(&quiet);
	if (ret)
		goto out;
	d->text = policy_canonical_text(&p);
	policy_free(&p);
	if (!d->text)
		snprintf(d->error, sizeof(d->error), "%s: out of memory", d->path);
out:
	/* Files that stat() did not find are looked for again next time. */
	free(d->st);
	d->parsed = st != NULL;
	d->settled = st && settled(d, st, n_st, now);
	d->st = st;
	d->n_st = st ? n_st : 0;
}

void policy_drift_check(struct policy_drift *d, const char *live_text,
			struct policy_file_check *out)
{
	struct stat first, *st = NULL;
	struct timespec now;
	bool found;
	size_t n_st = 0;

	/* Before the stat()s: a file they see changed after now is not settled. */
	clock_gettime(CLOCK_REALTIME, &now);
	found = !stat(d->path, &first);

	*out = (struct policy_file_check){ .path = d->path };
	if (found && !S_ISREG(first.st_mode)) {
		/* Reading a FIFO would take what the writer meant for the daemon, or wait forever. */
		out->state = POLICY_FILE_INVALID;
		snprintf(out->error, sizeof(out->error), "%s: not a regular file", d->path);
		return;
	}
	if (found && !file_stats(d->path, &first, &st, &n_st))
		found = false;
	if (found && same_files(d, st, n_st))
		free(st);
	else
		parse_file(d, found ? st : NULL, n_st, &now);
	if (!d->text) {
		out->state = POLICY_FILE_INVALID;
		snprintf(out->error, sizeof(out->error), "%s", d->error);
	} else if (!live_text) {
		out->state = POLICY_FILE_UNCHECKED;
	} else {
		out->state = strcmp(live_text, d->text) ? POLICY_FILE_DIFFERS : POLICY_FILE_MATCHES;
	}
}
