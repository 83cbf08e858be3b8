# SPDX-License-Identifier: GPL-2.0
# What a real machine does to argguard within one boot: cgroups made late,
# units restarted, cgroups nested deep, fresh starts with a bad file,
# applies at once, log rotation.

LOOP_OUT=/run/argguard-t-loop.out
LOOP_STOP=/run/argguard-t-loop.stop

# A fresh start: no pins, as after a reboot.
fresh_start() {
	systemctl stop argguard.service
	argguard unload >/dev/null
	systemctl start argguard.service
}

restore_site_policy() {
	if [[ -f /tmp/argguard-policy.orig ]]; then
		mv /tmp/argguard-policy.orig "$POLICY_FILE"
	fi
	restore_policy
}

test_cgroup_rule_holds_for_a_cgroup_made_after_the_apply() {
	trap 'restore_policy; rmdir $CG/argguard-t-later 2>/dev/null || true' EXIT
	local out
	out=$(apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup /argguard-t-later]" "max_total_bytes = 64K" 2>&1)
	echo "$out"
	[[ $out == *"no cgroup /argguard-t-later yet"* ]] ||
		fail "expected a warning for the rule of a cgroup not made yet"
	mkdir $CG/argguard-t-later
	expect E2BIG "100K in a cgroup made after the apply (64K rule)" \
		in_cgroup /argguard-t-later "$HELPERS/execsize" 100000 0 /bin/true
	rmdir $CG/argguard-t-later
	mkdir $CG/argguard-t-later
	expect E2BIG "100K in the cgroup made again" \
		in_cgroup /argguard-t-later "$HELPERS/execsize" 100000 0 /bin/true
	expect allowed "100K outside it (1M global)" "$HELPERS/execsize" 100000 0 /bin/true
}

# The programs keep each cgroup's walk up its ancestors, per set, for one
# generation of the config. Every apply must start a new one: a rule for an
# ancestor holds at the next exec, and a walk remembered in the set an
# apply rewrites is never read again. Another cgroup's rule keeps the walk
# on throughout (without one, execs skip it).
test_cgroup_rules_for_ancestors_hold_at_the_next_exec_after_each_apply() {
	trap cleanup EXIT
	mkdir -p $CG/argguard-t-walk/child $CG/argguard-t-other
	# apply_with LINE...: a 1M global limit and the other cgroup's rule, and LINE...
	apply_with() {
		apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
			"[cgroup /argguard-t-other]" "max_total_bytes = 1M" "$@"
	}
	local ruled=("[cgroup /argguard-t-walk]" "max_total_bytes = 64K")
	local exec_100k=(in_cgroup /argguard-t-walk/child "$HELPERS/execsize" 100000 0 /bin/true)
	apply_with
	expect allowed "100K in child, no rule above it" "${exec_100k[@]}"
	apply_with "${ruled[@]}"
	expect E2BIG "100K in child, its parent's 64K rule applied since its last exec" "${exec_100k[@]}"
	apply_with
	expect allowed "100K in child, the rule gone again" "${exec_100k[@]}"
	# This apply rewrites the set that had the rule, and whose walk found it.
	apply_with
	expect allowed "100K in child, the set that had the rule rewritten without it" "${exec_100k[@]}"
	apply_with "${ruled[@]}"
	expect E2BIG "100K in child, the rule back" "${exec_100k[@]}"
}

# The loop a unit runs: exec 100K (over its cgroup's 64K) until told to
# stop, and write each outcome with the incarnation's pid. ExecStop tells it
# with a file, which it checks between two execs, so every exec has its
# line. It ignores SIGTERM: a bash TERM trap can miss its signal (Debian's
# bash 5.2, under load: 3 in 1,500 on the host), and such a loop ran on for
# 90 s until systemd killed it between an exec and its line.
write_exec_loop() {
	cat >/run/argguard-t-loop.sh <<-EOF
		#!/bin/bash
		trap '' TERM
		while [[ ! -e $LOOP_STOP ]]; do
			echo "\$\$ try" >>$LOOP_OUT
			out=\$($HELPERS/execsize 100000 0 /bin/true) && out=allowed
			echo "\$\$ \$out" >>$LOOP_OUT
		done
	EOF
	chmod 0755 /run/argguard-t-loop.sh
	cat >/run/systemd/system/argguard-t-loop.service <<-EOF
		[Unit]
		StartLimitIntervalSec=0
		[Service]
		ExecStartPre=/bin/rm -f $LOOP_STOP
		ExecStart=/run/argguard-t-loop.sh
		ExecStop=/bin/touch $LOOP_STOP
		KillMode=mixed
		TimeoutStopSec=10s
	EOF
	systemctl daemon-reload
}

