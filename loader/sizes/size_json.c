// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* strptime() */
#include "size_json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "size_bucket.h"
#include "size_report.h"

__attribute__((format(printf, 3, 4))) static int refuse(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

bool size_time_parse(const char *text, int64_t *t)
{
	struct tm tm = { 0 };
	const char *end = strptime(text, "%Y-%m-%dT%H:%M:%SZ", &tm);
	time_t tt;

	if (!end || *end || strlen(text) != 20)
		return false;
	tt = timegm(&tm);
	if (tt <= 0)
		return false;
	*t = tt;
	return true;
}

static bool u32_of(const struct json_value *v, uint32_t *out)
{
	uint64_t n;

	if (!json_u64_of(v, &n) || n > UINT32_MAX)
		return false;
	*out = (uint32_t)n;
	return true;
}

/*
 * The bytes of obj's member key, as write_bytes() writes them: a string, or
 * hex with "<key>_encoding": "hex". Into *out (malloc'd; NULL for null),
 * at most max bytes. 0, or -EINVAL, or -ENOMEM.
 */
static int read_bytes(const struct json_value *obj, const char *key, size_t max, char **out)
{
	const struct json_value *v = json_get(obj, key), *enc;
	char enc_key[64];
	const char *s;
	size_t n;

	*out = NULL;
	snprintf(enc_key, sizeof(enc_key), "%s_encoding", key);
	enc = json_get(obj, enc_key);
	if (!v || v->type == JSON_NULL)
		return enc ? -EINVAL : 0;
	s = json_str_of(v);
	if (!s)
		return -EINVAL;
	n = strlen(s);
	if (!enc) {
		if (n > max)
			return -EINVAL;
		*out = strdup(s);
		return *out ? 0 : -ENOMEM;
	}
	if (!json_str_of(enc) || strcmp(enc->text, "hex") || n % 2 || n / 2 > max)
		return -EINVAL;
	*out = malloc(n / 2 + 1);
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = json_hex_digit(s[2 * i]), lo = json_hex_digit(s[2 * i + 1]);

		if (hi < 0 || lo < 0 || !(hi | lo)) { /* not hex, or a NUL */
			free(*out);
			*out = NULL;
			return -EINVAL;
		}
		(*out)[i] = (char)(hi << 4 | lo);
	}
	(*out)[n / 2] = '\0';
	return 0;
}

/* Room for a scope's name: "cgroup " and a path. */
#define SCOPE_NAME_MAX 4200

/*
 * A scope by the name size_scope_name() gives it, into *s; a cgroup's path
 * points into name.
 */
static bool parse_scope(const char *name, struct size_scope *s)
{
	uint64_t uid = 0;
	const char *p;

	memset(s, 0, sizeof(*s));
	s->ruled = true;
	if (!strcmp(name, "global")) {
		s->scope = ARGGUARD_SCOPE_GLOBAL;
	} else if (!strcmp(name, "setuid")) {
		s->scope = ARGGUARD_SCOPE_SETUID;
	} else if (!strcmp(name, "other rules")) {
		s->other = true;
	} else if (!strcmp(name, "a rule since removed")) {
		s->ruled = false;
	} else if (!strncmp(name, "uid ", 4)) {
		s->scope = ARGGUARD_SCOPE_UID;
		p = name + 4;
		if (!*p || (*p == '0' && p[1]))
			return false;
		for (; *p; p++) {
			if (*p < '0' || *p > '9' || uid > UINT32_MAX / 10)
				return false;
			uid = uid * 10 + (*p - '0');
		}
		if (uid > UINT32_MAX)
			return false;
		s->uid = (uint32_t)uid;
	} else if (!strncmp(name, "cgroup /", 8)) {
		s->scope = ARGGUARD_SCOPE_CGROUP;
		s->path = name + 7;
	} else {
		return false;
	}
	return true;
}

/* The bucket whose lowest value is low, or -1. */
static int bucket_of(uint64_t low)
{
	for (__u32 b = 0; b < ARGGUARD_SIZE_BUCKETS; b++)
		if (size_bucket_low(b) == low)
			return (int)b;
	return -1;
}

