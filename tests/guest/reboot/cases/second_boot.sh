# SPDX-License-Identifier: GPL-2.0
# The second boot of one disk (tests/guest/reboot/prepare.sh ran on the
# first): no pins survive a reboot, the policy file names the cgroup of
# a unit that had not started when argguard applied it, and the size
# counts of the boot before are still in the report.

STATE=/var/lib/argguard-test

# unit_outcome NAME: what the boot unit NAME's exec came to, waiting for it.
unit_outcome() {
	local f=$STATE/$1.out i
	for ((i = 0; i < 600; i++)); do
		if [[ -s $f ]]; then
			cat "$f"
			return
		fi
		sleep 0.1
	done
	fail "expected $1.service to have run by now: $(systemctl status "$1.service" --no-pager 2>&1 | tail -n 5)"
}

# unit_record SIZE: the last record of an exec of SIZE bytes, which only one
# boot unit makes. Not by its cgroup: a oneshot's cgroup is gone by the time
# the daemon names it, and the record's cgroup is then null.
unit_record() {
	jq -c --argjson n "$1" 'select(.total_bytes == $n)' "$EVENT_LOG" | tail -n 1
}

test_second_boot_started_with_no_pins_and_applied_the_file() {
	local journal
	journal=$(journalctl -b -u argguard.service -o cat --no-pager)
	echo "$journal"
	grep -q 'applied /etc/argguard/argguard.conf' <<<"$journal" ||
		fail "expected argguard to apply the policy file at a fresh start"
	if grep -q 'keeping the pinned policy' <<<"$journal"; then
		fail "expected no pins left from the first boot"
	fi
	grep -q 'no cgroup /system.slice/argguard-t-late.service yet' <<<"$journal" ||
		fail "expected a warning, not an error, for the rule of a cgroup not made yet"
}

test_argguard_enforces_before_sysinit_target() {
	local ready sysinit
	ready=$(systemctl show -p ActiveEnterTimestampMonotonic --value argguard.service)
	sysinit=$(systemctl show -p ActiveEnterTimestampMonotonic --value sysinit.target)
	echo "argguard.service ready at ${ready} us, sysinit.target reached at ${sysinit} us"
	((ready > 0 && ready <= sysinit)) ||
		fail "expected argguard.service ready before sysinit.target was reached"
	assert_eq "enforcing (probe exec denied)" \
		"$(systemctl show -p StatusText --value argguard.service)" "the unit's status text"
}

test_late_unit_is_judged_by_the_rule_for_its_cgroup() {
	local record
	assert_eq E2BIG "$(unit_outcome argguard-t-late)" "a 100K exec in the late unit (64K rule)"
	record=$(unit_record 100000)
	echo "record: $record"
	assert_eq cgroup "$(jq -r .scope <<<"$record")" "the deciding rule's scope"
	assert_eq 65536 "$(jq -r .limit_value <<<"$record")" "the deciding limit"
}

test_unit_with_default_dependencies_is_judged() {
	local record
	assert_eq E2BIG "$(unit_outcome argguard-t-plain)" "a 1.5M exec at boot (1M global rule)"
	record=$(unit_record 1500000)
	echo "record: $record"
	assert_eq global "$(jq -r .scope <<<"$record")" "the deciding rule's scope"
	assert_eq deny "$(jq -r .verdict <<<"$record")" "the verdict"
}

# The maps of the boot before are gone; the state file carried their
# counts, each once, into this boot's window, which starts when that one did.
test_counts_survive_a_reboot() {
	local before start report
	before=$(jq .argc_4096 "$STATE/sizes-before.json") start=$(jq -r .start "$STATE/sizes-before.json")
	echo "the boot before kept $before global execs of 4096+ args, in a window since $start"
	((before >= 3)) || fail "expected the boot before to have kept its 3 execs, got $before"
	report=$(argguard report --format json)
	assert_eq "$before" "$(scope_argc_execs global)" \
		"the global execs of 4096+ args the boot before counted"
	assert_eq "$start" "$(jq -r .window.start <<<"$report")" "the window's start"
	assert_eq "$(cat /proc/sys/kernel/random/boot_id)" "$(jq -r .boot_id <<<"$report")" \
		"the report's boot id"
	assert_eq "$(cat /proc/sys/kernel/random/boot_id)" "$(jq -r .maps.boot_id "$SIZES_STATE")" \
		"the boot whose maps the state file names now"
	daemon_says "counting exec sizes in a window since $start" ||
		fail "expected the daemon to say its window starts at $start"
}
