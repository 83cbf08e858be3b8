# SPDX-License-Identifier: GPL-2.0
# What a user with a login may try against argguard. A user may make
# cgroups (every login user may, below user@UID.service): making, naming or
# nesting them must neither switch a rule off nor loosen it, and where
# argguard cannot keep up it judges more strictly, never less, and says so.
# A few users flooding records must not hold back another's. Sourced by the
# stock suites too (stock/abuse.sh): none of it needs the series.

ABUSE_DELEG=/argguard-t-deleg
ABUSE_VICTIMS=/argguard-t-victims
ABUSE_LOOSE=/argguard-t-loose
# Just over 100 KiB: denied under a 100K limit, allowed under 1M.
ABUSE_OVER=("$HELPERS/execsize" 102401 0 /bin/true)

abuse_cleanup() {
	local d
	"$HELPERS/fill_cgroup_ids" empty || true
	for d in "$ABUSE_DELEG" "$ABUSE_VICTIMS" "$ABUSE_LOOSE"; do
		# -delete removes by descriptor: a user's tree may pass PATH_MAX.
		[[ -d $CG$d ]] && find "$CG$d" -depth -type d -delete 2>/dev/null
	done
	cleanup
}

# How many cgroups the live set's index had no room for, as status says, whatever its exit.
unindexed() { argguard status 2>/dev/null | awk '$1 == "cgroups_unindexed:" { print $2 }' || true; }

# A subtree of the cgroup root that the tester may make cgroups in, as
# systemd delegates user@UID.service to its user.
delegate_to_tester() {
	mkdir "$CG$ABUSE_DELEG"
	chown "$TESTER:$TESTER" "$CG$ABUSE_DELEG" "$CG$ABUSE_DELEG"/cgroup.{procs,threads,subtree_control}
}

