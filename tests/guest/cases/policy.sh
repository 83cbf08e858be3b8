# SPDX-License-Identifier: GPL-2.0
# The site policy: scopes, setuid, empty argv, modes, bpftool edits, bad input.

test_policy_most_specific_rule_wins() {
	trap cleanup EXIT
	mkdir -p $CG/argguard-t-tight/child $CG/argguard-t-loose
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 64K" \
		"[user tester]" "max_total_bytes = 256K" \
		"[cgroup /argguard-t-tight]" "max_total_bytes = 32K" \
		"[cgroup /argguard-t-loose]" "max_total_bytes = 1M"
	local x=$HELPERS/execsize
	expect E2BIG "root, 100K, global 64K" "$x" 100000 0 /bin/true
	expect allowed "root, 60K, global 64K" "$x" 60000 0 /bin/true
	expect allowed "tester, 100K: the uid rule loosens global" "${AS_TESTER[@]}" "$x" 100000 0 /bin/true
	expect E2BIG "tester, 300K: over the uid rule" "${AS_TESTER[@]}" "$x" 300000 0 /bin/true
	expect E2BIG "tester in a 32K cgroup, 40K: the cgroup rule tightens the uid rule" \
		in_cgroup /argguard-t-tight "${AS_TESTER[@]}" "$x" 40000 0 /bin/true
	expect E2BIG "tester in a child of the 32K cgroup, 40K: inherited" \
		in_cgroup /argguard-t-tight/child "${AS_TESTER[@]}" "$x" 40000 0 /bin/true
	expect allowed "tester in the child cgroup, 20K" \
		in_cgroup /argguard-t-tight/child "${AS_TESTER[@]}" "$x" 20000 0 /bin/true
	expect allowed "tester in a 1M cgroup, 300K: the cgroup rule loosens the uid rule" \
		in_cgroup /argguard-t-loose "${AS_TESTER[@]}" "$x" 300000 0 /bin/true
	expect allowed "root in the 1M cgroup, 300K: the cgroup rule loosens global" \
		in_cgroup /argguard-t-loose "$x" 300000 0 /bin/true
}

test_setuid_rule_tightens_privilege_gaining_execs_only() {
	trap cleanup EXIT
	local before record
	make_setuid_copies
	apply_policy "[global]" "mode = enforce" "allow_lockout = yes" "max_total_bytes = 1M" \
		"[setuid]" "max_total_bytes = 4K"
	before=$(log_lines)
	expect E2BIG "tester, 8000 bytes to a setuid-root target" \
		"${AS_TESTER[@]}" "$HELPERS/execsize" 8000 0 "$SUID_TRUE"
	wait_log_lines $((before + 1)) || fail "expected a record of the denied setuid exec"
	record=$(last_record)
	echo "record: $record"
	assert_eq setuid "$(jq -r .scope <<<"$record")" "the deciding scope"
	assert_eq true "$(jq -r .secureexec <<<"$record")" "secureexec"
	expect E2BIG "tester, 8000 bytes to a target with file capabilities" \
		"${AS_TESTER[@]}" "$HELPERS/execsize" 8000 0 "$FCAP_TRUE"
	expect allowed "tester, 8000 bytes to a plain copy" \
		"${AS_TESTER[@]}" "$HELPERS/execsize" 8000 0 "$PLAIN_TRUE"
	expect allowed "tester, 2000 bytes to the setuid target" \
		"${AS_TESTER[@]}" "$HELPERS/execsize" 2000 0 "$SUID_TRUE"
	expect allowed "root, 8000 bytes to the setuid target: no privilege gained" \
		"$HELPERS/execsize" 8000 0 "$SUID_TRUE"
}

test_empty_argv_is_denied_in_enforce_logged_in_audit_ignored_when_off() {
	trap cleanup EXIT
	local before record
	apply_policy "[global]" "mode = enforce" "empty_argv = deny"
	before=$(log_lines)
	expect E2BIG "argc == 0 in enforce mode" "$HELPERS/execsize" 0 0 /bin/true
	wait_log_lines $((before + 1)) || fail "expected a record of the denied empty argv"
	record=$(last_record)
	echo "enforce: $record"
	assert_eq empty_argv "$(jq -r .limit <<<"$record")" "limit"
	assert_eq 0 "$(jq -r .orig_argc <<<"$record")" "orig_argc"
	assert_eq deny "$(jq -r .verdict <<<"$record")" "verdict in enforce mode"

	apply_policy "[global]" "mode = audit" "empty_argv = deny"
	expect allowed "argc == 0 in audit mode" "$HELPERS/execsize" 0 0 /bin/true
	wait_log_lines $((before + 2)) || fail "expected a would-deny record in audit mode"
	assert_eq would-deny "$(jq -r .verdict <<<"$(last_record)")" "verdict in audit mode"

	apply_policy "[global]" "mode = off" "empty_argv = deny"
	expect allowed "argc == 0 in off mode" "$HELPERS/execsize" 0 0 /bin/true
	sleep 0.5
	assert_eq $((before + 2)) "$(log_lines)" "records after an exec in off mode"
}

