# SPDX-License-Identifier: GPL-2.0
# What stock mode can do, on a kernel without the series: every scope of the
# policy and the setuid rule, every limit a rule can set, the execs a stock
# kernel refuses by itself, and each sink a record goes to (the event log,
# the journal, the Linux audit log). Sizes are derived: the BPF program knows
# only the total, and judges every byte limit against it.

OTHER=1001 # a second non-root uid, one with no name
AS_OTHER=(setpriv --reuid=$OTHER --regid=$OTHER --clear-groups)

# denied_by SCOPE RULE WHAT CMD...: CMD's exec must fail with E2BIG and give
# one deny record whose scope is SCOPE and whose rule is RULE: the rule's
# cgroup path, its uid, or - for a scope of one rule.
denied_by() {
	local scope=$1 rule=$2 what=$3 before record
	shift 3
	before=$(log_lines)
	expect E2BIG "$what" "$@"
	record=$(records_since "$before" 1)
	echo "$what: $(jq -c '[.verdict, .scope, .rule_cgroup // .rule_id, .cgroup, .limit, .total_bytes]' <<<"$record")"
	assert_eq 1 "$(grep -c . <<<"$record")" "records for $what"
	assert_eq "deny $scope $rule" \
		"$(jq -r '"\(.verdict) \(.scope) \(.rule_cgroup // .rule_id // "-")"' <<<"$record")" \
		"verdict, scope and rule for $what"
}

test_stock_most_specific_rule_wins_cgroup_then_uid_then_global() {
	trap cleanup EXIT
	local x=$HELPERS/execsize
	mkdir -p $CG/argguard-t-tight/child $CG/argguard-t-loose
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 64K" \
		"[user tester]" "max_total_bytes = 256K" \
		"[uid $OTHER]" "max_total_bytes = 128K" \
		"[cgroup /argguard-t-tight]" "max_total_bytes = 32K" \
		"[cgroup /argguard-t-loose]" "max_total_bytes = 1M"
	denied_by global - "root, 100K, global 64K" "$x" 100000 0 /bin/true
	expect allowed "root, 60K, global 64K" "$x" 60000 0 /bin/true
	expect allowed "tester, 100K: [user tester] loosens global" \
		"${AS_TESTER[@]}" "$x" 100000 0 /bin/true
	denied_by uid $TESTER "tester, 300K: over [user tester]" \
		"${AS_TESTER[@]}" "$x" 300000 0 /bin/true
	expect allowed "uid $OTHER, 100K: [uid $OTHER] loosens global" \
		"${AS_OTHER[@]}" "$x" 100000 0 /bin/true
	denied_by uid $OTHER "uid $OTHER, 150K: over [uid $OTHER]" \
		"${AS_OTHER[@]}" "$x" 150000 0 /bin/true
	denied_by cgroup /argguard-t-tight "tester in a 32K cgroup, 40K: the cgroup rule tightens the uid rule" \
		in_cgroup /argguard-t-tight "${AS_TESTER[@]}" "$x" 40000 0 /bin/true
	denied_by cgroup /argguard-t-tight "tester in a child of the 32K cgroup, 40K: inherited" \
		in_cgroup /argguard-t-tight/child "${AS_TESTER[@]}" "$x" 40000 0 /bin/true
	assert_eq /argguard-t-tight/child "$(jq -r .cgroup <<<"$(last_record)")" \
		"the cgroup of the exec in the child"
	expect allowed "tester in the child cgroup, 20K" \
		in_cgroup /argguard-t-tight/child "${AS_TESTER[@]}" "$x" 20000 0 /bin/true
	expect allowed "tester in a 1M cgroup, 300K: the cgroup rule loosens the uid rule" \
		in_cgroup /argguard-t-loose "${AS_TESTER[@]}" "$x" 300000 0 /bin/true
	expect allowed "root in the 1M cgroup, 300K: the cgroup rule loosens global" \
		in_cgroup /argguard-t-loose "$x" 300000 0 /bin/true
	denied_by cgroup /argguard-t-loose "root in the 1M cgroup, 1.5M" \
		in_cgroup /argguard-t-loose "$x" 1500000 0 /bin/true
}

# uid 5 of a namespace the tester made with its subordinate uids has no rule
# of its own: [user tester] decides, and the record names the tester.
test_stock_subordinate_uid_answers_to_its_users_rule() {
	trap cleanup EXIT
	local base
	base=$(subuid_base tester)
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[user tester]" "max_total_bytes = 64K"
	denied_by uid $TESTER "subordinate uid $((base + 5)), 100K: over [user tester]" \
		as_subuid 5 "$HELPERS/execsize" 100000 0 /bin/true
	assert_eq "$((base + 5)) $TESTER" "$(jq -r '"\(.uid) \(.userns_owner)"' <<<"$(last_record)")" \
		"uid and userns_owner of the record"
	expect allowed "subordinate uid $((base + 5)), 60K" as_subuid 5 "$HELPERS/execsize" 60000 0 /bin/true
}

test_stock_setuid_rule_tightens_privilege_gaining_execs_only() {
	trap cleanup EXIT
	local x=$HELPERS/execsize
	make_setuid_copies
	apply_policy "[global]" "mode = enforce" "allow_lockout = yes" "max_total_bytes = 1M" \
		"[setuid]" "max_total_bytes = 4K"
	denied_by setuid - "tester, 8000 bytes to a setuid-root target" \
		"${AS_TESTER[@]}" "$x" 8000 0 "$SUID_TRUE"
	assert_eq "true 4096 8000 derived $TESTER" \
		"$(jq -r '"\(.secureexec) \(.limit_value) \(.total_bytes) \(.sizes) \(.uid)"' <<<"$(last_record)")" \
		"secureexec, the setuid limit, the derived total and the caller's uid"
	denied_by setuid - "tester, 8000 bytes to a target with file capabilities" \
		"${AS_TESTER[@]}" "$x" 8000 0 "$FCAP_TRUE"
	expect allowed "tester, 8000 bytes to a plain copy" \
		"${AS_TESTER[@]}" "$x" 8000 0 "$PLAIN_TRUE"
	expect allowed "tester, 2000 bytes to the setuid target" \
		"${AS_TESTER[@]}" "$x" 2000 0 "$SUID_TRUE"
	expect allowed "root, 8000 bytes to the setuid target: no privilege gained" \
		"$x" 8000 0 "$SUID_TRUE"
}

test_stock_setuid_rule_cannot_lift_a_denial_of_the_scope_rule() {
	trap cleanup EXIT
	local x=$HELPERS/execsize
	make_setuid_copies
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 64K" \
		"[setuid]" "max_total_bytes = 1M"
	denied_by global - "tester, 100K to a setuid target: global 64K, setuid 1M" \
		"${AS_TESTER[@]}" "$x" 100000 0 "$SUID_TRUE"
	expect allowed "tester, 60K to the setuid target" "${AS_TESTER[@]}" "$x" 60000 0 "$SUID_TRUE"
}

# No split of argv from envp on a stock kernel: max_argv_bytes and
# max_envp_bytes are judged against their sum, never laxer than the split.
test_stock_argv_and_envp_limits_are_judged_against_the_total() {
	trap cleanup EXIT
	local x=$HELPERS/execsize
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[user tester]" "max_argv_bytes = 64K" \
		"[uid $OTHER]" "max_envp_bytes = 64K"
	denied_by uid $TESTER "tester, 1000 bytes of argv and 100000 of envp, max_argv_bytes 64K" \
		"${AS_TESTER[@]}" "$x" 1000 100000 /bin/true
	assert_eq "max_argv_bytes 65536 101000 null" \
		"$(jq -r '"\(.limit) \(.limit_value) \(.total_bytes) \(.argv_bytes)"' <<<"$(last_record)")" \
		"the limit crossed, its value, the total and argv_bytes"
	expect allowed "tester, 1000 + 60000 bytes: under 64K whichever way" \
		"${AS_TESTER[@]}" "$x" 1000 60000 /bin/true
	denied_by uid $OTHER "uid $OTHER, 100000 bytes of argv and 1000 of envp, max_envp_bytes 64K" \
		"${AS_OTHER[@]}" "$x" 100000 1000 /bin/true
	assert_eq "max_envp_bytes 65536 101000 null" \
		"$(jq -r '"\(.limit) \(.limit_value) \(.total_bytes) \(.envp_bytes)"' <<<"$(last_record)")" \
		"the limit crossed, its value, the total and envp_bytes"
}

# The tester's execs start from an empty environment (env -i): setpriv's
# exec of execsize is judged by the tester's rule too.
test_stock_argc_and_envc_limits_count_strings() {
	trap cleanup EXIT
	local x=$HELPERS/execsize as_tester=(env -i "${AS_TESTER[@]}")
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[user tester]" "max_argc = 8" "max_envc = 2"
	denied_by uid $TESTER "tester, 10 arguments, max_argc 8" "${as_tester[@]}" "$x" 100 0 /bin/true 10
	assert_eq "max_argc 8 10" "$(jq -r '"\(.limit) \(.limit_value) \(.argc)"' <<<"$(last_record)")" \
		"the limit crossed, its value and argc"
	expect allowed "tester, 8 arguments" "${as_tester[@]}" "$x" 100 0 /bin/true 8
	# execsize cuts the environment into strings of at most 128 KiB: 3 here.
	denied_by uid $TESTER "tester, 3 environment strings, max_envc 2" \
		"${as_tester[@]}" "$x" 100 300000 /bin/true
	assert_eq "max_envc 2 3" "$(jq -r '"\(.limit) \(.limit_value) \(.envc)"' <<<"$(last_record)")" \
		"the limit crossed, its value and envc"
	expect allowed "tester, 2 environment strings" "${as_tester[@]}" "$x" 100 200000 /bin/true
}

test_stock_audit_mode_and_audit_action_log_allow_action_and_off_mode_do_not() {
	trap cleanup EXIT
	local x=$HELPERS/execsize before records
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 64K" \
		"[user tester]" "max_total_bytes = 64K" "action = audit" \
		"[uid $OTHER]" "max_total_bytes = 64K" "action = allow"
	before=$(log_lines)
	expect allowed "tester, 100K under action = audit" "${AS_TESTER[@]}" "$x" 100000 0 /bin/true
	expect allowed "uid $OTHER, 100K under action = allow" "${AS_OTHER[@]}" "$x" 100000 0 /bin/true
	apply_policy "[global]" "mode = audit" "max_total_bytes = 64K"
	expect allowed "root, 100K in mode audit" "$x" 100000 0 /bin/true
	apply_policy "[global]" "mode = off" "max_total_bytes = 64K"
	expect allowed "root, 100K in mode off" "$x" 100000 0 /bin/true
	records=$(records_since "$before" 2)
	jq -c '[.verdict, .scope, .uid, .errno]' <<<"$records"
	assert_eq "audit:uid:$TESTER:null would-deny:global:0:null" \
		"$(jq -r '"\(.verdict):\(.scope):\(.uid):\(.errno)"' <<<"$records" | xargs)" \
		"the records: action = audit's and mode audit's, none for action = allow or mode off"
}

# A stock kernel turns an empty argv into one "" before any LSM runs: no
# empty_argv rule can match (the loader says so at start).
test_stock_empty_argv_rule_never_matches() {
	trap cleanup EXIT
	local before
	apply_policy "[global]" "mode = enforce" "empty_argv = deny" "max_total_bytes = 1M"
	before=$(log_lines)
	expect allowed "argc == 0 under empty_argv = deny" "$HELPERS/execsize" 0 0 /bin/true
	sleep 0.5
	assert_eq "$before" "$(log_lines)" "records after an empty argv"
}

test_stock_event_log_record_names_the_caller_the_rule_and_the_derived_sizes() {
	trap cleanup EXIT
	local before record
	mkdir -p $CG/argguard-t-log
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup /argguard-t-log]" "max_total_bytes = 32K" "errno = EACCES"
	rm -f /tmp/argguard-stock-ids
	before=$(log_lines)
	expect EACCES "tester in a 32K cgroup whose rule says EACCES, 40100 bytes" \
		in_cgroup /argguard-t-log "${AS_TESTER[@]}" \
		bash -c 'echo "$$ $PPID" >/tmp/argguard-stock-ids; exec "$@"' bash \
		"$HELPERS/execsize" 40000 100 /bin/true 4
	record=$(records_since "$before" 1)
	echo "record: $record"
	assert_eq 1 "$(grep -c . <<<"$record")" "records for one denied exec"
	jq -e . <<<"$record" >/dev/null || fail "expected a record jq can parse"
	assert_eq "deny cgroup /argguard-t-log max_total_bytes 32768 EACCES" \
		"$(jq -r '"\(.verdict) \(.scope) \(.rule_cgroup) \(.limit) \(.limit_value) \(.errno)"' <<<"$record")" \
		"the decision"
	assert_eq "$(stat -c %i $CG/argguard-t-log) $(stat -c %i $CG/argguard-t-log)" \
		"$(jq -r '"\(.rule_id) \(.cgroup_id)"' <<<"$record")" "rule_id and cgroup_id (the cgroup's inode)"
	assert_eq "$(cat /tmp/argguard-stock-ids)" "$(jq -r '"\(.pid) \(.ppid)"' <<<"$record")" "pid and ppid"
	assert_eq "$TESTER $TESTER $TESTER /argguard-t-log" \
		"$(jq -r '"\(.uid) \(.euid) \(.gid) \(.cgroup)"' <<<"$record")" "uid, euid, gid and cgroup"
	assert_eq "execsize /bin/true 4 1" "$(jq -r '"\(.comm) \(.filename) \(.argc) \(.envc)"' <<<"$record")" \
		"comm, filename, argc and envc"
	assert_eq "derived 40100 null null null false" \
		"$(jq -r '"\(.sizes) \(.total_bytes) \(.argv_bytes) \(.envp_bytes) \(.orig_argc) \(.secureexec)"' <<<"$record")" \
		"the sizes a stock kernel gives, and secureexec"
	assert_eq "2 /bin/true 256 true" \
		"$(jq -r '"\(.argv_head | length) \(.argv_head[0]) \(.argv_head_bytes) \(.argv_head_truncated)"' <<<"$record")" \
		"the head of the command line: argv[0] and the cut start of argv[1]"
	jq -e '.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$")' <<<"$record" >/dev/null ||
		fail "expected an ISO 8601 UTC time"
	assert_eq "root:adm 640" "$(stat -c '%U:%G %a' "$EVENT_LOG")" "owner, group and mode of the log"
}