test_cgroup_index_a_users_2100_cgroups_leave_a_new_ruled_cgroup_judged_by_its_rule() {
	local made
	trap abuse_cleanup EXIT
	delegate_to_tester
	mkdir "$CG$ABUSE_VICTIMS"
	# Twice: both rule sets hold the patterns, as after any reload, and a
	# cgroup they match takes an index entry in each.
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup $ABUSE_DELEG/**/libpod-*.scope]" "max_total_bytes = 1M" \
		"[cgroup $ABUSE_VICTIMS/*]" "max_total_bytes = 100K"
	argguard policy apply "$TEST_POLICY"
	"${AS_TESTER[@]}" bash -c "cd $CG$ABUSE_DELEG && mkdir -p user/libpod-{0..2099}.scope" ||
		fail "the tester could not make its 2,100 cgroups"
	made=$(find "$CG$ABUSE_DELEG/user" -mindepth 1 -maxdepth 1 -type d -name 'libpod-*' | wc -l)
	assert_eq 2100 "$made" "cgroups the tester made, each matched by the libpod pattern"
	mkdir "$CG$ABUSE_VICTIMS/new"
	expect E2BIG "100K + 1 in a cgroup made at a ruled path after the user's 2,100" \
		in_cgroup "$ABUSE_VICTIMS/new" "${ABUSE_OVER[@]}"
	argguard status >/dev/null || fail "status must exit 0: the index had room for them all"
	assert_eq 0 "$(unindexed)" "cgroups the index had no room for"
}

test_cgroup_index_full_judges_new_cgroups_by_the_strictest_rule_and_says_so() {
	local filled before record out
	trap abuse_cleanup EXIT
	mkdir "$CG$ABUSE_VICTIMS" "$CG$ABUSE_LOOSE"
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup $ABUSE_VICTIMS/*]" "max_total_bytes = 100K" \
		"[cgroup $ABUSE_LOOSE]" "max_total_bytes = 4M"
	filled=$("$HELPERS/fill_cgroup_ids" fill "$(active_set)") || fail "could not fill the index"
	echo "the index took $filled more ids before it was full"
	((filled > 16000)) || fail "expected room for about 16,384 ids, took $filled"

	mkdir "$CG$ABUSE_VICTIMS/new" "$CG$ABUSE_LOOSE/new"
	before=$(log_lines)
	expect E2BIG "100K + 1 in a cgroup at a ruled path that the full index left out" \
		in_cgroup "$ABUSE_VICTIMS/new" "${ABUSE_OVER[@]}"
	record=$(records_since "$before" 1)
	assert_eq "deny cgroup true" "$(jq -r '"\(.verdict) \(.scope) \(.cgroup_unindexed)"' <<<"$record")" \
		"the record of an exec judged by the strictest rule"
	expect E2BIG "100K + 1 below a 4M rule, made after the index filled: the strictest rule" \
		in_cgroup "$ABUSE_LOOSE/new" "${ABUSE_OVER[@]}"
	expect allowed "100K + 1 in the 4M cgroup itself, indexed before" \
		in_cgroup "$ABUSE_LOOSE" "${ABUSE_OVER[@]}"
	expect_fail "status must exit 1 while cgroups are left out of the index" argguard status
	out=$(argguard status 2>&1 || true)
	[[ $out == *"no room for"* ]] || fail "status must say the cgroup index had no room: $out"
	# The ruled one; the 4M rule's child has no rule of its own to index.
	(($(unindexed) >= 1)) || fail "expected the ruled cgroup left out counted, status says $(unindexed)"
	out=$(argguard status --format prometheus 2>/dev/null || true)
	grep -qE '^argguard_cgroups_unindexed [1-9]' <<<"$out" ||
		fail "the metrics must count the cgroups left out: $(grep unindexed <<<"$out")"

	"$HELPERS/fill_cgroup_ids" empty
	restore_policy
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup $ABUSE_VICTIMS/*]" "max_total_bytes = 100K" \
		"[cgroup $ABUSE_LOOSE]" "max_total_bytes = 4M"
	argguard status >/dev/null || fail "status must exit 0 once an apply found room for all"
	expect allowed "100K + 1 below the 4M rule once an apply indexed it" \
		in_cgroup "$ABUSE_LOOSE/new" "${ABUSE_OVER[@]}"
	expect E2BIG "100K + 1 in the ruled cgroup once indexed: its own rule" \
		in_cgroup "$ABUSE_VICTIMS/new" "${ABUSE_OVER[@]}"
}

test_cgroup_pattern_a_user_named_docker_scope_gets_no_laxer_limit() {
	local before record
	trap abuse_cleanup EXIT
	delegate_to_tester
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 2M" \
		"[cgroup $ABUSE_DELEG]" "max_total_bytes = 64K" \
		"[cgroup /**/docker-*.scope]" "max_total_bytes = 1M"
	"${AS_TESTER[@]}" mkdir "$CG$ABUSE_DELEG/docker-evil.scope" ||
		fail "the tester could not make its docker-evil.scope"
	before=$(log_lines)
	expect E2BIG "100000 in a user's own docker-evil.scope below a 64K rule" \
		in_cgroup "$ABUSE_DELEG/docker-evil.scope" "$HELPERS/execsize" 100000 0 /bin/true
	record=$(records_since "$before" 1)
	assert_eq "cgroup $ABUSE_DELEG 65536" \
		"$(jq -r '"\(.scope) \(.rule_cgroup) \(.limit_value)"' <<<"$record")" \
		"the rule that denied it: the literal one above the pattern"
	expect allowed "50000 there, under both" \
		in_cgroup "$ABUSE_DELEG/docker-evil.scope" "$HELPERS/execsize" 50000 0 /bin/true
}

