# SPDX-License-Identifier: GPL-2.0
# One daemon at a time, and a clean unload.

test_second_run_refuses_while_one_is_live() {
	local out
	out=$(timeout 10 argguard run 2>&1) && fail "a second argguard run started"
	echo "$out"
	[[ $out == *"another argguard run is live (pid $(daemon_pid))"* ]] ||
		fail "expected the refusal to name the live daemon's pid"
	assert_eq active "$(systemctl is-active argguard.service)" "the first daemon afterwards"
}

test_unload_detaches_and_unpins_everything() {
	local out limit
	trap 'systemctl start argguard.service' EXIT
	limit=$(live_limit)
	out=$(argguard unload 2>&1) && fail "unload went ahead while the daemon ran"
	echo "while live: $out"
	systemctl stop argguard.service
	expect E2BIG "an exec over the limit, the daemon stopped: the pins still enforce" \
		"$HELPERS/execsize" $((limit + 1)) 0 /bin/true
	out=$(argguard unload) || fail "unload failed: $out"
	echo "$out"
	[[ $out == *"unloaded"* ]] || fail "expected unload to say what it did"
	[[ ! -e $PIN_DIR ]] || fail "expected $PIN_DIR to be gone"
	bpftool -j link show | jq -e 'map(select(.prog_type == "lsm")) | length == 0' >/dev/null ||
		fail "expected no LSM link left"
	expect allowed "the same exec after unload" "$HELPERS/execsize" $((limit + 1)) 0 /bin/true
	systemctl start argguard.service
	expect E2BIG "the same exec after a fresh start" \
		"$HELPERS/execsize" $((limit + 1)) 0 /bin/true
}

# wait_restart PID: wait up to 30 s for systemd to have replaced daemon PID.
wait_restart() {
	local i now
	for ((i = 0; i < 300; i++)); do
		now=$(daemon_pid)
		[[ $(systemctl is-active argguard.service) == active && $now != 0 && $now != "$1" ]] &&
			return 0
		sleep 0.1
	done
	fail "expected systemd to restart argguard after pid $1 died"
}

# SIGKILL the daemon in the middle of a storm of offending execs: not one
# exec gets through while systemd restarts it, the new daemon adopts the
# pinned links, the policy (bpftool edits too) and the counters carry on,
# and every record emitted meanwhile is logged or counted as dropped.
test_sigkill_mid_storm_lets_no_exec_through_and_restart_adopts_pins() {
	local n=30000 links0 links1 policy0 policy1 deny0 deny1 rate0 rate1 ring0 ring1
	local before pid0 spid logged summed held accounted i
	trap 'restore_policy >/dev/null' EXIT
	bpftool_set_limit 4096 || fail "bpftool could not lower the limit"
	{ set_config event_rate 500 && set_config event_burst 500; } || fail "bpftool could not set the rate"
	sleep 1.5 # let an earlier summary go out before counting
	policy0=$(argguard policy show) links0=$(pinned_link_ids) before=$(log_lines)
	deny0=$(counter global.deny) rate0=$(counter records_dropped.rate_limited)
	ring0=$(counter records_dropped.ring_full)
	pid0=$(daemon_pid)
	"$HELPERS/exec_storm" $n 8000 >/tmp/argguard-crash.out &
	spid=$!
	sleep 0.5
	kill -KILL "$pid0"
	# carried, taken, written, counted: what the next daemon carries over.
	echo "ledger at the kill: $(od -An -tu8 /run/argguard.ledger | tr -s ' \n' ' ')"
	wait_restart "$pid0"
	kill -0 "$spid" 2>/dev/null || fail "the storm ended before the restart: lengthen it"
	wait "$spid" || fail "an exec got through around the crash: $(cat /tmp/argguard-crash.out)"
	assert_eq $n "$(cat /tmp/argguard-crash.out)" "execs refused"
	links1=$(pinned_link_ids) policy1=$(argguard policy show)
	deny1=$(counter global.deny) rate1=$(counter records_dropped.rate_limited)
	ring1=$(counter records_dropped.ring_full)
	# The restarted daemon drains the ring buffer, then sums up the drops.
	for ((i = 0; i < 60; i++)); do
		# A record written just before the kill may be read again: count each once.
		logged=$(tail -n +$((before + 1)) "$EVENT_LOG" |
			jq -s '[.[] | select(.comm == "exec_storm" and .verdict == "deny") | .mono_ns] | unique | length')
		summed=$(tail -n +$((before + 1)) "$EVENT_LOG" |
			jq -s '[.[] | select(.verdict == "summary") | .suppressed + .lost_ring_full] | add // 0')
		# What the killed daemon's log had taken and not written, from its ledger.
		held=$(tail -n +$((before + 1)) "$EVENT_LOG" |
			jq -s '[.[] | select(.verdict == "summary") | .lost_held_at_exit] | add // 0')
		((logged + held + rate1 - rate0 + ring1 - ring0 >= n && summed == rate1 - rate0 + ring1 - ring0)) && break
		sleep 0.5
	done
	echo "links $links0-> $links1; deny +$((deny1 - deny0)); logged $logged; held at the kill $held;" \
		"rate_limited +$((rate1 - rate0)); ring_full +$((ring1 - ring0)); summaries say $summed"
	assert_eq "$links0" "$links1" "the pinned link ids (adopted, not recreated)"
	assert_eq "$policy0" "$policy1" "the live policy, bpftool edits included"
	assert_eq $n $((deny1 - deny0)) "deny decisions counted across the crash"
	accounted=$((logged + held + rate1 - rate0 + ring1 - ring0))
	((accounted >= n)) || fail "only $accounted of $n records logged, held at the kill or dropped"
	# The record the killed daemon was passing on, if one, is read again by
	# the next and logged: it may count as held too, never as neither.
	((accounted - n <= 1)) || fail "$accounted records accounted for $n execs: more than the one in hand"
	assert_eq $((rate1 - rate0 + ring1 - ring0)) "$summed" "drops, as the summary records say"
	daemon_says "adopted the pinned links and maps as they are" ||
		fail "expected the restarted daemon to take its own pinned programs without loading them"
}