/* One metric's {"count", "max", "sum", "buckets"} into h. */
static int read_metric(const struct json_value *v, struct size_hist *h, int m, char *why,
		       size_t len)
{
	const char *name = size_metric_name(m);
	const struct json_value *buckets = json_get(v, "buckets");
	uint64_t count, total = 0;
	int top = -1;

	if (!json_u64_of(json_get(v, "count"), &count) ||
	    !json_u64_of(json_get(v, "max"), &h->max[m]) ||
	    !json_u64_of(json_get(v, "sum"), &h->sum[m]) || !buckets || buckets->type != JSON_ARRAY)
		return refuse(why, len, "%s: expected a count, a max, a sum and buckets", name);
	for (const struct json_value *b = buckets->child; b; b = b->next) {
		uint64_t low, high, n;
		int i;

		if (!json_u64_of(json_get(b, "low"), &low) ||
		    !json_u64_of(json_get(b, "high"), &high) ||
		    !json_u64_of(json_get(b, "count"), &n))
			return refuse(why, len,
				      "%s: expected a low, a high and a count in a bucket", name);
		i = bucket_of(low);
		if (i < 0 || size_bucket_high(i) != high)
			return refuse(why, len, "%s: no bucket is %llu to %llu", name,
				      (unsigned long long)low, (unsigned long long)high);
		if (h->count[m][i])
			return refuse(why, len, "%s: the bucket from %llu twice", name,
				      (unsigned long long)low);
		if (n > UINT64_MAX - total)
			return refuse(why, len, "%s: more execs than 64 bits count", name);
		h->count[m][i] = n;
		total += n;
		if (n && i > top)
			top = i;
	}
	if (total != count)
		return refuse(why, len, "%s: the buckets hold %llu execs, not the count, %llu",
			      name, (unsigned long long)total, (unsigned long long)count);
	if (!count) /* the writer leaves such a metric out */
		return refuse(why, len, "%s: no exec counted", name);
	if (top < 0 ? h->max[m] != 0
		    : h->max[m] < size_bucket_low(top) || h->max[m] > size_bucket_high(top))
		return refuse(why, len, "%s: the largest, %llu, is not in the top bucket counted",
			      name, (unsigned long long)h->max[m]);
	return 0;
}

/* A scope's "metrics" into h. */
static int read_metrics(const struct json_value *v, struct size_hist *h, char *why, size_t len)
{
	int err;

	if (!v || v->type != JSON_OBJECT)
		return refuse(why, len, "expected metrics");
	for (const struct json_value *m = v->child; m; m = m->next) {
		int i;

		for (i = 0; i < ARGGUARD_NR_SIZE_METRICS; i++)
			if (!strcmp(m->key, size_metric_name(i)))
				break;
		if (i == ARGGUARD_NR_SIZE_METRICS)
			return refuse(why, len, "no metric is called %.64s", m->key);
		if (size_hist_execs(h, i) || h->max[i])
			return refuse(why, len, "metric %s twice", m->key);
		err = read_metric(m, h, i, why, len);
		if (err)
			return err;
	}
	return 0;
}

/* A name, bytes another host chose, quoted in why. */
static const char *quoted(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; *s && o + 5 < len; s++) {
		unsigned char c = *s;

		if (c >= 0x20 && c < 0x7f && c != '\\')
			buf[o++] = c;
		else
			o += snprintf(buf + o, len - o, "\\x%02x", c);
	}
	buf[o] = '\0';
	return buf;
}

/* Whether h counts argv and envp apart, which a report of total sizes cannot. */
static bool apart(const struct size_hist *h)
{
	return size_hist_execs(h, ARGGUARD_SIZE_ARGV_BYTES) ||
	       size_hist_execs(h, ARGGUARD_SIZE_ENVP_BYTES);
}

/*
 * {"execs", "metrics"} (a scope's denied, a uid's) into h: execs the
 * total_bytes count, and none counted apart where exact is not.
 */
static int read_counted(const struct json_value *v, struct size_hist *h, bool exact, char *why,
			size_t len)
{
	uint64_t execs;
	int err;

	if (!v || v->type != JSON_OBJECT)
		return refuse(why, len, "expected execs and metrics");
	err = read_metrics(json_get(v, "metrics"), h, why, len);
	if (err)
		return err;
	if (!json_u64_of(json_get(v, "execs"), &execs) ||
	    execs != size_hist_execs(h, ARGGUARD_SIZE_TOTAL_BYTES))
		return refuse(why, len, "its execs are not the total_bytes count");
	if (!exact && apart(h))
		return refuse(why, len, "argv and envp counted apart, in a report of total sizes");
	return 0;
}

