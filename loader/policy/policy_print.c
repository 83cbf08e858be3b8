// SPDX-License-Identifier: GPL-2.0
/* A policy printed as a policy file, one that policy_parse() reads back to the same policy. */
#include "policy.h"

#include "names.h"

static void print_rule(FILE *out, const struct argguard_rule *r)
{
	uint64_t value;

	for (enum policy_limit l = 0; l < POLICY_NR_LIMITS; l++) {
		value = policy_limit_get(r, l);
		if (value)
			fprintf(out, "%s = %llu\n", policy_limits[l].key,
				(unsigned long long)value);
	}
	/* Values that bpftool wrote out of range are printed as the BPF side reads them. */
	fprintf(out, "action = %s\n",
		action_name(r->action <= ARGGUARD_ACTION_DENY ? r->action : ARGGUARD_ACTION_DENY));
	fprintf(out, "errno = %s\n", deny_errno_name(r->deny_errno));
}

static bool rule_is_empty(const struct argguard_rule *r)
{
	for (enum policy_limit l = 0; l < POLICY_NR_LIMITS; l++)
		if (policy_limit_get(r, l))
			return false;
	return true;
}

static uint32_t at_most(uint32_t value, uint32_t max)
{
	return value < max ? value : max;
}

void policy_print(FILE *out, const struct policy *p)
{
	uint32_t mode = p->mode <= ARGGUARD_MODE_ENFORCE ? p->mode : ARGGUARD_MODE_ENFORCE;
	uint32_t empty = p->empty_argv_action <= ARGGUARD_ACTION_DENY ? p->empty_argv_action
								      : ARGGUARD_ACTION_DENY;

	fprintf(out, "[global]\nmode = %s\nempty_argv = %s\n", mode_name(mode), action_name(empty));
	if (p->head_bytes)
		fprintf(out, "argv_head_bytes = %u\n",
			p->head_bytes < ARGGUARD_HEAD_MAX ? p->head_bytes : ARGGUARD_HEAD_MAX);
	/* bpftool may have written more than a file may say; show what a file can. */
	if (p->event_rate > POLICY_EVENT_RATE_MAX || p->event_burst > POLICY_EVENT_BURST_MAX)
		fprintf(out,
			"# in the map: event_rate = %u, event_burst = %u; a file says at most %u\n",
			p->event_rate, p->event_burst, POLICY_EVENT_RATE_MAX);
	if (p->event_rate_total > POLICY_EVENT_RATE_MAX)
		fprintf(out, "# in the map: event_rate_total = %u; a file says at most %u\n",
			p->event_rate_total, POLICY_EVENT_RATE_MAX);
	if (p->event_rate)
		fprintf(out, "event_rate = %u\nevent_burst = %u\n",
			at_most(p->event_rate, POLICY_EVENT_RATE_MAX),
			p->event_burst ? at_most(p->event_burst, POLICY_EVENT_BURST_MAX) : 1);
	if (p->event_rate_total)
		fprintf(out, "event_rate_total = %u\n",
			at_most(p->event_rate_total, POLICY_EVENT_RATE_MAX));
	if (p->allow_lockout)
		fprintf(out, "allow_lockout = yes\n");
	if (!p->learn_sizes)
		fprintf(out, "learn_sizes = no\n");
	for (size_t i = 0; i < p->n_admin_groups; i++)
		fprintf(out, "%s%s", i ? ", " : "admin_groups = ", p->admin_groups[i]);
	if (p->n_admin_groups)
		fprintf(out, "\n");
	print_rule(out, &p->global);
	if (!rule_is_empty(&p->setuid)) {
		fprintf(out, "\n[setuid]\n");
		print_rule(out, &p->setuid);
	}
	for (size_t i = 0; i < p->n_uids; i++) {
		fprintf(out, "\n[uid %u]\n", p->uids[i].uid);
		print_rule(out, &p->uids[i].rule);
	}
	for (size_t i = 0; i < p->n_cgroups; i++) {
		fprintf(out, "\n[cgroup %s]\n", p->cgroups[i].path);
		print_rule(out, &p->cgroups[i].rule);
	}
}