test_audit_mode_denies_nothing_and_logs_every_would_deny() {
	trap cleanup EXIT
	local before
	apply_policy "[global]" "mode = audit" "max_total_bytes = 64K" "[uid $TESTER]" "max_argc = 5"
	before=$(log_lines)
	expect allowed "root, 100K over 64K in audit mode" "$HELPERS/execsize" 100000 0 /bin/true
	expect allowed "tester, 10 args over max_argc 5 in audit mode" \
		"${AS_TESTER[@]}" "$HELPERS/execsize" 100 0 /bin/true 10
	wait_log_lines $((before + 2)) || fail "expected two would-deny records"
	tail -n 2 "$EVENT_LOG" | jq -c '[.verdict, .scope, .limit]'
	assert_eq "would-deny would-deny" "$(tail -n 2 "$EVENT_LOG" | jq -r .verdict | xargs)" \
		"verdicts"
	assert_eq "max_total_bytes max_argc" "$(tail -n 2 "$EVENT_LOG" | jq -r .limit | xargs)" \
		"limits"
}

# The would-deny tier: over an audit_ limit but within the rule's own, an
# exec runs and is recorded with the tier's limit; over the rule's own, it
# is denied as before; a rule with action = allow records neither.
test_would_deny_tier_logs_what_a_tighter_limit_would_deny() {
	trap cleanup EXIT
	local before records
	mkdir -p $CG/argguard-t-exempt
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 256K" \
		"audit_max_total_bytes = 64K" "[uid $TESTER]" "max_total_bytes = 256K" "audit_max_argc = 5" \
		"[cgroup /argguard-t-exempt]" "action = allow" "audit_max_total_bytes = 4K"
	before=$(log_lines)
	expect allowed "root, 100K: over the 64K tier, within 256K" "$HELPERS/execsize" 100000 0 /bin/true
	expect E2BIG "root, 300K: over 256K" "$HELPERS/execsize" 300000 0 /bin/true
	expect allowed "tester, 10 args: over the uid rule's tier of 5" \
		"${AS_TESTER[@]}" "$HELPERS/execsize" 100 0 /bin/true 10
	expect allowed "root, 8K in an allow cgroup with a 4K tier" \
		in_cgroup /argguard-t-exempt "$HELPERS/execsize" 8000 0 /bin/true
	records=$(records_since "$before" 3 | jq -c '[.verdict, .scope, .limit, .limit_value]')
	echo "$records"
	assert_eq '["would-deny","global","audit_max_total_bytes",65536]
["deny","global","max_total_bytes",262144]
["would-deny","uid","audit_max_argc",5]' "$records" "the records: verdict, scope, limit, limit_value"
	argguard policy show | grep -qx "audit_max_argc = 5" ||
		fail "expected policy show to print the uid rule's tier"
}