test_cgroup_pattern_nesting_a_laxer_pattern_in_a_stricter_one_gains_nothing() {
	trap abuse_cleanup EXIT
	delegate_to_tester
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 2M" \
		"[cgroup /**/libpod-*.scope]" "max_total_bytes = 64K" \
		"[cgroup /**/docker-*.scope]" "max_total_bytes = 1M"
	"${AS_TESTER[@]}" mkdir -p "$CG$ABUSE_DELEG/libpod-a.scope/docker-b.scope" ||
		fail "the tester could not make its nested scopes"
	expect E2BIG "100000 in docker-b.scope, inside libpod-a.scope's 64K" \
		in_cgroup "$ABUSE_DELEG/libpod-a.scope/docker-b.scope" "$HELPERS/execsize" 100000 0 /bin/true
	expect E2BIG "1.5M in a pattern's cgroup with nothing ruled above: the pattern's 1M" \
		in_cgroup "$ABUSE_DELEG/libpod-a.scope/docker-b.scope" "$HELPERS/execsize" 1500000 0 /bin/true
	"${AS_TESTER[@]}" mkdir -p "$CG$ABUSE_DELEG/docker-c.scope"
	expect allowed "100000 in a docker scope of its own: its pattern's 1M, under [global]" \
		in_cgroup "$ABUSE_DELEG/docker-c.scope" "$HELPERS/execsize" 100000 0 /bin/true
	expect E2BIG "1.5M there: the pattern tightens [global]'s 2M" \
		in_cgroup "$ABUSE_DELEG/docker-c.scope" "$HELPERS/execsize" 1500000 0 /bin/true
}

test_records_twenty_uids_flooding_leave_another_uids_record_on_file() {
	local uid flood=() before quiet summary
	trap restore_policy EXIT
	apply_policy "[global]" "mode = enforce" "allow_lockout = yes" "max_total_bytes = 4K" \
		"event_rate = 1000" "event_burst = 1000" "event_rate_total = 100"
	before=$(log_lines)
	for uid in $(seq 2001 2020); do
		setpriv --reuid="$uid" --regid="$uid" --clear-groups "$HELPERS/exec_storm" 600 8000 \
			>/dev/null &
		flood+=($!)
	done
	sleep 2 # the contested half of event_rate_total is spent by now
	expect E2BIG "nobody's one offending exec, during the flood" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$HELPERS/execsize" 8000 0 /bin/true
	wait "${flood[@]}" || fail "the flood had an exec allowed"
	sleep 2.5 # the summary
	restore_policy
	quiet=$(tail -n +$((before + 1)) "$EVENT_LOG" |
		jq -c 'select(.uid == 65534 and .comm == "execsize" and .verdict == "deny")')
	summary=$(tail -n +$((before + 1)) "$EVENT_LOG" | jq -c 'select(.verdict == "summary")' |
		jq -s -c 'map(.suppressed) | add')
	echo "records held back from the 20 uids: $summary; nobody's record: ${quiet:0:120}..."
	((summary > 0)) || fail "expected the flood to be held back by event_rate_total"
	[[ -n $quiet ]] || fail "nobody's record was held back by 20 uids' flood"
}

# The lockout gate judges a pattern by the cgroups an admin's sessions are
# in, as it judges a literal path: a pattern over an admin's slice is no
# way around it.
test_lockout_gate_refuses_a_pattern_over_an_admins_sessions() {
	local group out conf=/tmp/argguard-lockout-pattern.conf
	trap restore_policy EXIT
	group=$(id -gn "$TESTER")
	printf '%s\n' "[global]" "mode = enforce" "admin_groups = $group" \
		"[cgroup /user.slice/user-$TESTER.slice/*]" "max_total_bytes = 1K" >"$conf"
	if out=$(argguard policy check "$conf" 2>&1); then
		fail "policy check must refuse a pattern that locks uid $TESTER out: $out"
	fi
	echo "$out"
	[[ $out == *"uid $TESTER"* && $out == *"/user.slice/user-$TESTER.slice/"* ]] ||
		fail "the refusal must name uid $TESTER and the session's path: $out"
	expect_fail "policy apply of the pattern, without --force" argguard policy apply "$conf"
	argguard policy apply --force "$conf" || fail "--force must apply it"
}