# What a stock kernel refuses by itself, with E2BIG, before any LSM runs.
# The 2010 exploit, under an unlimited stack: the kernel's 6 MiB cap.
refuse_exploit2010() (exploit_unlimited)
# 2^20 pointers, 8 MiB of them: more than any stack limit's share for strings.
refuse_pointer_flood() { "$HELPERS/pointer_flood" $((1 << 20)); }
# 300000 bytes under a 1 MiB stack limit, whose quarter (256K) is the share.
refuse_over_stack_share() (ulimit -s 1024 && exec "$HELPERS/execsize" 300000 0 /bin/true)
# One argument longer than MAX_ARG_STRLEN (128 KiB, its NUL included).
refuse_long_string() { bash -c 'exec /bin/true "$(head -c 131072 /dev/zero | tr "\0" x)"'; }

# stack_share: the kernel's limit on an exec's strings under this shell's
# stack limit: a quarter of it, at most 6 MiB, at least 128 KiB.
stack_share() {
	local s
	s=$(ulimit -s)
	[[ $s != unlimited ]] || s=$((1 << 40))
	s=$((s * 1024 / 4))
	((s < 6 << 20)) || s=$((6 << 20))
	((s > 32 * 4096)) || s=$((32 * 4096))
	echo "$s"
}

