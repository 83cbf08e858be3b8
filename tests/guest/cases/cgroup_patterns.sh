# SPDX-License-Identifier: GPL-2.0
# Cgroup rules by pattern: each container scope a runtime's naming makes is
# judged by its pattern, whether it was there at the apply or made after,
# under a new id; a look-alike in a user's delegated subtree is judged where
# it really is, and one container's pattern is not another's. The scopes are
# systemd's, named as the runtimes name them (held_scope: containers.sh).

PAT_ID2=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
PAT_DELEG=/argguard-t-deleg
# Just over 100 KiB: denied under a 100K limit, allowed under the global 1M.
PAT_OVER=("$HELPERS/execsize" 102401 0 /bin/true)

pattern_cleanup() {
	local d
	systemctl stop "docker-$CONTAINER_ID.scope" "docker-$PAT_ID2.scope" \
		argguard-t-outside.scope kubepods.slice 2>/dev/null || true
	for d in "$PAT_DELEG" /argguard-t-full; do
		[[ -d $CG$d ]] && find "$CG$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	cleanup
}

test_cgroup_pattern_judges_each_docker_scope_old_and_new() {
	local before outside after again out shown=/tmp/argguard-shown-patterns.conf
	trap pattern_cleanup EXIT
	# There before the apply: the apply's walk of the tree judges it.
	before=$(held_scope "docker-$CONTAINER_ID")
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup /system.slice/docker-*.scope]" "max_total_bytes = 100K"
	expect E2BIG "100K + 1 in a docker scope there at the apply" \
		in_cgroup "$before" "${PAT_OVER[@]}"
	outside=$(held_scope argguard-t-outside)
	expect allowed "100K + 1 in a plain scope beside it" in_cgroup "$outside" "${PAT_OVER[@]}"

	# Made after the apply, under another id: the cgroup_mkdir program judges it.
	systemctl stop "docker-$CONTAINER_ID.scope"
	after=$(held_scope "docker-$PAT_ID2")
	assert_eq "/system.slice/docker-$PAT_ID2.scope" "$after" "the second scope's cgroup"
	expect E2BIG "100K + 1 in a docker scope made after the apply, a new id" \
		in_cgroup "$after" "${PAT_OVER[@]}"
	again=$(held_scope "docker-$CONTAINER_ID")
	expect E2BIG "100K + 1 in the first id's scope, made again" \
		in_cgroup "$again" "${PAT_OVER[@]}"

	argguard policy show >"$shown"
	grep -qxF "[cgroup /system.slice/docker-*.scope]" "$shown" ||
		fail "policy show must print the pattern: $(cat "$shown")"
	out=$(argguard policy check "$shown" 2>&1) ||
		fail "policy check must accept what policy show printed: $out"
	[[ $out != *"no cgroup"* ]] || fail "a pattern is no missing cgroup: $out"
}

test_cgroup_pattern_double_star_judges_kubernetes_pods() {
	local pod burstable besteffort crio
	trap pattern_cleanup EXIT
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup /kubepods.slice/**/cri-containerd-*.scope]" "max_total_bytes = 100K"
	pod=kubepods-burstable-pod${POD_UID//-/_}
	burstable=$(held_scope "cri-containerd-$CONTAINER_ID" --slice="$pod")
	assert_eq "/kubepods.slice/kubepods-burstable.slice/$pod.slice/cri-containerd-$CONTAINER_ID.scope" \
		"$burstable" "the cgroup kubelet's systemd driver names"
	expect E2BIG "100K + 1 in a burstable pod's containerd scope, three slices down" \
		in_cgroup "$burstable" "${PAT_OVER[@]}"
	besteffort=$(held_scope "cri-containerd-$PAT_ID2" --slice=kubepods)
	expect E2BIG "100K + 1 in a containerd scope right below kubepods.slice ('**': none)" \
		in_cgroup "$besteffort" "${PAT_OVER[@]}"
	crio=$(held_scope "crio-$PAT_ID2" --slice="$pod")
	expect allowed "100K + 1 in a CRI-O scope of the same pod" in_cgroup "$crio" "${PAT_OVER[@]}"
}

