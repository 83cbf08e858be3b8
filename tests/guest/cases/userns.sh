# SPDX-License-Identifier: GPL-2.0
# User namespaces with subordinate uids (subuid(5)), as rootless containers
# make them: the uids a user's namespace runs as answer to that user.

# one_record WANT WHAT CMD...: CMD's exec must end WANT (allowed or an
# errno); print the one record it added. Call it plainly or in an
# assignment: it fails the test itself.
one_record() {
	local want=$1 what=$2 before records
	shift 2
	before=$(log_lines)
	expect "$want" "$what" "$@"
	records=$(records_since "$before" 1)
	assert_eq 1 "$(grep -c . <<<"$records" || true)" "records of $what"
	printf '%s\n' "$records"
}

# What decided an exec and whom it names: scope rule_id uid userns_owner.
decided_by() { jq -r '"\(.scope) \(.rule_id) \(.uid) \(.userns_owner)"' <<<"$1"; }

# The tester's subordinate uid has no rule of its own: the tester's decides
# (before this, [global] did, and the uid escaped the tester's limit).
test_subordinate_uid_answers_to_its_users_rule() {
	trap restore_policy EXIT
	local base r
	base=$(subuid_base tester)
	apply_policy '[global]' 'mode = enforce' 'max_total_bytes = 1M' \
		'[user tester]' 'max_total_bytes = 64K'
	assert_eq "0 $base 65536" "$(as_subuid 5 cat /proc/self/uid_map | xargs)" \
		"the uid map of the tester's namespace"
	r=$(one_record E2BIG "subordinate uid $((base + 5)), 100K over the tester's 64K" \
		as_subuid 5 "$HELPERS/execsize" 100000 0 /bin/true)
	echo "$r"
	assert_eq "uid $TESTER $((base + 5)) $TESTER" "$(decided_by "$r")" \
		"scope, rule_id, uid and userns_owner of the record"
	expect allowed "subordinate uid $((base + 5)), 60K" as_subuid 5 "$HELPERS/execsize" 60000 0 /bin/true
}

# A rule for the subordinate uid itself is the more specific: it decides for
# that uid, and the tester's rule for the others.
test_subordinate_uids_own_rule_outranks_its_users() {
	trap restore_policy EXIT
	local base
	base=$(subuid_base tester)
	apply_policy '[global]' 'mode = enforce' 'max_total_bytes = 1M' \
		'[user tester]' 'max_total_bytes = 64K' "[uid $((base + 5))]" 'max_total_bytes = 256K'
	expect allowed "subordinate uid $((base + 5)), 100K: its own 256K rule" \
		as_subuid 5 "$HELPERS/execsize" 100000 0 /bin/true
	expect E2BIG "subordinate uid $((base + 6)), 100K: the tester's 64K rule" \
		as_subuid 6 "$HELPERS/execsize" 100000 0 /bin/true
}

# A namespace made inside the tester's, by one of its subordinate uids, is
# still the tester's: the owner is the one of the namespace at level 1.
test_nested_namespace_still_answers_to_its_user() {
	trap restore_policy EXIT
	local base r
	base=$(subuid_base tester)
	apply_policy '[global]' 'mode = enforce' 'max_total_bytes = 1M' \
		'[user tester]' 'max_total_bytes = 64K'
	r=$(one_record E2BIG "root of a namespace that subordinate uid $base made, 100K" \
		as_subuid 0 unshare -U -r "$HELPERS/execsize" 100000 0 /bin/true)
	echo "$r"
	assert_eq "uid $TESTER $base $TESTER" "$(decided_by "$r")" \
		"scope, rule_id, uid and userns_owner of the record"
}

# 20 of the tester's subordinate uids flood execs over [global]'s limit at
# event_rate = 1: they share the tester's one bucket (before this, each uid
# had a full bucket of its own), so no more records than one bucket gives in
# the time taken, and the summaries name the tester as the uid whose records
# were held back.
test_subordinate_uids_share_their_users_record_bucket() {
	trap restore_policy EXIT
	local base before start took records n bound refused uids
	base=$(subuid_base tester)
	apply_policy '[global]' 'mode = enforce' 'allow_lockout = yes' 'max_total_bytes = 32K' \
		'event_rate = 1' 'event_burst = 1'
	before=$(log_lines)
	start=${EPOCHREALTIME/./}
	as_subuid 0 bash -c 'for ((u = 1; u <= 20; u++)); do
		setpriv --reuid=$u --regid=$u --clear-groups "$1" 5 40000 || exit 1
	done' - "$HELPERS/exec_storm" >/tmp/argguard-subuid-flood.out ||
		fail "a subordinate uid's flood had an exec allowed: $(xargs </tmp/argguard-subuid-flood.out)"
	took=$((${EPOCHREALTIME/./} - start))
	refused=$(awk '{ n += $1 } END { print n + 0 }' /tmp/argguard-subuid-flood.out)
	assert_eq 100 "$refused" "offending execs refused, 5 by each of 20 subordinate uids"
	sleep 2.5 # the summary
	records=$(tail -n +$((before + 1)) "$EVENT_LOG")
	n=$(jq -c "select(.verdict == \"deny\" and .uid > $base and .uid <= $base + 20)" <<<"$records" |
		grep -c . || true)
	bound=$((1 + (took + 999999) / 1000000)) # a token at once, then one a second
	uids=$(jq -r 'select(.verdict == "summary") | .suppressed_by_uid[].uid' <<<"$records" | sort -u | xargs)
	echo "100 execs in $((took / 1000)) ms: $n records, at most $bound; summaries name uids: $uids"
	((n >= 1 && n <= bound)) || fail "expected 1 to $bound records of the flood, got $n"
	assert_eq "$TESTER" "$uids" "the uids whose records the summaries say were held back"
}

# A namespace that root made (a container with remapped ids) does not answer
# to root's rule: root's is often the loosest, and a container's uids would
# escape every limit through it. Its uids fall to [global], and the record
# names root as the namespace's owner.
test_root_made_namespace_does_not_inherit_roots_rule() {
	trap restore_policy EXIT
	local base r
	base=$(subuid_base root)
	apply_policy '[global]' 'mode = enforce' 'max_total_bytes = 64K' \
		'[uid 0]' 'max_total_bytes = 1M'
	assert_eq "0 $base 65536" "$(as_root_subuid 5 cat /proc/self/uid_map | xargs)" \
		"the uid map of root's namespace"
	expect allowed "root, 100K: its own 1M rule" "$HELPERS/execsize" 100000 0 /bin/true
	r=$(one_record E2BIG "uid $((base + 5)) of root's namespace, 100K over [global]'s 64K" \
		as_root_subuid 5 "$HELPERS/execsize" 100000 0 /bin/true)
	echo "$r"
	assert_eq "global null $((base + 5)) 0" "$(decided_by "$r")" \
		"scope, rule_id, uid and userns_owner of the record"
}
