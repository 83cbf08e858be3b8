# SPDX-License-Identifier: GPL-2.0
# The walking skeleton, end to end: patched kernel, service, pins, limit, log.

test_guest_runs_the_patched_kernel_with_bpf_lsm() {
	local release
	release=$(uname -r)
	echo "uname -r: $release; lsm: $(cat /sys/kernel/security/lsm)"
	[[ $release == *-argguard ]] || fail "expected a release ending in -argguard, got $release"
	grep -qw bpf /sys/kernel/security/lsm || fail "expected bpf in /sys/kernel/security/lsm"
	bpftool btf dump file /sys/kernel/btf/vmlinux format c | grep 'argv_bytes;' >/dev/null ||
		fail "expected linux_binprm.argv_bytes in the kernel's BTF (patch missing?)"
}

test_argguard_service_is_active_and_pinned() {
	local pin link
	if [[ $(systemctl is-active argguard.service) != active ]]; then
		journalctl -b -u argguard.service --no-pager | tail -n 40
		fail "expected argguard.service to be active"
	fi
	for pin in config settings probe global_rules setuid_rules uid_rules cgroup_rules cgroup_ids \
		cgroup_patterns cgroup_index counters drops uid_buckets events sizes largest link link_creds \
		link_exec_args_failed link_cgroup_mkdir link_cgroup_rmdir; do
		[[ -e $PIN_DIR/$pin ]] || fail "expected $PIN_DIR/$pin to exist"
	done
	# The series' tracepoint reports kernel refusals: no exit of the exec
	# syscalls costs every exec a trampoline.
	for pin in link_execve link_execveat link_compat_execve link_compat_execveat; do
		[[ ! -e $PIN_DIR/$pin ]] || fail "expected no $PIN_DIR/$pin on a kernel with the tracepoint"
	done
	assert_eq '["lsm_mac","lsm_mac"]' \
		"$(bpftool -j link show | jq -c '[.[] | select(.type == "tracing") | .attach_type]')" \
		"the tracing links' attach types (bprm_check, bprm_creds_from_file: no fexit)"
	assert_eq '["cgroup_mkdir","cgroup_rmdir","sched_process_exec_args_failed_tp"]' \
		"$(bpftool -j link show | jq -c '[.[] | select(.type == "raw_tracepoint") | .tp_name] | sort')" \
		"the raw tracepoint links"
	link=$(bpftool -j link show pinned "$PIN_DIR/link")
	echo "link: $link"
	assert_eq lsm_mac "$(jq -r .attach_type <<<"$link")" "the pinned link's attach type"
	loads_saw_the_series
}

# Every load this boot, the lifecycle tests' included, found the series in
# the kernel's BTF: one that did not would run the programs for a stock kernel.
loads_saw_the_series() {
	local loads
	loads=$(journalctl -b -u argguard.service --no-pager -o cat | grep "the kernel's BTF: ") ||
		fail "expected the daemon to log what the kernel's BTF has at each load"
	echo "loads: $(wc -l <<<"$loads")"
	grep -v "exact sizes yes, kernel argv head yes, refusal tracepoint yes, 32-bit execs yes" \
		<<<"$loads" && fail "expected every load to find the whole series and IA32_EMULATION"
	return 0
}

test_2010_exploit_fails_with_e2big_and_guest_stays_up() {
	local out
	out=$(outcome "$HELPERS/exploit2010" /bin/true)
	assert_eq E2BIG "${out%% *}" "the 2010 exploit's errno"
	/bin/true || fail "expected the guest to still run programs after the exploit"
}

test_exec_over_limit_is_denied_and_logged_once() {
	local limit before after record argv_bytes envp_bytes=1000
	limit=$(live_limit)
	((limit > 2000)) || fail "expected a configured limit above 2000 bytes, got '$limit'"
	argv_bytes=$((limit - envp_bytes))
	before=$(log_lines)

	"$HELPERS/execsize" "$argv_bytes" "$envp_bytes" /bin/true ||
		fail "expected an exec of exactly the limit ($limit bytes) to succeed"
	expect E2BIG "an exec one byte over the limit" \
		"$HELPERS/execsize" $((argv_bytes + 1)) "$envp_bytes" /bin/true

	wait_log_lines $((before + 1)) || fail "expected a log record for the denied exec"
	sleep 0.5 # a record for the allowed exec, if any, would be here by now
	after=$(log_lines)
	assert_eq $((before + 1)) "$after" "number of new log records"
	record=$(tail -n 1 "$EVENT_LOG")
	echo "record: $record"
	assert_eq deny "$(jq -r .verdict <<<"$record")" "verdict"
	assert_eq $((argv_bytes + 1)) "$(jq -r .argv_bytes <<<"$record")" "argv_bytes"
	assert_eq "$envp_bytes" "$(jq -r .envp_bytes <<<"$record")" "envp_bytes"
	assert_eq "$limit" "$(jq -r .limit_value <<<"$record")" "limit_value"
	assert_eq /bin/true "$(jq -r .filename <<<"$record")" "filename"
}

test_bpftool_update_changes_the_limit_live() {
	local old new=65536
	old=$(live_limit)
	trap "bpftool_set_limit $old" EXIT
	bpftool_set_limit "$new" || fail "bpftool map update failed"
	assert_eq "$new" "$(live_limit)" "limit read back"
	expect E2BIG "an exec just over the new limit" "$HELPERS/execsize" $((new + 1)) 0 /bin/true
	bpftool_set_limit "$old" || fail "could not restore the limit"
	"$HELPERS/execsize" $((new + 1)) 0 /bin/true ||
		fail "expected the restored limit ($old) to allow $((new + 1)) bytes"
}

test_patched_kernel_loader_gives_no_stock_warning() {
	local n
	n=$(journalctl -b -u argguard.service -o cat | grep -c "argc == 0 cannot be seen" || true)
	assert_eq 0 "$n" "warnings about argc == 0 on the patched kernel"
}