test_stock_kernel_refusals_are_recorded_once_each() {
	local what comm share records
	# FUNCTION COMM LIMIT_VALUE, the limit the exec broke as its record gives
	# it. A string too long breaks MAX_ARG_STRLEN, which a record cannot
	# name: its limit_value is the stack share, so it is not checked.
	for what in "refuse_exploit2010 exploit2010 $((6 << 20))" \
		"refuse_pointer_flood pointer_flood $(stack_share)" \
		"refuse_over_stack_share execsize 262144" "refuse_long_string bash -"; do
		read -r what comm share <<<"$what"
		records=$(new_records 1 "$what")
		echo "$what: $records"
		assert_eq 1 "$(grep -c . <<<"$records")" "records for $what"
		assert_eq "kernel-refused kernel kernel E2BIG" \
			"$(jq -r '"\(.verdict) \(.scope) \(.limit) \(.errno)"' <<<"$records")" \
			"verdict, scope, limit and errno for $what"
		assert_eq "/bin/true $comm" "$(jq -r '"\(.filename) \(.comm)"' <<<"$records")" \
			"filename and comm for $what"
		assert_eq "unknown null null" "$(jq -r '"\(.sizes) \(.total_bytes) \(.argc)"' <<<"$records")" \
			"sizes, total_bytes and argc for $what: the kernel refused before counting"
		[[ $share == - ]] ||
			assert_eq "$share" "$(jq -r .limit_value <<<"$records")" "limit_value for $what"
	done
}