# Records the log holds back (its file system full) when the daemon is
# killed: no code runs at a SIGKILL, but the ledger the killed daemon kept
# in its mapped file tells the next one, whose first summary counts them.
test_records_a_killed_daemon_held_are_counted_by_the_next() {
	local i dir=/var/log/argguard pid0 held
	# The restarted daemon's mount namespace (the unit's ReadWritePaths=)
	# binds the tmpfs itself: no umount reaches it, only a restart does.
	trap "umount -l $dir; systemctl restart argguard.service" EXIT
	full_log_holds_offending_execs 5
	sleep 2 # the records reach the log, which holds them
	pid0=$(daemon_pid)
	kill -KILL "$pid0"
	wait_restart "$pid0"
	rm "$dir/fill"
	for ((i = 0; i < 40; i++)); do
		held=$(jq -s '[.[] | select(.verdict == "summary") | .lost_held_at_exit] | add // 0' \
			"$EVENT_LOG" 2>/dev/null || echo 0)
		((held > 0)) && break
		sleep 0.5
	done
	assert_eq 5 "$held" "records the killed daemon held, as the next one's summaries count them"
	jq -e . "$EVENT_LOG" >/dev/null || fail "expected only whole records in the log"
}

# suppressed_reported FROM [TO]: the records that the log's summary lines
# FROM + 1 to TO (or the end) report suppressed (dropped by the rate limit).
suppressed_reported() {
	sed -n "$(($1 + 1)),${2:-\$}p" "$EVENT_LOG" |
		jq -s '[.[] | select(.verdict == "summary") | .suppressed] | add // 0'
}

# storm_records FROM [TO]: the exec_storm deny records in lines FROM + 1 to
# TO (or the end) of the log, by their mono_ns, one a line.
storm_records() {
	sed -n "$(($1 + 1)),${2:-\$}p" "$EVENT_LOG" |
		jq -r 'select(.comm == "exec_storm" and .verdict == "deny") | .mono_ns'
}

# rate_limited_reported_as FROM COUNT: wait up to 15 s for the summaries
# after line FROM to report COUNT records suppressed.
rate_limited_reported_as() {
	local i
	for ((i = 0; i < 30; i++)); do
		(($(suppressed_reported "$1") >= $2)) && return 0
		sleep 0.5
	done
	return 1
}

