# SPDX-License-Identifier: GPL-2.0
# On a kernel without the series (this tree's stock build, Debian's own
# 6.1 and 6.12): the same argguard build loads, proves it enforces, and
# keeps its records.

test_stock_service_is_active_and_proves_it_enforces() {
	local lsm
	lsm=$(cat /sys/kernel/security/lsm)
	echo "$(uname -r), LSMs: $lsm"
	assert_eq active "$(systemctl is-active argguard.service)" "argguard.service's state"
	assert_eq "enforcing (probe exec denied)" \
		"$(systemctl show -p StatusText --value argguard.service)" "the unit's status text"
}

test_stock_exec_of_1_5M_under_the_site_policy_is_denied_and_logged() {
	local before record
	assert_eq 1048576 "$(live_limit)" "the suites' site policy's global limit"
	before=$(log_lines)
	expect E2BIG "a 1.5 MB exec" "$HELPERS/execsize" 1500000 0 /bin/true
	record=$(records_since "$before" 1 | tail -n 1)
	echo "record: $record"
	assert_eq deny "$(jq -r .verdict <<<"$record")" "the record's verdict"
	assert_eq 1500000 "$(jq -r .total_bytes <<<"$record")" "the record's total_bytes"
}

test_stock_2010_exploit_gives_a_kernel_refused_record() {
	local before out record
	before=$(log_lines)
	out=$(exploit_unlimited) || true
	assert_eq E2BIG "${out%% *}" "the 2010 exploit's errno"
	record=$(records_since "$before" 1 | jq -c 'select(.verdict == "kernel-refused")' | tail -n 1)
	echo "record: $record"
	[[ -n $record ]] || fail "expected a kernel-refused record for the 2010 exploit"
	assert_eq exploit2010 "$(jq -r .comm <<<"$record")" "the refused caller's comm"
}