# journal_entry MATCH...: the newest journal entry that matches, as JSON,
# waiting up to 5 s for journald to have it.
journal_entry() {
	local i entry=
	for ((i = 0; i < 50; i++)); do
		entry=$(journalctl -o json "$@" | tail -n 1)
		[[ -z $entry ]] || break
		sleep 0.1
	done
	printf '%s\n' "$entry"
}

# journal_fields PID VERDICT FIELDS...: the values of FIELDS in the journal
# entry for the exec of PID with VERDICT, one line.
journal_fields() {
	local pid=$1 verdict=$2 entry f out=()
	shift 2
	entry=$(journal_entry _SYSTEMD_UNIT=argguard.service _UID=0 ARGGUARD_VERDICT="$verdict" ARGGUARD_PID="$pid")
	[[ -n $entry ]] || fail "expected journalctl ARGGUARD_VERDICT=$verdict to find pid $pid"
	jq -c 'with_entries(select(.key | test("^(ARGGUARD_|PRIORITY$|MESSAGE$)")))
		| del(.ARGGUARD_ARGV_HEAD)' <<<"$entry" | sed "s/^/journal, $verdict: /" >&2
	for f in "$@"; do
		out+=("$(jq -r --arg f "$f" '.[$f]' <<<"$entry")")
	done
	echo "${out[*]}"
}

