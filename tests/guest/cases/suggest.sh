# SPDX-License-Identifier: GPL-2.0
# argguard suggest as a user with a login would try to steer it, and as a
# short or quiet sample would mislead it: denied execs kept apart, a share
# weighed by uid, the minimum sample, the floors, and comments that no
# exec can add a line to. Nothing here needs the series: the stock suite
# runs it too (tests/guest/stock/suggest.sh).

# suggest_now ARG...: argguard suggest into $SUGGESTION, shown, and checked.
suggest_now() {
	SUGGESTION=$WORK/suggested.conf
	argguard suggest "$@" >"$SUGGESTION" || fail "expected suggest $* to print a policy"
	cat "$SUGGESTION"
	argguard policy check "$SUGGESTION" || fail "expected policy check to accept the suggestion"
}

# comment_above SECTION: the comment lines just above SECTION's header in $SUGGESTION.
comment_above() {
	awk -v sec="$1" '/^#/ { c = c $0 "\n"; next } $0 == sec { printf "%s", c; exit } { c = "" }' \
		"$SUGGESTION"
}

# Issue 40: nobody's 30 execs of 4 MB, denied by the 2M in force, made
# suggest write 5000192. Denied execs are counted apart; only what ran
# counts, and no limit goes above the deny limit in force.
test_suggest_nobodys_denied_4m_execs_raise_no_deny_limit() {
	trap cleanup EXIT
	local x=$HELPERS/execsize nobody scope limit
	nobody=$(id -u nobody)
	# A rule of nobody's own counts from zero.
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[uid $nobody]" "max_total_bytes = 2M"
	for _ in $(seq 20); do
		env -i setpriv --reuid=nobody --regid=nogroup --clear-groups "$x" 3000 0 /bin/true 4 ||
			fail "expected nobody's 3000-byte exec to run"
	done
	# A raised stack, so that the kernel lets the 4 MB through to argguard.
	for _ in $(seq 30); do
		expect E2BIG "nobody's 4 MB exec" env -i setpriv --reuid=nobody --regid=nogroup \
			--clear-groups prlimit --stack=unlimited "$x" $((4 << 20)) 0 /bin/true
	done

	scope=$(report_scope "uid $nobody")
	echo "report: $scope"
	# Each try ran setpriv, prlimit and execsize as nobody before the 4 MB exec.
	assert_eq "true 30" "$(jq -r '"\(.execs >= 20) \(.denied.execs)"' <<<"$scope")" \
		"nobody's execs that ran, and the 30 denied, apart"
	assert_eq 4194304 "$(jq .denied.metrics.total_bytes.max <<<"$scope")" \
		"the largest denied"
	assert_eq true "$(jq '.metrics.total_bytes.max < 2097152' <<<"$scope")" \
		"nobody's execs that ran are under the 2M in force"
	argguard report | grep -Eq "^\[uid $nobody\] [0-9]+ execs ran, 30 denied" ||
		fail "expected the text report to give both"

	suggest_now --min-execs 10 --min-hours 0
	limit=$(suggested "[uid $nobody]" max_total_bytes "$SUGGESTION")
	assert_eq 131072 "$limit" "nobody's suggested max_total_bytes: its 3000 bytes, at the floor"
	limit=$(suggested "[global]" max_total_bytes "$SUGGESTION")
	((limit <= 1048576)) || fail "expected [global] at most the 1M in force, got $limit"
	comment_above "[uid $nobody]" | grep -Eq "^# uid $nobody: [0-9]+ execs ran, 30 denied \(not counted\)" ||
		fail "expected nobody's section to say what ran and what was denied"
}

# Issue 40: after one setuid exec with three arguments, suggest wrote
# max_argc = 64; applied, it denied the next setuid exec of 200 files.
test_suggest_after_one_setuid_exec_applies_and_200_setuid_arguments_run() {
	trap 'cleanup; rm -f $SUID_TRUE $PLAIN_TRUE $FCAP_TRUE' EXIT
	local files
	make_setuid_copies
	"${AS_TESTER[@]}" "$SUID_TRUE" a b c || fail "expected the tester's setuid exec to run"
	files=$(printf 'file-%03d.txt ' $(seq 200))

	suggest_now
	comment_above "[setuid]" | grep -q "^# Under the minimum sample" ||
		fail "expected [setuid] to keep its limits, under the minimum sample"
	argguard policy apply "$SUGGESTION" || fail "expected the suggestion to apply"
	# shellcheck disable=SC2086 # 200 arguments
	expect allowed "a setuid exec with 200 arguments, under the suggestion" \
		"${AS_TESTER[@]}" "$SUID_TRUE" $files

	# With the sample met, the floors: bytes at least 128K, argc left alone, or 32768.
	for counts in "" --counts; do
		suggest_now --min-execs 1 --min-hours 0 $counts
		argguard policy apply "$SUGGESTION" || fail "expected the suggestion $counts to apply"
		# shellcheck disable=SC2086
		expect allowed "a setuid exec with 200 arguments, under the suggestion $counts" \
			"${AS_TESTER[@]}" "$SUID_TRUE" $files
	done
}

