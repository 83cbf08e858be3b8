# SPDX-License-Identifier: GPL-2.0
# The shipped policy against the real workloads that come closest to what
# Debian's default 8 MiB stack lets an exec carry (2 MiB, ARG_MAX): it denies
# none of them, and still denies what only a raised stack makes possible.
# Runs in the stock suite: on Debian's own kernels, as a site installs it.

SHIPPED_POLICY=/usr/lib/argguard/tests/shipped.conf

# The workloads, each as CMD...; an exec that fails prints its errno.
run_workloads() {
	local xargs_max
	# libtool sizes link and archive commands at 3/4 of ARG_MAX: 1.5 MiB
	# over 15,000 object paths.
	expect allowed "a 1.5 MiB libtool-style link line" \
		"$HELPERS/execsize" $((3 << 19)) 4096 /bin/true 15000
	# About 1 KB of service-link variables per Service: ~1,000 Services.
	expect allowed "a 1 MB Kubernetes-style environment" \
		"$HELPERS/execsize" 4096 1000000 /bin/true
	expect allowed "a 200 KB CI runner's environment" \
		"$HELPERS/execsize" 4096 200000 /bin/true
	# sudo's path: a setuid exec by a user, with a CI job's environment.
	expect allowed "a setuid exec by $TESTER with a 300 KB environment" \
		"${AS_TESTER[@]}" "$HELPERS/execsize" 4096 300000 "$SUID_TRUE"
	expect allowed "find -exec {} + over /usr" find /usr -xdev -exec /bin/true {} +
	xargs_max=$(xargs --show-limits </dev/null 2>&1 |
		awk -F: '/could actually use/ { gsub(/ /, "", $2); print $2 }')
	echo "xargs -s $xargs_max"
	expect allowed "xargs -s at its maximum over /usr" \
		bash -c "find /usr -xdev -print0 | xargs -0 -s $xargs_max /bin/true"
}

test_shipped_policy_denies_no_real_workload_and_still_the_huge_ones() {
	local before records denied would out
	trap 'restore_policy; rm -f "$SUID_TRUE" "$PLAIN_TRUE" "$FCAP_TRUE"' EXIT
	make_setuid_copies
	argguard policy apply "$SHIPPED_POLICY" || fail "could not apply the shipped policy"
	before=$(log_lines)
	run_workloads
	records=$(records_since "$before" 2) # the two would-deny records
	denied=$(jq -c 'select(.verdict == "deny")' <<<"$records")
	would=$(jq -c 'select(.verdict == "would-deny") | [.limit, .total_bytes, .comm]' <<<"$records")
	echo "would-deny: $would"
	assert_eq "" "$denied" "records of denied execs during the workloads"
	[[ $would == *'"audit_max_total_bytes",'* ]] ||
		fail "expected the 1.5 MiB link line to be logged as would-deny by the 1M tier"

	before=$(log_lines)
	expect E2BIG "a 4 MiB exec from an unlimited stack" \
		prlimit --stack=unlimited "$HELPERS/execsize" $((4 << 20)) 0 /bin/true
	out=$(exploit_unlimited) || true
	assert_eq E2BIG "${out%% *}" "the 2010 exploit's errno"
	records=$(records_since "$before" 2)
	jq -e -s 'map(select(.verdict == "deny" and .limit == "max_total_bytes"
		and .total_bytes == 4194304)) | length == 1' <<<"$records" >/dev/null ||
		fail "expected a deny record for the 4 MiB exec, by max_total_bytes"
}
