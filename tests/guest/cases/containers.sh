# SPDX-License-Identifier: GPL-2.0
# Containers: a record names the container its exec ran in, read from the
# cgroup the runtime made for it, and a user's look-alike cgroups name none.

CONTAINER_ID=4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a4f1c2a9e8b7d6c5a
POD_UID=2c9a6b1e-7f3d-4a5b-9c8d-1e2f3a4b5c6d
LOOKALIKE_UID=4242 # no such user: a subtree as systemd delegates one
LOOKALIKE=/user.slice/user-$LOOKALIKE_UID.slice/user@$LOOKALIKE_UID.service

# over_limit_record CMD...: the record of an exec one byte past the global
# limit, run by CMD ("systemd-run ... --", say).
over_limit_record() {
	new_records 1 "$@" "$HELPERS/execsize" $(($(live_limit) + 1)) 0 /bin/true
}

# container_of RECORD: its container as "runtime id pod_uid rootless", or "null".
container_of() {
	jq -r '.container | if . == null then "null"
		else "\(.runtime) \(.id) \(.pod_uid) \(.rootless)" end' <<<"$1"
}

# held_scope UNIT SYSTEMD-RUN-OPTION...: start scope UNIT holding a sleeper, so
# that its cgroup outlives the exec the test runs in it (systemd removes an
# empty scope's cgroup at once, and a record names only a cgroup still there
# when the daemon reads it); print the cgroup's path once it exists.
held_scope() {
	local unit=$1 path i
	shift
	systemd-run --quiet --scope --unit="$unit" "$@" -- sleep 120 >/dev/null 2>&1 &
	for ((i = 0; i < 100; i++)); do
		path=$(systemctl show -p ControlGroup --value "$unit.scope" 2>/dev/null)
		[[ -n $path && -d $CG$path ]] && echo "$path" && return
		sleep 0.1
	done
	echo "scope $unit never started" >&2
	return 1
}

stop_held_scopes() {
	systemctl stop "docker-$CONTAINER_ID.scope" "cri-containerd-$CONTAINER_ID.scope" \
		argguard-t-plain.scope kubepods.slice 2>/dev/null || true
}

test_records_name_the_container_a_runtime_put_the_exec_in() {
	local record scope since_us n i
	trap stop_held_scopes EXIT
	# The pattern tests' scopes carry the same id: count from here on only.
	since_us=$(date +%s%6N)
	scope=$(held_scope "docker-$CONTAINER_ID")
	record=$(over_limit_record in_cgroup "$scope")
	echo "docker: $record"
	assert_eq "/system.slice/docker-$CONTAINER_ID.scope" "$(jq -r .cgroup <<<"$record")" \
		"the cgroup systemd made for the scope"
	assert_eq "docker $CONTAINER_ID null false" "$(container_of "$record")" "a Docker container"

	# As kubelet's systemd driver names a burstable pod's slice and containerd its scope.
	scope=$(held_scope "cri-containerd-$CONTAINER_ID" \
		--slice="kubepods-burstable-pod${POD_UID//-/_}")
	record=$(over_limit_record in_cgroup "$scope")
	echo "pod: $record"
	assert_eq "containerd $CONTAINER_ID $POD_UID false" "$(container_of "$record")" \
		"a containerd container in a Kubernetes pod"

	scope=$(held_scope argguard-t-plain)
	record=$(over_limit_record in_cgroup "$scope")
	assert_eq null "$(container_of "$record")" "a plain scope is no container"

	# journald may take a moment to store what the daemon sent it.
	for ((i = 0; i < 50; i++)); do
		n=$(journalctl _SYSTEMD_UNIT=argguard.service _UID=0 \
			ARGGUARD_CONTAINER_ID="$CONTAINER_ID" -o json --since=-5min |
			jq -s --argjson t "$since_us" \
				'map(select((.__REALTIME_TIMESTAMP | tonumber) >= $t)) | length')
		((n >= 2)) && break
		sleep 0.2
	done
	assert_eq 2 "$n" \
		"journald finds the two records by the container's id"
}

# A podman run inside the docker container: as its cgroupfs manager names its own.
INNER_ID=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
INNER=libpod_parent/libpod-$INNER_ID

stop_outer_scope() {
	local scope
	scope=$(systemctl show -p ControlGroup --value "docker-$CONTAINER_ID.scope" 2>/dev/null)
	[[ -z $scope ]] || rmdir "$CG$scope/$INNER" "$CG$scope/libpod_parent" 2>/dev/null || true
	stop_held_scopes
}

test_a_container_inside_a_container_is_its_owners_claim() {
	local record scope since_us n i
	trap stop_outer_scope EXIT
	since_us=$(date +%s%6N)
	scope=$(held_scope "docker-$CONTAINER_ID")
	mkdir -p "$CG$scope/$INNER"
	record=$(over_limit_record in_cgroup "$scope/$INNER")
	echo "nested: $record"
	assert_eq "$scope/$INNER" "$(jq -r .cgroup <<<"$record")" "the inner container's cgroup"
	assert_eq "docker $CONTAINER_ID null false" "$(container_of "$record")" \
		"the outer container, which the host's runtime made"
	assert_eq "podman $INNER_ID" "$(jq -r '.container.nested | "\(.runtime) \(.id)"' <<<"$record")" \
		"the inner one, as the outer one's owner names it"
	for ((i = 0; i < 50; i++)); do
		n=$(journalctl _SYSTEMD_UNIT=argguard.service _UID=0 \
			ARGGUARD_CONTAINER_NESTED_ID="$INNER_ID" -o json --since=-5min |
			jq -s --argjson t "$since_us" --arg id "$CONTAINER_ID" \
				'map(select((.__REALTIME_TIMESTAMP | tonumber) >= $t and
					.ARGGUARD_CONTAINER_ID == $id)) | length')
		((n >= 1)) && break
		sleep 0.2
	done
	assert_eq 1 "$n" "journald finds the record by the nested claim's id, under the outer id"
}

remove_lookalikes() {
	rmdir "$CG$LOOKALIKE"/*.scope "$CG$LOOKALIKE" "$CG/user.slice/user-$LOOKALIKE_UID.slice" \
		2>/dev/null || true
}

test_a_users_own_cgroups_pass_for_no_other_runtime() {
	local record
	trap remove_lookalikes EXIT
	mkdir -p "$CG$LOOKALIKE/docker-$CONTAINER_ID.scope" "$CG$LOOKALIKE/libpod-$CONTAINER_ID.scope"
	record=$(over_limit_record in_cgroup "$LOOKALIKE/docker-$CONTAINER_ID.scope")
	echo "look-alike: $record"
	assert_eq "$LOOKALIKE/docker-$CONTAINER_ID.scope" "$(jq -r .cgroup <<<"$record")" "its cgroup"
	assert_eq null "$(container_of "$record")" "a docker-ID.scope in a user's subtree"
	record=$(over_limit_record in_cgroup "$LOOKALIKE/libpod-$CONTAINER_ID.scope")
	assert_eq "podman $CONTAINER_ID null true" "$(container_of "$record")" \
		"rootless podman's layout in a user's subtree"
}
