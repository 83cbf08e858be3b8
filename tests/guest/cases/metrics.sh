# SPDX-License-Identifier: GPL-2.0
# Metrics: argguard status --format json|prometheus, and the textfile that
# Debian's prometheus-node-exporter serves (the guest runs the daemon with
# --metrics-dir, vm/run.sh).

NODE_EXPORTER=http://127.0.0.1:9100/metrics

scrape() { curl -fsS --max-time 30 "$NODE_EXPORTER"; }

test_status_json_counts_a_denied_exec() {
	local before after limit json
	json=$(argguard status --format=json)
	echo "before: $json"
	before=$(jq -e '.decisions.global.deny' <<<"$json") ||
		fail "expected decisions.global.deny in argguard status --format=json"
	limit=$(live_limit)
	expect E2BIG "an exec one byte over the global limit" \
		"$HELPERS/execsize" $((limit + 1)) 0 /bin/true
	json=$(argguard status --format=json)
	echo "after: $json"
	after=$(jq -e '.decisions.global.deny' <<<"$json") ||
		fail "expected decisions.global.deny in argguard status --format=json"
	assert_eq $((before + 1)) "$after" "decisions.global.deny after one denied exec"
	jq -e '.mode == "enforce" and .last_apply.success == true and .last_apply.timestamp > 0
		and (.last_apply.message | startswith("applied "))
		and (.records_dropped | keys == ["rate_limited", "ring_full"])
		and (.decisions | keys | length == 6)' <<<"$json" >/dev/null ||
		fail "expected mode enforce, a successful last apply, drops by reason and 6 scopes"
}

test_status_text_keeps_the_apply_line_without_its_fields() {
	local text
	text=$(argguard status)
	sed -n 1,3p <<<"$text"
	[[ $(sed -n 2p <<<"$text") == "last apply: "*": applied "* ]] ||
		fail "expected the second line to be the human 'last apply:' line"
	[[ $text != *success=* && $text != *timestamp=* ]] ||
		fail "expected the status file's machine fields to stay out of the text"
	[[ $(grep -c . /run/argguard.apply-status) == 3 ]] ||
		fail "expected the status file to hold the line, success= and timestamp="
}

test_status_prometheus_passes_promtool() {
	local out rc=0
	argguard status --format=prometheus >/tmp/argguard-status.prom
	awk '/^argguard_/ && $2 != 0' /tmp/argguard-status.prom
	out=$(promtool check metrics </tmp/argguard-status.prom 2>&1) || rc=$?
	echo "promtool check metrics: exit $rc${out:+: $out}"
	assert_eq 0 "$rc" "promtool check metrics' exit status"
	assert_eq "" "$out" "promtool's findings"
	assert_eq 1 "$(prom_value 'argguard_policy_mode{mode="enforce"}' </tmp/argguard-status.prom)" \
		"argguard_policy_mode{mode=\"enforce\"}"
	assert_eq 1 "$(prom_value argguard_last_apply_success </tmp/argguard-status.prom)" \
		"argguard_last_apply_success"
}

test_metrics_textfile_is_world_readable_and_refreshed() {
	local first
	wait_for 10 test -f "$TEXTFILE" || fail "expected the daemon to write $TEXTFILE"
	assert_eq "root:root 644" "$(stat -c '%U:%G %a' "$TEXTFILE")" \
		"owner and mode of the textfile (node_exporter runs as prometheus)"
	[[ ! -e $TEXTFILE.tmp ]] || fail "expected no temporary file left in $TEXTFILE_DIR"
	first=$(stat -c %Y.%i "$TEXTFILE")
	# A refresh is a new inode (rename) with a new mtime, every 5 seconds.
	wait_for 12 bash -c "[[ \$(stat -c %Y.%i '$TEXTFILE') != '$first' ]]" ||
		fail "expected $TEXTFILE to be replaced within 12 seconds"
	promtool check metrics <"$TEXTFILE" || fail "expected promtool to accept $TEXTFILE"
}

test_node_exporter_serves_argguard_metrics() {
	local deny limit page
	wait_for 60 scrape >/dev/null 2>&1 ||
		fail "expected prometheus-node-exporter on $NODE_EXPORTER: $(systemctl status prometheus-node-exporter 2>&1 | tail -n 5)"
	page=$(scrape)
	awk '/^argguard_decisions_total/ && $2 != 0' <<<"$page"
	deny=$(prom_value 'argguard_decisions_total{scope="global",verdict="deny"}' <<<"$page")
	[[ -n $deny ]] || fail "expected argguard_decisions_total{scope=\"global\",verdict=\"deny\"} on /metrics"
	assert_eq 0 "$(prom_value node_textfile_scrape_error <<<"$page")" "node_textfile_scrape_error"
	limit=$(live_limit)
	expect E2BIG "an exec one byte over the global limit" \
		"$HELPERS/execsize" $((limit + 1)) 0 /bin/true
	wait_for 15 textfile_says 'argguard_decisions_total{scope="global",verdict="deny"}' \
		$((deny + 1)) || fail "expected the textfile to count the denial within 15 seconds"
	page=$(scrape)
	assert_eq $((deny + 1)) \
		"$(prom_value 'argguard_decisions_total{scope="global",verdict="deny"}' <<<"$page")" \
		"the global deny count node_exporter serves after one more denial"
	assert_eq 1 "$(prom_value 'argguard_policy_mode{mode="enforce"}' <<<"$page")" \
		"argguard_policy_mode{mode=\"enforce\"} on /metrics"
}

