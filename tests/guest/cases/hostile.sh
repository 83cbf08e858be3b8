# SPDX-License-Identifier: GPL-2.0
# Hostile execs: each is judged once, on its sizes, and logged as it was.

# judged WANT N CMD...: CMD's exec must end WANT (allowed or an errno); then
# print the N records it added, and make sure no more come. It fails the test
# itself: call it plainly, never before `||`, where errexit would not reach it.
judged() {
	local want=$1 n=$2 before got records count
	shift 2
	before=$(log_lines)
	got=$(outcome "$@")
	[[ $got == "$want" ]] || fail "expected $* to end $want, got $got"
	records=$(records_since "$before" "$n")
	count=$(grep -c . <<<"$records" || true) # none: grep prints 0 and fails
	((count == n)) || fail "expected $n records from $*, got $count"
	[[ -z $records ]] || printf '%s\n' "$records"
}

# field NAME RECORDS: one field of a single record.
field() { jq -r ".$1" <<<"$2"; }

test_fileless_memfd_exec_is_judged_and_logged() {
	local limit r
	limit=$(live_limit)
	r=$(judged E2BIG 1 "$HELPERS/execsize" --memfd $((limit + 1)) 0 /bin/true)
	echo "$r"
	[[ $(field filename "$r") =~ ^/dev/fd/[0-9]+$ ]] || fail "expected a /dev/fd/N filename"
	assert_eq deny "$(field verdict "$r")" "verdict"
	assert_eq $((limit + 1)) "$(field argv_bytes "$r")" "argv_bytes"
	judged allowed 0 "$HELPERS/execsize" --memfd 64 0 /bin/true >/dev/null
}

# A script whose interpreter is itself a script whose interpreter sits at the
# end of a long path: one decision, one record, naming the first interpreter.
test_nested_interpreters_and_a_long_shebang_are_judged_once() {
	local limit long dir r deny0
	limit=$(live_limit)
	dir=/tmp/argguard-$(printf 'x%.0s' {1..160})
	mkdir -p "$dir"
	cp /bin/dash "$dir/sh"
	long=$dir/sh
	printf '#!%s\nexit 0\n' "$long" >/tmp/argguard-inner
	printf '#!/tmp/argguard-inner\n' >/tmp/argguard-outer
	printf '#!  %s -e\nexit 0\n' "$long" >/tmp/argguard-long
	chmod +x /tmp/argguard-inner /tmp/argguard-outer /tmp/argguard-long
	judged allowed 0 "$HELPERS/execsize" 64 0 /tmp/argguard-outer >/dev/null
	deny0=$(counter global.deny)
	r=$(judged E2BIG 1 "$HELPERS/execsize" $((limit + 1)) 0 /tmp/argguard-outer)
	echo "$r"
	assert_eq 1 $(($(counter global.deny) - deny0)) "deny decisions for one nested script"
	assert_eq /tmp/argguard-outer "$(field filename "$r")" "filename"
	assert_eq /tmp/argguard-inner "$(field interpreter "$r")" "interpreter"
	r=$(judged E2BIG 1 "$HELPERS/execsize" $((limit + 1)) 0 /tmp/argguard-long)
	assert_eq "$long" "$(field interpreter "$r")" "the interpreter at the end of a ${#long}-byte path"
	# Allowed, the exec goes on through both interpreters: still one record.
	trap restore_policy EXIT
	apply_policy '[global]' 'mode = audit' "max_total_bytes = $limit"
	r=$(judged allowed 1 "$HELPERS/execsize" $((limit + 1)) 0 /tmp/argguard-outer)
	assert_eq would-deny "$(field verdict "$r")" "verdict in audit mode"
}

test_binfmt_misc_exec_is_judged_once() {
	local limit r deny0 reg=/proc/sys/fs/binfmt_misc
	limit=$(live_limit)
	[[ -e $reg/register ]] || mount -t binfmt_misc binfmt_misc $reg || fail "no binfmt_misc"
	trap "echo -1 >$reg/argguard-test" EXIT
	echo ':argguard-test:E::agt::/bin/dash:' >$reg/register
	printf 'exit 0\n' >/tmp/argguard-test.agt
	chmod +x /tmp/argguard-test.agt
	judged allowed 0 "$HELPERS/execsize" 64 0 /tmp/argguard-test.agt >/dev/null
	deny0=$(counter global.deny)
	r=$(judged E2BIG 1 "$HELPERS/execsize" $((limit + 1)) 0 /tmp/argguard-test.agt)
	echo "$r"
	assert_eq 1 $(($(counter global.deny) - deny0)) "deny decisions for one binfmt_misc exec"
	assert_eq /tmp/argguard-test.agt "$(field filename "$r")" "filename"
	# Allowed, the exec goes on to its interpreter: still one record.
	trap "echo -1 >$reg/argguard-test; restore_policy" EXIT
	apply_policy '[global]' 'mode = audit' "max_total_bytes = $limit"
	r=$(judged allowed 1 "$HELPERS/execsize" $((limit + 1)) 0 /tmp/argguard-test.agt)
	assert_eq would-deny "$(field verdict "$r")" "verdict in audit mode"
}