test_records_a_container_roots_flood_leaves_the_host_roots_record_on_file() {
	local flood host before
	trap restore_policy EXIT
	apply_policy "[global]" "mode = enforce" "allow_lockout = yes" "max_total_bytes = 4K" \
		"event_rate = 1" "event_burst = 1"
	before=$(log_lines)
	# Root in a pid namespace of its own, as in a rootful container.
	unshare --pid --fork "$HELPERS/exec_storm" 1000 8000 >/dev/null &
	flood=$!
	sleep 1 # the flood has spent its token by now
	expect E2BIG "the host root's one offending exec, during the container's flood" \
		"$HELPERS/execsize" 8000 0 /bin/true
	wait "$flood" || fail "the container's flood had an exec allowed"
	restore_policy
	host=$(tail -n +$((before + 1)) "$EVENT_LOG" |
		jq -c 'select(.uid == 0 and .comm == "execsize" and .verdict == "deny")')
	[[ -n $host ]] || fail "the host root's record was held back by a container root's flood"
}

# A tree no path-based walk gets through, as any user can make it in a
# delegated subtree: 17 levels of 250-byte names, then two branches each 16
# levels deep (glibc's nftw() failed it with ENAMETOOLONG, and with it every
# apply of a policy with a pattern).
test_cgroup_walk_a_users_deep_tree_fails_no_apply() {
	trap abuse_cleanup EXIT
	delegate_to_tester
	mkdir -p "$CG$ABUSE_VICTIMS/there"
	"${AS_TESTER[@]}" bash -c '
		cd "$1" || exit 1
		for l in {a..q}; do
			n=$(printf "%0250d" 0 | tr 0 "$l")
			mkdir "$n" && cd "$n" || exit 1
		done
		for b in x y; do
			(mkdir "$b" && cd "$b" && for _ in {1..16}; do mkdir c && cd c || exit 1; done) ||
				exit 1
		done' _ "$CG$ABUSE_DELEG" || fail "the tester could not build its deep tree"
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup $ABUSE_VICTIMS/*]" "max_total_bytes = 100K"
	expect E2BIG "100K + 1 in a cgroup the apply's walk indexed past the user's tree" \
		in_cgroup "$ABUSE_VICTIMS/there" "${ABUSE_OVER[@]}"
}

# A user who names its program with a terminal's escape sequences: comm is
# the file name the kernel keeps, and argguard report shows it to root.
test_report_prints_no_raw_escape_a_user_put_in_comm() {
	local dir=/tmp/argguard-t-escape name=$'\e]0;pwned\a' out before
	trap 'rm -rf '"$dir"'; restore_policy' EXIT
	mkdir -p "$dir"
	cp "$HELPERS/execsize" "$dir/$name"
	chmod 755 "$dir" "$dir/$name"
	apply_policy "[global]" "mode = enforce" "allow_lockout = yes" "max_total_bytes = 4K"
	before=$(log_lines)
	# Near the kernel's 6 MiB cap: among the largest execs report lists, whatever ran before.
	expect E2BIG "the escape-named program's offending exec" \
		bash -c 'ulimit -s unlimited && exec "$@"' _ "${AS_TESTER[@]}" "$dir/$name" 6250000 0 /bin/true
	wait_log_lines $((before + 1)) || fail "no record of the escape-named program's exec"
	out=$(argguard report 2>&1)
	if [[ $out == *$'\e'* || $out == *$'\a'* ]]; then
		fail "argguard report wrote a raw ESC or BEL to the terminal"
	fi
	[[ $out == *'\x1b]0;pwned\x07'* ]] ||
		fail "expected the comm escaped as \\x1b]0;pwned\\x07 in: $(cat -v <<<"$out" | head -n 20)"
	jq -e --arg c "$name" 'select(.comm == $c)' "$EVENT_LOG" >/dev/null ||
		fail "the JSON log must keep the comm's exact bytes"
}

# A user who names its program, and a cgroup of the subtree it was given,
# with a terminal's escape sequences, and runs it with no stack limit:
# argguard preflight lists that process to root (its stack lets through
# what the site policy's 1M denies), escaped; its JSON keeps the bytes.
# (Its EXIT trap runs once the test has returned, its locals gone: it names
# what it removes by globals.)
ESCAPE_DIR=/tmp/argguard-t-escape
test_preflight_prints_no_raw_escape_a_user_put_in_comm_or_cgroup() {
	local dir=$ESCAPE_DIR name=$'\e]0;pwned\a' pid='' out rc=0 i
	trap 'kill $(cat "$CG$ABUSE_DELEG"/*/cgroup.procs 2>/dev/null) 2>/dev/null || true; wait || true
		rm -rf "$ESCAPE_DIR"; abuse_cleanup' EXIT
	delegate_to_tester
	mkdir -p "$dir"
	cp /bin/sleep "$dir/$name"
	chmod 755 "$dir" "$dir/$name"
	"${AS_TESTER[@]}" mkdir "$CG$ABUSE_DELEG/$name"
	in_cgroup "$ABUSE_DELEG/$name" "${AS_TESTER[@]}" prlimit --stack=unlimited "$dir/$name" 300 &
	for ((i = 0; i < 100; i++)); do
		pid=$(cat "$CG$ABUSE_DELEG/$name/cgroup.procs")
		[[ -n $pid && $(cat "/proc/$pid/comm" 2>/dev/null) == "$name" ]] && break
		sleep 0.1
	done
	assert_eq "$name" "$(cat "/proc/$pid/comm")" "the tester's process's comm"
	out=$(argguard preflight 2>&1) || rc=$?
	assert_eq 1 "$rc" "preflight's exit status (found some)"
	if [[ $out == *$'\e'* || $out == *$'\a'* ]]; then
		fail "argguard preflight wrote a raw ESC or BEL to the terminal"
	fi
	grep -qE "^$pid +$TESTER +\\\\x1b\]0;pwned\\\\x07 +unlimited +6M .*, in $ABUSE_DELEG/\\\\x1b\]0;pwned\\\\x07\$" <<<"$out" ||
		fail "expected the tester's process, comm and cgroup escaped as \\x1b]0;pwned\\x07, in: $(cat -v <<<"$out" | head -n 20)"
	out=$(argguard preflight --format json) || true # 1: found some
	jq -e --arg c "$name" --argjson pid "$pid" \
		'any(.processes[]; .pid == $pid and .comm == $c and (.cgroup | endswith("/" + $c)))' \
		<<<"$out" >/dev/null || fail "the JSON must keep the comm's and the cgroup's exact bytes"
}