# deleg_mkdir PATH...: make cgroups below $PAT_DELEG as the user it is delegated to.
deleg_mkdir() {
	local p
	for p in "$@"; do
		"${AS_TESTER[@]}" mkdir -p "$CG$PAT_DELEG$p" || fail "tester could not make $PAT_DELEG$p"
	done
}

test_cgroup_pattern_look_alikes_in_a_delegated_subtree_are_judged_where_they_are() {
	local real
	trap pattern_cleanup EXIT
	mkdir "$CG$PAT_DELEG"
	chown "$TESTER:$TESTER" "$CG$PAT_DELEG" "$CG$PAT_DELEG"/cgroup.{procs,threads,subtree_control}
	# One before the apply (the walk judges it), the rest after (the program does).
	deleg_mkdir "/system.slice/docker-$CONTAINER_ID.scope"
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup $PAT_DELEG]" "max_total_bytes = 64K" \
		"[cgroup /system.slice/docker-*.scope]" "max_total_bytes = 500K" \
		"[cgroup /kubepods.slice/**/cri-containerd-*.scope]" "max_total_bytes = 500K"
	deleg_mkdir "/system.slice/docker-$PAT_ID2.scope" \
		"/kubepods.slice/kubepods-pod1.slice/cri-containerd-$PAT_ID2.scope"
	real=$(held_scope "docker-$CONTAINER_ID")
	expect allowed "100000 in a real docker scope, under its pattern's 500K" \
		in_cgroup "$real" "$HELPERS/execsize" 100000 0 /bin/true
	expect E2BIG "100000 in a user's docker look-alike there at the apply: its subtree's 64K" \
		in_cgroup "$PAT_DELEG/system.slice/docker-$CONTAINER_ID.scope" \
		"$HELPERS/execsize" 100000 0 /bin/true
	expect E2BIG "100000 in a user's docker look-alike made after: its subtree's 64K" \
		in_cgroup "$PAT_DELEG/system.slice/docker-$PAT_ID2.scope" \
		"$HELPERS/execsize" 100000 0 /bin/true
	expect E2BIG "100000 in a user's kubepods look-alike: '**' starts at the root too" \
		in_cgroup "$PAT_DELEG/kubepods.slice/kubepods-pod1.slice/cri-containerd-$PAT_ID2.scope" \
		"$HELPERS/execsize" 100000 0 /bin/true
}

test_cgroup_pattern_for_one_container_is_not_anothers() {
	local a b
	trap pattern_cleanup EXIT
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup /system.slice/docker-*.scope]" "max_total_bytes = 500K" \
		"[cgroup /system.slice/docker-${CONTAINER_ID:0:4}*.scope]" "max_total_bytes = 64K"
	a=$(held_scope "docker-$CONTAINER_ID")
	b=$(held_scope "docker-$PAT_ID2")
	expect E2BIG "100000 in container A, under its own pattern's 64K" \
		in_cgroup "$a" "$HELPERS/execsize" 100000 0 /bin/true
	expect allowed "100000 in container B: A's pattern is not its" \
		in_cgroup "$b" "$HELPERS/execsize" 100000 0 /bin/true
	expect E2BIG "600000 in container B, over the docker pattern's 500K" \
		in_cgroup "$b" "$HELPERS/execsize" 600000 0 /bin/true
	# B names a cgroup of its own as A's scope is named: a '*' stays in its component.
	mkdir "$CG$b/docker-$CONTAINER_ID.scope"
	expect allowed "100000 in B's own docker-A.scope: B's rule still" \
		in_cgroup "$b/docker-$CONTAINER_ID.scope" "$HELPERS/execsize" 100000 0 /bin/true
	rmdir "$CG$b/docker-$CONTAINER_ID.scope"
}

