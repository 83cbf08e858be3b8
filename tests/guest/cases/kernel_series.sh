# SPDX-License-Identifier: GPL-2.0
# The kernel series and the 2010 fixes it builds on, in the patched kernel.
# kernel-patches/README.md maps each fix to the test that proves it.

CG_ROOT=/sys/fs/cgroup

# in_new_cgroup NAME CMD...: run CMD alone in a fresh cgroup; prints nothing.
# Each step says when it fails: outcome runs this where errexit is off.
in_new_cgroup() {
	local cg=$CG_ROOT/$1
	shift
	grep -qw memory "$CG_ROOT/cgroup.subtree_control" ||
		echo +memory >"$CG_ROOT/cgroup.subtree_control" || return
	rmdir "$cg" 2>/dev/null || true # a leftover of an earlier run
	mkdir "$cg" || return
	(echo "$BASHPID" >"$cg/cgroup.procs" && exec "$@")
}

# The series' selftest, native and i386: every case runs and passes here, as
# root with the sysctl, user namespaces and an unlimited hard stack limit.
test_kselftest_exec_arg_limits_passes() {
	local out passed skipped failed status
	out=$(run_kselftest arg_limits)
	echo "$out"
	read -r passed skipped failed status <<<"$(tail -n 1 <<<"$out")"
	assert_eq "0 0 0" "$skipped $failed $status" "skipped, failed and exit status"
	((passed > 0)) || fail "expected the selftests to run cases"
}

# Patch 3's BPF selftest: an LSM program reads argv through the kfunc, byte
# for byte, for a plain exec, an empty argv and a script (-ENODATA on the
# interpreter's pass), and the verifier refuses the kfunc to a tp_btf
# program. The test and its four subtests all pass; none skips. argguard's
# own empty_argv = deny would refuse the empty argv's exec: allowed here.
test_kselftest_bpf_bprm_read_argv_passes() {
	local out passed skipped failed status sub
	trap restore_policy EXIT
	apply_policy '[global]' 'mode = enforce' 'empty_argv = allow'
	out=$(run_bpf_selftest bprm_read_argv)
	echo "$out"
	read -r passed skipped failed status <<<"$(tail -n 1 <<<"$out")"
	assert_eq "5 0 0 0" "$passed $skipped $failed $status" \
		"passed (the test and 4 subtests), skipped, failed and exit status"
	for sub in argv empty_argv script tracing_refused; do
		grep -qE "^  ok [0-9]+ test_bprm_read_argv/$sub\$" <<<"$out" ||
			fail "expected subtest $sub to pass"
	done
}

test_2010_exploit_peak_memory_stays_within_the_cap() {
	local base peak out cap=$((6 << 20)) slack=$((2 << 20))
	in_new_cgroup argguard-t-base "$HELPERS/execsize" 10 0 /bin/true ||
		fail "baseline exec failed"
	base=$(cat "$CG_ROOT/argguard-t-base/memory.peak")
	out=$(outcome in_new_cgroup argguard-t-2010 "$HELPERS/exploit2010" /bin/true)
	peak=$(cat "$CG_ROOT/argguard-t-2010/memory.peak")
	rmdir "$CG_ROOT/argguard-t-base" "$CG_ROOT/argguard-t-2010"
	echo "exploit: $out; cgroup memory.peak $peak bytes, baseline exec $base bytes"
	assert_eq E2BIG "${out%% *}" "the exploit's errno"
	((peak <= base + cap + slack)) ||
		fail "expected peak <= baseline + 6 MiB cap + 2 MiB, got $peak (baseline $base)"
}

test_pointer_flood_fails_with_e2big_at_once() {
	local out
	out=$(outcome "$HELPERS/pointer_flood" $((1 << 28)))
	echo "2^28 argv pointers: $out"
	assert_eq E2BIG "${out%% *}" "errno of a 2^28-pointer flood"
	out=$(outcome "$HELPERS/pointer_flood" $((1 << 28)) envp)
	echo "2^28 envp pointers: $out"
	assert_eq E2BIG "${out%% *}" "errno of a 2^28-pointer envp flood"
}

test_exec_arg_max_caps_even_an_unlimited_stack() {
	local plain exploit
	trap 'echo 0 >/proc/sys/fs/exec_arg_max' EXIT
	echo 262144 >/proc/sys/fs/exec_arg_max
	plain=$(ulimit -s unlimited && outcome "$HELPERS/execsize" 300000 0 /bin/true)
	exploit=$(ulimit -s unlimited && outcome "$HELPERS/exploit2010" /bin/true)
	echo "at fs.exec_arg_max=262144 with ulimit -s unlimited: 300000 bytes: $plain; the exploit: $exploit"
	assert_eq E2BIG "$plain" "errno of a 300000-byte exec"
	assert_eq E2BIG "${exploit%% *}" "errno of the 2010 exploit"
}

