# SPDX-License-Identifier: GPL-2.0
# Bounded by default, and records no one can forge: what the package ships
# (its policy file, its unit) keeps one user's records, and the log's size,
# within bounds, journald keeps every record argguard sends it, and the
# journal query the documentation gives finds argguard's records only.

SHIPPED_DEB=/usr/lib/argguard/tests/debs/argguard.deb

# shipped FILE: FILE (an absolute path) as the package ships it.
shipped() { dpkg-deb --fsys-tarfile "$SHIPPED_DEB" | tar -xO ".$1"; }

# use_shipped_policy: the policy file as the package installs it (its
# template, in debconf's default mode, enforce), applied;
# put_back_site_policy undoes it.
use_shipped_policy() {
	cp "$POLICY_FILE" /tmp/argguard-site.conf
	shipped /usr/share/argguard/argguard.conf >"$POLICY_FILE"
	restore_policy
}

put_back_site_policy() {
	[[ -f /tmp/argguard-site.conf ]] && mv /tmp/argguard-site.conf "$POLICY_FILE"
	restore_policy
}

# nobody_records LINES: nobody's denials in the log past its first LINES lines.
nobody_records() {
	tail -n +$(($1 + 1)) "$EVENT_LOG" | complete_lines |
		jq -c 'select(.uid == 65534 and .comm == "exec_storm" and .verdict == "deny")' | wc -l
}

# The execs the global rules have denied since the programs were loaded.
global_denials() { argguard status --format=json | jq -e .decisions.global.deny; }

# Under the package's own policy file, user nobody floods denied execs, and
# root makes one once nobody's burst is spent: nobody's records stay within
# its rate (event_burst at once, then event_rate a second), the summaries
# count every one held back for uid 65534, and root's record is logged.
test_shipped_policy_keeps_one_users_records_within_its_rate() {
	local rate burst limit before t0 t1 flood refused records held root allowed i denied denied0
	trap put_back_site_policy EXIT
	use_shipped_policy
	rate=$(settings_json | jq .event_rate) burst=$(settings_json | jq .event_burst)
	limit=$(live_limit)
	sleep 1.5 # let an earlier summary go out before counting
	before=$(log_lines) denied0=$(global_denials)
	t0=${EPOCHREALTIME/./}
	# Over the shipped 2M, only a raised stack gets an exec to argguard at
	# all: with Debian's 8 MiB, the kernel refuses it first.
	setpriv --reuid=65534 --regid=65534 --clear-groups prlimit --stack=unlimited \
		"$HELPERS/exec_storm" 0 $((limit + 1)) \
		>/tmp/argguard-flood.out &
	flood=$!
	for ((i = 0; i < 150; i++)); do # nobody's burst spent, its records logged
		records=$(nobody_records "$before")
		((records < burst || records == 0)) || break
		sleep 0.2
	done
	expect E2BIG "root's offending exec, during the flood" \
		prlimit --stack=unlimited "$HELPERS/execsize" $((limit + 1)) 0 /bin/true
	# nobody's flood goes on until it has outrun its rate; on a loaded host
	# its execs come slowly, and that takes longer than a few seconds.
	for ((i = 0; i < 60; i++)); do
		sleep 0.5
		denied=$(($(global_denials) - denied0))
		if ((i >= 6 && denied > burst + rate * ((${EPOCHREALTIME/./} - t0) / 1000000 + 2))); then
			break
		fi
	done
	kill -TERM "$flood"
	wait "$flood" || fail "the flood had an exec allowed: $(cat /tmp/argguard-flood.out)"
	t1=${EPOCHREALTIME/./}
	refused=$(cat /tmp/argguard-flood.out)
	[[ $refused =~ ^[0-9]+$ ]] || fail "the flood had an exec allowed (it printed no count)"
	for ((i = 0; i < 60; i++)); do
		records=$(nobody_records "$before")
		held=$(tail -n +$((before + 1)) "$EVENT_LOG" | jq -s '[.[] | select(.verdict == "summary") |
			.suppressed_by_uid[] | select(.uid == 65534) | .suppressed] | add // 0')
		((records + held < refused)) || break
		sleep 0.5
	done
	root=$(tail -n +$((before + 1)) "$EVENT_LOG" |
		jq -c 'select(.uid == 0 and .comm == "execsize" and .verdict == "deny")')
	# GCRA: over d seconds, at most event_burst + event_rate * d records.
	allowed=$((burst + rate * ((t1 - t0 + 999999) / 1000000)))
	echo "shipped: event_rate $rate, event_burst $burst; nobody's $refused refused execs in $(((t1 - t0) / 1000)) ms: $records records, $held held back (summaries); at most $allowed allowed"
	((rate > 0)) || fail "expected the shipped policy to set event_rate: it lets nobody write all $records records"
	((refused > allowed)) || fail "expected nobody's flood to outrun its rate: $refused execs, $allowed allowed"
	((records <= allowed)) || fail "expected at most $allowed records of nobody's flood, got $records"
	assert_eq "$refused" $((records + held)) "nobody's records + those the summaries count held back for uid 65534"
	[[ -n $root ]] || fail "expected root's record, logged during nobody's flood"
}