/*
 * An exec's "total_bytes", "argv_bytes", "envp_bytes" (or nulls), "argc",
 * "envc", "uid" and "comm" into *e; where is what why names.
 */
static int read_exec_fields(const struct json_value *v, struct size_exec *e, const char *where,
			    char *why, size_t len)
{
	const struct json_value *argv = json_get(v, "argv_bytes"),
				*envp = json_get(v, "envp_bytes");
	char *comm = NULL;
	int err;

	if (!json_u64_of(json_get(v, "total_bytes"), &e->total_bytes) ||
	    !u32_of(json_get(v, "argc"), &e->argc) || !u32_of(json_get(v, "envc"), &e->envc) ||
	    !u32_of(json_get(v, "uid"), &e->uid) || !argv || !envp)
		return refuse(why, len,
			      "%s: expected total_bytes, argv_bytes, envp_bytes, "
			      "argc, envc and uid",
			      where);
	e->exact = argv->type != JSON_NULL;
	if (e->exact && (!json_u64_of(argv, &e->argv_bytes) || !json_u64_of(envp, &e->envp_bytes)))
		return refuse(why, len, "%s: expected argv_bytes and envp_bytes, or nulls", where);
	err = read_bytes(v, "comm", ARGGUARD_COMM_LEN, &comm);
	if (err == -ENOMEM)
		return err;
	if (err)
		return refuse(why, len, "%s: expected a comm", where);
	if (comm)
		memcpy(e->comm, comm, strlen(comm));
	free(comm);
	return 0;
}

