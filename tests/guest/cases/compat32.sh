# SPDX-License-Identifier: GPL-2.0
# 32-bit execs, through the kernel's compat execve and execveat
# (IA32_EMULATION, which Debian's kernels have): a static i386 execsize.
# They are judged as any exec, recorded with their head, their kernel
# refusals caught by the series' tracepoint, and argguard's own denials of
# them leave nothing behind (tests/guest/stock has the exits' side).

X32=$HELPERS/execsize32

test_32bit_execs_are_judged_and_recorded_with_their_head() {
	local limit r how
	limit=$(live_limit)
	for how in execve --memfd; do
		r=$(new_records 1 "$X32" ${how/execve/} --fill marker32 $((limit + 100)) 0 /bin/true)
		echo "$how: ${r:0:300}..."
		assert_eq "deny execsize32" "$(jq -r '"\(.verdict) \(.comm)"' <<<"$r")" "$how: verdict, comm"
		[[ $(jq -r '.argv_head[1]' <<<"$r") == marker32* ]] ||
			fail "$how: expected argv_head[1] to start with marker32"
	done
}

test_32bit_kernel_refusals_are_caught_with_their_head() {
	local r
	# Over the kernel's limit under a 1 MiB stack (256 KiB): refused before any LSM.
	r=$(new_records 1 bash -c "ulimit -s 1024 && exec $X32 300000 0 /bin/true")
	echo "record: ${r:0:300}..."
	assert_eq "kernel-refused execsize32" "$(jq -r '"\(.verdict) \(.comm)"' <<<"$r")" \
		"verdict and comm"
	assert_eq caller "$(jq -r .head_source <<<"$r")" "head_source (the kernel never copied it)"
	assert_eq /bin/true "$(jq -r '.argv_head[0]' <<<"$r")" "argv_head[0], read through 4-byte pointers"
}

test_32bit_denials_leave_nothing_in_denied_execs() {
	local limit i
	limit=$(live_limit)
	for ((i = 0; i < 20; i++)); do
		expect E2BIG "32-bit exec $i over the limit" "$X32" $((limit + 100)) 0 /bin/true
	done
	assert_eq 0 "$(denied_execs_entries)" "entries left in denied_execs"
}