# Issue 40: a quiet host's week (about 3 KB and 4 arguments an exec, at most
# 40 KB) made suggest write 60416 bytes and max_argc = 64. No limit goes
# under the floors: 128K for bytes, 32768 for argc and envc when asked.
test_suggest_quiet_hosts_samples_give_no_limit_under_the_floors() {
	trap cleanup EXIT
	local x=$HELPERS/execsize key v
	mkdir -p $CG/argguard-t-quiet
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup /argguard-t-quiet]" "max_total_bytes = 1M"
	for _ in $(seq 50); do
		in_cgroup /argguard-t-quiet "$x" 2000 1000 /bin/true 4 ||
			fail "expected a 3000-byte exec to run"
	done
	in_cgroup /argguard-t-quiet "$x" 30000 10000 /bin/true 4 ||
		fail "expected the 40000-byte exec to run"

	suggest_now --min-execs 50 --min-hours 0
	assert_eq 131072 "$(suggested "[cgroup /argguard-t-quiet]" max_total_bytes "$SUGGESTION")" \
		"the quiet cgroup's max_total_bytes: 40000 + 25%, raised to the floor"
	assert_eq "" "$(suggested "[cgroup /argguard-t-quiet]" max_argc "$SUGGESTION")" \
		"max_argc, left alone"
	comment_above "[cgroup /argguard-t-quiet]" | grep -q "^# Raised to the floor: .*max_total_bytes" ||
		fail "expected the comment to say the floor raised max_total_bytes"

	suggest_now --min-execs 50 --min-hours 0 --counts
	for key in max_argv_bytes max_envp_bytes max_total_bytes max_argc max_envc; do
		v=$(suggested "[cgroup /argguard-t-quiet]" "$key" "$SUGGESTION")
		echo "$key = ${v:-(not set: not counted on this kernel)}"
		case $key in
		*_bytes) [[ -z $v ]] || ((v >= 131072)) || fail "expected $key at least 128K, got $v" ;;
		*) assert_eq 32768 "$v" "$key with --counts, at its floor" ;;
		esac
	done
	argguard policy apply "$SUGGESTION" || fail "expected the suggestion to apply"
	expect allowed "an exec of 120000 bytes in 5000 arguments, as xargs makes, under it" \
		in_cgroup /argguard-t-quiet "$x" 120000 0 /bin/true 5000
}

# One uid floods execs just over the floor to pull --keep-share's value
# down, under another uid's largest: each uid weighs as one, and no one
# uid can pull it below what the others alone give.
test_suggest_one_uids_flood_pulls_no_share_down() {
	trap cleanup EXIT
	local x=$HELPERS/execsize limit
	mkdir -p $CG/argguard-t-share
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup /argguard-t-share]" "max_total_bytes = 1900K"
	# root's builds: 19 link lines of 200K, one of 1.2M.
	for _ in $(seq 19); do
		in_cgroup /argguard-t-share "$x" 200000 0 /bin/true 100 || fail "expected a 200K exec"
	done
	in_cgroup /argguard-t-share "$x" 1200000 0 /bin/true 1000 || fail "expected root's 1.2M exec"
	# The tester's flood, each just over the 128K floor.
	for _ in $(seq 100); do
		in_cgroup /argguard-t-share "${AS_TESTER[@]}" "$x" 140000 0 /bin/true 100 >/dev/null ||
			fail "expected the tester's 140K exec to run"
	done

	suggest_now --keep-share 97 --min-execs 10 --min-hours 0
	limit=$(suggested "[cgroup /argguard-t-share]" max_total_bytes "$SUGGESTION")
	((limit >= 1200000)) ||
		fail "expected the tester's flood to leave root's 1.2M let through, got $limit"
	argguard policy apply "$SUGGESTION" || fail "expected the suggestion to apply"
	expect allowed "root's 1.2M exec, under the suggestion" \
		in_cgroup /argguard-t-share "$x" 1200000 0 /bin/true 1000
}

# A user's subordinate uids, each one more uid to weigh: they are counted as the user.
test_suggest_a_users_subordinate_uids_weigh_as_the_user() {
	trap cleanup EXIT
	local x=$HELPERS/execsize uids
	mkdir -p $CG/argguard-t-subuids
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup /argguard-t-subuids]" "max_total_bytes = 1M"
	for u in $(seq 1 20); do
		(echo "$BASHPID" >"$CG/argguard-t-subuids/cgroup.procs" &&
			as_subuid "$u" "$x" 40000 0 /bin/true 10) ||
			fail "expected subordinate uid $u's 40000-byte exec to run"
	done
	uids=$(report_scope "cgroup /argguard-t-subuids" | jq -c '[.by_uid[] | {uid, execs}]')
	echo "by uid: $uids"
	assert_eq "[{\"uid\":$TESTER,\"execs\":20}]" "$uids" \
		"twenty subordinate uids' execs, counted as the tester's"
}

# comm is the exec's own: a name with a newline must not put a line of its
# own into the suggested file, whose comments name the largest exec's comm.
# As the caller of the exec, execsize's copy gives it its name.
test_suggest_a_comm_with_a_newline_adds_no_line() {
	local evil
	evil=$'/tmp/argguard-t-comm/x\nmax_argc=1;'
	trap 'cleanup; rm -rf /tmp/argguard-t-comm' EXIT
	mkdir -p /tmp/argguard-t-comm $CG/argguard-t-comm
	install -m 0755 "$HELPERS/execsize" "$evil"
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup /argguard-t-comm]" "max_total_bytes = 1950K"
	# Near the kernel's 2M: among the largest execs report keeps, whatever ran before.
	in_cgroup /argguard-t-comm "$evil" 1990000 0 /bin/true || fail "expected the named exec to run"

	suggest_now
	grep -Eq '^# The largest that ran: 1990000 bytes, [0-9]+ arguments, by uid 0 \(x\\x0amax_argc=1;\)\.$' \
		"$SUGGESTION" || fail "expected the comment to name the comm, its newline escaped"
	assert_eq "" "$(grep -n '^max_argc' "$SUGGESTION")" "a max_argc line, the comm's own"
}