test_bpftool_edits_take_effect_and_policy_show_reflects_them() {
	trap cleanup EXIT
	local set show
	make_setuid_copies
	mkdir -p $CG/argguard-t-edit
	apply_policy "[global]" "mode = enforce" "allow_lockout = yes" "max_total_bytes = 64K" \
		"[uid $TESTER]" "max_total_bytes = 256K" \
		"[cgroup /argguard-t-edit]" "max_total_bytes = 32K" \
		"[setuid]" "max_total_bytes = 4K"
	set=$(active_set)

	set_rule_field global_rules max_total_bytes 131072 $(le 4 "$set")
	expect allowed "root, 100K after global was raised to 128K" \
		"$HELPERS/execsize" 100000 0 /bin/true
	set_rule_field uid_rules max_total_bytes 65536 $(le 4 "$set") $(le 4 $TESTER)
	expect E2BIG "tester, 100K after the uid rule was cut to 64K" \
		"${AS_TESTER[@]}" "$HELPERS/execsize" 100000 0 /bin/true
	set_rule_field cgroup_rules max_total_bytes 1048576 $(cgroup_key "$set" /argguard-t-edit)
	expect allowed "tester in the cgroup, 300K after the cgroup rule was raised to 1M" \
		in_cgroup /argguard-t-edit "${AS_TESTER[@]}" "$HELPERS/execsize" 300000 0 /bin/true
	set_rule_field setuid_rules max_total_bytes 65536 $(le 4 "$set")
	expect allowed "tester, 8000 bytes to a setuid target after the setuid rule was raised" \
		"${AS_TESTER[@]}" "$HELPERS/execsize" 8000 0 "$SUID_TRUE"
	set_config mode 1
	expect allowed "root, 300K after mode was set to audit" \
		"$HELPERS/execsize" 300000 0 /bin/true

	show=$(argguard policy show)
	echo "$show"
	grep -qx "mode = audit" <<<"$show" || fail "expected 'mode = audit' in policy show"
	for want in "global=131072" "uid $TESTER=65536" "cgroup /argguard-t-edit=1048576" \
		"setuid=65536"; do
		awk -v sec="[${want%=*}]" -v val="max_total_bytes = ${want#*=}" '
			/^\[/ { in_sec = ($0 == sec) } in_sec && $0 == val { found = 1 }
			END { exit !found }' <<<"$show" ||
			fail "expected max_total_bytes = ${want#*=} under [${want%=*}] in policy show"
	done
	argguard policy show >/tmp/argguard-shown.conf
	argguard policy check /tmp/argguard-shown.conf || fail "policy show must print a valid policy"
}

test_bad_policy_file_changes_nothing() {
	trap cleanup EXIT
	local before after msg last
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 64K"
	before=$(argguard policy show)
	printf '[global]\nmode = enforce\nmax_total_bytes = lots\n' >/tmp/argguard-bad.conf
	msg=$(argguard policy apply /tmp/argguard-bad.conf 2>&1) && fail "a bad file was applied"
	echo "apply: $msg"
	[[ $msg == *"/tmp/argguard-bad.conf:3: max_total_bytes = lots: expected a byte count"* ]] ||
		fail "expected the error to name file:line and what was expected"
	assert_eq 1 "$(grep -c 'argguard-bad.conf:3:' <<<"$msg")" "lines naming the error (logged once)"
	[[ $msg == *"/tmp/argguard-bad.conf not applied, the live policy is unchanged"* ]] ||
		fail "expected apply to say the live policy is unchanged"
	last=$(argguard status --format=json | jq -r '"\(.last_apply.success) \(.last_apply.message)"')
	echo "last apply: $last"
	[[ $last == "false /tmp/argguard-bad.conf not applied: /tmp/argguard-bad.conf:3: max_total_bytes = lots: "*"; the policy in force is unchanged" ]] ||
		fail "expected argguard status to say the last apply failed, with the file's error"
	msg=$(argguard policy check /tmp/argguard-bad.conf 2>&1) && fail "check passed a bad file"
	after=$(argguard policy show)
	assert_eq "$before" "$after" "the live policy after a failed apply"
	expect E2BIG "root, 100K: still judged by the old 64K rule" \
		"$HELPERS/execsize" 100000 0 /bin/true
}

test_out_of_range_bpftool_values_read_safely() {
	trap cleanup EXIT
	local set
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 64K"
	set=$(active_set)
	set_config mode 99
	expect E2BIG "mode 99 reads as enforce" "$HELPERS/execsize" 100000 0 /bin/true
	grep -qx "mode = enforce" <<<"$(argguard policy show)" || fail "show: mode 99 as enforce"
	set_config mode 2
	set_rule_field global_rules action 7 $(le 4 "$set")
	expect E2BIG "action 7 reads as deny" "$HELPERS/execsize" 100000 0 /bin/true
	set_rule_field global_rules deny_errno 0 $(le 4 "$set")
	expect E2BIG "errno 0 reads as E2BIG" "$HELPERS/execsize" 100000 0 /bin/true
	set_rule_field global_rules deny_errno -5 $(le 4 "$set")
	expect E2BIG "errno -5 reads as E2BIG" "$HELPERS/execsize" 100000 0 /bin/true
	set_rule_field global_rules deny_errno 2 $(le 4 "$set")
	expect E2BIG "errno 2 (ENOENT, not on the list) reads as E2BIG" \
		"$HELPERS/execsize" 100000 0 /bin/true
	set_rule_field global_rules deny_errno 1 $(le 4 "$set")
	expect EPERM "errno 1 (EPERM, on the list) is used" "$HELPERS/execsize" 100000 0 /bin/true
	set_config empty_argv_action 9
	expect E2BIG "empty_argv_action 9 reads as deny" "$HELPERS/execsize" 0 0 /bin/true
	set_config empty_argv_action 0
	set_config active_set $((set + 2))
	expect EPERM "active_set $((set + 2)) reads as $set" "$HELPERS/execsize" 100000 0 /bin/true
}

test_sighup_reapplies_the_policy_file() {
	trap cleanup EXIT
	local i
	cp "$POLICY_FILE" /tmp/argguard-policy.orig
	printf '[global]\nmode = enforce\nmax_total_bytes = 48K\n' >"$POLICY_FILE"
	systemctl reload argguard.service
	for ((i = 0; i < 50; i++)); do
		[[ $(live_limit) == 49152 ]] && break
		sleep 0.1
	done
	assert_eq 49152 "$(live_limit)" "the limit after systemctl reload"
	expect E2BIG "root, 60K after the reload" "$HELPERS/execsize" 60000 0 /bin/true
	mv /tmp/argguard-policy.orig "$POLICY_FILE"
	systemctl reload argguard.service
	assert_eq active "$(systemctl is-active argguard.service)" "argguard.service after reloads"
}

test_status_counts_decisions_by_scope_and_verdict() {
	trap cleanup EXIT
	local before after
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 64K"
	before=$(argguard status | awk '$1 == "global.deny:" { print $2 }')
	expect E2BIG "root, 100K over 64K" "$HELPERS/execsize" 100000 0 /bin/true
	after=$(argguard status | awk '$1 == "global.deny:" { print $2 }')
	argguard status | grep -v ': 0$'
	assert_eq $((before + 1)) "$after" "global.deny after one denied exec"
}

test_script_is_judged_and_logged_once() {
	trap cleanup EXIT
	local before count_before count_after
	printf '#!/bin/sh\nexit 0\n' >/tmp/argguard-script.sh
	chmod 0755 /tmp/argguard-script.sh
	apply_policy "[global]" "mode = audit" "max_total_bytes = 64K"
	before=$(log_lines)
	count_before=$(argguard status | awk '$1 == "global.would-deny:" { print $2 }')
	expect allowed "a script with 100K of arguments in audit mode" \
		"$HELPERS/execsize" 100000 0 /tmp/argguard-script.sh
	wait_log_lines $((before + 1)) || fail "expected a record for the script"
	sleep 0.5
	count_after=$(argguard status | awk '$1 == "global.would-deny:" { print $2 }')
	assert_eq $((before + 1)) "$(log_lines)" "records for one script exec (two hook passes)"
	assert_eq $((count_before + 1)) "$count_after" "would-deny decisions for one script exec"
	assert_eq /tmp/argguard-script.sh "$(jq -r .filename <<<"$(last_record)")" "filename"
}

# A: enforce, 32K: a 100K exec is denied. B: audit, 1M: it is allowed with no
# record. Any mix of the two (audit with 32K) would log a would-deny. Each
# also carries 2000 uid rules for other users, so that writing a policy takes
# long enough for execs to land while it is half written.
test_concurrent_execs_never_see_half_an_apply() {
	trap cleanup EXIT
	local i before torn out denied=0 allowed=0 filler applier
	filler=$(for ((i = 100000; i < 102000; i++)); do printf '[uid %d]\nmax_argc = 9\n' "$i"; done)
	printf '[global]\nmode = enforce\nmax_total_bytes = 32K\n%s\n' "$filler" >/tmp/argguard-a.conf
	printf '[global]\nmode = audit\nmax_total_bytes = 1M\n%s\n' "$filler" >/tmp/argguard-b.conf
	argguard policy apply /tmp/argguard-a.conf
	before=$(log_lines)
	(for ((i = 0; i < 20; i++)); do
		argguard policy apply /tmp/argguard-b.conf
		argguard policy apply /tmp/argguard-a.conf
	done) &
	applier=$!
	while kill -0 "$applier" 2>/dev/null; do
		out=$(outcome "$HELPERS/execsize" 100000 0 /bin/true)
		case $out in
		E2BIG) denied=$((denied + 1)) ;;
		allowed) allowed=$((allowed + 1)) ;;
		*) fail "unexpected outcome $out" ;;
		esac
	done
	wait "$applier" || fail "a policy apply failed while execs ran"
	sleep 0.5
	torn=$(tail -n +$((before + 1)) "$EVENT_LOG" | jq -r .verdict | grep -c would-deny || true)
	echo "40 applies; execs meanwhile: $denied denied, $allowed allowed; would-deny records: $torn"
	((denied > 0 && allowed > 0)) || fail "expected execs under both policies"
	assert_eq 0 "$torn" "would-deny records (a half-applied policy)"
}