# A user who runs preflight: where /proc hides other users' processes
# (hidepid=), it would see its own alone, and an empty list would read as
# a clean bill for the machine. It refuses, and lists nothing.
test_preflight_as_a_user_refuses_and_gives_no_clean_bill() {
	local out rc=0
	trap 'rm -f /tmp/argguard-t-preflight.err' EXIT
	out=$("${AS_TESTER[@]}" argguard preflight 2>/tmp/argguard-t-preflight.err) || rc=$?
	assert_eq 2 "$rc" "argguard preflight's exit status as the tester"
	assert_eq "" "$out" "what preflight printed on stdout as the tester"
	grep -q "run it as root" /tmp/argguard-t-preflight.err ||
		fail "expected preflight to say it needs root: $(cat /tmp/argguard-t-preflight.err)"
}

# Another account's FIFO where the daemon writes its metrics' temporary
# file: the write must not block, and records keep flowing.
test_metrics_a_fifo_at_the_temporary_file_blocks_nothing() {
	local dir=/var/lib/prometheus/node-exporter before first
	trap 'rm -f '"$dir"'/argguard.prom.tmp; restore_policy' EXIT
	[[ -d $dir ]] || fail "expected the guest's metrics directory $dir"
	mkfifo "$dir/argguard.prom.tmp"
	first=$(stat -c %Y.%i "$dir/argguard.prom" 2>/dev/null || echo none)
	wait_for 12 bash -c "[[ \$(stat -c %Y.%i '$dir/argguard.prom') != '$first' ]]" ||
		fail "expected the daemon to write its metrics past the FIFO within 12 seconds"
	apply_policy "[global]" "mode = enforce" "allow_lockout = yes" "max_total_bytes = 4K"
	before=$(log_lines)
	expect E2BIG "an offending exec after the FIFO" "$HELPERS/execsize" 8000 0 /bin/true
	wait_log_lines $((before + 1)) || fail "the daemon logged no record after the FIFO"
}

