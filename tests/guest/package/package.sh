# SPDX-License-Identifier: GPL-2.0
# The package's life on one machine, in the order an admin lives it: the
# guest boots with the older package installed (vm/run.sh, package-suite),
# which is upgraded, reinstalled, removed, purged and installed afresh. Each
# step starts where the one before left the machine: the numbers keep that
# order.

NEW_DEB=/usr/lib/argguard/tests/debs/argguard.deb
REBUILT_DEB=/usr/lib/argguard/tests/debs/argguard-rebuilt.deb
WANTS=/etc/systemd/system/sysinit.target.wants/argguard.service
LOOP_OUT=/tmp/argguard-loop.out
LOOP_STOP=/tmp/argguard-loop.stop
OVERSIZED=3000000 # over the shipped policy's 2M, from an unlimited stack (UNLIMITED)
UNLIMITED=(prlimit --stack=unlimited)
# A unit with no stack limit, whose start execs OVERSIZED bytes: what
# argguard preflight is to name before an install in audit mode enforces.
BIG_STACK_UNIT=argguard-t-big-stack.service

package_status() { dpkg-query -W -f '${Status} ${Version}' argguard 2>/dev/null || echo absent; }

# The tag of the program behind the pinned bprm_check link.
pinned_prog_tag() {
	local prog
	prog=$(bpftool -j link show pinned "$PIN_DIR/link" | jq -r .prog_id)
	bpftool -j prog show id "$prog" | jq -r .tag
}

# start_exec_loop: in the background, oversized execs one after another
# until $LOOP_STOP appears; one outcome per line in $LOOP_OUT.
start_exec_loop() {
	rm -f "$LOOP_STOP"
	: >"$LOOP_OUT"
	while [[ ! -e $LOOP_STOP ]]; do
		outcome "${UNLIMITED[@]}" "$HELPERS/execsize" "$OVERSIZED" 0 /bin/true >>"$LOOP_OUT"
	done &
}

# wait_loop_lines N: wait up to 60 s for the loop to have judged N execs.
wait_loop_lines() {
	local i
	for ((i = 0; i < 600; i++)); do
		(($(wc -l <"$LOOP_OUT") >= $1)) && return 0
		sleep 0.1
	done
	fail "the exec loop judged fewer than $1 execs in 60 s"
}

assert_enforcing() {
	assert_eq active "$(systemctl is-active argguard.service)" "argguard.service's state ($1)"
	assert_eq "enforcing (probe exec denied)" \
		"$(systemctl show -p StatusText --value argguard.service)" "the unit's status text ($1)"
	expect E2BIG "a 3 MB exec ($1)" "${UNLIMITED[@]}" "$HELPERS/execsize" "$OVERSIZED" 0 /bin/true
}

test_1_older_package_boots_enabled_and_enforcing() {
	local v
	v=$(package_status)
	echo "installed: $v"
	[[ $v == "install ok installed "*"~prev1" ]] || fail "expected the older package installed, got '$v'"
	[[ $(readlink "$WANTS") == /lib/systemd/system/argguard.service ]] ||
		fail "expected $WANTS, as deb-systemd-helper enables it"
	assert_eq enabled "$(systemctl is-enabled argguard.service)" "systemctl is-enabled"
	assert_enforcing "at boot"
	dpkg -L argguard | grep -qx /usr/share/man/man8/argguard.8.gz || fail "expected argguard(8)"
	dpkg -L argguard | grep -qx /usr/share/man/man5/argguard.conf.5.gz ||
		fail "expected argguard.conf(5)"
	promtool check rules /usr/share/argguard/argguard-alerts.yml ||
		fail "expected the package's alert rules, valid for promtool"
	jq -e '.panels | length > 0' /usr/share/argguard/argguard-dashboard.json >/dev/null ||
		fail "expected the package's Grafana dashboard, with panels"
	dpkg -L argguard | grep -qx /usr/share/man/man5/argguard-records.5.gz ||
		fail "expected argguard-records(5)"
}

