# SPDX-License-Identifier: GPL-2.0
# The size distributions: argguard report and argguard suggest, from execs of known sizes.

test_report_and_suggest_learn_each_rules_sizes() {
	trap cleanup EXIT
	local x=$HELPERS/execsize uid cg text suggestion proposed
	mkdir -p $CG/argguard-t-sizes
	# The rules start from zero: absent from the live policy, then new.
	apply_policy "[global]" "mode = audit"
	apply_policy "[global]" "mode = audit" "[user tester]" "max_total_bytes = 1M" \
		"[cgroup /argguard-t-sizes]" "max_total_bytes = 512K"
	# env -i: the tester's exec of execsize carries no environment of ours.
	for _ in 1 2 3 4 5; do
		env -i "${AS_TESTER[@]}" "$x" 100000 2000 /bin/true 10 ||
			fail "expected a 102000-byte exec to run"
	done
	env -i "${AS_TESTER[@]}" "$x" 300000 5000 /bin/true 100 ||
		fail "expected a 305000-byte exec to run"
	in_cgroup /argguard-t-sizes "$x" 50000 0 /bin/true || fail "expected a 50000-byte exec to run"

	uid=$(report_scope "uid 1000")
	echo "uid 1000: $uid"
	assert_eq 305000 "$(jq .metrics.total_bytes.max <<<"$uid")" "the tester's largest total"
	assert_eq 300000 "$(jq .metrics.argv_bytes.max <<<"$uid")" "the tester's largest argv"
	assert_eq 5000 "$(jq .metrics.envp_bytes.max <<<"$uid")" "the tester's largest envp"
	assert_eq 100 "$(jq .metrics.argc.max <<<"$uid")" "the tester's largest argc"
	assert_eq 5 "$(jq '.metrics.total_bytes.buckets[] | select(.low == 65536) | .count' <<<"$uid")" \
		"the tester's execs of 65536 to 131071 bytes"
	assert_eq 1 "$(jq '.metrics.total_bytes.buckets[] | select(.low == 262144) | .count' <<<"$uid")" \
		"the tester's execs of 262144 to 524287 bytes"
	assert_eq '{"limit":"max_total_bytes","value":1048576,"over_at_least":0,"over_at_most":0}' \
		"$(jq -c '.limits[0]' <<<"$uid")" "what the tester's 1M limit would have denied"
	cg=$(report_scope "cgroup /argguard-t-sizes")
	echo "cgroup: $cg"
	assert_eq 50000 "$(jq .metrics.total_bytes.max <<<"$cg")" "the cgroup's largest total"
	# Among the largest execs, unless eight larger ones came before it.
	assert_eq true "$(argguard report --format json | jq '.largest as $l |
		any($l[]; .uid == 1000 and .comm == "execsize" and .total_bytes == 305000 and
			.argv_bytes == 300000 and .argc == 100) or
		([$l[] | select(.total_bytes >= 305000)] | length) >= 8')" \
		"the tester's largest exec is among the largest, with its sizes"

	# A proposed file: 200K for the tester would have denied the one exec over it.
	proposed=$WORK/proposed.conf
	printf '%s\n' "[global]" "mode = enforce" "[user tester]" "max_total_bytes = 200K" >"$proposed"
	text=$(argguard report --policy "$proposed")
	echo "$text"
	grep -q '^\[uid 1000\] ' <<<"$text" || fail "expected the text report to show uid 1000"
	grep -q '^  max_total_bytes = 200K would have denied 1 of ' <<<"$text" ||
		fail "expected the proposed 200K to deny exactly the 305000-byte exec"

	# Another apply keeps the rules' counts.
	apply_policy "[global]" "mode = audit" "max_total_bytes = 2M" "[user tester]" \
		"max_total_bytes = 1M" "[cgroup /argguard-t-sizes]" "max_total_bytes = 512K"
	assert_eq 305000 "$(report_scope "uid 1000" | jq .metrics.total_bytes.max)" \
		"the tester's largest, after an apply that kept its rule"

	# A sample of a few execs, over minutes: suggest keeps the limits unless told to take it.
	suggestion=$WORK/suggested.conf
	argguard suggest >"$suggestion" || fail "expected suggest to print a policy"
	assert_eq 1048576 "$(suggested "[uid 1000]" max_total_bytes "$suggestion")" \
		"the tester's max_total_bytes, as it was: under the minimum sample"
	argguard suggest --min-execs 1 --min-hours 0 >"$suggestion" ||
		fail "expected suggest to print a policy"
	cat "$suggestion"
	argguard policy check "$suggestion" || fail "expected policy check to accept the suggestion"
	assert_eq 381952 "$(suggested "[uid 1000]" max_total_bytes "$suggestion")" \
		"the tester's suggested max_total_bytes: 305000 + 25%, up to a whole K"
	assert_eq 131072 "$(suggested "[cgroup /argguard-t-sizes]" max_total_bytes "$suggestion")" \
		"the cgroup's suggested max_total_bytes: 50000 + 25%, raised to the floor, 128K"
	assert_eq enforce "$(suggested "[global]" mode "$suggestion")" "the suggestion's mode"
	argguard policy apply "$suggestion" || fail "expected the suggestion to apply"
	expect allowed "the tester's largest exec, under the suggestion" \
		env -i "${AS_TESTER[@]}" "$x" 300000 5000 /bin/true 100
	expect E2BIG "a planted outlier, 400000 bytes from the tester" \
		env -i "${AS_TESTER[@]}" "$x" 400000 0 /bin/true
}