# The mark of what the log's summaries reported (/run/argguard.reported,
# "SUPPRESSED RING_FULL") outlives the daemon: the next one's summaries
# report the records dropped while none ran, once, and none that a summary
# before the restart reported; the records made while none ran are logged
# once, and none logged before the restart is logged again.
test_drops_are_reported_once_across_a_restart() {
	local n=20 before rate0 rate_stop rate_down rate1 stopped
	trap 'systemctl start argguard.service; restore_policy >/dev/null' EXIT
	bpftool_set_limit 4096 || fail "bpftool could not lower the limit"
	{ set_config event_rate 1 && set_config event_burst 1; } || fail "bpftool could not set the rate"
	sleep 1.5 # let an earlier summary go out before counting
	before=$(log_lines) rate0=$(counter records_dropped.rate_limited)
	assert_eq $n "$("$HELPERS/exec_storm" $n 8000)" "execs refused with the daemon running"
	rate_stop=$(counter records_dropped.rate_limited)
	((rate_stop > rate0)) || fail "expected the storm to drop records: $rate0 -> $rate_stop"
	rate_limited_reported_as "$before" $((rate_stop - rate0)) ||
		fail "expected a summary of the $((rate_stop - rate0)) records suppressed"

	systemctl stop argguard.service
	stopped=$(log_lines)
	assert_eq "$rate_stop" "$(counter records_dropped.rate_limited)" \
		"records suppressed as the daemon stopped"
	assert_eq "$rate_stop" "$(cut -d ' ' -f 1 /run/argguard.reported)" \
		"the reported mark as the daemon stopped (/run/argguard.reported)"
	assert_eq $((n - (rate_stop - rate0))) "$(storm_records "$before" "$stopped" | wc -l)" \
		"records logged before the stop: the storm's execs less those suppressed"
	assert_eq $n "$("$HELPERS/exec_storm" $n 8000)" "execs refused with no daemon running"
	rate_down=$(counter records_dropped.rate_limited)
	((rate_down > rate_stop)) || fail "expected records dropped while no daemon ran"
	echo "suppressed: $rate0 at the start, $rate_stop at the stop, $rate_down at the start again"

	systemctl start argguard.service
	rate_limited_reported_as "$stopped" $((rate_down - rate_stop)) ||
		fail "expected the next daemon to report the $((rate_down - rate_stop)) records dropped while none ran"
	sleep 1.5 # a summary that reported them twice would follow within 0.5 s
	rate1=$(counter records_dropped.rate_limited)
	assert_eq $((rate1 - rate_stop)) "$(suppressed_reported "$stopped")" \
		"records suppressed since the stop, as the next daemon's summaries report them"
	assert_eq $((rate1 - rate0)) "$(suppressed_reported "$before")" \
		"records suppressed over the test, as all its summaries report them (each once)"
	assert_eq "$rate1" "$(cut -d ' ' -f 1 /run/argguard.reported)" \
		"the reported mark after the next daemon's summaries"
	assert_eq $((n - (rate_down - rate_stop))) "$(storm_records "$stopped" | wc -l)" \
		"records logged after the restart: the execs while none ran less those suppressed"
	assert_eq "" "$(sort <(storm_records "$before" "$stopped") <(storm_records "$stopped") | uniq -d)" \
		"records logged both before and after the restart"
}

# An upgrade that changed a map's layout, within one boot: the new build
# cannot reuse the old build's pins. It makes its maps afresh, applies the
# policy file and enforces, rather than fail and leave the machine to the
# old build with no daemon.
test_pins_of_a_build_with_other_maps_are_replaced() {
	local limit
	trap 'systemctl start argguard.service' EXIT
	systemctl stop argguard.service
	# An older build's config map: 28-byte values.
	rm "$PIN_DIR/config"
	bpftool map create "$PIN_DIR/config" type array key 4 value 28 entries 1 name argguard_config
	systemctl start argguard.service || fail "the daemon did not start over pins of another layout"
	daemon_says "pinned by a build whose maps differ" ||
		fail "expected the daemon to say it made its maps afresh"
	assert_eq 12 "$(bpftool -j map show pinned "$PIN_DIR/config" | jq .bytes_value)" \
		"config's value size, as this build has it (active_set, cgroup_generation, policy_state)"
	limit=$(live_limit)
	((limit > 0)) || fail "expected the policy file's limit to be live, got '$limit'"
	expect E2BIG "an exec over the limit, after the replacement (enforce, as the file says)" \
		"$HELPERS/execsize" $((limit + 1)) 0 /bin/true
}

