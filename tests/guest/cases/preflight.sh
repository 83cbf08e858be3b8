# SPDX-License-Identifier: GPL-2.0
# argguard preflight on a live machine: the real systemd's units, as the
# unit tests' faked systemctl cannot show them.

PREFLIGHT_UNIT=argguard-t-preflight-unlimited.service

# A unit with no stack limit that runs nothing now (never started) is
# named all the same: its next start could exec what the limits deny.
test_preflight_names_a_unit_with_no_stack_limit_that_runs_nothing_now() {
	local out json rc=0
	trap 'rm -f "/etc/systemd/system/$PREFLIGHT_UNIT"; systemctl daemon-reload' EXIT
	cat >"/etc/systemd/system/$PREFLIGHT_UNIT" <<-UNIT
		[Service]
		Type=oneshot
		LimitSTACK=infinity
		ExecStart=/bin/true
	UNIT
	systemctl daemon-reload
	out=$(argguard preflight) || rc=$?
	echo "$out"
	assert_eq 1 "$rc" "argguard preflight's exit status (found some)"
	grep -qE "^$PREFLIGHT_UNIT +unlimited +6M " <<<"$out" ||
		fail "expected preflight to name $PREFLIGHT_UNIT: no stack limit, the kernel's 6M"
	rc=0
	json=$(argguard preflight --format json) || rc=$?
	assert_eq 1 "$rc" "argguard preflight --format json's exit status"
	jq -e --arg u "$PREFLIGHT_UNIT" 'any(.units[]; .unit == $u and .stack_unlimited and
		.kernel_cap_bytes == 6291456)' <<<"$json" >/dev/null ||
		fail "expected preflight's JSON to name $PREFLIGHT_UNIT: $json"
}