# Deeper than the walk keeps (8 ruled cgroups above one another): the exec
# is judged by the strictest rule too, and no rule above is lost.
test_cgroup_pattern_ten_nested_pattern_cgroups_lose_no_rule_above() {
	local deep=$ABUSE_DELEG i
	trap abuse_cleanup EXIT
	delegate_to_tester
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 2M" \
		"[cgroup $ABUSE_DELEG]" "max_total_bytes = 64K" \
		"[cgroup /**/n-*]" "max_total_bytes = 1M"
	for i in $(seq 10); do
		deep+=/n-$i
	done
	"${AS_TESTER[@]}" mkdir -p "$CG$deep" || fail "the tester could not nest its cgroups"
	expect E2BIG "100000 ten pattern cgroups below a 64K rule" \
		in_cgroup "$deep" "$HELPERS/execsize" 100000 0 /bin/true
	expect allowed "50000 there, under every rule" \
		in_cgroup "$deep" "$HELPERS/execsize" 50000 0 /bin/true
	expect E2BIG "100000 seven pattern cgroups deep, within the walk" \
		in_cgroup "$ABUSE_DELEG/n-1/n-2/n-3/n-4/n-5/n-6/n-7" "$HELPERS/execsize" 100000 0 /bin/true
}

# A user who makes a user and UTS namespace of their own and names the host
# in it: their denied exec's record still gives the daemon's host name. And
# the ledger that keeps the log's seq is root's alone: a user can neither
# write it (to make seq go back, so that their lines pass for a shipper's
# duplicates) nor replace it in /run.
test_log_envelope_a_users_own_hostname_names_no_record_and_the_ledger_is_roots() {
	local host records
	trap restore_policy EXIT
	host=$(hostname)
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 100K"
	records=$(new_records 1 "${AS_TESTER[@]}" unshare --user --map-root-user --uts \
		sh -c 'hostname forged-host && [ "$(hostname)" = forged-host ] && exec "$@"' sh "${ABUSE_OVER[@]}")
	echo "$records" | jq -c '{host, seq, uid, userns_owner, filename}'
	assert_eq 1 "$(jq -s --argjson u "$TESTER" '[.[] | select(.userns_owner == $u and .verdict == "deny")] | length' <<<"$records")" \
		"the tester's denial from its own namespace, where it named the host forged-host"
	assert_eq "$host" "$(jq -r --argjson u "$TESTER" 'select(.userns_owner == $u) | .host' <<<"$records")" \
		"the record's host"
	assert_eq "root:root 600" "$(stat -c '%U:%G %a' /run/argguard.ledger)" "the ledger's owner and mode"
	assert_eq "root:root 755" "$(stat -c '%U:%G %a' /run)" "the owner and mode of /run, which holds it"
	if "${AS_TESTER[@]}" sh -c 'printf x >>/run/argguard.ledger' 2>/dev/null; then
		fail "the tester could write the ledger"
	fi
}
