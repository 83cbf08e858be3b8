// SPDX-License-Identifier: GPL-2.0
/*
 * log.c: a journald priority prefix exactly when stderr is the stream that
 * JOURNAL_STREAM names, and the message text the same either way; a
 * capture keeps the first message at its priority, and a quiet one prints
 * nothing. What a message quotes is printed escaped, and captured exact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "log.h"

/* Point stderr at a fresh temporary file; returns the file. */
static FILE *capture_stderr(void)
{
	FILE *f = tmpfile();

	if (!f || dup2(fileno(f), STDERR_FILENO) < 0) {
		perror("test_log: failed to capture stderr");
		exit(1);
	}
	return f;
}

static void set_journal_stream(int fd)
{
	struct stat st;
	char value[64];

	if (fstat(fd, &st)) {
		perror("test_log: failed to stat stderr");
		exit(1);
	}
	snprintf(value, sizeof(value), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", value, 1);
}

/* What the captured stderr holds, as one string (static buffer). */
static const char *captured(FILE *f)
{
	static char buf[1024];
	size_t n;

	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	return buf;
}

/* s on one line, newlines as \n, for a TAP message. */
static const char *one_line(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (; *s && n + 3 < len; s++) {
		if (*s == '\n') {
			buf[n++] = '\\';
			buf[n++] = 'n';
		} else {
			buf[n++] = *s;
		}
	}
	buf[n] = '\0';
	return buf;
}

static void expect_output(const char *what, void (*emit)(void), const char *want)
{
	FILE *f = capture_stderr();
	char w[512], g[512];
	const char *got;

	if (!strcmp(what, "journal"))
		set_journal_stream(STDERR_FILENO);
	emit();
	got = captured(f);
	CHECK(!strcmp(got, want), "%s: expected '%s', got '%s'", what, one_line(want, w, sizeof(w)),
	      one_line(got, g, sizeof(g)));
	fclose(f);
}

static void emit_all(void)
{
	log_error("failed to %s", "open");
	log_warning("no cgroup %s yet", "/a");
	log_notice("recovery: %d", 1);
	log_info("applied %s", "f");
}

static void emit_error(void)
{
	log_error("x");
}

/* A capture of errors: the first error, not a warning before it nor an error after it. */
static void emit_captured(void)
{
	struct log_capture c;
	char buf[64] = "stale";

	log_capture_start(&c, LOG_ERR, buf, sizeof(buf), false);
	CHECK(!strcmp(buf, "") && !c.caught, "a capture starts empty: got '%s'", buf);
	log_warning("a warning");
	log_error("%s:%d: first", "f.conf", 3);
	log_error("second");
	log_capture_stop(&c);
	log_error("after");
	CHECK(!strcmp(buf, "f.conf:3: first") && c.caught,
	      "the capture holds the first error, without the prefix: got '%s'", buf);
}

/* A quiet capture prints nothing, and nor does one started inside it; a capture of warnings. */
static void emit_quiet(void)
{
	struct log_capture quiet, inner;
	char outer_buf[64], inner_buf[8];

	log_capture_start(&quiet, LOG_ERR, outer_buf, sizeof(outer_buf), true);
	log_capture_start(&inner, LOG_WARNING, inner_buf, sizeof(inner_buf), false);
	log_warning("cut short");
	log_capture_stop(&inner);
	log_error("the outer's");
	log_capture_stop(&quiet);
	log_info("printed");
	CHECK(!strcmp(inner_buf, "cut sho"),
	      "the inner capture took the warning, cut to its room: "
	      "got '%s'",
	      inner_buf);
	CHECK(!strcmp(outer_buf, "the outer's"),
	      "the outer took the error after the inner stopped: "
	      "got '%s'",
	      outer_buf);
}

/* A message that quotes what another account chose: one line, escaped; the capture exact. */
static void emit_quoted(void)
{
	struct log_capture c;
	char buf[64];

	log_capture_start(&c, LOG_ERR, buf, sizeof(buf), false);
	log_error("no cgroup %s", "/a\x1b]0;pwned\x07\nargguard: forged");
	log_capture_stop(&c);
	CHECK(!strcmp(buf, "no cgroup /a\x1b]0;pwned\x07\nargguard: forged"),
	      "the capture keeps the exact bytes");
}

int main(void)
{
	int saved = dup(STDERR_FILENO);

	unsetenv("JOURNAL_STREAM");
	expect_output("no JOURNAL_STREAM", emit_all,
		      "argguard: failed to open\nargguard: warning: no cgroup /a yet\n"
		      "argguard: recovery: 1\nargguard: applied f\n");
	expect_output("journal", emit_all,
		      "<3>argguard: failed to open\n<4>argguard: warning: no cgroup /a yet\n"
		      "<5>argguard: recovery: 1\n<6>argguard: applied f\n");
	/* Inherited by a child whose stderr is a file or a pipe: no prefix. */
	setenv("JOURNAL_STREAM", "1:1", 1);
	expect_output("another stream", emit_error, "argguard: x\n");
	setenv("JOURNAL_STREAM", "garbage", 1);
	expect_output("malformed JOURNAL_STREAM", emit_error, "argguard: x\n");
	unsetenv("JOURNAL_STREAM");
	expect_output("captured", emit_captured,
		      "argguard: warning: a warning\nargguard: f.conf:3: first\nargguard: second\n"
		      "argguard: after\n");
	expect_output("quiet", emit_quiet, "argguard: printed\n");
	expect_output("quoted", emit_quoted,
		      "argguard: no cgroup /a\\x1b]0;pwned\\x07\\x0aargguard: forged\n");

	dup2(saved, STDERR_FILENO);
	close(saved);
	return check_done();
}
