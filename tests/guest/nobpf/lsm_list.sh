# SPDX-License-Identifier: GPL-2.0
# A boot whose lsm= leaves bpf out: argguard's programs could attach and
# never run. The service must fail, say why, and never claim to enforce.

test_service_fails_when_bpf_is_not_an_active_lsm() {
	local lsm
	lsm=$(cat /sys/kernel/security/lsm)
	echo "active LSMs: $lsm"
	if grep -qw bpf <<<"${lsm//,/ }"; then
		fail "expected a boot without the bpf LSM (lsm=capability)"
	fi
	assert_eq failed "$(systemctl is-active argguard.service || true)" "argguard.service's state"
	assert_eq 78 "$(systemctl show -p ExecMainStatus --value argguard.service)" \
		"the daemon's exit status (78: cannot enforce, no restart)"
	if [[ $(systemctl show -p StatusText --value argguard.service) == *enforcing* ]]; then
		fail "expected no status text that says enforcing"
	fi
}

test_status_and_journal_name_the_kernel_command_line_change() {
	local status want
	want="Add bpf to the kernel command line, as lsm=$(cat /sys/kernel/security/lsm),bpf"
	status=$(systemctl status argguard.service --no-pager -l 2>&1 || true)
	echo "$status"
	grep -qF "$want" <<<"$status" || fail "expected systemctl status to say: $want"
	journalctl -b -u argguard.service -o cat --no-pager |
		grep -F "$want" >/dev/null || fail "expected the journal to say: $want"
}

test_nothing_is_pinned_when_enforcement_cannot_be_proven() {
	if [[ -e $PIN_DIR ]]; then
		ls -l "$PIN_DIR"
		fail "expected no pins: programs that never run must not look loaded"
	fi
}

test_package_install_says_it_does_not_enforce() {
	local out lsm want
	lsm=$(cat /sys/kernel/security/lsm)
	want="argguard: not enforcing: bpf is not an active LSM ($lsm). Add bpf to the kernel"
	want+=" command line, as lsm=$lsm,bpf"
	out=$(dpkg -i /usr/lib/argguard/tests/debs/argguard.deb 2>&1 </dev/null) ||
		fail "dpkg -i failed: $out"
	echo "$out"
	grep -qF "$want" <<<"$out" || fail "expected dpkg -i to say: $want"
	assert_eq failed "$(systemctl is-active argguard.service || true)" "argguard.service's state"
}