test_stock_records_are_in_the_journal_with_structured_fields() {
	trap cleanup EXIT
	local records pid fields=(ARGGUARD_SCOPE ARGGUARD_LIMIT ARGGUARD_LIMIT_VALUE ARGGUARD_ERRNO
		ARGGUARD_SIZES ARGGUARD_TOTAL_BYTES ARGGUARD_ARGV_BYTES ARGGUARD_FILENAME PRIORITY
		SYSLOG_IDENTIFIER)
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 64K"
	records=$(new_records 1 "$HELPERS/execsize" 100000 0 /bin/true)
	pid=$(jq -r .pid <<<"$records")
	assert_eq "global max_total_bytes 65536 E2BIG derived 100000 null /bin/true 4 argguard" \
		"$(journal_fields "$pid" deny "${fields[@]}")" \
		"a denial's fields, no ARGGUARD_ARGV_BYTES on stock, and its priority (warning)"
	assert_eq "argguard: deny exec of /bin/true (global max_total_bytes, limit 65536)" \
		"$(journal_fields "$pid" deny MESSAGE)" "a denial's message"

	apply_policy "[global]" "mode = audit" "max_total_bytes = 64K"
	records=$(new_records 1 "$HELPERS/execsize" 100000 0 /bin/true)
	pid=$(jq -r .pid <<<"$records")
	assert_eq "global max_total_bytes 65536 null derived 100000 null /bin/true 5 argguard" \
		"$(journal_fields "$pid" would-deny "${fields[@]}")" \
		"a would-deny's fields and its priority (notice)"

	records=$(new_records 1 refuse_exploit2010)
	pid=$(jq -r .pid <<<"$records")
	assert_eq "kernel kernel $((6 << 20)) E2BIG unknown null null /bin/true 4 argguard" \
		"$(journal_fields "$pid" kernel-refused "${fields[@]}")" \
		"a kernel refusal's fields and its priority (warning)"
}

# audit_message PID: the newest TRUSTED_APP message about the exec of PID,
# waiting up to 5 s for auditd to have it.
audit_message() {
	local i found=
	for ((i = 0; i < 50; i++)); do
		found=$(ausearch -m TRUSTED_APP 2>/dev/null | grep "op=argguard-exec .* pid=$1 " |
			tail -n 1 || true)
		[[ -z $found ]] || break
		sleep 0.1
	done
	echo "ausearch, pid $1: $found" >&2
	[[ -n $found ]] || fail "expected ausearch -m TRUSTED_APP to find the exec of pid $1"
	printf '%s\n' "$found"
}

# audit_has MESSAGE PAIR...: each PAIR (name="value", name=N, or !name for none) is
# in the audit MESSAGE.
audit_has() {
	local msg=$1 pair
	shift
	for pair in "$@"; do
		if [[ $pair == !* ]]; then
			[[ $msg != *" ${pair#!}="* ]] || fail "expected no ${pair#!} in the audit message"
		else
			[[ $msg == *" $pair"[" '"]* ]] || fail "expected $pair in the audit message"
		fi
	done
}

