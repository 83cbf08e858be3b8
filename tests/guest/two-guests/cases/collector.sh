# SPDX-License-Identifier: GPL-2.0
# On the collector: the node's denial as systemd-journal-remote wrote it,
# found by the query argguard-records(5) documents, with what the node's
# journal had; and none of what a user of the node forged.
source "${BASH_SOURCE[0]%/*}/../lib.sh"

# shipped_denial [PAGE]: the node's denial on the collector, by the query
# that PAGE (argguard-records(5)) documents.
shipped_denial() {
	local q pid
	read -ra q <<<"$(collector_query "${1:-}")"
	pid=$(manifest_field TWO_GUESTS_RECORD | jq -r .pid)
	remote_json "${q[@]}" "_HOSTNAME=$NODE" ARGGUARD_PID="$pid" | tail -n 1 | grep .
}

test_node_denial_is_on_the_collector_by_the_documented_query() {
	local entry
	manifest >/dev/null || fail "no manifest from the node: it never shipped anything here"
	echo "query: journalctl $(collector_query) -D $REMOTE_DIR"
	entry=$(shipped_denial) || fail "the documented query does not find the node's denial on the collector"
	echo "entry: $entry"
	assert_eq deny "$(jq -r .ARGGUARD_VERDICT <<<"$entry")" ARGGUARD_VERDICT
	assert_eq 1000 "$(jq -r .ARGGUARD_UID <<<"$entry")" "ARGGUARD_UID (tester's exec)"
}

# Each ARGGUARD_* field the node's journal has, with its value; and each
# field of the record the JSON log has (but its envelope, which the journal
# leaves to journald: argguard-records(5)), as ARGGUARD_ and its name.
test_shipped_denial_has_every_field_the_node_had() {
	local entry node record missing
	entry=$(shipped_denial) || fail "the documented query does not find the node's denial"
	node=$(manifest_field TWO_GUESTS_ENTRY)
	record=$(manifest_field TWO_GUESTS_RECORD)
	assert_eq "$(jq -cS 'with_entries(select(.key | startswith("ARGGUARD_")))' <<<"$node")" \
		"$(jq -cS 'with_entries(select(.key | startswith("ARGGUARD_")))' <<<"$entry")" \
		"the ARGGUARD_* fields, on the node and on the collector"
	missing=$(jq -rn --argjson r "$record" --argjson e "$entry" '
		def field(k): "ARGGUARD_" + (k | ascii_upcase);
		def same(k; v): $e[field(k)] as $j | $j != null and
			(if (v | type) == "string" then $j == v else ($j | fromjson) == v end);
		$r | to_entries[] | select(.value != null and
			(.key | IN("schema", "host", "boot_id", "seq") | not)) |
		if .key == "container" then .key as $c | .value | to_entries[] |
			select(same($c + "_" + .key; .value) | not) | field($c + "_" + .key)
		else select(same(.key; .value) | not) | field(.key) end')
	echo "record: $record"
	[[ -z $missing ]] || fail "the collector's entry lacks, or differs in: $(echo $missing)"
}

# _HOSTNAME and the trusted fields the query pins are journald's on the
# node, not the collector's own.
test_shipped_denial_keeps_the_nodes_trusted_fields() {
	local entry node f
	entry=$(shipped_denial) || fail "the documented query does not find the node's denial"
	node=$(manifest_field TWO_GUESTS_ENTRY)
	assert_eq "$NODE" "$(jq -r ._HOSTNAME <<<"$entry")" _HOSTNAME
	[[ $(hostname) == "$COLLECTOR" ]] || fail "expected the collector to be $COLLECTOR, not $(hostname)"
	for f in _HOSTNAME _BOOT_ID _MACHINE_ID _SYSTEMD_UNIT _UID _PID _TRANSPORT; do
		assert_eq "$(jq -r --arg f $f '.[$f]' <<<"$node")" "$(jq -r --arg f $f '.[$f]' <<<"$entry")" \
			"$f, on the node and on the collector"
	done
	[[ $(jq -r ._BOOT_ID <<<"$entry") != "$(tr -d - </proc/sys/kernel/random/boot_id)" ]] ||
		fail "the entry has the collector's boot id"
}

# A user of the node sends journald an entry with argguard's fields (and
# trusted ones, which journald drops): it is on the collector, as uploaded,
# and the documented query does not return it.
test_users_forged_entry_on_the_node_is_not_returned_on_the_collector() {
	local forged q entry
	forged=$(manifest_field TWO_GUESTS_FORGED_PID)
	read -ra q <<<"$(collector_query)"
	entry=$(remote_json ARGGUARD_PID="$forged" TWO_GUESTS_FORGED=local | tail -n 1)
	echo "the forgery, unfiltered: $entry"
	[[ -n $entry ]] || fail "expected the user's forged entry on the collector: the test forged nothing"
	assert_eq 1000 "$(jq -r ._UID <<<"$entry")" "the forgery's _UID, journald's"
	[[ -z $(remote_json "${q[@]}" ARGGUARD_PID="$forged") ]] ||
		fail "the documented query (journalctl ${q[*]} -D $REMOTE_DIR) returns the user's forged entry"
}

# A user of the node uploads an entry with every trusted field forged
# straight to the collector, which checks no client certificate (Debian
# 12's is built without --trust): from the user's slice, which the node
# denies the collector's address, it never gets there. Root's upload of the
# same entry, from the node's system slice, does: the control, so that the
# refusal is the node's doing and the entry one the collector would take.
test_users_upload_straight_to_the_collector_is_blocked_on_the_node() {
	local remote status
	remote=$(manifest_field TWO_GUESTS_REMOTE_PID)
	echo "the user's upload (curl status, HTTP status): $(manifest_field TWO_GUESTS_POST_USER)"
	echo "root's upload: $(manifest_field TWO_GUESTS_POST_CONTROL)"
	read -r _ status <<<"$(manifest_field TWO_GUESTS_POST_CONTROL)"
	[[ $status == 2* ]] || fail "expected the collector to take root's upload (HTTP $status)"
	[[ -n $(remote_json ARGGUARD_PID="$remote" TWO_GUESTS_FORGED=root-control) ]] ||
		fail "expected root's upload on the collector: the user's refusal would prove nothing"
	read -r _ status <<<"$(manifest_field TWO_GUESTS_POST_USER)"
	[[ $status != 2* ]] || fail "the collector took the user's upload (HTTP $status)"
	[[ -z $(remote_json ARGGUARD_PID="$remote" TWO_GUESTS_FORGED=user) ]] ||
		fail "the user's upload is on the collector"
}

# tests/mutants/collector-query-unpinned.patch: the collector's query
# without the trusted fields. The same check as above, with the mutant's
# page, must find the forgery (mutants_host catches it on the host too).
test_mutant_collector_query_unpinned_is_caught() {
	local forged q
	[[ -f $MUTANT_PAGE ]] || fail "no mutant page at $MUTANT_PAGE"
	read -ra q <<<"$(collector_query "$MUTANT_PAGE")"
	echo "the mutant's query: journalctl ${q[*]} -D $REMOTE_DIR"
	[[ "${q[*]}" != "$(collector_query)" ]] || fail "the mutant's page gives the same query"
	forged=$(manifest_field TWO_GUESTS_FORGED_PID)
	[[ -n $(remote_json "${q[@]}" ARGGUARD_PID="$forged") ]] ||
		fail "missed: the mutant's query does not return the user's forged entry"
}
