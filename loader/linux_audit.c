// SPDX-License-Identifier: GPL-2.0
#include "linux_audit.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libaudit.h>

/* Fields that go into the audit message, in this order. */
static const char *const fields[] = {
	"verdict",    "scope",	    "rule_id",	  "limit",     "limit_value", "errno",
	"pid",	      "ppid",	    "uid",	  "euid",      "gid",	      "argc",
	"envc",	      "argv_bytes", "envp_bytes", "orig_argc", "total_bytes", "secureexec",
	"suppressed", "lost",	    "comm",	  "filename",  "interpreter", "cgroup",
};

int linux_audit_open(void)
{
	int fd = audit_open();

	return fd < 0 ? -errno : fd;
}

int event_to_linux_audit(int fd, json_object *obj)
{
	char msg[MAX_AUDIT_MESSAGE_LENGTH] = "op=argguard-exec";
	json_object *v;
	bool failed;
	size_t len;

	if (json_object_object_get_ex(obj, "verdict", &v) &&
	    !strcmp(json_object_get_string(v), "summary"))
		strcpy(msg, "op=argguard-summary");
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		char *pair;

		if (!json_object_object_get_ex(obj, fields[i], &v) || !v)
			continue;
		/* Quotes or hex, as auditd expects for values it cannot trust. */
		pair = audit_encode_nv_string(fields[i], json_object_get_string(v), 0);
		if (!pair)
			return -ENOMEM;
		len = strlen(msg);
		if (len + 1 + strlen(pair) < sizeof(msg)) {
			msg[len] = ' ';
			strcpy(msg + len + 1, pair);
		}
		free(pair);
	}
	failed = json_object_object_get_ex(obj, "verdict", &v) &&
		 (!strcmp(json_object_get_string(v), "deny") ||
		  !strcmp(json_object_get_string(v), "kernel-refused"));
	if (audit_log_user_message(fd, AUDIT_TRUSTED_APP, msg, NULL, NULL, NULL, !failed) <= 0)
		return -errno ? -errno : -EIO;
	return 0;
}