# The default filler makes strings of the kernel's largest, 128 KiB each.
test_argv_of_128k_strings_is_denied_with_exact_sizes() {
	local limit r
	limit=$(live_limit)
	r=$(judged E2BIG 1 "$HELPERS/execsize" $((limit + 1)) 0 /bin/true)
	assert_eq $((1 + (limit + 1 - 10 + 131071) / 131072)) "$(field argc "$r")" "argc"
	assert_eq $((limit + 1)) "$(field argv_bytes "$r")" "argv_bytes"
	assert_eq true "$(field argv_head_truncated "$r")" "argv_head_truncated"
	assert_eq 256 "$(field argv_head_bytes "$r")" "argv_head_bytes"
}

test_argv_of_100000_empty_strings_meets_max_argc() {
	local r
	trap restore_policy EXIT
	apply_policy '[global]' 'mode = enforce' 'max_total_bytes = 1M' 'max_argc = 50000'
	judged allowed 0 "$HELPERS/execsize" 40010 0 /bin/true 40001 >/dev/null
	r=$(judged E2BIG 1 "$HELPERS/execsize" 100010 0 /bin/true 100001)
	assert_eq max_argc "$(field limit "$r")" "limit"
	assert_eq 100001 "$(field argc "$r")" "argc"
	assert_eq 100010 "$(field argv_bytes "$r")" "argv_bytes"
	assert_eq true "$(field argv_head_truncated "$r")" "argv_head_truncated"
}

# The GLIBC_TUNABLES pattern: a tiny argv and one huge environment string.
test_envp_only_bloat_meets_max_envp_bytes() {
	local r tunables=GLIBC_TUNABLES=glibc.malloc.mxfast=
	trap restore_policy EXIT
	apply_policy '[global]' 'mode = enforce' 'max_total_bytes = 1M' 'max_envp_bytes = 64K'
	r=$(judged E2BIG 1 "$HELPERS/execsize" --fill "$tunables" 10 65537 /bin/true)
	assert_eq max_envp_bytes "$(field limit "$r")" "limit"
	assert_eq 65537 "$(field envp_bytes "$r")" "envp_bytes"
	assert_eq 10 "$(field argv_bytes "$r")" "argv_bytes"
	judged allowed 0 "$HELPERS/execsize" --fill "$tunables" 10 65536 /bin/true >/dev/null
}

test_argc_zero_is_seen_before_the_kernel_rewrites_it() {
	local r
	r=$(judged E2BIG 1 "$HELPERS/execsize" 0 0 /bin/true)
	assert_eq empty_argv "$(field scope "$r")" "scope"
	assert_eq 0 "$(field orig_argc "$r")" "orig_argc"
}

# A new user namespace makes the tester root inside it; the uid rule still
# sees the real uid.
test_user_namespace_root_is_still_the_tester() {
	local r
	trap restore_policy EXIT
	apply_policy '[global]' 'mode = enforce' 'max_total_bytes = 1M' "[uid $TESTER]" 'max_total_bytes = 8K'
	assert_eq 0 "$("${AS_TESTER[@]}" unshare -U -r id -u)" "uid inside the new user namespace"
	r=$(judged E2BIG 1 "${AS_TESTER[@]}" unshare -U -r "$HELPERS/execsize" 9000 0 /bin/true)
	assert_eq uid "$(field scope "$r")" "scope"
	assert_eq $TESTER "$(field rule_id "$r")" "rule_id"
	assert_eq $TESTER "$(field uid "$r")" "uid"
}

test_pid_namespace_exec_is_logged_with_the_real_pid() {
	local limit r
	limit=$(live_limit)
	r=$(judged E2BIG 1 unshare -p -f "$HELPERS/execsize" $((limit + 1)) 0 /bin/true)
	echo "$r"
	(($(field pid "$r") > 1)) || fail "expected the record to carry the init-namespace pid"
	assert_eq deny "$(field verdict "$r")" "verdict"
}
