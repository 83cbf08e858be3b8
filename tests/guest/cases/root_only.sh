# SPDX-License-Identifier: GPL-2.0
# Root-only control: an ordinary user can neither read nor change argguard.

# refused WHAT CMD...: CMD, run as the tester, must fail with EPERM or EACCES.
refused() {
	local what=$1 out
	shift
	out=$("${AS_TESTER[@]}" "$@" 2>&1) && fail "as uid $TESTER, $what succeeded: $out"
	[[ $out == *"Operation not permitted"* || $out == *"Permission denied"* ||
		$out == EPERM || $out == EACCES ]] ||
		fail "as uid $TESTER, $what failed without EPERM or EACCES: $out"
}

test_unprivileged_user_cannot_touch_maps_pins_log_or_policy() {
	local pin kind id policy0 limit n=0
	policy0=$(argguard policy show) limit=$(live_limit)
	for pin in "$PIN_DIR"/*; do
		refused "opening $pin to read" "$HELPERS/unpriv_bpf" pin "$pin" ro
		refused "opening $pin to write" "$HELPERS/unpriv_bpf" pin "$pin" wo
		if id=$(bpftool -j map show pinned "$pin" 2>/dev/null | jq -er .id); then
			kind=map
		else
			kind=link id=$(bpftool -j link show pinned "$pin" | jq -r .id)
			refused "opening prog $id by id" "$HELPERS/unpriv_bpf" prog \
				"$(bpftool -j link show pinned "$pin" | jq -r .prog_id)"
		fi
		refused "opening $kind $id by id" "$HELPERS/unpriv_bpf" "$kind" "$id"
		n=$((n + 1))
	done
	assert_eq 23 "$n" "pins checked" # 18 maps, 5 links (the refusal tracepoint: no exits)
	for id in $(bpftool -j map show | jq '.[].id'); do # the unpinned maps too
		refused "opening map $id by id" "$HELPERS/unpriv_bpf" map "$id"
	done
	for id in $(bpftool -j prog show | jq '.[].id'); do
		refused "opening prog $id by id" "$HELPERS/unpriv_bpf" prog "$id"
	done
	refused "argguard unload" argguard unload
	refused "reading the log" cat "$EVENT_LOG"
	refused "argguard status" argguard status
	printf '[global]\nmode = enforce\nmax_total_bytes = 1G\n' >/tmp/argguard-loose.conf
	printf '[global]\nmode = enforce\nmax_total_bytes = 40K\n' >/tmp/argguard-tight.conf
	chmod 0644 /tmp/argguard-loose.conf /tmp/argguard-tight.conf
	refused "loosening the policy" argguard policy apply /tmp/argguard-loose.conf
	refused "tightening the policy" argguard policy apply /tmp/argguard-tight.conf
	assert_eq "$policy0" "$(argguard policy show)" "the live policy afterwards"
	expect E2BIG "an exec over the limit afterwards" "$HELPERS/execsize" $((limit + 1)) 0 /bin/true
}

test_unprivileged_bpf_is_off_and_the_loader_checks() {
	local setting pid0
	setting=$(cat /proc/sys/kernel/unprivileged_bpf_disabled)
	[[ $setting == 1 || $setting == 2 ]] ||
		fail "expected kernel.unprivileged_bpf_disabled to be 1 or 2, got $setting"
	expect EPERM "bpf() as uid $TESTER" "${AS_TESTER[@]}" "$HELPERS/unpriv_bpf"
	# Turned on (2 allows that), the tester's bpf() works and the loader says so.
	trap 'echo 2 >/proc/sys/kernel/unprivileged_bpf_disabled' EXIT
	echo 0 >/proc/sys/kernel/unprivileged_bpf_disabled
	expect allowed "bpf() as uid $TESTER, unprivileged BPF on" "${AS_TESTER[@]}" "$HELPERS/unpriv_bpf"
	pid0=$(daemon_pid)
	systemctl restart argguard.service
	daemon_says "unprivileged BPF is enabled" ||
		fail "expected the loader to warn that unprivileged BPF is on"
	echo 2 >/proc/sys/kernel/unprivileged_bpf_disabled
	expect EPERM "bpf() as uid $TESTER, off again" "${AS_TESTER[@]}" "$HELPERS/unpriv_bpf"
	[[ $pid0 != "$(daemon_pid)" ]] || fail "no restart"
}

# The decision depends on sizes only: the same sizes with any content, in
# argv, the environment or the program's name, get the same verdict.
test_content_cannot_sway_the_decision() {
	local limit fill out
	limit=$(live_limit)
	cp /bin/true /tmp/argguard
	for fill in a 'ARGGUARD_MODE=off' 'LD_PRELOAD=/tmp/x.so' $'\xff\xfe\n"' '--'; do
		for prog in /bin/true /tmp/argguard; do
			expect E2BIG "an exec one byte over, filled with '$fill', of $prog" \
				"$HELPERS/execsize" --fill "$fill" $((limit / 2)) $((limit / 2 + 1)) $prog
			out=$("$HELPERS/execsize" --fill "$fill" $((limit / 2)) $((limit / 2)) $prog) ||
				fail "an exec at the limit, filled with '$fill', of $prog, was refused: $out"
		done
	done
}