# The upgrade restarts the service (dh_installsystemd's default): the pinned
# links enforce while no daemon runs, and the new daemon attaches its own
# program, another build, before it swaps the pins.
test_2_upgrade_lets_no_exec_through_and_keeps_the_admins_conffiles() {
	local tag0 tag1 pid0 links0 links1 allowed denied
	echo "# the admin's own line" >>"$POLICY_FILE"
	tag0=$(pinned_prog_tag) pid0=$(daemon_pid) links0=$(pinned_link_ids)
	start_exec_loop
	wait_loop_lines 3
	dpkg -i "$NEW_DEB" </dev/null || fail "dpkg -i of the new package failed"
	local n
	n=$(wc -l <"$LOOP_OUT")
	wait_loop_lines $((n + 3))
	touch "$LOOP_STOP"
	wait
	allowed=$(grep -c '^allowed$' "$LOOP_OUT" || true)
	denied=$(grep -c '^E2BIG$' "$LOOP_OUT" || true)
	echo "during the upgrade: $denied denied, $allowed allowed, $(wc -l <"$LOOP_OUT") in all"
	assert_eq 0 "$allowed" "oversized execs let through during the upgrade"
	assert_eq "$(wc -l <"$LOOP_OUT")" "$denied" "oversized execs denied with E2BIG"

	[[ $(package_status) == "install ok installed "*[0-9] ]] ||
		fail "expected the new package installed, got '$(package_status)'"
	[[ $(daemon_pid) != "$pid0" ]] || fail "expected the upgrade to restart the daemon"
	tag1=$(pinned_prog_tag) links1=$(pinned_link_ids)
	echo "program tag $tag0 -> $tag1, links $links0-> $links1"
	[[ $tag1 != "$tag0" ]] || fail "expected the new build's program behind the pinned link"
	[[ $links1 != "$links0" ]] || fail "expected new links pinned in place of the old"
	assert_enforcing "after the upgrade"

	grep -qx "# the admin's own line" "$POLICY_FILE" || fail "the edited $POLICY_FILE was replaced"
	grep -q '^ARGGUARD_OPTS="--linux-audit' /etc/default/argguard ||
		fail "the edited /etc/default/argguard was replaced"
	local stray
	stray=$(find /etc/argguard /etc/default /etc/logrotate.d -name '*.dpkg-*')
	assert_eq "" "$stray" "files dpkg left beside the conffiles"
}

test_3_reinstall_of_the_same_version_adopts_the_pins() {
	local links0 out
	links0=$(pinned_link_ids)
	out=$(dpkg -i "$NEW_DEB" 2>&1 </dev/null) || fail "a second dpkg -i of the same package failed: $out"
	echo "$out"
	[[ $out != *"not enforcing"* ]] || fail "dpkg -i said argguard does not enforce where it does"
	assert_eq "$links0" "$(pinned_link_ids)" "the pinned links after a reinstall"
	daemon_says "adopted the pinned" || fail "expected the restarted daemon to adopt the pins"
	assert_enforcing "after a reinstall"
}

# A release whose programs kept their instructions (a change to a comment,
# say) is another build all the same: its daemon attaches its own programs,
# as their tags match the pinned ones, but the pinned .rodata names the
# other build, which a resume would refuse.
test_4_upgrade_to_a_build_with_the_same_instructions_attaches_its_own() {
	local tag0 links0 pid0
	# Run alone (ARGGUARD_TEST_FILTER), from the older package, it installs
	# the new one first, as the steps before leave it.
	if [[ $(package_status) != "install ok installed $(dpkg-deb -f "$NEW_DEB" Version)" ]]; then
		dpkg -i "$NEW_DEB" </dev/null || fail "dpkg -i of the new package failed"
	fi
	tag0=$(pinned_prog_tag) links0=$(pinned_link_ids) pid0=$(daemon_pid)
	dpkg -i "$REBUILT_DEB" </dev/null || fail "dpkg -i of the rebuilt package failed"
	[[ $(package_status) == "install ok installed "*+rebuilt1 ]] ||
		fail "expected the rebuilt package installed, got '$(package_status)'"
	[[ $(daemon_pid) != "$pid0" ]] || fail "expected the upgrade to restart the daemon"
	assert_eq "$tag0" "$(pinned_prog_tag)" "the program tag (the premise: same instructions)"
	[[ $(pinned_link_ids) != "$links0" ]] || fail "expected the rebuild's own links pinned"
	assert_enforcing "after the upgrade to a rebuild"
}