# A link pin someone removed (the link, and its program, are gone with it):
# the next start cannot take the pins as they are. It loads and attaches
# every link anew (adopting is all or nothing), and enforces all of it again.
test_a_start_puts_back_a_removed_link_pin() {
	local ids
	trap 'cleanup; systemctl start argguard.service' EXIT
	systemctl stop argguard.service
	rm "$PIN_DIR/link_creds"
	systemctl start argguard.service
	daemon_said "adopted the pinned links and maps as they are" &&
		fail "the daemon took the pins as they are with link_creds missing"
	daemon_says "not adopting $PIN_DIR/link_creds (no link pinned there" ||
		fail "expected the journal to say why the start adopted no link"
	ids=$(pinned_link_ids)
	[[ $ids =~ ^[0-9]+\ [0-9]+\ [0-9]+\ $ ]] ||
		fail "expected link, link_creds and link_exec_args_failed pinned, got: $ids"
	# link_creds runs the setuid rule.
	make_setuid_copies
	apply_policy "[global]" "mode = enforce" "allow_lockout = yes" "max_total_bytes = 1M" \
		"[setuid]" "max_total_bytes = 4K"
	expect E2BIG "tester, 8000 bytes to a setuid-root target" \
		"${AS_TESTER[@]}" "$HELPERS/execsize" 8000 0 "$SUID_TRUE"
}

# A link pin this build does not use on this kernel, as an older build
# upgraded within the same boot may leave one (an exec exit, which would
# report each refusal a second time beside the tracepoint): the next start
# removes it, once its own links enforce. Here the stale pin is a second name
# for the cgroup_mkdir link.
test_a_start_removes_a_link_pin_this_kernel_does_not_use() {
	local mkdir_link
	trap 'rm -f "$PIN_DIR/link_execve"; systemctl start argguard.service' EXIT
	systemctl stop argguard.service
	mkdir_link=$(bpftool -j link show pinned "$PIN_DIR/link_cgroup_mkdir" | jq .id)
	bpftool link pin id "$mkdir_link" "$PIN_DIR/link_execve"
	[[ -e $PIN_DIR/link_execve ]] || fail "expected the test's stale pin in place"
	systemctl start argguard.service
	[[ ! -e $PIN_DIR/link_execve ]] || fail "expected the start to remove link_execve"
	assert_eq "$mkdir_link" "$(bpftool -j link show pinned "$PIN_DIR/link_cgroup_mkdir" | jq .id)" \
		"the cgroup_mkdir link, which this kernel uses"
	expect E2BIG "an exec over the limit, after the start" \
		"$HELPERS/execsize" $(($(live_limit) + 1)) 0 /bin/true
}

# A map pin someone removed: the load makes that map afresh, and no pinned
# link may be adopted then, since its program still uses the old map. The
# programs that run must count into the counters map that is pinned now.
test_a_start_over_a_removed_map_pin_runs_programs_that_use_the_pinned_maps() {
	local before after
	trap 'systemctl start argguard.service' EXIT
	systemctl stop argguard.service
	rm "$PIN_DIR/counters"
	systemctl start argguard.service
	daemon_said "adopted the pinned" && fail "the daemon adopted links whose programs use the removed map"
	before=$(counter global.allow)
	/bin/true
	after=$(counter global.allow)
	((after > before)) || fail "global.allow did not move ($before, then $after): the programs count elsewhere"
}

test_stop_keeps_enforcement_by_default() {
	local limit links0
	trap 'systemctl start argguard.service' EXIT
	limit=$(live_limit) links0=$(pinned_link_ids)
	systemctl stop argguard.service
	assert_eq "$links0" "$(pinned_link_ids)" "the pinned links once stopped"
	expect E2BIG "an exec over the limit, the daemon stopped" \
		"$HELPERS/execsize" $((limit + 1)) 0 /bin/true
	systemctl start argguard.service
	assert_eq "$links0" "$(pinned_link_ids)" "the pinned links once started again"
}

