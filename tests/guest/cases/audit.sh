# SPDX-License-Identifier: GPL-2.0
# The audit trail: kernel-refused execs, journald fields, odd bytes.

# breach_exec_arg_max: an exec over fs.exec_arg_max, which the kernel refuses.
breach_exec_arg_max() {
	echo 262144 >/proc/sys/fs/exec_arg_max || return
	"$HELPERS/execsize" 300000 0 /bin/true || true # refused: the record is the point
	echo 0 >/proc/sys/fs/exec_arg_max
}

test_kernel_refused_execs_are_recorded_once_each() {
	local what records
	for what in exploit_unlimited "$HELPERS/pointer_flood $((1 << 28))" breach_exec_arg_max; do
		records=$(new_records 1 $what)
		echo "$what: $records"
		assert_eq 1 "$(grep -c . <<<"$records")" "records for $what"
		assert_eq kernel-refused "$(jq -r .verdict <<<"$records")" "verdict for $what"
		assert_eq E2BIG "$(jq -r .errno <<<"$records")" "errno for $what"
		assert_eq /bin/true "$(jq -r .filename <<<"$records")" "filename for $what"
		if [[ $what == breach_exec_arg_max ]]; then
			assert_eq exec_arg_max "$(jq -r .limit <<<"$records")" "limit for $what"
			assert_eq 262144 "$(jq -r .limit_value <<<"$records")" "limit_value for $what"
		else
			assert_eq kernel "$(jq -r .limit <<<"$records")" "limit for $what"
		fi
	done
}

# The program reads fs.exec_arg_max from the exec's linux_binprm, which the
# tracepoint hands it: the first record of a fresh start names the cap, and
# so does one after a restart over the pins.
test_exec_arg_max_is_the_limit_from_a_fresh_start_and_over_a_restart() {
	local records
	trap 'systemctl start argguard.service' EXIT
	systemctl stop argguard.service
	argguard unload >/dev/null
	systemctl start argguard.service
	records=$(new_records 1 breach_exec_arg_max)
	assert_eq exec_arg_max "$(jq -r .limit <<<"$records")" "limit after a fresh start"
	systemctl restart argguard.service
	daemon_says "adopted the pinned links and maps as they are" ||
		fail "expected the restart to take the pins as they are"
	records=$(new_records 1 breach_exec_arg_max)
	assert_eq exec_arg_max "$(jq -r .limit <<<"$records")" "limit after a restart"
}

test_denied_exec_is_in_the_journal_with_structured_fields() {
	local records pid entry limit
	limit=$(live_limit)
	records=$(new_records 1 "$HELPERS/execsize" $((limit + 1)) 0 /bin/true)
	pid=$(jq -r .pid <<<"$records")
	entry=$(journalctl -o json _SYSTEMD_UNIT=argguard.service _UID=0 ARGGUARD_VERDICT=deny ARGGUARD_PID="$pid" | tail -n 1)
	echo "journal: $entry"
	[[ -n $entry ]] || fail "expected journalctl ARGGUARD_VERDICT=deny to find pid $pid"
	assert_eq $((limit + 1)) "$(jq -r .ARGGUARD_ARGV_BYTES <<<"$entry")" "ARGGUARD_ARGV_BYTES"
	assert_eq max_total_bytes "$(jq -r .ARGGUARD_LIMIT <<<"$entry")" "ARGGUARD_LIMIT"
	assert_eq 4 "$(jq -r .PRIORITY <<<"$entry")" "PRIORITY (warning) of a denial"
}

test_odd_bytes_in_filenames_give_valid_json() {
	local plain=$'/tmp/argguard odd\n"quote\\\t\001' invalid=$'/tmp/argguard-\xff\xfe' r limit
	limit=$(live_limit)
	cp /bin/true "$plain"
	cp /bin/true "$invalid"
	r=$(new_records 1 "$HELPERS/execsize" $((limit + 100)) 0 "$plain")
	echo "control bytes: $r"
	jq -e . <<<"$r" >/dev/null || fail "expected a record jq can parse"
	assert_eq "$plain" "$(jq -j .filename <<<"$r")" "the filename, read back"
	r=$(new_records 1 "$HELPERS/execsize" $((limit + 100)) 0 "$invalid")
	echo "invalid UTF-8: $r"
	assert_eq hex "$(jq -r .filename_encoding <<<"$r")" "filename_encoding"
	assert_eq "$(printf '%s' "$invalid" | od -An -tx1 | tr -d ' \n')" \
		"$(jq -r .filename <<<"$r")" "the filename's bytes, in hex"
	rm -f "$plain" "$invalid"
}