test_metrics_textfile_shows_a_failed_reload() {
	cp "$POLICY_FILE" /tmp/argguard-site.conf
	trap 'mv /tmp/argguard-site.conf "$POLICY_FILE"; systemctl reload argguard.service' EXIT
	printf '[global]\nmax_total_bytes = 1M\n' >"$POLICY_FILE" # no mode: refused
	if systemctl reload argguard.service; then
		fail "expected the reload of a file without a mode to fail"
	fi
	wait_for 10 textfile_says argguard_last_apply_success 0 ||
		fail "expected argguard_last_apply_success 0 after a refused reload"
	grep '^argguard_last_apply' "$TEXTFILE"
	assert_eq 1 "$(prom_value 'argguard_policy_mode{mode="enforce"}' <"$TEXTFILE")" \
		"the mode in force after a refused reload"
	mv /tmp/argguard-site.conf "$POLICY_FILE"
	trap - EXIT
	systemctl reload argguard.service
	wait_for 10 textfile_says argguard_last_apply_success 1 ||
		fail "expected argguard_last_apply_success 1 once the file applies again"
}

test_metrics_textfile_goes_when_the_daemon_stops() {
	trap 'systemctl start argguard.service' EXIT
	systemctl stop argguard.service
	[[ ! -e $TEXTFILE ]] || fail "expected $TEXTFILE removed when the daemon stops"
	systemctl start argguard.service
	trap - EXIT
	wait_for 10 test -f "$TEXTFILE" || fail "expected $TEXTFILE back once the daemon runs"
}

# argguard status's policy_file line.
status_policy_file() { argguard status | grep '^policy_file: '; }

# A bpftool edit parts the live policy from the file: status, its JSON, the
# textfile and policy show --diff say so, and exactly how; a reload ends it.
test_drift_from_the_policy_file_is_shown_until_a_reload() {
	local file_limit tuned diff rc=0 changed
	trap 'systemctl reload argguard.service' EXIT
	systemctl reload argguard.service
	wait_for 15 textfile_says argguard_policy_drift 0 ||
		fail "expected argguard_policy_drift 0 in $TEXTFILE once the file is applied"
	assert_eq "policy_file: matches $POLICY_FILE" "$(status_policy_file)" \
		"status's policy_file line with the file applied"
	diff=$(argguard policy show --diff) || rc=$?
	assert_eq "0:" "$rc:$diff" "policy show --diff's exit status and output, the file applied"

	file_limit=$(live_limit)
	tuned=$((file_limit + 4096))
	bpftool_set_limit "$tuned"
	assert_eq "policy_file: DIFFERS from $POLICY_FILE: argguard policy show --diff (systemctl reload argguard applies the file)" \
		"$(status_policy_file)" "status's policy_file line after a bpftool edit"
	argguard status >/dev/null || fail "expected status to exit 0 with the policy tuned by bpftool"
	jq -e --arg f "$POLICY_FILE" '.policy_file == {path: $f, matches: false, error: null}' \
		<<<"$(argguard status --format json)" >/dev/null ||
		fail "expected policy_file {path, matches: false, error: null} in status's JSON"
	assert_eq 1 "$(argguard status --format prometheus | prom_value argguard_policy_drift)" \
		"argguard_policy_drift from status --format prometheus"
	wait_for 15 textfile_says argguard_policy_drift 1 ||
		fail "expected argguard_policy_drift 1 in $TEXTFILE within 15 seconds of the edit"

	rc=0
	diff=$(argguard policy show --diff) || rc=$?
	echo "$diff"
	assert_eq 1 "$rc" "policy show --diff's exit status, the live policy tuned"
	assert_eq "--- live (/sys/fs/bpf/argguard)|+++ $POLICY_FILE" "$(head -n 2 <<<"$diff" | paste -sd '|')" \
		"the diff's headers"
	changed=$(tail -n +3 <<<"$diff" | grep -E '^[-+]' | paste -sd '|')
	assert_eq "-max_total_bytes = $tuned|+max_total_bytes = $file_limit" "$changed" \
		"the diff's changed lines: the edited limit, and the file's"
	grep -qx '@@ -[0-9]*,[0-9]* +[0-9]*,[0-9]* @@ \[global\]' <<<"$diff" ||
		fail "expected a hunk header naming [global]"

	systemctl reload argguard.service
	wait_for 15 textfile_says argguard_policy_drift 0 ||
		fail "expected argguard_policy_drift 0 in $TEXTFILE after a reload"
	assert_eq "policy_file: matches $POLICY_FILE" "$(status_policy_file)" \
		"status's policy_file line after the reload"
	rc=0
	diff=$(argguard policy show --diff) || rc=$?
	assert_eq "0:" "$rc:$diff" "policy show --diff after the reload"
	trap - EXIT
}

