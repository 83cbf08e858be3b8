# SPDX-License-Identifier: GPL-2.0
# The shipped policy against the real workloads that come closest to what
# Debian's default 8 MiB stack lets an exec carry (2 MiB, ARG_MAX): it denies
# none of them, and still denies what only a raised stack makes possible.
# Runs in the stock suite: on Debian's own kernels, as a site installs it.

SHIPPED_POLICY=/usr/lib/argguard/tests/shipped.conf

# run_workloads [CMD...]: the workloads, each run by CMD ("in_cgroup PATH",
# say; none by default); an exec that fails prints its errno.
run_workloads() {
	local in=("$@") xargs_max
	# libtool sizes link and archive commands at 3/4 of ARG_MAX: 1.5 MiB
	# over 15,000 object paths.
	expect allowed "a 1.5 MiB libtool-style link line" \
		"${in[@]}" "$HELPERS/execsize" $((3 << 19)) 4096 /bin/true 15000
	# About 1 KB of service-link variables per Service: ~1,000 Services.
	expect allowed "a 1 MB Kubernetes-style environment" \
		"${in[@]}" "$HELPERS/execsize" 4096 1000000 /bin/true
	expect allowed "a 200 KB CI runner's environment" \
		"${in[@]}" "$HELPERS/execsize" 4096 200000 /bin/true
	# sudo's path: a setuid exec by a user, with a CI job's environment.
	expect allowed "a setuid exec by $TESTER with a 300 KB environment" \
		"${in[@]}" "${AS_TESTER[@]}" "$HELPERS/execsize" 4096 300000 "$SUID_TRUE"
	expect allowed "find -exec {} + over /usr" "${in[@]}" find /usr -xdev -exec /bin/true {} +
	xargs_max=$(xargs --show-limits </dev/null 2>&1 |
		awk -F: '/could actually use/ { gsub(/ /, "", $2); print $2 }')
	echo "xargs -s $xargs_max"
	expect allowed "xargs -s at its maximum over /usr" \
		"${in[@]}" bash -c "find /usr -xdev -print0 | xargs -0 -s $xargs_max /bin/true"
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

# The corpus in a cgroup of its own, with a rule that holds the shipped
# [global] limits: a new rule counts from zero, so its distributions are the
# corpus's alone, whatever this suite ran before.
test_report_shows_the_corpus_and_suggest_denies_only_an_outlier() {
	local corpus=/argguard-corpus policy=$WORK/corpus.conf suggestion=$WORK/suggested.conf
	local before records scope max_argc
	trap "restore_policy; rmdir $CG$corpus; rm -f $SUID_TRUE $PLAIN_TRUE $FCAP_TRUE" EXIT
	make_setuid_copies
	mkdir "$CG$corpus"
	{
		cat "$SHIPPED_POLICY"
		echo "[cgroup $corpus]"
		awk '/^\[/ { g = ($0 == "[global]") } g && $1 ~ /max_/ { print $1, "=", $3 }' \
			"$SHIPPED_POLICY"
	} >"$policy"
	argguard policy apply "$policy" || fail "could not apply the shipped policy with the corpus's rule"
	before=$(log_lines)
	run_workloads in_cgroup "$corpus"
	records=$(records_since "$before" 2)
	assert_eq "" "$(jq -c 'select(.verdict == "deny")' <<<"$records")" \
		"records of denied execs during the workloads"

	scope=$(report_scope "cgroup $corpus")
	echo "report: $scope"
	assert_eq true "$(jq '.metrics.total_bytes.max >= 1572864' <<<"$scope")" \
		"the corpus's largest exec holds the 1.5 MiB link line"
	assert_eq true "$(jq '.metrics.argc.max >= 15000' <<<"$scope")" \
		"the corpus's largest argc holds the link line's 15,000 objects"
	argguard report | grep -q "^\[cgroup $corpus\] " ||
		fail "expected the text report to show the corpus's cgroup"

	# The corpus is a few dozen execs over minutes: take it as the sample,
	# and ask for max_argc, which suggest leaves alone by default.
	argguard suggest --counts --min-execs 1 --min-hours 0 >"$suggestion" ||
		fail "expected suggest to print a policy"
	cat "$suggestion"
	argguard policy check "$suggestion" || fail "expected policy check to accept the suggestion"
	argguard policy apply "$suggestion" || fail "expected the suggestion to apply"
	before=$(log_lines)
	run_workloads in_cgroup "$corpus"
	max_argc=$(suggested "[cgroup $corpus]" max_argc "$suggestion")
	[[ $max_argc =~ ^[0-9]+K?$ ]] || fail "expected a suggested max_argc, got '$max_argc'"
	max_argc=$((${max_argc/K/*1024}))
	expect E2BIG "a planted outlier: one string more than the suggested max_argc" \
		in_cgroup "$corpus" "$HELPERS/execsize" $((4 * max_argc + 64)) 0 /bin/true $((max_argc + 1))
	records=$(records_since "$before" 1)
	assert_eq max_argc "$(jq -r 'select(.verdict == "deny") | .limit' <<<"$records")" \
		"the one denial after the suggestion: the outlier's, by max_argc"
}