# A caller names its program, its cgroup and the file it runs: bytes that
# are not UTF-8 in any of them still give a valid UTF-8 line, in hex.
test_caller_chosen_names_give_valid_utf8() {
	trap cleanup EXIT
	local odd=$'\xff\xfe\xc0\x80' r limit key
	limit=$(live_limit)
	mkdir "$CG/argguard-t-$odd"
	cp "$HELPERS/execsize" "/tmp/$odd-exec"
	cp /bin/true "/tmp/$odd-true"
	r=$(new_records 1 in_cgroup "/argguard-t-$odd" "/tmp/$odd-exec" $((limit + 100)) 0 "/tmp/$odd-true")
	rm -f "/tmp/$odd-exec" "/tmp/$odd-true"
	echo "record: $r"
	iconv -f UTF-8 -t UTF-8 <<<"$r" >/dev/null || fail "the record is not valid UTF-8"
	jq -e . <<<"$r" >/dev/null || fail "expected a record jq can parse"
	for key in comm filename cgroup; do
		assert_eq hex "$(jq -r .${key}_encoding <<<"$r")" "${key}_encoding"
	done
	assert_eq "$(printf '%s' "/argguard-t-$odd" | od -An -tx1 | tr -d ' \n')" \
		"$(jq -r .cgroup <<<"$r")" "the cgroup's bytes, in hex"
}

# The exec is held at its open (a fanotify permission event) while another
# thread of the caller rewrites an argument the kernel has already copied:
# the record keeps what the kernel copied, which is what the program runs with.
test_argv_rewritten_while_the_exec_waits_is_recorded_as_copied() {
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
	assert_eq kernel "$(jq -r .head_source <<<"$r")" "head_source"
	assert_eq secret-original "$(jq -r '.argv_head[1]' <<<"$r")" "argv[1], as the kernel copied it"
}

