# SPDX-License-Identifier: GPL-2.0
# Run in the stock (unpatched) guests, 6.1 and Debian's: what the kernel as
# shipped already does, and how argguard falls back without the series.

# The series' selftest skips what needs the series, with a reason, rather
# than fail: so it can run in any kernel's kselftest run.
test_stock_kselftest_exec_arg_limits_skips() {
	local out passed skipped failed status
	out=$(run_kselftest arg_limits)
	echo "$out"
	read -r passed skipped failed status <<<"$(tail -n 1 <<<"$out")"
	assert_eq "0 0" "$failed $status" "failed cases and exit status"
	((skipped > 0)) || fail "expected the cases that need the series to skip"
}

# The BPF selftest of patch 3 (the patched 6.1 kernel's build) finds no
# bpf_bprm_read_argv in this kernel's BTF and skips, saying so; it loads
# nothing.
test_stock_kselftest_bpf_bprm_read_argv_skips() {
	local out passed skipped failed status
	out=$(run_bpf_selftest bprm_read_argv)
	echo "$out"
	read -r passed skipped failed status <<<"$(tail -n 1 <<<"$out")"
	assert_eq "0 1 0 0" "$passed $skipped $failed $status" \
		"passed, skipped, failed and exit status"
	grep -q "SKIP:no kfunc bpf_bprm_read_argv in this kernel" <<<"$out" ||
		fail "expected the skip to name the missing kfunc"
}

test_stock_pointer_flood_is_killed_by_sigkill_while_counting() {
	local pid status=0 t0 t1
	"$HELPERS/pointer_flood" $((1 << 28)) >/dev/null &
	pid=$!
	sleep 2 # 6.1 as shipped counts 2^28 pointers for tens of seconds
	kill -0 "$pid" 2>/dev/null || fail "expected the flood to still be counting after 2 s"
	t0=$(date +%s%N)
	kill -KILL "$pid"
	wait "$pid" || status=$? # killed: the status is asserted below
	t1=$(date +%s%N)
	echo "SIGKILL to reaped: $(((t1 - t0) / 1000)) us"
	assert_eq 137 "$status" "exit status of the killed flood (128 + SIGKILL)"
}

test_stock_argguard_denies_with_derived_sizes() {
	local limit before record
	limit=$(live_limit)
	before=$(log_lines)
	expect E2BIG "an exec one byte over the limit" "$HELPERS/execsize" $((limit + 1)) 0 /bin/true
	wait_log_lines $((before + 1)) || fail "expected a log record for the denied exec"
	record=$(tail -n 1 "$EVENT_LOG")
	echo "record: $record"
	assert_eq derived "$(jq -r .sizes <<<"$record")" "sizes on a stock kernel"
	assert_eq $((limit + 1)) "$(jq -r .total_bytes <<<"$record")" "total_bytes"
	assert_eq null "$(jq -r .argv_bytes <<<"$record")" "argv_bytes, unknowable on stock"
}

test_stock_loader_says_once_that_empty_argv_cannot_be_seen() {
	local n
	n=$(journalctl -b -u argguard.service -o cat | grep -c "argc == 0 cannot be seen" || true)
	assert_eq 1 "$n" "warnings about argc == 0 on a stock kernel"
}