static int by_uid(const void *a, const void *b)
{
	const struct size_uid *x = a, *y = b;

	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* A scope's "by_uid" into d's uids of scope at, d's last. */
static int read_by_uid(const struct json_value *v, struct size_data *d, int at, bool exact,
		       char *why, size_t len)
{
	size_t first = d->n_uids;
	struct size_hist h;
	struct size_uid *u;
	uint32_t uid;
	int err;

	if (!v || v->type != JSON_ARRAY)
		return refuse(why, len, "expected by_uid");
	for (const struct json_value *e = v->child; e; e = e->next) {
		memset(&h, 0, sizeof(h));
		if (!u32_of(json_get(e, "uid"), &uid))
			return refuse(why, len, "by_uid: expected a uid");
		err = read_counted(e, &h, exact, why, len);
		if (!err && !size_hist_execs(&h, ARGGUARD_SIZE_TOTAL_BYTES))
			err = refuse(why, len, "no exec counted");
		if (err) {
			char what[SIZE_JSON_WHY_MAX];

			snprintf(what, sizeof(what), "%s", why);
			return refuse(why, len, "by_uid: uid %u: %s", uid, what);
		}
		u = size_data_uid(d, (uint32_t)at, uid);
		if (!u)
			return -ENOMEM;
		u->hist = h;
	}
	/* The scope is d's last: its uids end d's, which stay in order once they are. */
	if (d->n_uids > first)
		qsort(d->uids + first, d->n_uids - first, sizeof(*d->uids), by_uid);
	for (size_t i = first + 1; i < d->n_uids; i++)
		if (d->uids[i].uid == d->uids[i - 1].uid)
			return refuse(why, len, "by_uid: uid %u twice", d->uids[i].uid);
	return 0;
}

static int read_scope(const struct json_value *v, struct size_data *d, bool exact, char *why,
		      size_t len)
{
	const struct json_value *since = json_get(v, "since"), *largest = json_get(v, "largest");
	struct size_scope scope;
	struct size_hist h = { 0 }, denied = { 0 };
	struct size_exec top = { 0 };
	char *name, q[96], what[SIZE_JSON_WHY_MAX];
	uint64_t execs;
	size_t before = d->n_scopes;
	int err, at;

	err = read_bytes(v, "scope", SCOPE_NAME_MAX, &name);
	if (err == -ENOMEM)
		return err;
	if (err || !name || !parse_scope(name, &scope) || !size_scope_shown(&scope)) {
		err = refuse(why, len, "a scope with no name argguard gives one (%s)",
			     name ? quoted(name, q, sizeof(q)) : "none");
		goto out;
	}
	err = read_metrics(json_get(v, "metrics"), &h, what, sizeof(what));
	if (err) {
		snprintf(why, len, "scope %s: %s", quoted(name, q, sizeof(q)), what);
		goto out;
	}
	if (!json_u64_of(json_get(v, "execs"), &execs) ||
	    execs != size_hist_execs(&h, ARGGUARD_SIZE_TOTAL_BYTES)) {
		err = refuse(why, len, "scope %s: its execs are not the total_bytes count",
			     quoted(name, q, sizeof(q)));
		goto out;
	}
	if (!exact && apart(&h)) {
		err = refuse(why, len,
			     "scope %s: argv and envp counted apart, in a report of total "
			     "sizes",
			     quoted(name, q, sizeof(q)));
		goto out;
	}
	if (!since || (since->type != JSON_NULL && !json_u64_of(since, &h.since))) {
		err = refuse(why, len, "scope %s: expected since, a time in seconds, or null",
			     quoted(name, q, sizeof(q)));
		goto out;
	}
	err = read_counted(json_get(v, "denied"), &denied, exact, what, sizeof(what));
	if (!err && !execs && !size_hist_execs(&denied, ARGGUARD_SIZE_TOTAL_BYTES))
		err = refuse(what, sizeof(what), "no exec ran or was denied");
	if (err) {
		snprintf(why, len, "scope %s: denied: %s", quoted(name, q, sizeof(q)), what);
		goto out;
	}
	if (!largest)
		err = refuse(what, sizeof(what), "expected largest, an exec or null");
	else if (largest->type != JSON_NULL)
		err = read_exec_fields(largest, &top, "largest", what, sizeof(what));
	if (!err && largest && largest->type != JSON_NULL && !top.total_bytes)
		err = refuse(what, sizeof(what), "largest: an exec of no bytes");
	if (err) {
		if (err != -ENOMEM)
			err = refuse(why, len, "scope %s: %s", quoted(name, q, sizeof(q)), what);
		goto out;
	}
	at = size_data_scope(d, &scope);
	if (at < 0) {
		err = at;
		goto out;
	}
	if ((size_t)at < before) {
		err = refuse(why, len, "scope %s twice", quoted(name, q, sizeof(q)));
		goto out;
	}
	d->hist[at] = h;
	d->denied[at] = denied;
	top.slot = (uint32_t)at;
	d->slot_largest[at] = top;
	err = read_by_uid(json_get(v, "by_uid"), d, at, exact, what, sizeof(what));
	if (err == -EINVAL)
		snprintf(why, len, "scope %s: %s", quoted(name, q, sizeof(q)), what);
out:
	free(name);
	return err;
}

static int read_exec(const struct json_value *v, struct size_data *d, bool denied, char *why,
		     size_t len)
{
	const char *where = denied ? "largest_denied" : "largest";
	struct size_exec e = { 0 };
	struct size_scope scope;
	char *name = NULL;
	int err, at;

	err = read_exec_fields(v, &e, where, why, len);
	if (err)
		return err;
	err = read_bytes(v, "scope", SCOPE_NAME_MAX, &name);
	if (!err)
		err = read_bytes(v, "cgroup", SCOPE_NAME_MAX, &e.cgroup);
	if (err == -ENOMEM)
		goto out;
	if (err || !name || !parse_scope(name, &scope)) {
		err = refuse(why, len, "%s: expected a comm, a scope and a cgroup", where);
		goto out;
	}
	at = size_data_scope(d, &scope);
	if (at < 0) {
		err = at;
		goto out;
	}
	e.slot = (uint32_t)at;
	size_data_add_exec(d, &e, denied);
	e.cgroup = NULL; /* d's now, or freed */
out:
	free(e.cgroup);
	free(name);
	return err;
}

int size_json_counts(const struct json_value *obj, struct size_data *d, char *why, size_t len)
{
	const struct json_value *scopes = json_get(obj, "scopes"),
				*largest = json_get(obj, "largest"),
				*largest_denied = json_get(obj, "largest_denied");
	int err;

	if (!scopes || scopes->type != JSON_ARRAY || !largest || largest->type != JSON_ARRAY ||
	    !largest_denied || largest_denied->type != JSON_ARRAY)
		return refuse(why, len, "expected scopes, largest and largest_denied");
	for (const struct json_value *s = scopes->child; s; s = s->next) {
		err = read_scope(s, d, d->origin.exact, why, len);
		if (err)
			return err;
	}
	for (const struct json_value *e = largest->child; e; e = e->next) {
		err = read_exec(e, d, false, why, len);
		if (err)
			return err;
	}
	for (const struct json_value *e = largest_denied->child; e; e = e->next) {
		err = read_exec(e, d, true, why, len);
		if (err)
			return err;
	}
	return 0;
}
static int read_time(const struct json_value *window, const char *key, int64_t *t)
{
	const struct json_value *v = json_get(window, key);
	const char *s = json_str_of(v);

	*t = 0;
	if (v && v->type == JSON_NULL)
		return 0;
	return s && size_time_parse(s, t) ? 0 : -EINVAL;
}

int size_json_origin(const struct json_value *root, struct size_origin *o, char *why, size_t len)
{
	const struct json_value *window = json_get(root, "window"), *boot;
	const char *sizes = json_str_of(json_get(root, "sizes"));
	uint64_t schema;
	char *host;
	int err;

	memset(o, 0, sizeof(*o));
	if (!root || root->type != JSON_OBJECT)
		return refuse(why, len, "not a report: expected a JSON object");
	if (!json_u64_of(json_get(root, "schema"), &schema))
		return refuse(why, len, "not a report of argguard's: no schema");
	if (schema != SIZE_REPORT_SCHEMA)
		return refuse(why, len, "a report of schema %llu; this argguard reads schema %d",
			      (unsigned long long)schema, SIZE_REPORT_SCHEMA);
	if (!sizes || (strcmp(sizes, "exact") && strcmp(sizes, "total")))
		return refuse(why, len, "expected sizes, exact or total");
	o->exact = !strcmp(sizes, "exact");
	err = read_bytes(root, "host", sizeof(o->host) - 1, &host);
	if (err)
		return err == -ENOMEM ? err : refuse(why, len, "expected a host, or null");
	if (host)
		snprintf(o->host, sizeof(o->host), "%s", host);
	free(host);
	boot = json_get(root, "boot_id");
	if (boot && boot->type != JSON_NULL) {
		if (!json_str_of(boot) || strlen(boot->text) >= sizeof(o->boot_id))
			return refuse(why, len, "expected a boot_id, or null");
		snprintf(o->boot_id, sizeof(o->boot_id), "%s", boot->text);
	}
	if (!window || window->type != JSON_OBJECT || read_time(window, "start", &o->start) ||
	    read_time(window, "end", &o->end))
		return refuse(why, len,
			      "expected a window, its start and end each a time "
			      "(2026-05-01T10:00:00Z) or null");
	return 0;
}

int size_json_slurp(int fd, char **text, size_t *n, char *why, size_t len)
{
	struct stat st;
	ssize_t got = 0;

	*text = NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > JSON_READER_MAX_TEXT)
		return refuse(why, len, "not a regular file of at most %u bytes",
			      JSON_READER_MAX_TEXT);
	*text = malloc(st.st_size + 1);
	if (!*text) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	*n = 0;
	while (*n < (size_t)st.st_size && (got = read(fd, *text + *n, st.st_size - *n)) > 0)
		*n += got;
	if (got < 0) {
		int err = -errno;

		snprintf(why, len, "%s", strerror(errno));
		free(*text);
		*text = NULL;
		return err;
	}
	return 0;
}

int size_json_read_file(const char *path, struct size_data *d, char *why, size_t len)
{
	struct json_value *root;
	char *text;
	size_t n = 0;
	int err, fd;

	err = size_data_init(d);
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		err = -errno;
		snprintf(why, len, "%s", strerror(errno));
		return err;
	}
	err = size_json_slurp(fd, &text, &n, why, len);
	close(fd);
	if (err)
		return err;
	root = json_parse(text, n, why, len);
	free(text);
	if (!root)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	err = size_json_origin(root, &d->origin, why, len);
	if (!err)
		err = size_json_counts(root, d, why, len);
	json_free(root);
	return err;
}