test_cgroup_rule_holds_for_every_incarnation_of_a_restarted_unit() {
	trap 'systemctl stop argguard-t-loop.service; rm -f /run/systemd/system/argguard-t-loop.service "$LOOP_STOP"; systemctl daemon-reload; restore_policy' EXIT
	local i before tries results denied pids records n killed
	rm -f "$LOOP_OUT"
	write_exec_loop
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup /system.slice/argguard-t-loop.service]" "max_total_bytes = 64K"
	before=$(log_lines)
	systemctl start argguard-t-loop.service
	for ((i = 0; i < 5; i++)); do
		sleep 1
		systemctl restart argguard-t-loop.service
	done
	sleep 1
	systemctl stop argguard-t-loop.service
	tries=$(grep -c ' try$' "$LOOP_OUT" || true)
	results=$(grep -vc ' try$' "$LOOP_OUT" || true)
	denied=$(grep -c ' E2BIG$' "$LOOP_OUT" || true)
	pids=$(cut -d' ' -f1 "$LOOP_OUT" | sort -u | wc -l)
	echo "$tries execs tried over 6 incarnations ($pids pids seen), $denied denied"
	killed=$(journalctl -u argguard-t-loop.service --no-pager | grep -E 'timed out|Killing' || true)
	assert_eq "$results" "$denied" "execs denied (each was 100K under a 64K rule)"
	assert_eq 6 "$pids" "incarnations that ran execs"
	# By size, not cgroup: an incarnation's cgroup may be gone by the time
	# the daemon names it in a record.
	records=$(records_since "$before" "$denied" | jq -c 'select(.total_bytes == 100000)')
	n=$(grep -c . <<<"$records" || true)
	if [[ -z $killed ]]; then
		assert_eq "$tries" "$denied" "tries with a result (no loop was killed)"
		assert_eq "$denied" "$n" "records of the unit's execs"
	else
		# A loop killed between its exec and its line tried an exec it has
		# no result for, which may or may not have reached the LSM.
		echo "$killed"
		((tries - denied <= 6)) || fail "$((tries - denied)) execs without a result; at most 6 expected"
		((n >= denied && n <= tries)) ||
			fail "expected $denied to $tries records of the unit's execs, got $n"
	fi
	assert_eq "$n" "$(jq -c 'select(.scope == "cgroup" and .verdict == "deny")' <<<"$records" |
		grep -c . || true)" "records decided by the cgroup rule"
}

test_unprivileged_nesting_64_deep_keeps_the_ancestor_rule() {
	trap 'restore_policy; find $CG/argguard-t-deleg -depth -type d -exec rmdir {} + 2>/dev/null || true' EXIT
	local out record before
	mkdir $CG/argguard-t-deleg
	chown "$TESTER:$TESTER" $CG/argguard-t-deleg $CG/argguard-t-deleg/cgroup.procs \
		$CG/argguard-t-deleg/cgroup.subtree_control $CG/argguard-t-deleg/cgroup.threads
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup /argguard-t-deleg]" "max_total_bytes = 64K"
	before=$(log_lines)
	# As the tester, in its delegated subtree: nest 64 levels, move in, exec.
	out=$(in_cgroup /argguard-t-deleg "${AS_TESTER[@]}" /bin/bash -c '
		d=/sys/fs/cgroup/argguard-t-deleg
		for ((i = 0; i < 64; i++)); do d=$d/n; mkdir "$d"; done
		echo $$ >"$d/cgroup.procs"
		echo "level $(tr -cd / </proc/self/cgroup | wc -c)"
		'"$HELPERS"'/execsize 100000 0 /bin/true && echo allowed') || true # E2BIG is the point
	echo "$out"
	assert_eq "level 65" "$(head -n 1 <<<"$out")" "the tester's cgroup depth"
	assert_eq E2BIG "$(tail -n 1 <<<"$out")" "100K, 64 levels below a 64K rule"
	record=$(records_since "$before" 1 | tail -n 1)
	echo "record: $record"
	assert_eq cgroup "$(jq -r .scope <<<"$record")" "the deciding scope"
	assert_eq /argguard-t-deleg "$(jq -r .rule_cgroup <<<"$record")" "the deciding cgroup"
}

test_fresh_start_with_a_broken_file_keeps_the_last_good_policy() {
	trap 'restore_site_policy; fresh_start' EXIT
	local status
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 200K"
	cp "$POLICY_FILE" /tmp/argguard-policy.orig
	printf '[global]\nmode = enforce\nmax_total_bytes = 64K\nthis is not a key\n' >"$POLICY_FILE"
	fresh_start
	assert_eq active "$(systemctl is-active argguard.service)" "argguard.service after a bad file"
	status=$(argguard status)
	echo "$status"
	[[ $status == *"$POLICY_FILE not applied: $POLICY_FILE:4:"* ]] ||
		fail "expected argguard status to name the file's error"
	[[ $status == *"in force: the last policy that applied"* ]] ||
		fail "expected argguard status to say the last good policy is in force"
	assert_eq false "$(argguard status --format=json | jq .last_apply.success)" \
		"last_apply.success while the last good policy stands in for the file"
	assert_eq 204800 "$(live_limit)" "the live limit (the last good policy's)"
	expect E2BIG "a 300K exec under the last good 200K policy" \
		"$HELPERS/execsize" 300000 0 /bin/true
}