# The window of size counts across upgrades: one that keeps the maps counts
# each exec once; one whose maps are made afresh (here an older build's
# config map at its pin, as an upgrade that changed the maps' layout finds)
# carries their counts over in the state file. From the rebuild, as the
# step before leaves it, or from argguard.deb when run alone.
test_4b_counts_survive_an_upgrade_that_makes_the_maps_afresh() {
	local before start id
	big_argc_execs 3
	before=$(scope_argc_execs global) start=$(window_start) id=$(sizes_map_id)
	echo "before the upgrade: $before global execs of 4096+ args since $start, maps $id"
	((before >= 3)) || fail "expected the 3 execs of $BIG_ARGC args counted, got $before"
	dpkg -i "$REBUILT_DEB" </dev/null || fail "dpkg -i of the rebuilt package failed"
	assert_eq "$id" "$(sizes_map_id)" "the sizes map's id (the premise: the maps kept)"
	assert_eq "$before" "$(scope_argc_execs global)" "the execs of 4096+ args, maps kept"
	assert_eq "$start" "$(window_start)" "the window's start, maps kept"
	rm "$PIN_DIR/config"
	bpftool map create "$PIN_DIR/config" type array key 4 value 28 entries 1 name argguard_config
	dpkg -i "$REBUILT_DEB" </dev/null || fail "dpkg -i of the rebuilt package failed"
	daemon_says "making all maps afresh" || fail "expected the maps made afresh"
	[[ $(sizes_map_id) != "$id" ]] || fail "expected new maps"
	assert_eq "$before" "$(scope_argc_execs global)" "the execs of 4096+ args, maps made afresh"
	assert_eq "$start" "$(window_start)" "the window's start, maps made afresh"
	assert_enforcing "after an upgrade that made the maps afresh"
}

# apt-get remove, as a fleet runs it (argguard(8), ROLLOUT: the kill switch).
test_5_remove_ends_enforcement_and_keeps_the_conffiles() {
	# Run alone (ARGGUARD_TEST_FILTER), from the package as shipped: install
	# the one under test, whose prerm is to unload, and add the admin's line.
	if ! grep -qx "# the admin's own line" "$POLICY_FILE"; then
		dpkg -i "$NEW_DEB" </dev/null || fail "dpkg -i of the new package failed"
		echo "# the admin's own line" >>"$POLICY_FILE"
	fi
	apt-get remove -y argguard </dev/null || fail "apt-get remove failed"
	assert_eq "deinstall ok config-files" "$(package_status | cut -d' ' -f1-3)" "the package's state"
	[[ ! -e /usr/sbin/argguard ]] || fail "expected /usr/sbin/argguard to be gone"
	[[ ! -e $PIN_DIR ]] || fail "expected the pins to be gone"
	bpftool -j link show | jq -e 'map(select(.prog_type == "lsm")) | length == 0' >/dev/null ||
		fail "expected no LSM link left"
	expect allowed "a 3 MB exec once removed" "${UNLIMITED[@]}" "$HELPERS/execsize" "$OVERSIZED" 0 /bin/true
	grep -qx "# the admin's own line" "$POLICY_FILE" || fail "expected the site's $POLICY_FILE kept"
	[[ -f /etc/default/argguard ]] || fail "expected /etc/default/argguard kept"
	[[ -d /var/lib/argguard ]] || fail "expected the state in /var/lib/argguard kept until purge"
}

test_6_purge_removes_conffiles_state_and_logs() {
	local left=()
	dpkg --purge argguard </dev/null || fail "dpkg --purge failed"
	assert_eq absent "$(package_status | sed 's/^unknown ok not-installed.*/absent/')" \
		"the package's state"
	for f in /etc/argguard /etc/default/argguard /etc/logrotate.d/argguard /var/lib/argguard \
		/var/log/argguard "$PIN_DIR" "$WANTS"; do
		[[ ! -e $f && ! -L $f ]] || left+=("$f")
	done
	assert_eq "" "${left[*]}" "what purge left behind"
}