# A full set: the cgroup_mkdir program walks a set's every slot, so the
# pattern of lowest rank, in the last slot, still judges a cgroup made after
# the apply.
test_cgroup_pattern_in_the_last_slot_of_a_full_set_judges_a_new_cgroup() {
	local full=/argguard-t-full rules=() i slots
	trap pattern_cleanup EXIT
	# Both sets' slots: the map's size is what the program walks.
	slots=$(($(bpftool -j map show pinned "$PIN_DIR/cgroup_patterns" | jq .max_entries) / 2))
	((slots >= 100)) || fail "a set has $slots pattern slots, fewer than 100"
	mkdir "$CG$full"
	for ((i = 1; i < slots; i++)); do
		rules+=("[cgroup $full/p$i-*]" "max_total_bytes = 500K")
	done
	rules+=("[cgroup $full/*]" "max_total_bytes = 100K")
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" "${rules[@]}"
	mkdir "$CG$full/q" "$CG$full/p7-x"
	expect E2BIG "100K + 1 in $full/q, judged by the last slot's $full/*" \
		in_cgroup "$full/q" "${PAT_OVER[@]}"
	expect allowed "100K + 1 in $full/p7-x: $full/p7-* ranks above $full/*" \
		in_cgroup "$full/p7-x" "${PAT_OVER[@]}"
	rmdir "$CG$full/q" "$CG$full/p7-x"
}

# by_container PATTERN ID: the report's entry for container ID under the
# rule of PATTERN, as JSON.
by_container() {
	report_scope "cgroup $1" | jq -c --arg id "$2" '.cgroups[] | select(.container.id == $id)'
}

test_cgroup_pattern_sizes_by_container() {
	local pat='/system.slice/docker-*.scope' a b text
	trap pattern_cleanup EXIT
	apply_policy "[global]" "mode = audit" "max_total_bytes = 1M" \
		"[cgroup $pat]" "max_total_bytes = 500K"
	a=$(held_scope "docker-$CONTAINER_ID")
	b=$(held_scope "docker-$PAT_ID2")
	for _ in 1 2; do
		in_cgroup "$a" "$HELPERS/execsize" 100000 0 /bin/true || fail "100000 in A did not run"
	done
	for _ in 1 2 3; do
		in_cgroup "$b" "$HELPERS/execsize" 200000 0 /bin/true || fail "200000 in B did not run"
	done
	echo "the pattern's rule: $(report_scope "cgroup $pat" | jq -c '[.execs, .cgroups[].execs]')"
	assert_eq 2 "$(report_scope "cgroup $pat" | jq '.cgroups | length')" \
		"the pattern's rule has one entry a container"
	a=$(by_container "$pat" "$CONTAINER_ID")
	b=$(by_container "$pat" "$PAT_ID2")
	assert_eq "docker 100000 2" "$(jq -r '"\(.container.runtime) \(.metrics.total_bytes.max) \(
		.metrics.total_bytes.buckets[] | select(.low == 65536) | .count)"' <<<"$a")" \
		"container A: its two execs of 100000 bytes, its largest"
	assert_eq "docker 200000 3" "$(jq -r '"\(.container.runtime) \(.metrics.total_bytes.max) \(
		.metrics.total_bytes.buckets[] | select(.low == 131072) | .count)"' <<<"$b")" \
		"container B: its three execs of 200000 bytes, its largest"
	text=$(argguard report)
	grep -qE "^    docker ${CONTAINER_ID:0:12} +[0-9]+ execs, total_bytes largest 100000," <<<"$text" ||
		fail "expected a line for container A in the text report: $text"
	grep -qE "^    docker ${PAT_ID2:0:12} +[0-9]+ execs, total_bytes largest 200000," <<<"$text" ||
		fail "expected a line for container B in the text report: $text"
}
