# SPDX-License-Identifier: GPL-2.0
# The window of size counts: kept in /var/lib/argguard/sizes.json across
# restarts and maps made afresh, counted once; what a user can do to the
# state file (nothing), and what another host's report can do to suggest
# --from (move a suggestion, no more).

# A restart adopts the pinned maps, which hold their counts still: the
# state file adds only what came before them, and no exec counts twice.
test_size_window_a_restart_that_adopts_the_maps_counts_each_exec_once() {
	local before start id
	before=$(scope_argc_execs global)
	big_argc_execs 3
	assert_eq $((before + 3)) "$(scope_argc_execs global)" "the global execs of 4096+ args"
	start=$(window_start) id=$(sizes_map_id)
	[[ $start != null ]] || fail "expected the window's start from $SIZES_STATE"
	systemctl restart argguard.service
	assert_eq "$id" "$(sizes_map_id)" "the sizes map's id (the premise: the maps adopted)"
	assert_eq $((before + 3)) "$(scope_argc_execs global)" \
		"the global execs of 4096+ args after a restart"
	assert_eq "$start" "$(window_start)" "the window's start after a restart"
	assert_eq "$id" "$(jq -r .maps.id "$SIZES_STATE")" "the maps the state file names"
	assert_eq "root 600" "$(stat -c '%U %a' "$SIZES_STATE")" "the state file's owner and mode"
}

# The kill switch, as a reboot does, leaves no maps: the next start makes
# them afresh, and the state file carries their counts over.
test_size_window_maps_made_afresh_carry_the_counts_over() {
	local before start id
	before=$(scope_argc_execs global)
	big_argc_execs 2
	start=$(window_start) id=$(sizes_map_id)
	systemctl stop argguard.service
	argguard unload
	systemctl start argguard.service
	[[ $(sizes_map_id) != "$id" ]] || fail "expected new maps after an unload"
	assert_eq $((before + 2)) "$(scope_argc_execs global)" \
		"the global execs of 4096+ args, carried over to new maps"
	assert_eq "$start" "$(window_start)" "the window's start"
	big_argc_execs 1
	assert_eq $((before + 3)) "$(scope_argc_execs global)" "and counting on in the new maps"
}

# A rule dropped from the policy takes its counts with it, carried ones
# too, as a dropped rule's slot does in the maps: back, it starts from 0.
test_size_window_a_dropped_rule_drops_its_counts() {
	trap cleanup EXIT
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[user tester]" "max_total_bytes = 1M"
	big_argc_execs 2 env -i "${AS_TESTER[@]}"
	assert_eq 2 "$(scope_argc_execs "uid 1000")" "the tester's execs of 4096+ args"
	systemctl restart argguard.service
	jq -e '.scopes | any(.scope == "uid 1000")' "$SIZES_STATE" >/dev/null ||
		fail "expected uid 1000 in $SIZES_STATE once the daemon kept it"
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M"
	assert_eq false "$(jq '[.scopes[], .carried.scopes[]] | any(.scope == "uid 1000")' \
		"$SIZES_STATE")" "uid 1000 in the state file once its rule is dropped"
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[user tester]" "max_total_bytes = 1M"
	assert_eq 0 "$(scope_argc_execs "uid 1000")" "the tester's execs once its rule is back"
}