test_concurrent_huge_execs_oom_only_inside_their_cgroup() {
	local cg=$CG_ROOT/argguard-t-oom n=16 i before after inside pids=()
	before=$(awk '$1 == "oom_kill" { print $2 }' /proc/vmstat)
	in_new_cgroup argguard-t-oom true
	echo $((32 << 20)) >"$cg/memory.max"
	for ((i = 0; i < n; i++)); do
		(echo "$BASHPID" >"$cg/cgroup.procs" && ulimit -s unlimited &&
			exec "$HELPERS/exploit2010" /bin/true) >/dev/null &
		pids+=($!)
	done
	wait "${pids[@]}" || true
	after=$(awk '$1 == "oom_kill" { print $2 }' /proc/vmstat)
	inside=$(awk '$1 == "oom_kill" { print $2 }' "$cg/memory.events")
	echo "$n execs in a 32 MiB cgroup: oom kills inside $inside, system-wide $((after - before)); peak $(cat "$cg/memory.peak")"
	rmdir "$cg"
	assert_eq "$inside" $((after - before)) "OOM kills system-wide (all of them inside the cgroup)"
	local t0 t1
	t0=$(date +%s%N)
	assert_eq active "$(systemctl is-active argguard.service)" "argguard.service after the storm"
	t1=$(date +%s%N)
	echo "systemctl answered in $(((t1 - t0) / 1000000)) ms after the storm"
}

# Patch 4's tracepoint is bare: its BTF type is there for BPF, tracefs has
# no event for it. argguard's program on it records a script whose #! line
# no longer fits in what its arguments left (binfmt_script's copy fails,
# after argguard allowed the exec), and nothing for the same exec with a
# shorter line, which fits to the byte. Under a 262144-byte cap, 4 argument
# pointers take 32 bytes and the script's name 22: 261990 argument bytes
# leave 100, which "/bin/true" (10 bytes) fits in and "/bin/true" with a
# 150-byte argument (161) does not.
test_exec_args_failed_tp_records_a_script_that_no_longer_fits() {
	local script=/tmp/argguard-shebang
	trap 'echo 0 >/proc/sys/fs/exec_arg_max; rm -f /tmp/argguard-shebang' EXIT
	has_refusal_tp || fail "expected btf_trace_sched_process_exec_args_failed_tp in the kernel's BTF"
	[[ -d /sys/kernel/tracing/events/sched ]] || fail "expected tracefs's sched events"
	compgen -G '/sys/kernel/tracing/events/sched/*exec_args*' &&
		fail "expected no tracefs event for the bare tracepoint"
	echo 262144 >/proc/sys/fs/exec_arg_max
	printf '#!/bin/true\n' >$script
	chmod +x $script
	runs_unrecorded $script "the script with a short #! line"
	printf '#!/bin/true %0150d\n' 0 >$script
	refused_once_by_the_cap $script "the script with a 150-byte #! argument"
}

# binfmt_misc copies the file's name and its interpreter's path into the
# arguments as binfmt_script does: an interpreter path 150 bytes longer
# tips the same exec over the cap, and the tracepoint records it.
test_exec_args_failed_tp_records_a_binfmt_misc_exec_that_no_longer_fits() {
	local misc=/proc/sys/fs/binfmt_misc file=/tmp/argguard-misc.agm long
	long=/tmp/argguard-interp-$(printf '%0140d' 0)
	# shellcheck disable=SC2154 # r is the trap's own loop variable
	trap 'echo 0 >/proc/sys/fs/exec_arg_max; rm -rf /tmp/argguard-misc.agm /tmp/argguard-interp-*
		for r in /proc/sys/fs/binfmt_misc/argguard-{short,long}; do [[ -f $r ]] && echo -1 >"$r"; done' EXIT
	[[ -f $misc/register ]] || mount -t binfmt_misc binfmt_misc $misc
	echo 262144 >/proc/sys/fs/exec_arg_max
	mkdir -p "$long" && ln -sf /bin/true "$long/true"
	printf 'not a program\n' >$file
	chmod +x $file
	echo ':argguard-short:E::agm::/bin/true:' >$misc/register
	runs_unrecorded $file "the file run by /bin/true through binfmt_misc"
	echo 0 >$misc/argguard-short
	echo ":argguard-long:E::agm::$long/true:" >$misc/register
	refused_once_by_the_cap $file "the file with a 150-byte longer interpreter path"
}

# The two tests above exec FILE with 261990 argument bytes in 4 pointers.
# runs_unrecorded FILE WHAT: the exec runs and leaves no record.
runs_unrecorded() {
	assert_eq allowed "$(outcome "$HELPERS/execsize" 261990 0 "$1" 4)" "$2"
	assert_eq "" "$(new_records 0 "$HELPERS/execsize" 261990 0 "$1" 4)" "records of $2"
}

# refused_once_by_the_cap FILE WHAT: the exec fails with E2BIG, and one
# kernel-refused record of it names the 262144-byte exec_arg_max.
refused_once_by_the_cap() {
	local records out
	records=$(new_records 1 "$HELPERS/execsize" 261990 0 "$1" 4)
	echo "$records"
	assert_eq 1 "$(grep -c . <<<"$records")" "records of $2"
	assert_eq kernel-refused "$(jq -r .verdict <<<"$records")" "verdict"
	assert_eq E2BIG "$(jq -r .errno <<<"$records")" "errno"
	assert_eq "$1" "$(jq -r .filename <<<"$records")" "filename"
	assert_eq exec_arg_max "$(jq -r .limit <<<"$records")" "limit"
	assert_eq 262144 "$(jq -r .limit_value <<<"$records")" "limit_value"
	out=$(outcome "$HELPERS/execsize" 261990 0 "$1" 4)
	assert_eq E2BIG "${out%% *}" "$2"
}
