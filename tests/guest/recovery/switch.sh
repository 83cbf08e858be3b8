# SPDX-License-Identifier: GPL-2.0
# A boot with argguard.mode=audit on the kernel command line, the recovery
# switch for a policy that locks the admin out: every apply in this boot is
# forced to audit mode, and argguard says so.

test_recovery_switch_forces_audit_mode_at_start() {
	local before record
	assert_eq active "$(systemctl is-active argguard.service)" "argguard.service's state"
	grep -q 'mode = enforce' "$POLICY_FILE" || fail "expected the policy file to say enforce"
	assert_eq audit "$(argguard policy show | awk '$1 == "mode" { print $3 }')" "the live mode"
	journalctl -b -u argguard.service -o cat --no-pager |
		grep 'recovery: argguard.mode=audit on the kernel command line' >/dev/null ||
		fail "expected the journal to say the recovery switch is in force"
	before=$(log_lines)
	expect allowed "a 1.5M exec under the 1M policy, in recovery" \
		"$HELPERS/execsize" 1500000 0 /bin/true
	record=$(records_since "$before" 1 | tail -n 1)
	assert_eq would-deny "$(jq -r .verdict <<<"$record")" "the record's verdict"
	assert_eq "audit mode: nothing is denied; would-deny is logged (probe exec denied)" \
		"$(systemctl show -p StatusText --value argguard.service)" "the unit's status text"
}

test_recovery_switch_holds_for_every_apply_in_the_boot() {
	apply_policy "[global]" "mode = enforce" "max_argc = 64"
	assert_eq audit "$(argguard policy show | awk '$1 == "mode" { print $3 }')" \
		"the live mode after applying an enforcing file"
	expect allowed "an exec of 100 arguments (over max_argc), in recovery" \
		"$HELPERS/execsize" 2000 0 /bin/true 100
	restore_policy
}