# A user cannot write the state file or its directory, and cannot make the
# daemon write one it will not read back: a process name of a quote, a
# backslash, a newline and a byte that is not UTF-8 goes in as hex.
test_size_state_a_user_can_neither_write_nor_break_the_state_file() {
	local dir=/tmp/argguard-t-state name=$'q"\\\n\xff' hex before
	trap 'rm -rf "$dir"; restore_policy' EXIT
	assert_eq "root 700" "$(stat -c '%U %a' "${SIZES_STATE%/*}")" "the state directory"
	expect_fail "the tester listing ${SIZES_STATE%/*}" "${AS_TESTER[@]}" ls "${SIZES_STATE%/*}"
	expect_fail "the tester writing $SIZES_STATE" "${AS_TESTER[@]}" \
		sh -c "echo '{}' >$SIZES_STATE"
	expect_fail "the tester making a file beside it" "${AS_TESTER[@]}" \
		touch "${SIZES_STATE%/*}/sizes.json.new"
	mkdir -p "$dir"
	cp "$HELPERS/execsize" "$dir/$name"
	chmod 755 "$dir" "$dir/$name"
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 7M"
	# Near the kernel's 6 MiB cap: among the largest execs of the window.
	bash -c 'ulimit -s unlimited && exec "$@"' _ "${AS_TESTER[@]}" "$dir/$name" 6290000 0 \
		/bin/true || fail "expected the oddly named program's 6290000-byte exec to run"
	before=$(scope_argc_execs global)
	systemctl restart argguard.service
	daemon_says "counting exec sizes in a window since" ||
		fail "expected the restarted daemon to say which window it counts in"
	jq -e . "$SIZES_STATE" >/dev/null || fail "expected $SIZES_STATE to be JSON"
	hex=$(printf '%s' "$name" | od -An -tx1 | tr -d ' \n')
	jq -e --arg h "$hex" '.largest | any(.comm == $h and .comm_encoding == "hex")' \
		"$SIZES_STATE" >/dev/null ||
		fail "expected the name in hex among the largest execs: $(jq -c '.largest[:3]' "$SIZES_STATE")"
	if daemon_said "starting a new window"; then
		fail "the restarted daemon refused the state file it wrote"
	fi
	argguard report --format json | jq -e --arg h "$hex" '.largest | any(.comm == $h)' \
		>/dev/null || fail "expected report to show the name read back, in hex"
	assert_eq "$before" "$(scope_argc_execs global)" "the global execs of 4096+ args"
}

# A state file that is not root's alone, or cut short, is a warning naming
# it and a new window: never a crash, never a refused start.
test_size_state_a_file_not_roots_alone_or_cut_short_starts_a_new_window() {
	local carried
	trap 'systemctl start argguard.service' EXIT
	big_argc_execs 2
	systemctl stop argguard.service
	argguard unload
	systemctl start argguard.service
	carried=$(scope_argc_execs global)
	((carried >= 2)) || fail "expected the execs of 4096+ args carried over, got $carried"
	systemctl stop argguard.service
	chown "$TESTER" "$SIZES_STATE"
	systemctl start argguard.service
	daemon_says "$SIZES_STATE: not a regular file of one name, uid 0's and writable by it alone: starting a new window" ||
		fail "expected a warning naming the tester's state file"
	assert_eq active "$(systemctl is-active argguard.service)" "the daemon, over the tester's file"
	assert_eq 0 "$(scope_argc_execs global)" "the carried execs, once the file is refused"
	assert_eq "root 600" "$(stat -c '%U %a' "$SIZES_STATE")" "the state file the daemon wrote anew"
	systemctl stop argguard.service
	printf '{"schema": 2, "sizes": "exact", "window"' >"$SIZES_STATE"
	systemctl start argguard.service
	daemon_says "$SIZES_STATE: line 1: " || fail "expected a warning naming the file cut short"
	assert_eq active "$(systemctl is-active argguard.service)" "the daemon, over a file cut short"
	jq -e '.schema == 2' "$SIZES_STATE" >/dev/null || fail "expected a whole state file again"
}

# Another host's report is data: suggest --from over a hostile one moves
# the suggestion (here, past the minimum sample by a since it claims, and
# up to the deny limit in force, no further), and nothing else: no rule the
# policy lacks, nothing applied, no limit under the floors; one that does
# not add up is refused by name, with no policy printed.
test_suggest_from_a_hostile_report_moves_only_the_suggestion() {
	local own=$WORK/own.json hostile=$WORK/hostile.json out live max
	argguard report --format json >"$own"
	# 2^40 bytes, an exec no kernel runs, in global and in a scope the policy
	# lacks (in the top bucket, whose high end jq cannot write: put in after);
	# a million 1-byte execs in another.
	jq '.host = "evil" | .scopes += [
		{scope: "uid 0", uid: 0, since: 1, execs: 1, metrics: {total_bytes: {count: 1,
			max: 1099511627776, sum: 1099511627776,
			buckets: [{low: 2147483648, high: "TOP", count: 1}]}}, limits: [],
			largest: null, denied: {execs: 0, metrics: {}}, by_uid: []},
		{scope: "cgroup /system.slice/ssh.service", cgroup: "/system.slice/ssh.service",
			since: 1, execs: 1000000, metrics: {total_bytes: {count: 1000000, max: 1,
			sum: 1000000, buckets: [{low: 0, high: 1, count: 1000000}]}}, limits: [],
			largest: null, denied: {execs: 0, metrics: {}}, by_uid: []}] |
		(.scopes[] | select(.scope == "global") | .since) = 1 |
		(.scopes[] | select(.scope == "global") | .execs) += 1000001 |
		(.scopes[] | select(.scope == "global") | .metrics.total_bytes) |=
			(.count += 1000001 | .max = 1099511627776 | .sum += 1099512627776 |
			 .buckets = ([.buckets[] | select(.low != 0)] +
				[{low: 0, high: 1, count: (([.buckets[] | select(.low == 0) | .count] |
					add // 0) + 1000000)}, {low: 2147483648, high: "TOP", count: 1}]))' \
		"$own" | sed 's/"TOP"/18446744073709551615/g' >"$hostile"
	live=$(argguard policy show)
	out=$(argguard suggest --from "$own" "$hostile") || fail "expected suggest --from to run"
	echo "$out"
	assert_eq "$live" "$(argguard policy show)" "the live policy after suggest --from"
	if grep -qE '^\[(uid 0|user root|cgroup /system.slice/ssh.service)\]' <<<"$out"; then
		fail "expected no rule for a scope only the hostile report names"
	fi
	# Its 2^40 bytes would raise it: the deny limit in force (2M at most) holds it.
	max=$(suggested "[global]" max_total_bytes <(echo "$out"))
	((max <= 2097152)) ||
		fail "expected the global suggestion held at the deny limit in force, got $max"
	grep -q '^# Held at the deny limit in force: max_total_bytes' <<<"$out" ||
		fail "expected the comment to say the deny limit in force held it"
	argguard policy check <(echo "$out") || fail "expected the suggestion to be a valid policy"
	# Its flood of 1-byte execs pulls a share down only to the floors.
	out=$(argguard suggest --keep-share 50 --from "$own" "$hostile")
	max=$(suggested "[global]" max_total_bytes <(echo "$out"))
	((max >= 131072)) || fail "expected no byte limit under the 128K floor, got $max"
	sed 's/"execs":/"execs":1/' "$own" >"$WORK/bad.json"
	if out=$(argguard suggest --from "$hostile" "$WORK/bad.json" 2>"$WORK/err"); then
		fail "expected a report whose execs do not add up to be refused"
	fi
	assert_eq "" "$out" "what suggest printed for a refused report"
	grep -q "^argguard: $WORK/bad.json: scope .*: its execs are not the total_bytes count" \
		"$WORK/err" || fail "expected the refusal to name the file: $(cat "$WORK/err")"
}
