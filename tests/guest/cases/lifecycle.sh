# SPDX-License-Identifier: GPL-2.0
# One daemon at a time, and a clean unload.

test_second_run_refuses_while_one_is_live() {
	local out
	out=$(timeout 10 argguard run 2>&1) && fail "a second argguard run started"
	echo "$out"
	[[ $out == *"another argguard run is live (pid $(systemctl show -p MainPID --value argguard))"* ]] ||
		fail "expected the refusal to name the live daemon's pid"
	assert_eq active "$(systemctl is-active argguard.service)" "the first daemon afterwards"
}

test_unload_detaches_and_unpins_everything() {
	local out limit
	trap 'systemctl start argguard.service' EXIT
	limit=$(live_limit)
	out=$(argguard unload 2>&1) && fail "unload went ahead while the daemon ran"
	echo "while live: $out"
	systemctl stop argguard.service
	expect E2BIG "an exec over the limit, the daemon stopped: the pins still enforce" \
		"$HELPERS/execsize" $((limit + 1)) 0 /bin/true
	out=$(argguard unload) || fail "unload failed: $out"
	echo "$out"
	[[ $out == *"unloaded"* ]] || fail "expected unload to say what it did"
	[[ ! -e $PIN_DIR ]] || fail "expected $PIN_DIR to be gone"
	bpftool -j link show | jq -e 'map(select(.prog_type == "lsm")) | length == 0' >/dev/null ||
		fail "expected no LSM link left"
	expect allowed "the same exec after unload" "$HELPERS/execsize" $((limit + 1)) 0 /bin/true
	systemctl start argguard.service
	expect E2BIG "the same exec after a fresh start" \
		"$HELPERS/execsize" $((limit + 1)) 0 /bin/true
}