test_fresh_start_with_no_good_policy_enforces_the_safe_default() {
	trap 'restore_site_policy; fresh_start' EXIT
	cp "$POLICY_FILE" /tmp/argguard-policy.orig
	rm -f /var/lib/argguard/last-good.conf
	printf '[global]\nmode = enforce\nmax_total_bytes = 64K\n[global\n' >"$POLICY_FILE"
	fresh_start
	assert_eq active "$(systemctl is-active argguard.service)" "argguard.service after a bad file"
	assert_eq enforce "$(argguard policy show | awk '$1 == "mode" { print $3 }')" "the live mode"
	assert_eq 2097152 "$(live_limit)" "the live limit (the built-in default, as shipped)"
	assert_eq 1048576 "$(rule_json global_rules $(le 4 "$(active_set)") | jq -r .audit_max_total_bytes)" \
		"the live would-deny tier (the built-in default's, as shipped)"
	assert_eq "10 50 100" "$(settings_json | jq -r '"\(.event_rate) \(.event_burst) \(.event_rate_total)"')" \
		"the live event_rate, event_burst and event_rate_total (the built-in default's, as shipped)"
	[[ $(argguard status) == *"in force: the built-in default"* ]] ||
		fail "expected argguard status to say the built-in default is in force"
	expect E2BIG "a 3M exec under the default, from an unlimited stack" \
		prlimit --stack=unlimited "$HELPERS/execsize" 3000000 0 /bin/true
}

# policy_sets: "A" or "B" for a live policy that is wholly one of the two
# below (2,000 uid rules each, A's uids from 20000, B's from 30000), "torn"
# for anything else.
policy_sets() {
	local show a b
	show=$(argguard policy show 2>&1) || echo "policy show failed: $show" >&2
	a=$(grep -c '^\[uid 2[0-9]\{4\}\]$' <<<"$show" || true)
	b=$(grep -c '^\[uid 3[0-9]\{4\}\]$' <<<"$show" || true)
	if ((a == 2000 && b == 0)); then
		echo A
	elif ((a == 0 && b == 2000)); then
		echo B
	else
		echo "torn ($a A rules, $b B rules)"
	fi
}

# Two CLI applies and the daemon's reloads at once, each writing 2,000 rules:
# unserialized, two of them write the same inactive set, and since A and B
# name different uids, a mix of both is left live.
test_concurrent_applies_never_interleave() {
	trap 'restore_site_policy' EXIT
	local uid cli_a cli_b reload seen torn=0
	gen() {
		printf '[global]\nmode = enforce\nmax_total_bytes = 1M\n'
		for ((uid = $1; uid < $1 + 2000; uid++)); do
			printf '[uid %d]\nmax_total_bytes = 100000\n' "$uid"
		done
	}
	cp "$POLICY_FILE" /tmp/argguard-policy.orig
	gen 20000 >/tmp/argguard-a.conf
	gen 30000 >/tmp/argguard-b.conf
	cp /tmp/argguard-b.conf "$POLICY_FILE"
	argguard policy apply /tmp/argguard-a.conf 2>/dev/null
	(for ((i = 0; i < 10; i++)); do argguard policy apply /tmp/argguard-a.conf 2>/dev/null; done) &
	cli_a=$!
	(for ((i = 0; i < 10; i++)); do argguard policy apply /tmp/argguard-b.conf 2>/dev/null; done) &
	cli_b=$!
	(for ((i = 0; i < 10; i++)); do systemctl reload argguard.service; done) &
	reload=$!
	while kill -0 "$cli_a" 2>/dev/null || kill -0 "$cli_b" 2>/dev/null ||
		kill -0 "$reload" 2>/dev/null; do
		seen=$(policy_sets)
		if [[ $seen == torn* ]]; then
			torn=$((torn + 1))
			echo "$seen"
		fi
	done
	wait "$cli_a" || fail "a CLI apply failed"
	wait "$cli_b" || fail "a CLI apply failed"
	wait "$reload" || fail "a reload failed"
	seen=$(policy_sets)
	echo "last: $seen"
	[[ $seen == [AB] ]] || fail "expected the final policy to be A or B whole, got $seen"
	assert_eq 0 "$torn" "torn policies seen while applies ran"
}

test_logrotate_reopens_the_log_and_keeps_a_bpftool_edit() {
	trap 'restore_policy' EXIT
	bpftool_set_limit 300000
	logrotate -f /etc/logrotate.d/argguard
	[[ -f $EVENT_LOG.1 ]] || fail "expected logrotate to move the log to $EVENT_LOG.1"
	sleep 0.5
	assert_eq 300000 "$(live_limit)" "the live limit after log rotation (a bpftool edit)"
	expect E2BIG "a 400K exec after rotation" "$HELPERS/execsize" 400000 0 /bin/true
	wait_log_lines 1 || fail "expected the record in a new $EVENT_LOG"
	assert_eq "root:adm 640" "$(stat -c '%U:%G %a' "$EVENT_LOG")" "the new log's owner and mode"
}