test_padded_argument_cannot_hide_what_follows() {
	local pad record want_bytes
	trap restore_policy EXIT
	argguard policy apply /dev/stdin <<<$'[global]\nmode = enforce\nmax_total_bytes = 64K' ||
		fail "could not apply a 64K policy"
	pad=$(head -c 102400 /dev/zero | tr '\0' x)MARKER
	# The padding is built inside the child: only its own exec may be judged.
	record=$(new_records 1 bash -c 'exec /bin/true a1 "$(head -c 102400 /dev/zero | tr "\0" x)MARKER"')
	restore_policy
	echo "record: ${record:0:600}..."
	want_bytes=$((${#pad} + 1 + 3 + 10))
	assert_eq deny "$(jq -r .verdict <<<"$record")" "verdict"
	assert_eq "$want_bytes" "$(jq -r .argv_bytes <<<"$record")" "argv_bytes, exact"
	assert_eq true "$(jq -r .argv_head_truncated <<<"$record")" "argv_head_truncated"
	assert_eq 256 "$(jq -r .argv_head_bytes <<<"$record")" "argv_head_bytes"
	assert_eq "/bin/true a1" "$(jq -r '.argv_head[0:2] | join(" ")' <<<"$record")" "first arguments"
	assert_eq kernel "$(jq -r .head_source <<<"$record")" "head_source"
	assert_eq $((256 - 10 - 3)) "$(jq -r '.argv_head[2] | length' <<<"$record")" \
		"length of the padded argument's head (argv's first 256 bytes, as the kernel copied them)"
}

test_record_names_the_caller() {
	local records limit
	limit=$(live_limit)
	records=$(new_records 1 bash -c 'echo "$$ $PPID" >/tmp/argguard-ids; exec "$@"' bash \
		"$HELPERS/execsize" $((limit + 1)) 0 /bin/true)
	echo "record: $records"
	assert_eq "$(cat /tmp/argguard-ids)" "$(jq -r '"\(.pid) \(.ppid)"' <<<"$records")" "pid and ppid"
	assert_eq "$(sed 's/^0:://' /proc/self/cgroup)" "$(jq -r .cgroup <<<"$records")" "cgroup"
	assert_eq 0 "$(jq -r .euid <<<"$records")" "euid"
}

# A cgroup deep in a delegated subtree, $CG/argguard-t-deep and 33 levels
# of 250-byte names below it: a path of 8,300 bytes, past PATH_MAX (which
# /proc/self/fd gives no more of) and past what an audit message holds.
deep_cgroup_names() {
	local i
	for ((i = 0; i < 33; i++)); do
		printf '%0250d\n' "$i"
	done
}
DEEP_CGROUP=/argguard-t-deep$(deep_cgroup_names | sed 's|^|/|' | tr -d '\n')

# in_deep_cgroup CMD...: make the deep cgroup (no path reaches it: each
# level from the one above), and run CMD in it.
in_deep_cgroup() {
	(
		cd "$CG/argguard-t-deep"
		for name in $(deep_cgroup_names); do
			mkdir "$name"
			cd "$name"
		done
		echo "$BASHPID" >cgroup.procs
		exec "$@"
	)
}

# Each directory removed from its parent, deepest first.
remove_deep_cgroup() {
	[[ -d $CG/argguard-t-deep ]] || return 0
	find "$CG/argguard-t-deep" -depth -type d -execdir rmdir {} + || true
	[[ ! -d $CG/argguard-t-deep ]] || echo "could not remove $CG/argguard-t-deep" >&2
}

# An offending exec in the deep cgroup; its record, on stdout.
exec_in_deep_cgroup() {
	mkdir "$CG/argguard-t-deep"
	new_records 1 in_deep_cgroup "$HELPERS/execsize" $(($(live_limit) + 1)) 0 /bin/true
}

test_record_names_a_cgroup_deeper_than_path_max() {
	local r
	trap remove_deep_cgroup EXIT
	r=$(exec_in_deep_cgroup)
	echo "record: ${r:0:400}..."
	assert_eq deny "$(jq -r .verdict <<<"$r")" "verdict"
	assert_eq "${#DEEP_CGROUP}" "$(jq -r '.cgroup | length' <<<"$r")" "the cgroup path's length"
	assert_eq "$DEEP_CGROUP" "$(jq -r .cgroup <<<"$r")" "the cgroup path"
	assert_eq null "$(jq -r .cgroup_error <<<"$r")" "cgroup_error"
}

# Too long for an audit message, the cgroup is left out and named, and the
# message keeps its end (res=failed), which the kernel would have cut.
test_audit_message_names_the_cgroup_it_leaves_out() {
	local r pid found= i
	trap remove_deep_cgroup EXIT
	r=$(exec_in_deep_cgroup)
	pid=$(jq -r .pid <<<"$r")
	for ((i = 0; i < 50; i++)); do
		found=$(ausearch -m TRUSTED_APP 2>/dev/null | grep "op=argguard-exec .* pid=$pid " || true)
		[[ -n $found ]] && break
		sleep 0.1
	done
	echo "ausearch: ...${found: -300}"
	[[ -n $found ]] || fail "expected ausearch -m TRUSTED_APP to find the denial of pid $pid"
	[[ $found == *' filename="/bin/true" '* ]] || fail "expected the message to name the file"
	[[ $found == *' argv_head='+([0-9A-F])' omitted="cgroup" exe='* ]] ||
		fail "expected the message to leave the cgroup out, keep the head last and name the cgroup: omitted=\"cgroup\""
	[[ $found == *' res=failed'"'"* ]] || fail "expected the message whole, to its res=failed"
}

test_log_file_is_root_adm_0640() {
	assert_eq "root:adm 640" "$(stat -c '%U:%G %a' "$EVENT_LOG")" "owner, group and mode of the log"
}

# put_back_log: the log moved to $EVENT_LOG.1 goes back, with whatever was
# written meanwhile appended.
put_back_log() {
	[[ -f $EVENT_LOG.1 ]] || return 0
	[[ ! -f $EVENT_LOG ]] || cat "$EVENT_LOG" >>"$EVENT_LOG.1"
	mv "$EVENT_LOG.1" "$EVENT_LOG"
	reopen_log
}

# A file the daemon must never touch, root's own as /etc/shadow is (and,
# like it, outside a sticky world-writable directory, where
# fs.protected_regular would stop root's O_CREAT open): its owner, mode and
# bytes, as plant_victim made them and victim_state reads them.
VICTIM=/etc/argguard-t-victim
plant_victim() {
	printf 'not the daemon'"'"'s\n' >"$VICTIM"
	chown 0:0 "$VICTIM"
	chmod 0600 "$VICTIM"
}
victim_state() { echo "$(stat -c '%u:%g %a' "$VICTIM") $(cat "$VICTIM")"; }
VICTIM_PLANTED="0:0 600 not the daemon's"

# --log names a path in a directory the tester can write (not a sticky
# world-writable one, where fs.protected_symlinks would stop root following
# the link), where the tester has put a symbolic link to a file of root's:
# argguard run refuses, naming the path, and the link's target keeps its
# owner, mode and bytes.
test_run_refuses_a_log_that_is_a_symlink() {
	local dir=/tmp/argguard-t-logdir out status=0
	trap 'rm -rf '"$dir $VICTIM"'; systemctl start argguard.service' EXIT
	mkdir -m 0755 "$dir"
	chown $TESTER:$TESTER "$dir"
	plant_victim
	"${AS_TESTER[@]}" ln -s "$VICTIM" "$dir/events.jsonl"
	systemctl stop argguard.service
	out=$(timeout 60 argguard run --log "$dir/events.jsonl" 2>&1) || status=$?
	echo "$out" | tail -n 3
	assert_eq 1 "$status" "argguard run's exit status"
	[[ $out == *"refusing to open log $dir/events.jsonl: it is a symbolic link"* ]] ||
		fail "expected an error naming $dir/events.jsonl a symbolic link"
	assert_eq "$VICTIM_PLANTED" "$(victim_state)" "the link's target: owner, mode and bytes"
}

# After a rotation, someone who can write the log's directory puts a
# symbolic link where the log was: the daemon's reopen (logrotate's
# SIGUSR1) refuses it, says so, and keeps writing to the log it had.
test_reopen_refuses_a_log_replaced_by_a_symlink() {
	local limit before i
	limit=$(live_limit)
	trap 'rm -f "$EVENT_LOG" "$VICTIM"; put_back_log' EXIT
	plant_victim
	mv "$EVENT_LOG" "$EVENT_LOG.1"
	ln -s "$VICTIM" "$EVENT_LOG"
	reopen_log
	daemon_says "refusing to open log $EVENT_LOG: it is a symbolic link" ||
		fail "expected the daemon to refuse $EVENT_LOG, a symbolic link, and say so"
	before=$(wc -l <"$EVENT_LOG.1")
	expect E2BIG "an exec over the limit" "$HELPERS/execsize" $((limit + 1)) 0 /bin/true
	for ((i = 0; i < 100; i++)); do
		(($(wc -l <"$EVENT_LOG.1") > before)) && break
		sleep 0.1
	done
	assert_eq "$VICTIM_PLANTED" "$(victim_state)" "the link's target: owner, mode and bytes"
	tail -n +$((before + 1)) "$EVENT_LOG.1" |
		jq -se --argjson n $((limit + 1)) 'map(select(.argv_bytes == $n)) | length == 1' >/dev/null ||
		fail "expected the record in the log the daemon kept, $EVENT_LOG.1"
}

test_sigusr1_reopens_the_log() {
	local limit
	limit=$(live_limit)
	trap put_back_log EXIT
	mv "$EVENT_LOG" "$EVENT_LOG.1"
	reopen_log
	sleep 1
	expect E2BIG "an exec over the limit" "$HELPERS/execsize" $((limit + 1)) 0 /bin/true
	wait_log_lines 1 || fail "expected the record in a new $EVENT_LOG after SIGUSR1"
	assert_eq "root:adm 640" "$(stat -c '%U:%G %a' "$EVENT_LOG")" "the new log's owner and mode"
	assert_eq 1 "$(wc -l <"$EVENT_LOG")" "records in the new log"
}

# What the daemon has logged since the storm began, across the rotation.
storm_log_so_far() {
	local f
	for f in "$EVENT_LOG.rotated" "$EVENT_LOG"; do
		[[ ! -f $f ]] || cat "$f"
	done
}

# end_storm: put the site policy back, and make one log again of the log from
# before the storm and what the storm wrote (rotated midway) into
# /tmp/argguard-storm.log. Run again at exit, it does nothing.
end_storm() {
	[[ -f /tmp/argguard-site.conf ]] || return 0
	mv /tmp/argguard-site.conf /etc/argguard/argguard.conf
	if [[ -f $EVENT_LOG.storm ]]; then
		storm_log_so_far >/tmp/argguard-storm.log
		cat "$EVENT_LOG.storm" /tmp/argguard-storm.log >"$EVENT_LOG.new"
		rm -f "$EVENT_LOG.rotated" "$EVENT_LOG.storm"
		mv "$EVENT_LOG.new" "$EVENT_LOG"
	fi
	systemctl reload argguard.service
	reopen_log
}

# 10,000 offending execs at 100 records a second, the log rotated midway:
# every decision is counted, and every record is logged or accounted for.
test_exec_storm_reconciles_exactly() {
	local n=10000 deny0 supp0 lost0 deny1 supp1 lost1 refused logged summed pid i
	# The storm policy goes in the file, as it would on a real machine.
	trap end_storm EXIT
	cp /etc/argguard/argguard.conf /tmp/argguard-site.conf
	printf '[global]\nmode = enforce\nallow_lockout = yes\nmax_total_bytes = 4K\nevent_rate = 100\nevent_burst = 100\n' \
		>/etc/argguard/argguard.conf
	mv "$EVENT_LOG" "$EVENT_LOG.storm"
	systemctl reload argguard.service
	reopen_log
	sleep 1.5 # let an earlier summary go out before counting
	deny0=$(counter global.deny) supp0=$(counter records_dropped.rate_limited) lost0=$(counter records_dropped.ring_full)
	"$HELPERS/exec_storm" $n 8000 >/tmp/argguard-storm.out &
	pid=$!
	sleep 1
	mv "$EVENT_LOG" "$EVENT_LOG.rotated" # logrotate, midway
	reopen_log
	wait "$pid" || fail "the storm had an exec allowed: $(cat /tmp/argguard-storm.out)"
	refused=$(cat /tmp/argguard-storm.out)
	deny1=$(counter global.deny) supp1=$(counter records_dropped.rate_limited) lost1=$(counter records_dropped.ring_full)
	# A slow guest may still be draining the ring buffer: wait for the
	# records and the summary to catch up with the counters (or give up).
	for ((i = 0; i < 120; i++)); do
		storm_log_so_far >/tmp/argguard-storm.log
		logged=$(jq -c 'select(.comm == "exec_storm" and .verdict == "deny")' /tmp/argguard-storm.log | wc -l)
		summed=$(jq -s '[.[] | select(.verdict == "summary") | .suppressed] | add // 0' /tmp/argguard-storm.log)
		((logged + supp1 - supp0 + lost1 - lost0 < n || summed < supp1 - supp0)) || break
		sleep 0.5
	done
	end_storm
	echo "refused $refused; global.deny +$((deny1 - deny0)); logged $logged; suppressed +$((supp1 - supp0)) (summaries say $summed); lost +$((lost1 - lost0))"
	assert_eq $n "$refused" "execs refused"
	assert_eq $n $((deny1 - deny0)) "deny decisions counted"
	assert_eq $n $((logged + supp1 - supp0 + lost1 - lost0)) "logged + suppressed + lost"
	assert_eq $((supp1 - supp0)) "$summed" "suppressed, as the summary records say"
	((supp1 > supp0)) || fail "expected the rate limit to suppress records"
}

# Rate limits are per uid: nobody floods offending execs at event_rate = 1
# while root makes one; root's record is logged, and the summary names
# nobody as the uid whose records were held back.
test_one_users_flood_never_holds_back_anothers_record() {
	trap restore_policy EXIT
	local before flood root summary
	apply_policy "[global]" "mode = enforce" "allow_lockout = yes" "max_total_bytes = 4K" \
		"event_rate = 1" "event_burst = 1"
	before=$(log_lines)
	setpriv --reuid=65534 --regid=65534 --clear-groups "$HELPERS/exec_storm" 3000 8000 \
		>/tmp/argguard-flood.out &
	flood=$!
	sleep 1 # the flood has spent nobody's token by now
	expect E2BIG "root's one offending exec, during the flood" "$HELPERS/execsize" 8000 0 /bin/true
	wait "$flood" || fail "the flood had an exec allowed"
	sleep 2.5 # the summary
	restore_policy
	root=$(tail -n +$((before + 1)) "$EVENT_LOG" |
		jq -c 'select(.uid == 0 and .comm == "execsize" and .verdict == "deny")')
	summary=$(tail -n +$((before + 1)) "$EVENT_LOG" | jq -c 'select(.verdict == "summary")' |
		tail -n 1)
	echo "nobody: $(cat /tmp/argguard-flood.out) refused; root's record: ${root:0:120}..."
	echo "summary: $summary"
	[[ -n $root ]] || fail "root's record was held back by nobody's flood"
	jq -e '.suppressed_by_uid[0].uid == 65534' <<<"$summary" >/dev/null ||
		fail "expected the summary to name uid 65534 first"
}

# The log's file system fills up: the daemon keeps running, holds the records
# back, and writes them all once space returns.
test_full_log_filesystem_holds_records_until_space_returns() {
	local limit dir=/var/log/argguard written
	limit=$(live_limit)
	# The daemon holds the file open until it reopens the log.
	trap "umount -l $dir; reopen_log" EXIT
	full_log_holds_offending_execs 5
	sleep 2
	assert_eq active "$(systemctl is-active argguard.service)" "argguard.service on a full disk"
	echo "records written while full: $(log_lines)"
	rm "$dir/fill"
	expect E2BIG "an exec over the limit, space back" "$HELPERS/execsize" $((limit + 1)) 0 /bin/true
	wait_log_lines 6 || true # the count is asserted below
	written=$(jq -c 'select(.verdict == "deny" and .comm == "execsize")' "$EVENT_LOG" | wc -l)
	jq -e . "$EVENT_LOG" >/dev/null || fail "expected only whole records in the log"
	assert_eq 6 "$written" "records in the log once space returned (5 held back, 1 new)"
	journalctl -u argguard.service -n 200 --no-pager |
		grep "writable again: wrote .* failed writes" >/dev/null ||
		fail "expected the daemon to say how many writes failed and that it caught up"
}

# auditd stopped (SIGSTOP) with the kernel's audit backlog full: every send
# to the audit log blocks (the kernel holds each sender until kauditd's next
# pass over its queues), but the JSON log still gets every record that reached
# the daemon, and the audit sink counts what it had to give up (its queue holds
# 4096 records or 512 KiB). How fast the stalled sink still trickles depends
# on kauditd's timing, not on us, so the storm goes on in rounds of 15,000
# execs until the sink's queue has overflowed (at most three); every round
# must leave the JSON log whole. The wait is cut to 1000 jiffies while the test
# runs: the stall holds every audit sender on the machine, systemd among them.
test_stalled_audit_log_never_stalls_the_json_log() {
	local n=15000 round auditd backlog wait enabled before ring0 ring1 logged summed lost=0 audit_lost=0 i
	auditd=$(pidof auditd) || fail "expected auditd to run"
	echo "before: $(auditctl -s | tr '\n' ' ')"
	[[ $(tr '\0' ' ' <"/proc/$(daemon_pid)/cmdline") == *--linux-audit* ]] ||
		fail "expected the daemon to run with --linux-audit"
	assert_eq "$auditd" "$(auditctl -s | awk '$1 == "pid" { print $2 }')" \
		"the pid the kernel sends audit records to (auditd's)"
	backlog=$(auditctl -s | awk '$1 == "backlog_limit" { print $2 }')
	wait=$(auditctl -s | awk '$1 == "backlog_wait_time" { print $2 }')
	enabled=$(auditctl -s | awk '$1 == "enabled" { print $2 }')
	apply_policy "[global]" "mode = enforce" "allow_lockout = yes" "max_total_bytes = 4K"
	# auditd resumes first, and at the end a restart drops what the audit sink
	# still holds (counted), so that later tests do not wait behind it.
	trap 'kill -CONT '"$auditd"'; auditctl -b '"$backlog"' >/dev/null;
		auditctl --backlog_wait_time '"$wait"' >/dev/null; [[ '"$enabled"' == 2 ]] || auditctl -e '"$enabled"' >/dev/null;
		restore_policy; systemctl restart argguard.service' EXIT
	# The kernel takes no user record while auditing is off (its queue, and
	# so the stall, never fill): the test is of a stalled audit log, on.
	if [[ $enabled == 0 ]]; then
		echo "auditing was off before this test; on while it runs"
		auditctl -e 1 >/dev/null
	fi
	auditctl --backlog_wait_time 1000 >/dev/null
	auditctl -b 8 >/dev/null
	kill -STOP "$auditd"
	before=$(log_lines)
	for ((round = 1; round <= 3 && audit_lost == 0; round++)); do
		ring0=$(counter records_dropped.ring_full)
		if ! timeout 600 "$HELPERS/exec_storm" $n 8000 >/dev/null; then
			ps -eo pid,stat,wchan:32,comm | awk '$2 ~ /D/'
			fail "the storm had an exec allowed, or did not end"
		fi
		ring1=$(counter records_dropped.ring_full)
		for ((i = 0; i < 120; i++)); do
			logged=$(tail -n +$((before + 1)) "$EVENT_LOG" | complete_lines |
				jq -c 'select(.comm == "exec_storm")' | wc -l)
			((logged + ring1 - ring0 < n)) || break
			sleep 0.5
		done
		sleep 2 # the summaries
		summed=$(tail -n +$((before + 1)) "$EVENT_LOG" | jq -rs '[.[] | select(.verdict == "summary")] |
			[(map(.lost_log_backlog) | add // 0), (map(.lost_by_sink.audit // 0) | add // 0)] | @tsv')
		read -r lost audit_lost <<<"$summed"
		echo "round $round: logged $logged, ring_full +$((ring1 - ring0)) of $n;" \
			"summaries: log lost $lost, audit lost $audit_lost;" \
			"kernel: $(auditctl -s | awk '$1 == "lost" || $1 == "backlog" { printf "%s %s ", $1, $2 }')"
		assert_eq $n $((logged + ring1 - ring0)) "records logged + lost to the ring buffer"
		assert_eq 0 "$lost" "records the log lost"
		before=$(log_lines)
	done
	((audit_lost > 0)) || fail "expected the summaries to count the audit sink's losses"
}

test_denied_exec_is_in_the_linux_audit_log() {
	local records pid found= i
	records=$(new_records 1 "$HELPERS/execsize" $(($(live_limit) + 1)) 0 /bin/true)
	pid=$(jq -r .pid <<<"$records")
	for ((i = 0; i < 50; i++)); do
		found=$(ausearch -m TRUSTED_APP 2>/dev/null | grep "op=argguard-exec .* pid=$pid " || true)
		[[ -n $found ]] && break
		sleep 0.1
	done
	echo "ausearch: $found"
	[[ $found == *'verdict="deny"'* ]] || fail "expected ausearch -m TRUSTED_APP to find the denial of pid $pid"
	[[ $found == *' argv_bytes='$(jq -r .argv_bytes <<<"$records")' '* ]] ||
		fail "expected the audit message to carry argv_bytes"
	journalctl -o json _SYSTEMD_UNIT=argguard.service _UID=0 ARGGUARD_VERDICT=deny ARGGUARD_PID="$pid" | jq -e . >/dev/null ||
		fail "expected journalctl ARGGUARD_VERDICT=deny to find the same exec, pid $pid"
}

# audit_exec PID [ARG...]: argguard's audit records of the exec of PID that
# ausearch -m TRUSTED_APP ARG... finds, by the pid query argguard-records(5)
# gives: ausearch -p matches the kernel's pid=, the daemon's.
audit_exec() {
	local pid=$1
	shift
	ausearch -m TRUSTED_APP "$@" --raw 2>/dev/null | grep "msg='op=argguard-exec .* pid=$pid " || true
}

# wait_audit_exec PID [ARG...]: audit_exec, once auditd has the record (5 s).
wait_audit_exec() {
	local i found=
	for ((i = 0; i < 50; i++)); do
		found=$(audit_exec "$@")
		[[ -z $found ]] || break
		sleep 0.1
	done
	echo "ausearch -m TRUSTED_APP ${*:2}, pid $1: ${found:-(none)}" >&2
	[[ -n $found ]] || fail "expected ausearch -m TRUSTED_APP ${*:2} to find the exec of pid $1"
	printf '%s\n' "$found"
}

# How many lines of the running daemon's journal match PATTERN.
daemon_said_count() { daemon_journal | grep -c -- "$1" || true; }

# said_more_than N PATTERN: the daemon's journal has more than N lines matching PATTERN.
said_more_than() { (($(daemon_said_count "$2") > $1)); }

# audit_lost: what the textfile counts lost by the audit sink.
audit_lost() { prom_value 'argguard_records_lost_total{sink="audit"}' <"$TEXTFILE"; }
lost_more_than() { (($(audit_lost) > $1)); }

# With the kernel's auditing off (auditctl -e 0; on Debian 12 a restart of
# systemd-journald does it too), the kernel acks a user message and drops
# it. The daemon says so, counts the record lost, and says when auditing is
# on again, and the next record is in the audit log.
test_kernel_auditing_off_is_said_and_its_records_counted_lost() {
	local off on lost r pid
	trap 'auditctl -e 1 >/dev/null' EXIT
	off=$(daemon_said_count "the kernel's auditing is off") lost=$(audit_lost)
	on=$(daemon_said_count "the kernel's auditing is on again")
	auditctl -e 0 >/dev/null
	sleep 1.1 # the sink asks the kernel at most once a second
	r=$(new_records 1 "${AS_TESTER[@]}" "$HELPERS/execsize" $(($(live_limit) + 1)) 0 /bin/true)
	pid=$(jq -r .pid <<<"$r")
	wait_for 10 said_more_than "$off" "the kernel's auditing is off" ||
		fail "expected the daemon to say the kernel's auditing is off"
	wait_for 15 lost_more_than "$lost" ||
		fail "expected the record the kernel dropped counted lost by the audit sink: $(audit_lost), $lost before"
	assert_eq "" "$(audit_exec "$pid")" "the audit log's records of pid $pid, auditing off"
	auditctl -e 1 >/dev/null
	sleep 1.1
	r=$(new_records 1 "${AS_TESTER[@]}" "$HELPERS/execsize" $(($(live_limit) + 1)) 0 /bin/true)
	wait_audit_exec "$(jq -r .pid <<<"$r")" -ui "$TESTER" >/dev/null
	wait_for 10 said_more_than "$on" "the kernel's auditing is on again" ||
		fail "expected the daemon to say the kernel's auditing is on again"
}

# A user's denial: ausearch -ui finds it by the user's uid and the pid query
# by its pid, and neither by root's uid, another uid or the daemon's pid. The
# kernel's own part of the message names the daemon, as it must: ausearch -p
# finds the record by the daemon's pid, not by the offender's.
test_ausearch_finds_a_denial_by_the_offenders_uid_and_pid() {
	local r pid daemon found
	r=$(new_records 1 "${AS_TESTER[@]}" "$HELPERS/execsize" $(($(live_limit) + 1)) 0 /bin/true)
	pid=$(jq -r .pid <<<"$r") daemon=$(daemon_pid)
	assert_eq "deny $TESTER" "$(jq -r '"\(.verdict) \(.uid)"' <<<"$r")" "the record's verdict and uid"
	found=$(wait_audit_exec "$pid" -ui "$TESTER")
	assert_eq 1 "$(grep -c . <<<"$found")" "records that ausearch -ui $TESTER and the pid query find"
	[[ $found == *"pid=$daemon uid=0 "*"msg='op=argguard-exec verdict=\"deny\" "* ]] ||
		fail "expected the kernel's part to name the daemon, pid $daemon, uid 0"
	assert_eq 1 "$(audit_exec "$pid" | grep -c .)" "records the pid query alone finds"
	assert_eq 1 "$(audit_exec "$pid" -ui "$TESTER" -sv no | grep -c .)" "records ausearch -sv no finds"
	assert_eq "" "$(audit_exec "$pid" -ui 0)" "records ausearch -ui 0 finds"
	assert_eq "" "$(audit_exec "$pid" -ui $((TESTER + 1)))" "records ausearch -ui $((TESTER + 1)) finds"
	assert_eq "" "$(audit_exec "$daemon")" "argguard-exec records the pid query finds for the daemon's pid"
	assert_eq "" "$(audit_exec "$pid" -p "$pid")" "records ausearch -p $pid (the offender's) finds"
	assert_eq 1 "$(audit_exec "$pid" -p "$daemon" | grep -c .)" "records ausearch -p $daemon (the daemon's) finds"
}

# For ausearch -p, the kernel's own record of the refused exec: an audit
# rule on execve's exit with E2BIG, as argguard-records(5) gives it.
test_ausearch_p_finds_the_kernels_record_of_the_refused_exec() {
	local r pid found= i rule=(-F arch=b64 -S execve,execveat -F exit=-E2BIG -F key=argguard-refused)
	auditctl -a always,exit "${rule[@]}" >/dev/null || fail "could not add the audit rule"
	trap 'auditctl -d always,exit '"${rule[*]}"' >/dev/null' EXIT
	r=$(new_records 1 "${AS_TESTER[@]}" "$HELPERS/execsize" $(($(live_limit) + 1)) 0 /bin/true)
	pid=$(jq -r .pid <<<"$r")
	for ((i = 0; i < 50; i++)); do
		found=$(ausearch -k argguard-refused -p "$pid" -ui "$TESTER" --raw 2>/dev/null || true)
		[[ -z $found ]] || break
		sleep 0.1
	done
	echo "ausearch -k argguard-refused -p $pid -ui $TESTER: $found"
	[[ $found == *"type=SYSCALL "*" exit=-7 "*" pid=$pid "*" uid=$TESTER "* ]] ||
		fail "expected the kernel's SYSCALL record of pid $pid's refused execve"
	assert_eq "" "$(ausearch -k argguard-refused -p "$pid" -ui 0 --raw 2>/dev/null || true)" \
		"records ausearch -k argguard-refused -p $pid -ui 0 finds"
}

# A caller names its program and the file it runs: a name that spells
# fields (" pid=1 uid=0", "res=ok", "exe=") is written in hex, so that
# ausearch reads the offender's uid, the daemon's exe= and res=failed, not
# the caller's: the record is not found as root's, as pid 1's or as a
# success, and is found by the daemon's program.
test_names_that_spell_audit_fields_move_no_ausearch_match() {
	local r pid found exe limit odd=' pid=1 uid=0' target=/tmp/argguard-res=ok,exe=
	limit=$(live_limit) exe=$(readlink "/proc/$(daemon_pid)/exe")
	cp "$HELPERS/execsize" "/tmp/$odd"
	cp /bin/true "$target"
	trap "rm -f '/tmp/$odd' '$target'" EXIT
	r=$(new_records 1 "${AS_TESTER[@]}" "/tmp/$odd" $((limit + 1)) 0 "$target")
	pid=$(jq -r .pid <<<"$r")
	assert_eq "$odd $target" "$(jq -r '"\(.comm) \(.filename)"' <<<"$r")" "the record's comm and filename"
	found=$(wait_audit_exec "$pid" -ui "$TESTER")
	[[ $found == *" comm=$(printf '%s' "$odd" | od -An -tx1 | tr -d ' \n' | tr a-f A-F) "* ]] ||
		fail "expected the comm in hex"
	[[ $found != *"$target"* && $found != *"res=ok"* ]] || fail "expected the filename in hex"
	assert_eq "" "$(audit_exec "$pid" -ui 0)" "records ausearch -ui 0 finds"
	assert_eq "" "$(audit_exec 1)" "argguard-exec records the pid query finds for pid 1"
	assert_eq "" "$(audit_exec "$pid" -sv yes)" "records ausearch -sv yes finds"
	assert_eq 1 "$(audit_exec "$pid" -sv no | grep -c .)" "records ausearch -sv no finds"
	assert_eq 1 "$(audit_exec "$pid" -x "$exe" | grep -c .)" "records ausearch -x $exe finds"
}

# The JSON log's envelope: every line since a denial, over a restart and a
# SIGKILL of the daemon, has schema 1, the daemon's host and boot, and a
# seq that only goes up; each daemon's denial is there.
test_log_envelope_names_host_and_boot_and_seq_goes_on_over_restarts() {
	local limit before pid0 lines host boot
	limit=$(live_limit) before=$(log_lines)
	host=$(hostname) boot=$(cat /proc/sys/kernel/random/boot_id)
	new_records 1 "$HELPERS/execsize" $((limit + 1)) 0 /bin/true >/dev/null
	systemctl restart argguard.service
	new_records 1 "$HELPERS/execsize" $((limit + 1)) 0 /bin/true >/dev/null
	pid0=$(daemon_pid)
	kill -KILL "$pid0"
	wait_restart "$pid0"
	new_records 1 "$HELPERS/execsize" $((limit + 1)) 0 /bin/true >/dev/null
	lines=$(tail -n +$((before + 1)) "$EVENT_LOG")
	echo "$lines" | jq -c '{schema, host, boot_id, seq, verdict, pid}'
	assert_eq 3 "$(jq -s '[.[] | select(.verdict == "deny" and .filename == "/bin/true")] | length' <<<"$lines")" \
		"denials logged, one by each daemon"
	assert_eq 0 "$(jq -s --arg h "$host" --arg b "$boot" \
		'[.[] | select(.schema != 1 or .host != $h or .boot_id != $b or (.seq | type) != "number")] | length' \
		<<<"$lines")" "lines without schema 1, host $host, boot_id $boot and a number seq"
	jq -s -e '[.[].seq] as $s | all(range(1; $s | length); $s[.] > $s[. - 1])' <<<"$lines" >/dev/null ||
		fail "seq must go up from each line to the next, over the restart and the SIGKILL"
}