test_7_install_on_a_running_machine_starts_enforcing() {
	dpkg -i "$NEW_DEB" </dev/null || fail "dpkg -i after a purge failed"
	[[ $(readlink "$WANTS") == /lib/systemd/system/argguard.service ]] ||
		fail "expected $WANTS again"
	assert_enforcing "after a fresh install"
	assert_eq 2097152 "$(live_limit)" "the shipped policy's global limit"
}

# install_preseeded MODE: the package purged, then installed afresh with
# argguard/mode preseeded to MODE, as a fleet's preseed file would, and
# noninteractively, as apt runs under configuration management.
install_preseeded() {
	if [[ $(package_status) != absent ]]; then
		dpkg --purge argguard </dev/null || fail "dpkg --purge failed"
	fi
	echo "argguard argguard/mode select $1" | debconf-set-selections
	DEBIAN_FRONTEND=noninteractive dpkg -i "$NEW_DEB" </dev/null ||
		fail "dpkg -i preseeded to $1 failed"
}

# back_to_enforce: the site's file and the answer in enforce mode, the unit
# gone: the machine as test_7 leaves it, for the tests, and the mutants'
# good build, that follow.
back_to_enforce() {
	systemctl stop "$BIG_STACK_UNIT" 2>/dev/null || true
	rm -f "/etc/systemd/system/$BIG_STACK_UNIT"
	systemctl daemon-reload
	touch "$LOOP_STOP"
	echo "argguard argguard/mode select enforce" | debconf-set-selections
	if [[ -f $POLICY_FILE ]]; then
		sed -i 's/^mode = audit/mode = enforce/' "$POLICY_FILE"
		systemctl reload argguard.service || true # the next test says if it is not enforcing
	fi
}

make_big_stack_unit() {
	cat >"/etc/systemd/system/$BIG_STACK_UNIT" <<-UNIT
		[Service]
		Type=oneshot
		RemainAfterExit=yes
		LimitSTACK=infinity
		ExecStart=$HELPERS/execsize $OVERSIZED 0 /bin/true
	UNIT
	systemctl daemon-reload
}

# Preseeded to audit, the package installs over a loop of 3 MB execs from
# an unlimited stack and lets every one through, from before the programs
# attach to after the policy file applies; a unit with LimitSTACK=infinity
# then runs its 3 MB exec, logged as would-deny; and argguard preflight
# names that unit as one that enforce mode would break.
test_8_a_package_preseeded_to_audit_denies_nothing_and_preflight_names_the_big_stack_unit() {
	local allowed n before out json rc=0
	trap back_to_enforce EXIT
	if [[ $(package_status) != absent ]]; then
		dpkg --purge argguard </dev/null || fail "dpkg --purge failed"
	fi
	make_big_stack_unit
	start_exec_loop
	wait_loop_lines 3
	install_preseeded audit
	n=$(wc -l <"$LOOP_OUT")
	wait_loop_lines $((n + 3))
	touch "$LOOP_STOP"
	wait
	allowed=$(grep -c '^allowed$' "$LOOP_OUT" || true)
	echo "across the install: $allowed of $(wc -l <"$LOOP_OUT") oversized execs allowed"
	assert_eq "$(wc -l <"$LOOP_OUT")" "$allowed" "oversized execs let through across an install in audit mode"
	assert_eq "mode = audit          ; off | audit | enforce" "$(grep '^mode' "$POLICY_FILE")" \
		"the mode line the postinst wrote"
	assert_eq "audit mode: nothing is denied; would-deny is logged (probe exec denied)" \
		"$(systemctl show -p StatusText --value argguard.service)" "the unit's status text"
	assert_eq 1 "$(settings_json | jq .mode)" "the live mode (audit)"

	before=$(log_lines)
	systemctl start "$BIG_STACK_UNIT" || fail "$BIG_STACK_UNIT's 3 MB exec failed in audit mode"
	wait_log_lines $((before + 1)) || fail "no record of $BIG_STACK_UNIT's exec"
	tail -n +$((before + 1)) "$EVENT_LOG" | jq -e --arg cg "/system.slice/$BIG_STACK_UNIT" \
		'select(.verdict == "would-deny" and .cgroup == $cg and .total_bytes >= 3000000)' >/dev/null ||
		fail "expected a would-deny record of $BIG_STACK_UNIT's exec: $(tail -n +$((before + 1)) "$EVENT_LOG")"

	out=$(argguard preflight) || rc=$?
	echo "$out"
	assert_eq 1 "$rc" "argguard preflight's exit status (found some)"
	grep -qE "^$BIG_STACK_UNIT +unlimited +6M +2M total \(\[global\]\)\$" <<<"$out" ||
		fail "expected preflight to name $BIG_STACK_UNIT: no stack limit, the kernel's 6M, denied over 2M"
	rc=0
	json=$(argguard preflight --format json) || rc=$?
	assert_eq 1 "$rc" "argguard preflight --format json's exit status"
	jq -e --arg u "$BIG_STACK_UNIT" '.mode == "audit" and any(.units[]; .unit == $u and
		.stack_unlimited and .kernel_cap_bytes == 6291456 and .denies_over ==
		[{"limit": "max_total_bytes", "bytes": 2097152, "scope": "[global]"}])' <<<"$json" >/dev/null ||
		fail "expected preflight's JSON to name $BIG_STACK_UNIT: $json"
}

