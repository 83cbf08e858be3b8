# SPDX-License-Identifier: GPL-2.0
# A start that dies anywhere leaves the machine enforcing a policy someone
# applied, never maps that read as mode off under attached programs; the next
# start finishes the job; and systemd never says active before it is done.

LAST_GOOD=/var/lib/argguard/last-good.conf
UNIT_PROCS=/sys/fs/cgroup/system.slice/argguard.service/cgroup.procs

# hang_reads FILE: replace FILE by a FIFO that the test holds open on fd 3
# (read-write, so the open does not wait): whoever opens FILE next waits in
# read() for as long as the test likes. release_reads FILE puts it back, once.
hang_reads() {
	mv "$1" "$1.test-orig"
	mkfifo -m 0600 "$1"
	exec 3<>"$1"
}

release_reads() {
	[[ -e $1.test-orig ]] || return 0 # put back already
	rm -f "$1"
	mv "$1.test-orig" "$1"
	exec 3>&-
}

# wait_reader FILE: wait up to 60 s for a process of argguard.service to
# have FILE open.
wait_reader() {
	local i pid
	for ((i = 0; i < 600; i++)); do
		for pid in $(cat "$UNIT_PROCS" 2>/dev/null || true); do
			[[ $(readlink /proc/"$pid"/fd/* 2>/dev/null) == *"$1"* ]] && return 0
		done
		sleep 0.1
	done
	fail "no argguard process opened $1 within 60 s"
}

# wait_group_gone PGID: wait up to 10 s for the last process of a killed
# process group to exit.
wait_group_gone() {
	local i
	for ((i = 0; i < 1000; i++)); do
		kill -0 -- -"$1" 2>/dev/null || return 0
		sleep 0.01
	done
	fail "process group $1 still has a process 10 s after SIGKILL"
}

policy_state() { config_json | jq -r .policy_state; }

link_pins() { (cd "$PIN_DIR" 2>/dev/null && ls -d link* swap_* 2>/dev/null || true) | tr '\n' ' '; }

# A distinctive policy, applied and so kept as the last good one: 300K. The
# policy file's own, as the maps hold it, is kept in FILE_POLICY first.
LAST_GOOD_LIMIT=307200
apply_last_good() {
	restore_policy >/dev/null
	FILE_POLICY=$(argguard policy show)
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 300K"
	grep -q "max_total_bytes = $LAST_GOOD_LIMIT" "$LAST_GOOD" ||
		fail "expected $LAST_GOOD to hold the policy just applied"
}

# The unit stopped, and then started after whatever the test broke is put
# back, with the policy file applied.
restart_clean() {
	systemctl stop argguard.service
	systemctl reset-failed argguard.service 2>/dev/null || true
	systemctl start argguard.service
	restore_policy >/dev/null
}

# finish_and_check_the_file_is_applied: the next start after an interrupted
# one applies the policy file, says why, and status is clean.
finish_and_check_the_file_is_applied() {
	local out
	systemctl start argguard.service
	daemon_says "the start that made it did not finish, so this one applies $POLICY_FILE" ||
		fail "expected the next start to say it applies the file after an unfinished start"
	assert_eq 2 "$(policy_state)" "policy_state after the next start (applied)"
	assert_eq "$FILE_POLICY" "$(argguard policy show)" "the live policy, against the file's"
	out=$(argguard status) || fail "expected argguard status to pass after the next start: $out"
	expect E2BIG "an exec over the file's limit" "$HELPERS/execsize" $(($(live_limit) + 1)) 0 /bin/true
}

# The apply at a fresh start hangs (a policy file on a dead network mount, a
# user lookup that waits for the network): the programs already attached
# enforce the last good policy, not zeroed maps; systemd says activating, not
# active; a SIGKILL there (systemd's start timeout) changes none of that.
test_a_fresh_start_whose_apply_hangs_enforces_the_last_good_policy() {
	local out rc=0
	trap 'release_reads "$POLICY_FILE" 2>/dev/null; restart_clean' EXIT
	apply_last_good
	systemctl stop argguard.service
	argguard unload >/dev/null
	hang_reads "$POLICY_FILE"
	systemctl start --no-block argguard.service
	wait_reader "$POLICY_FILE"
	[[ " $(link_pins)" == *" link "*" link_creds "* ]] || fail "expected the links attached, got: $(link_pins)"
	assert_eq 1 "$(policy_state)" "policy_state while the apply hangs (interim)"
	assert_eq "$LAST_GOOD_LIMIT" "$(live_limit)" "the live limit while the apply hangs: the last good one"
	assert_eq 2 "$(settings_json | jq .mode)" "the live mode while the apply hangs (enforce)"
	assert_eq activating "$(systemctl is-active argguard.service || true)" \
		"the unit while its apply hangs"
	expect E2BIG "an exec over the last good limit while the apply hangs" \
		"$HELPERS/execsize" $((LAST_GOOD_LIMIT + 1)) 0 /bin/true
	systemctl kill --signal=KILL argguard.service
	sleep 0.5
	[[ $(systemctl is-active argguard.service || true) != active ]] ||
		fail "the unit says active with its policy file still hanging"
	expect E2BIG "an exec over the last good limit after the SIGKILL" \
		"$HELPERS/execsize" $((LAST_GOOD_LIMIT + 1)) 0 /bin/true
	out=$(argguard status 2>&1) || rc=$?
	assert_eq 1 "$rc" "argguard status's exit status with the interim policy in force"
	[[ $out == *"policy_state: interim"* ]] || fail "expected status to name the interim policy: $out"
	systemctl stop argguard.service
	release_reads "$POLICY_FILE"
	systemctl reset-failed argguard.service 2>/dev/null || true
	finish_and_check_the_file_is_applied
}

# serve_reads_once FILE TEXT: FILE made a FIFO that gives TEXT to the one
# reader that opens it next, and then, with no writer left, keeps the next
# one waiting in open() until release_reads FILE.
serve_reads_once() {
	mv "$1" "$1.test-orig"
	mkfifo -m 0600 "$1"
	printf '%s\n' "$2" >"$1" &
}

# Where no policy ever applied (a package just installed, its policy file
# in audit mode), the interim policy that the programs enforce until the
# policy file applies is the built-in default in the file's mode: an
# install in audit mode denies nothing, even in that moment.
test_a_first_start_holds_the_files_audit_mode_until_its_own_apply() {
	local audit i
	trap 'release_reads "$POLICY_FILE" 2>/dev/null; restart_clean' EXIT
	audit=$(sed 's/^mode = enforce/mode = audit/' "$POLICY_FILE")
	[[ $audit == *$'\nmode = audit'* ]] || fail "expected the site policy to say mode = enforce"
	systemctl stop argguard.service
	argguard unload >/dev/null
	rm -f "$LAST_GOOD"
	serve_reads_once "$POLICY_FILE" "$audit"
	systemctl start --no-block argguard.service
	# The interim policy read the file; the start's own apply now waits to open it.
	for ((i = 0; i < 600; i++)); do
		[[ $(link_pins) == *"link "* && $(policy_state 2>/dev/null) == 1 ]] && break
		sleep 0.1
	done
	[[ " $(link_pins)" == *" link "*" link_creds "* ]] || fail "expected the links attached, got: $(link_pins)"
	assert_eq 1 "$(policy_state)" "policy_state while the apply waits (interim)"
	assert_eq 1 "$(settings_json | jq .mode)" "the interim policy's mode (audit, as the file says)"
	assert_eq 2097152 "$(live_limit)" "the interim policy's limit (the built-in default's)"
	expect allowed "a 3 MB exec from an unlimited stack under the interim policy" \
		prlimit --stack=unlimited "$HELPERS/execsize" 3000000 0 /bin/true
	printf '%s\n' "$audit" >"$POLICY_FILE" # the apply's read
	wait_for 60 bash -c '[[ $(systemctl is-active argguard.service) == active ]]' ||
		fail "argguard.service did not become active once its apply could read the file"
	daemon_says "interim policy, until this start applies the policy file: the built-in default (.*), in mode audit as $POLICY_FILE says" ||
		fail "expected the journal to say the interim policy took the file's audit mode"
	assert_eq 2 "$(policy_state)" "policy_state once the file applied"
	assert_eq 1 "$(settings_json | jq .mode)" "the file's mode, applied"
}

# Killed after the load pinned its maps but before they hold a policy (the
# loader reading the last good policy hangs): nothing is attached over them,
# and the next start attaches only once they hold one.
test_a_start_killed_before_its_maps_hold_a_policy_attaches_nothing() {
	trap 'release_reads "$LAST_GOOD" 2>/dev/null; restart_clean' EXIT
	apply_last_good
	systemctl stop argguard.service
	argguard unload >/dev/null
	hang_reads "$LAST_GOOD"
	systemctl start --no-block argguard.service
	wait_reader "$LAST_GOOD"
	[[ -e $PIN_DIR/config ]] || fail "expected the maps pinned before the interim policy is read"
	assert_eq "" "$(link_pins)" "the link pins while the maps hold no policy"
	assert_eq 0 "$(policy_state)" "policy_state before the interim policy (unset)"
	[[ $(systemctl is-active argguard.service || true) != active ]] ||
		fail "the unit says active with nothing attached"
	systemctl kill --signal=KILL argguard.service
	systemctl stop argguard.service
	assert_eq "" "$(link_pins)" "the link pins after the SIGKILL"
	release_reads "$LAST_GOOD"
	systemctl reset-failed argguard.service 2>/dev/null || true
	finish_and_check_the_file_is_applied
}

# An upgrade whose maps changed layout makes them afresh: its new links
# replace the old build's only over maps that hold the last good policy.
test_an_upgrade_with_new_maps_whose_apply_hangs_enforces_the_last_good_policy() {
	trap 'release_reads "$POLICY_FILE" 2>/dev/null; restart_clean' EXIT
	apply_last_good
	systemctl stop argguard.service
	rm "$PIN_DIR/config" # an older build's config map: 28-byte values
	bpftool map create "$PIN_DIR/config" type array key 4 value 28 entries 1 name argguard_config
	hang_reads "$POLICY_FILE"
	systemctl start --no-block argguard.service
	wait_reader "$POLICY_FILE"
	assert_eq 1 "$(policy_state)" "policy_state of the maps made afresh, while the apply hangs"
	assert_eq "$LAST_GOOD_LIMIT" "$(live_limit)" "the live limit while the apply hangs"
	expect E2BIG "an exec over the last good limit while the upgrade's apply hangs" \
		"$HELPERS/execsize" $((LAST_GOOD_LIMIT + 1)) 0 /bin/true
	systemctl kill --signal=KILL argguard.service
	systemctl stop argguard.service
	expect E2BIG "the same exec after the SIGKILL" \
		"$HELPERS/execsize" $((LAST_GOOD_LIMIT + 1)) 0 /bin/true
	release_reads "$POLICY_FILE"
	systemctl reset-failed argguard.service 2>/dev/null || true
	finish_and_check_the_file_is_applied
}

# start_fresh: unload, then start argguard in a session of its own, its pid
# in START_PID. Its group exists only once setsid has run: a kill before that
# misses, and the start lives on, holding the run lock; so wait for it.
start_fresh() {
	argguard unload >/dev/null
	setsid argguard run --no-journal >/dev/null 2>&1 &
	START_PID=$!
	while [[ $(cut -d' ' -f5 "/proc/$START_PID/stat" 2>/dev/null) != "$START_PID" ]] &&
		kill -0 "$START_PID" 2>/dev/null; do
		sleep 0.01
	done
}

# kill_start PID: SIGKILL a start's whole group and wait until it is gone.
kill_start() {
	kill -KILL -- -"$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
	# Its forked loader shares the run lock's open file and may outlive
	# the wait by a moment: unload would find the lock held.
	wait_group_gone "$1"
}

# start_until_links: how long, in ms, a fresh start takes to pin its links
# on this guest (a slow emulated CPU takes seconds); the start is then killed.
start_until_links() {
	local t0 now
	start_fresh
	t0=$(date +%s%N)
	until [[ -n $(link_pins) ]]; do
		now=$(date +%s%N)
		if ((now - t0 > 60000000000)); then
			kill_start "$START_PID"
			fail "a fresh start pinned no link in 60 s"
		fi
		sleep 0.02
	done
	now=$(date +%s%N)
	kill_start "$START_PID"
	echo $(((now - t0) / 1000000))
}

# A fresh start SIGKILLed at every moment of its course, from 0 to twice the
# time it takes to pin its links: each time, either no link is pinned, or
# the maps under the links hold a policy in enforce mode and an exec over
# its limit is refused.
test_a_fresh_start_killed_at_any_moment_leaves_no_link_over_an_unset_policy() {
	local d links state seen_none=0 seen_links=0 pinned_ms pct
	trap 'argguard unload >/dev/null 2>&1; restart_clean' EXIT
	apply_last_good
	systemctl stop argguard.service
	pinned_ms=$(start_until_links)
	echo "a fresh start pinned its links $pinned_ms ms in"
	for pct in 0 2 5 10 15 20 30 40 50 60 70 80 90 95 100 110 120 140 170 200; do
		d=$(printf '%d.%03d' $((pinned_ms * pct / 100000)) $((pinned_ms * pct / 100 % 1000)))
		start_fresh
		sleep "$d"
		kill_start "$START_PID"
		links=$(link_pins)
		if [[ -z $links ]]; then
			seen_none=$((seen_none + 1))
			continue
		fi
		seen_links=$((seen_links + 1))
		state=$(policy_state)
		[[ $state == 1 || $state == 2 ]] ||
			fail "killed ${d} s in: links ($links) over maps whose policy_state is $state"
		assert_eq 2 "$(settings_json | jq .mode)" "the mode under the links, killed ${d} s in"
		expect E2BIG "an exec over the live limit, killed ${d} s in" \
			"$HELPERS/execsize" $(($(live_limit) + 1)) 0 /bin/true
	done
	echo "kills that left no link: $seen_none; that left links over a policy: $seen_links"
	((seen_none > 0 && seen_links > 0)) ||
		fail "expected the kills to land both before and after the links were pinned"
}

# A start that attaches every link anew swaps each pin by a rename over it:
# at no moment is a link pin missing, so a SIGKILL anywhere leaves one.
test_a_start_that_replaces_its_links_never_leaves_a_link_pin_missing() {
	local events
	trap 'kill "$PIN_WATCH" 2>/dev/null || true; restart_clean' EXIT
	systemctl stop argguard.service
	rm "$PIN_DIR/counters" # a map made afresh: no link may be adopted, all are attached anew
	inotifywait -m -q -e delete,create,moved_to --format '%e %f' "$PIN_DIR" >/tmp/argguard-pins.events &
	PIN_WATCH=$!
	sleep 0.5
	systemctl start argguard.service
	sleep 0.5
	kill "$PIN_WATCH"
	events=$(cat /tmp/argguard-pins.events)
	echo "$events"
	grep -q '^CREATE swap_link$' <<<"$events" || fail "expected the bprm_check link pinned at swap_link"
	grep -q '^MOVED_TO link$' <<<"$events" || fail "expected the bprm_check link renamed into place"
	if grep -E '^DELETE link' <<<"$events"; then
		fail "a link pin was removed before its replacement"
	fi
}

# Killed between pinning a new link at its swap path and renaming it over
# the old pin: the next start takes the stray pin in hand, and leaves no
# second program attached behind a name no start looks at.
test_a_stray_swap_link_pin_is_tidied_by_the_next_start() {
	trap 'rm -f "$PIN_DIR/swap_link"; restart_clean' EXIT
	systemctl stop argguard.service
	bpftool link pin id "$(bpftool -j link show pinned "$PIN_DIR/link" | jq .id)" "$PIN_DIR/swap_link"
	systemctl start argguard.service
	[[ ! -e $PIN_DIR/swap_link ]] || fail "expected the start to remove swap_link"
	daemon_says "an earlier start was killed while pinning $PIN_DIR/link: tidied up" ||
		fail "expected the start to say it tidied swap_link"
	expect E2BIG "an exec over the live limit after the start" \
		"$HELPERS/execsize" $(($(live_limit) + 1)) 0 /bin/true
}

# A policy map's pin removed by hand (settings: the mode, the rates) while
# config still says applied: made afresh alone, it would read as mode off
# under the links. The start makes every map afresh and applies the file.
test_a_start_over_a_removed_policy_map_pin_applies_the_file() {
	local limit
	trap 'restart_clean' EXIT
	restore_policy >/dev/null
	limit=$(live_limit)
	systemctl stop argguard.service
	rm "$PIN_DIR/settings"
	systemctl start argguard.service
	daemon_says "$PIN_DIR/settings is gone, and it holds part of the policy" ||
		fail "expected the start to say it makes the maps afresh"
	assert_eq 2 "$(settings_json | jq .mode)" "the live mode after the start (enforce, as the file says)"
	assert_eq "$limit" "$(live_limit)" "the live limit after the start (the file's)"
	expect E2BIG "an exec over the file's limit" "$HELPERS/execsize" $((limit + 1)) 0 /bin/true
}