test_stock_records_are_in_the_linux_audit_log() {
	trap cleanup EXIT
	local records pid msg
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 64K"
	records=$(new_records 1 "$HELPERS/execsize" 100000 0 /bin/true)
	pid=$(jq -r .pid <<<"$records")
	msg=$(audit_message "$pid")
	audit_has "$msg" 'verdict="deny"' 'scope="global"' 'limit="max_total_bytes"' \
		'limit_value=65536' 'errno="E2BIG"' 'total_bytes=100000' '!argv_bytes' \
		'!envp_bytes' 'comm="execsize"' 'filename="/bin/true"' \
		"cgroup=\"$(jq -r .cgroup <<<"$records")\"" 'res=failed'

	apply_policy "[global]" "mode = audit" "max_total_bytes = 64K"
	records=$(new_records 1 "$HELPERS/execsize" 100000 0 /bin/true)
	pid=$(jq -r .pid <<<"$records")
	msg=$(audit_message "$pid")
	audit_has "$msg" 'verdict="would-deny"' 'total_bytes=100000' '!errno' 'res=success'

	records=$(new_records 1 refuse_exploit2010)
	pid=$(jq -r .pid <<<"$records")
	msg=$(audit_message "$pid")
	audit_has "$msg" 'verdict="kernel-refused"' 'scope="kernel"' 'limit="kernel"' \
		'errno="E2BIG"' '!total_bytes' 'comm="exploit2010"' 'res=failed'
}

# Without bpf_bprm_read_argv() the head is read from the caller's memory: a
# thread that rewrites an argument while the exec is held at its open
# changes what the record shows, and the record says where the head came
# from. (The patched suite's twin shows the kernel's copy.)
test_stock_argv_head_comes_from_the_caller_and_says_so() {
	local r
	trap restore_policy EXIT
	# 64K: the 100K of padding is argguard's to deny, well under the kernel's limit.
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 64K"
	cp /bin/true /tmp/argguard-held-true
	r=$(new_records 1 "$HELPERS/argv_rewrite" /tmp/argguard-held-true \
		secret-original harmless-rewrit 100000)
	rm -f /tmp/argguard-held-true
	echo "record: ${r:0:300}..."
	assert_eq deny "$(jq -r .verdict <<<"$r")" "verdict"
	assert_eq caller "$(jq -r .head_source <<<"$r")" "head_source"
	assert_eq harmless-rewrit "$(jq -r '.argv_head[1]' <<<"$r")" \
		"argv[1], as the caller rewrote it after the copy"
}

# 32-bit execs (Debian's kernels and the guest's have IA32_EMULATION): the
# head is read through the caller's 4-byte pointers, and a kernel refusal
# is caught at the compat syscall's exit.
test_stock_32bit_execs_are_recorded_with_their_head() {
	local limit r
	limit=$(live_limit)
	r=$(new_records 1 "$HELPERS/execsize32" --fill marker32 $((limit + 100)) 0 /bin/true)
	echo "denied: ${r:0:300}..."
	assert_eq "deny caller" "$(jq -r '"\(.verdict) \(.head_source)"' <<<"$r")" "verdict, head_source"
	[[ $(jq -r '.argv_head[1]' <<<"$r") == marker32* ]] ||
		fail "expected argv_head[1] to start with marker32"
	# Over the kernel's limit under a 1 MiB stack (256 KiB): refused before any LSM.
	r=$(new_records 1 bash -c "ulimit -s 1024 && exec $HELPERS/execsize32 300000 0 /bin/true")
	echo "refused: ${r:0:300}..."
	assert_eq "kernel-refused execsize32" "$(jq -r '"\(.verdict) \(.comm)"' <<<"$r")" \
		"verdict and comm of 300,000 bytes under a 1 MiB stack"
	assert_eq /bin/true "$(jq -r '.argv_head[0]' <<<"$r")" "argv_head[0]"
}

# The exits delete what argguard's own denials put in denied_execs, native
# and 32-bit, so that none is left to hide a later kernel refusal.
test_stock_denials_leave_nothing_in_denied_execs() {
	local limit i x
	limit=$(live_limit)
	for x in "$HELPERS/execsize" "$HELPERS/execsize32"; do
		for ((i = 0; i < 10; i++)); do
			expect E2BIG "${x##*/}: exec $i over the limit" "$x" $((limit + 100)) 0 /bin/true
		done
	done
	assert_eq 0 "$(denied_execs_entries)" "entries left in denied_execs"
}