# An upgrade keeps the mode the site chose: the one it was installed in.
test_9a_an_upgrade_keeps_the_mode_the_site_chose() {
	trap back_to_enforce EXIT
	if ! grep -q '^mode = audit' "$POLICY_FILE" 2>/dev/null; then
		install_preseeded audit # run alone
	fi
	dpkg -i "$REBUILT_DEB" </dev/null || fail "the upgrade failed"
	grep -q '^mode = audit' "$POLICY_FILE" || fail "the upgrade changed the mode in $POLICY_FILE"
	assert_eq 1 "$(settings_json | jq .mode)" "the live mode after the upgrade (audit)"
	debconf-show argguard | grep -qx '\* argguard/mode: audit' ||
		fail "expected the answer audit kept: $(debconf-show argguard)"
}

# A mode the admin wrote into the policy file by hand, over the answer
# given at install (audit), is the package's answer from then on: a
# reinstall keeps it. A new answer to dpkg-reconfigure rewrites the mode
# line, and the service reloads it. It needs no install of its own: the
# answer and the file's edit are set as a site leaves them, and the one
# dpkg -i is the step under test.
test_9b_a_reinstall_keeps_the_mode_the_admin_wrote_by_hand() {
	local changed
	trap back_to_enforce EXIT
	echo "argguard argguard/mode select audit" | debconf-set-selections
	sed -i 's/^mode = [a-z]*/mode = enforce/' "$POLICY_FILE"
	systemctl reload argguard.service
	dpkg -i "$REBUILT_DEB" </dev/null || fail "the reinstall failed"
	grep -q '^mode = enforce' "$POLICY_FILE" || fail "the reinstall undid the admin's mode = enforce"
	assert_eq "enforcing (probe exec denied)" \
		"$(systemctl show -p StatusText --value argguard.service)" "the unit's status text"
	debconf-show argguard | grep -qx '\* argguard/mode: enforce' ||
		fail "expected the answer to follow the file: $(debconf-show argguard)"

	# dpkg-reconfigure, answered audit through debconf's editor frontend:
	# the mode line alone is rewritten, and the service reloads it.
	printf '#!/bin/sh\nsed -i "s|^argguard/mode=.*|argguard/mode=\\"audit\\"|" "$1"\n' \
		>/tmp/argguard-t-answer
	chmod 0755 /tmp/argguard-t-answer
	cp "$POLICY_FILE" /tmp/argguard-t-policy.before
	DEBIAN_FRONTEND=editor EDITOR=/tmp/argguard-t-answer dpkg-reconfigure argguard </dev/null ||
		fail "dpkg-reconfigure argguard failed"
	changed=$(diff /tmp/argguard-t-policy.before "$POLICY_FILE" || true) # 1: they differ
	assert_eq "-mode = enforce          ; off | audit | enforce +mode = audit          ; off | audit | enforce" \
		"$(sed -n 's/^< /-/p; s/^> /+/p' <<<"$changed" | tr '\n' ' ' | sed 's/ $//')" \
		"what dpkg-reconfigure changed in $POLICY_FILE"
	assert_eq 1 "$(settings_json | jq .mode)" "the live mode after dpkg-reconfigure (audit)"
}