# Abuse (issue 42): the daemon parses the policy file and its fragments
# again only when stat() says one changed. A user can write none of them;
# root's rewrite of the same size, its mtime put back, changes the ctime; a
# fragment given to a user changes its ctime too, and is refused. Each shows
# on the drift gauge within a tick or two. (A rewrite within one tick of
# the filesystem's clock: test_policy_diff's settle_just_written_files.)
test_drift_cache_a_user_cannot_hide_an_edit() {
	local dir=$POLICY_FILE.d site edited mtime
	cp "$POLICY_FILE" /tmp/argguard-site.conf
	trap 'mv /tmp/argguard-site.conf "$POLICY_FILE"; rm -rf "$POLICY_FILE.d"; systemctl reload argguard.service' EXIT
	systemctl reload argguard.service
	wait_for 15 textfile_says argguard_policy_drift 0 ||
		fail "expected argguard_policy_drift 0 in $TEXTFILE once the file is applied"

	if "${AS_TESTER[@]}" sh -c "echo '[uid $TESTER]' >>'$POLICY_FILE'" 2>/dev/null; then
		fail "expected the tester unable to write $POLICY_FILE"
	fi
	if "${AS_TESTER[@]}" mkdir "$dir" 2>/dev/null; then
		fail "expected the tester unable to make $dir"
	fi
	mkdir -m 0755 "$dir"
	if "${AS_TESTER[@]}" sh -c "echo '[uid $TESTER]' >'$dir/99-mine.conf'" 2>/dev/null; then
		fail "expected the tester unable to add a fragment to $dir"
	fi
	textfile_says argguard_policy_drift 0 || fail "expected no drift from an empty $dir"

	# The same inode, the same size, the same mtime: only the ctime moves.
	site=$(cat "$POLICY_FILE")
	edited=${site/$'\nmax_total_bytes = 1M'/$'\nmax_total_bytes = 2M'}
	[[ $edited != "$site" && ${#edited} == "${#site}" ]] ||
		fail "expected a same-size edit of the site's max_total_bytes = 1M"
	mtime=$(stat -c %.9Y "$POLICY_FILE")
	printf '%s\n' "$edited" >"$POLICY_FILE"
	touch -m -d "@$mtime" "$POLICY_FILE"
	assert_eq "$mtime" "$(stat -c %.9Y "$POLICY_FILE")" "the rewritten file's mtime, put back"
	wait_for 15 textfile_says argguard_policy_drift 1 ||
		fail "expected argguard_policy_drift 1 once the file was rewritten, mtime put back"
	printf '%s\n' "$site" >"$POLICY_FILE"
	wait_for 15 textfile_says argguard_policy_drift 0 ||
		fail "expected argguard_policy_drift 0 with the file as applied again"

	# A fragment given to the tester: refused, and the gauge says so.
	printf '; nothing yet\n' >"$dir/50-given.conf"
	chmod 0644 "$dir/50-given.conf"
	sleep 6 # a tick reads it: it changes nothing
	textfile_says argguard_policy_drift 0 || fail "expected no drift from a comment-only fragment"
	chown "$TESTER" "$dir/50-given.conf"
	wait_for 15 textfile_says argguard_policy_drift 1 ||
		fail "expected argguard_policy_drift 1 once a fragment is the tester's"
	[[ $(status_policy_file) == *"refusing $dir/50-given.conf: it belongs to uid $TESTER"* ]] ||
		fail "expected status to say the tester's fragment is refused: $(status_policy_file)"
}

# A file with an error: status names FILE:LINE, the diff exits 2, the
# gauge says drift; the live policy is left as it was.
test_drift_names_a_policy_file_error() {
	local before rc=0 out
	cp "$POLICY_FILE" /tmp/argguard-site.conf
	trap 'mv /tmp/argguard-site.conf "$POLICY_FILE"; systemctl reload argguard.service' EXIT
	before=$(argguard policy show)
	printf '[global]\nmode = enforce\nmax_total_bytes = lots\n' >"$POLICY_FILE"
	[[ $(status_policy_file) == "policy_file: INVALID: $POLICY_FILE:3: max_total_bytes = lots: "* ]] ||
		fail "expected status to name $POLICY_FILE:3, got: $(status_policy_file)"
	out=$(argguard policy show --diff 2>&1) || rc=$?
	echo "$out"
	assert_eq 2 "$rc" "policy show --diff's exit status for a file with an error"
	[[ $out == *"$POLICY_FILE:3: max_total_bytes = lots"* ]] ||
		fail "expected policy show --diff to name $POLICY_FILE:3"
	wait_for 15 textfile_says argguard_policy_drift 1 ||
		fail "expected argguard_policy_drift 1 in $TEXTFILE for a file with an error"
	assert_eq "$before" "$(argguard policy show)" "the live policy, the file broken"
}