# ARGGUARD_OPTS="--on-stop unload" in /etc/default/argguard: systemctl stop
# removes enforcement, while a crash still keeps it.
test_stop_unloads_when_the_unit_option_says_so() {
	local limit pid0 links0
	cp /etc/default/argguard /tmp/argguard-default.orig
	trap 'mv /tmp/argguard-default.orig /etc/default/argguard; systemctl start argguard.service' EXIT
	limit=$(live_limit)
	echo 'ARGGUARD_OPTS="--linux-audit --on-stop unload"' >/etc/default/argguard
	systemctl restart argguard.service
	pid0=$(daemon_pid) links0=$(pinned_link_ids)
	kill -KILL "$pid0"
	wait_restart "$pid0"
	assert_eq "$links0" "$(pinned_link_ids)" "the pinned links after a crash, with --on-stop unload"
	systemctl stop argguard.service
	[[ ! -e $PIN_DIR ]] || fail "expected $PIN_DIR to be gone after systemctl stop"
	bpftool -j link show | jq -e 'map(select(.prog_type == "lsm")) | length == 0' >/dev/null ||
		fail "expected no LSM link left"
	expect allowed "an exec over the limit once stopped" "$HELPERS/execsize" $((limit + 1)) 0 /bin/true
}

# A link pin removed by hand detaches that hook's program while the maps,
# and the mode in them, stay: status must say what is not judged, and fail.
test_status_names_a_hook_whose_link_pin_is_gone() {
	local out rc=0
	trap 'systemctl restart argguard.service' EXIT
	out=$(argguard status) || fail "expected argguard status to pass with both hooks attached"
	[[ $out == *$'\nattached: bprm_check_security bprm_creds_from_file\n'* ]] ||
		fail "expected both hooks on the attached line: $out"
	rm "$PIN_DIR/link_creds"
	out=$(argguard status 2>&1) || rc=$?
	echo "$out" | grep -v '^[a-z_.-]*: [0-9]*$'
	assert_eq 1 "$rc" "argguard status's exit status with link_creds gone"
	[[ $out == *"attached: bprm_check_security: NOT bprm_creds_from_file"* ]] ||
		fail "expected the attached line to name the missing hook"
	[[ $out == *"mode: enforce"* ]] || fail "expected the mode to read enforce still"
	# Each format prints before status exits 1.
	assert_eq false "$({ argguard status --format=json || true; } | jq .attached.bprm_creds_from_file)" \
		"JSON attached.bprm_creds_from_file"
	assert_eq 0 "$({ argguard status --format=prometheus || true; } |
		awk '$1 == "argguard_hook_attached{hook=\"bprm_creds_from_file\"}" { print $2 }')" \
		"argguard_hook_attached for bprm_creds_from_file"
}

# argguard(8), ROLLOUT, step by step: a tighter file enforced by reload,
# rolled back by applying the file it replaced, then tried in audit mode.
test_rollout_enforce_roll_back_and_audit_as_argguard_8_says() {
	local saved=/tmp/argguard-rollout.orig site_limit
	cp "$POLICY_FILE" "$saved"
	trap 'mv /tmp/argguard-rollout.orig "$POLICY_FILE"; systemctl reload argguard.service' EXIT
	site_limit=$(live_limit)
	((site_limit > 60000)) || fail "expected the site limit over 60000 bytes, not $site_limit"
	printf '[global]\nmode = enforce\nmax_total_bytes = 48K\n' >"$POLICY_FILE"
	systemctl reload argguard.service
	expect E2BIG "60000 bytes, the tighter file enforced" "$HELPERS/execsize" 60000 0 /bin/true
	argguard policy apply "$saved"
	cp "$saved" "$POLICY_FILE"
	expect allowed "60000 bytes, rolled back" "$HELPERS/execsize" 60000 0 /bin/true
	assert_eq "$site_limit" "$(live_limit)" "the limit after the roll back"
	printf '[global]\nmode = audit\nmax_total_bytes = 48K\n' >"$POLICY_FILE"
	systemctl reload argguard.service
	expect allowed "60000 bytes, the tighter file in audit mode" "$HELPERS/execsize" 60000 0 /bin/true
}
