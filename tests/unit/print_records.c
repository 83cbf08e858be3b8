// SPDX-License-Identifier: GPL-2.0
/*
 * print_records json|journal|audit: print records with every field their
 * writers can write, as the sinks write them: the JSON log's lines, the
 * journal's fields (one NAME=value a line, an empty line after each
 * entry), or the Linux audit messages. tests/checks/records-man-sync.sh
 * reads the field names from here and looks each up in argguard-records(5).
 *
 * The records: an exec on a patched kernel with every flag set, decided by
 * a cgroup rule; the same with every string a caller can choose made of
 * bytes that are not UTF-8 (so every <field>_encoding is there); the same
 * again with its cgroups gone (so <field>_error is there); once more with a
 * cgroup path too long for an audit message (so it names what it left
 * out); a summary that lost records in every way, with both other sinks
 * in use; and an exec in a docker container inside a Kubernetes pod's
 * container (so container is an object, with a nested one and the CRI's
 * names); each with the
 * JSON log's envelope, the second's host not UTF-8. A writer's field that none of these brings out is one the
 * check cannot see: a new kind of field comes with a record here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libaudit.h>

#include "cri_names.h"
#include "event_json.h"
#include "journal.h"
#include "linux_audit.h"
#include "sample_event.h"

#define NR_RECORDS 6
/* Longer than what the kernel logs whole of an audit message. */
#define LONG_PATH (AUDIT_MESSAGE_TEXT_MAX + 1)
#define BOOT_ID "0f6d3c5e-8b1a-4c2d-9e7f-3a5b6c7d8e9f"

static struct argguard_event every_flag(void)
{
	struct argguard_event e = sample_event();
	static const char head[] = "/usr/bin/true\0--flag\0aaaa";

	e.scope = ARGGUARD_SCOPE_CGROUP;
	e.rule_id = 4242;
	e.cgroup_id = 4243;
	e.ppid = 1;
	e.euid = 1000;
	e.err = 7;
	e.userns_owner = 1000;
	e.flags = ARGGUARD_EV_EXACT_SIZES | ARGGUARD_EV_SECUREEXEC | ARGGUARD_EV_HEAD_TRUNCATED |
		  ARGGUARD_EV_HEAD_UNREADABLE | ARGGUARD_EV_SCRIPT | ARGGUARD_EV_HEAD_KERNEL |
		  ARGGUARD_EV_USERNS | ARGGUARD_EV_CGROUP_UNINDEXED;
	strcpy(e.shebang, "/bin/sh -e\n");
	memcpy(e.head, head, sizeof(head));
	e.head_len = sizeof(head);
	return e;
}

/* The same exec, its caller-chosen strings not UTF-8. */
static struct argguard_event not_utf8(void)
{
	struct argguard_event e = every_flag();
	static const char head[] = "/tmp/\xff\0--\xfe";

	strcpy(e.comm, "a\xff");
	strcpy(e.filename, "/tmp/\xff");
	strcpy(e.shebang, "/tmp/\xfe\n");
	memcpy(e.head, head, sizeof(head));
	e.head_len = sizeof(head);
	return e;
}

/* The JSON log's envelope; the second exec's host is not UTF-8, as root may name it. */
static const struct record_envelope envelope = { "build-7.example", BOOT_ID, 42 },
				    odd_envelope = { "build-\xff", BOOT_ID, 43 };

/* The CRI's names of the pod's container, as its bundle gives them. */
static const struct cri_names names = { "web-7d4f9", "shop", "app", "registry.example/app:1.2" };

static void fill(struct record r[NR_RECORDS], struct argguard_event e[2], char *long_path)
{
	e[0] = every_flag();
	e[1] = not_utf8();
	memset(long_path, 'a', LONG_PATH);
	long_path[0] = '/';
	long_path[LONG_PATH] = '\0';
	r[0] = (struct record){ .kind = RECORD_EXEC,
				.event = &e[0],
				.cgroup = "/system.slice/ci.service/job",
				.rule_cgroup = "/system.slice/ci.service" };
	r[1] = (struct record){ .kind = RECORD_EXEC,
				.event = &e[1],
				.cgroup = "/ci/\xff/job",
				.rule_cgroup = "/ci/\xff" };
	r[2] = (struct record){ .kind = RECORD_EXEC,
				.event = &e[0],
				.cgroup_err = -ENOENT,
				.rule_cgroup_err = -ENOENT };
	r[3] = (struct record){ .kind = RECORD_EXEC,
				.event = &e[0],
				.cgroup = long_path,
				.rule_cgroup = "/system.slice/ci.service" };
	r[5] = (struct record){
		.kind = RECORD_EXEC,
		.event = &e[0],
		.cgroup = "/kubepods.slice/kubepods-pod2c9a6b1e_7f3d_4a5b_9c8d_1e2f3a4b5c6d"
			  ".slice/cri-containerd-4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a"
			  "4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a.scope/docker/0123456789abcdef"
			  "0123456789abcdef0123456789abcdef0123456789abcdef",
		.rule_cgroup = "/kubepods.slice",
		.names = &names,
	};
	r[4] = (struct record){
		.kind = RECORD_SUMMARY,
		.losses = { .suppressed = 7,
			    .ring_full = 1,
			    .log_backlog = 2,
			    .malformed = 3,
			    .held_at_exit = 4,
			    .other_sinks = { { "journald", 5 }, { "audit", 6 } },
			    .top_uids = { { 1000, 4 }, { 1001, 3 } } },
		.interval_ns = 1000000000,
		.end_ns = 6000000000ULL,
	};
}

static int print(const char *format, const struct record *r)
{
	char msg[AUDIT_MESSAGE_TEXT_MAX], *text;
	size_t len;

	if (!strcmp(format, "json")) {
		text = record_to_json(r, &len);
		if (!text)
			return -1;
		printf("%s\n", text);
	} else if (!strcmp(format, "journal")) {
		text = journal_fields(r, &len);
		if (!text)
			return -1;
		for (const char *f = text; *f; f += strlen(f) + 1)
			printf("%s\n", f);
		printf("\n");
	} else if (!strcmp(format, "audit")) {
		if (linux_audit_message(r, msg, sizeof(msg)))
			return -1;
		printf("%s\n", msg);
		return 0;
	} else {
		fprintf(stderr, "usage: print_records json|journal|audit\n");
		return -1;
	}
	free(text);
	return 0;
}

int main(int argc, char **argv)
{
	static char long_path[LONG_PATH + 1];
	struct argguard_event e[2];
	struct record r[NR_RECORDS];

	if (argc != 2) {
		fprintf(stderr, "usage: print_records json|journal|audit\n");
		return 2;
	}
	fill(r, e, long_path);
	for (int i = 0; i < NR_RECORDS; i++) {
		r[i].envelope = i == 1 ? &odd_envelope : &envelope;
		if (print(argv[1], &r[i])) {
			fprintf(stderr, "print_records: record %d did not format as %s\n", i,
				argv[1]);
			return 1;
		}
	}
	return 0;
}