# The journal query argguard(8) gives for denials, as installed: its match
# words (between "journalctl" and its first option).
documented_deny_query() {
	local line
	# roff: \& is nothing, \- a hyphen, \e a backslash.
	line=$(zcat /usr/share/man/man8/argguard.8.gz | sed -e 's/\\&//g' -e 's/\\-/-/g' -e 's/\\e/\\/g' |
		grep -m 1 '^journalctl .*ARGGUARD_VERDICT=deny') ||
		fail "expected argguard(8) to give a journalctl query for denials"
	line=${line#journalctl }
	echo "${line%% -*}"
}

# journal_has MATCH...: journalctl finds an entry for MATCH (waits up to 5 s).
journal_has() {
	local i
	for ((i = 0; i < 50; i++)); do
		[[ -n $(journalctl -o json "$@" | head -c 1) ]] && return 0
		sleep 0.1
	done
	return 1
}

# Any user can send journald an entry with argguard's fields (its native
# socket takes them from anyone): the query argguard(8) documents must not
# return one, and must return a real denial.
test_forged_journal_entry_is_not_returned_by_the_documented_query() {
	local forged=$((4000000 + RANDOM)) query records pid
	read -ra query <<<"$(documented_deny_query)"
	echo "argguard(8): journalctl ${query[*]}"
	printf '%s\n' "MESSAGE=argguard: deny: forged by nobody" ARGGUARD_VERDICT=deny \
		"ARGGUARD_PID=$forged" SYSLOG_IDENTIFIER=argguard |
		setpriv --reuid=65534 --regid=65534 --clear-groups logger --journald
	journal_has ARGGUARD_VERDICT=deny ARGGUARD_PID=$forged ||
		fail "expected journald to have nobody's forged entry: the test forged nothing"
	records=$(new_records 1 "$HELPERS/execsize" $(($(live_limit) + 1)) 0 /bin/true)
	pid=$(jq -r .pid <<<"$records")
	journal_has "${query[@]}" ARGGUARD_PID="$pid" ||
		fail "expected the documented query to return the denial of pid $pid"
	[[ -z $(journalctl -o json "${query[@]}" ARGGUARD_PID=$forged) ]] ||
		fail "the documented query (journalctl ${query[*]}) returns nobody's forged entry"
}

# journald drops what a unit logs past its rate limit (RateLimitBurst= in
# journald.conf, here lowered to 10 in 30 s), and argguard's journal sink
# cannot see it. The unit lifts that limit for argguard, whose own rates
# bound what it sends: every record it sends is in the journal, or counted
# lost by a summary.
test_journald_keeps_every_record_argguard_sends() {
	local n=300 conf=/etc/systemd/journald.conf.d/argguard-test.conf before spid logged journal lost i
	# Debian 12's journald turns the kernel's auditing off each time it
	# starts (auditd turns it on at boot): turn it on again, as it was.
	trap 'rm -f '"$conf"'; systemctl restart systemd-journald; auditctl -e 1 >/dev/null; restore_policy' EXIT
	mkdir -p "${conf%/*}"
	printf '[Journal]\nRateLimitIntervalSec=30s\nRateLimitBurst=10\n' >"$conf"
	systemctl restart systemd-journald
	auditctl -e 1 >/dev/null
	apply_policy "[global]" "mode = enforce" "allow_lockout = yes" "max_total_bytes = 4K"
	sleep 1.5 # let an earlier summary go out before counting
	before=$(log_lines)
	"$HELPERS/exec_storm" $n 8000 >/tmp/argguard-journal-storm.out &
	spid=$!
	wait "$spid" || fail "the storm had an exec allowed: $(cat /tmp/argguard-journal-storm.out)"
	for ((i = 0; i < 120; i++)); do
		tail -n +$((before + 1)) "$EVENT_LOG" | complete_lines >/tmp/argguard-journal-storm.log
		logged=$(jq -c "select(.pid == $spid and .verdict == \"deny\")" /tmp/argguard-journal-storm.log | wc -l)
		journal=$(journalctl -o json _SYSTEMD_UNIT=argguard.service _UID=0 ARGGUARD_PID=$spid | wc -l)
		lost=$(jq -s '[.[] | select(.verdict == "summary") | .lost_by_sink.journald // 0] | add // 0' \
			/tmp/argguard-journal-storm.log)
		((logged < n || journal + lost < n)) || break
		sleep 0.5
	done
	echo "$n refused: $logged in the log, $journal in the journal, $lost counted lost by the journal sink"
	assert_eq $n "$logged" "records in the log"
	assert_eq $n $((journal + lost)) "records in the journal + those the summaries count lost"
}

# put_back_capped_log: the site's log (moved to $EVENT_LOG.site) goes back,
# with what was written meanwhile appended. The test's stand-in for a big
# log (sparse, so all NULs) goes: $EVENT_LOG.full, or $EVENT_LOG itself if
# the test ended before it was rotated away.
put_back_capped_log() {
	rm -f "$EVENT_LOG.full"
	if [[ -f $EVENT_LOG && $(head -c 1 "$EVENT_LOG" | od -An -tx1) == " 00" ]]; then
		rm -f "$EVENT_LOG"
	fi
	if [[ -f $EVENT_LOG.site ]]; then
		[[ ! -f $EVENT_LOG ]] || cat "$EVENT_LOG" >>"$EVENT_LOG.site"
		mv "$EVENT_LOG.site" "$EVENT_LOG"
	fi
	reopen_log
}

# The unit caps the size of any file the daemon writes (LimitFSIZE=): a log
# that logrotate has not yet rotated stops there. The daemon keeps running,
# holds the records (a write cut short is cut back to whole records), and
# writes them once logrotate has moved the full log away.
test_log_stops_at_the_units_file_size_limit_until_rotated() {
	local cap limit pid0 i
	cap=$(systemctl show -p LimitFSIZE --value argguard.service)
	[[ $cap =~ ^[0-9]+$ ]] || fail "expected argguard.service to cap the log's size (LimitFSIZE=), got '$cap'"
	limit=$(live_limit) pid0=$(daemon_pid)
	trap put_back_capped_log EXIT
	mv "$EVENT_LOG" "$EVENT_LOG.site"
	truncate -s $((cap - 100)) "$EVENT_LOG" # a full log, as sparse as it is big
	reopen_log
	sleep 0.5
	for ((i = 0; i < 3; i++)); do
		expect E2BIG "exec $i over the limit, the log full" "$HELPERS/execsize" $((limit + 1)) 0 /bin/true
	done
	daemon_says "it has reached the size limit" || fail "expected the daemon to say the log met its size limit"
	sleep 1
	assert_eq "$pid0" "$(daemon_pid)" "the daemon's pid, the log full"
	assert_eq $((cap - 100)) "$(stat -c %s "$EVENT_LOG")" "the full log's size (no part of a record left)"
	mv "$EVENT_LOG" "$EVENT_LOG.full" # logrotate
	reopen_log
	wait_log_lines 3 || true # counted below
	assert_eq 3 "$(jq -c 'select(.comm == "execsize" and .verdict == "deny")' "$EVENT_LOG" | wc -l)" \
		"records held while the log was full, written after its rotation"
}

# The shipped logrotate configuration rotates a log past its maxsize at
# logrotate's next run, whenever the log was last rotated (here: never, by
# a state file of its own, so not yet due weekly).
test_logrotate_rotates_a_big_log_at_its_next_run() {
	local size=$((40 << 20))
	trap 'rm -f /tmp/argguard-logrotate.state; put_back_capped_log' EXIT
	mv "$EVENT_LOG" "$EVENT_LOG.site"
	truncate -s $size "$EVENT_LOG"
	logrotate -s /tmp/argguard-logrotate.state /etc/logrotate.d/argguard
	[[ -f $EVENT_LOG.1 ]] || fail "expected logrotate to rotate a log of $size bytes (no maxsize?)"
	assert_eq $size "$(stat -c %s "$EVENT_LOG.1")" "the rotated log's size"
	mv "$EVENT_LOG.1" "$EVENT_LOG.full" # put_back_capped_log removes it
}

# logrotate keeps a rotated log's owner and mode (root:adm 0640): a restart
# of the service must leave them, so that group adm can still read them.
test_restart_keeps_rotated_logs_readable_by_group_adm() {
	local f=/var/log/argguard/events.jsonl.9
	trap 'rm -f '"$f"' '"$f"'.gz' EXIT
	echo '{"verdict": "deny"}' >"$f"
	gzip -k "$f"
	chown root:adm "$f" "$f.gz"
	chmod 0640 "$f" "$f.gz"
	systemctl restart argguard.service
	assert_eq "root:adm 750" "$(stat -c '%U:%G %a' /var/log/argguard)" "the log directory's owner and mode"
	assert_eq "root:adm 640" "$(stat -c '%U:%G %a' "$f")" "a rotated log's owner and mode"
	assert_eq "root:adm 640" "$(stat -c '%U:%G %a' "$f.gz")" "a compressed rotated log's owner and mode"
	setpriv --reuid="$TESTER" --regid="$TESTER" --groups=adm zcat "$f.gz" >/dev/null ||
		fail "expected a member of group adm to read $f.gz"
}
