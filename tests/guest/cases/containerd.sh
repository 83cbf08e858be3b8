# SPDX-License-Identifier: GPL-2.0
# containerd: a container made with Debian's containerd as the kubelet has
# it made through CRI (the CRI plugin's annotations in its OCI bundle, its
# cgroup as the kubelet's systemd driver or its cgroupfs one names it) is
# named in the record by its pod, namespace, container and image, read from
# the bundle root's containerd keeps. A user's cgroup named like
# containerd's, or a bundle a user could write, names nothing.
#
# ctr runs the container from a plain directory (--rootfs: no image, no
# snapshotter, no registry), with --annotation for what the CRI plugin
# would write. The guest has no network; the container gets a network
# namespace of its own with nothing in it.

CRI_TREE=/var/tmp/argguard-containerd/tree # the container's root: busybox and execsize
CRI_POD_UID=7e4b1c2d-3a5f-4e6d-8c9b-0a1b2c3d4e5f
CRI_TASKS=/run/containerd/io.containerd.runtime.v2.task
CRI_OPEN_NS=$CRI_TASKS/argguard-t-open # a namespace directory root left open to all
CRI_DELEGATED=/argguard-t-delegated     # a cgroup subtree given to the tester
CRI_IDS=()                               # the containers the test made

ctr_k8s() { ctr --namespace k8s.io "$@"; }

# cri_id: a new container id, 64 hex digits as containerd's CRI makes them.
cri_id() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }

# cri_setup: containerd running, and the container's tree.
cri_setup() {
	local applet
	systemctl start containerd.service
	wait_for 10 ctr version >/dev/null 2>&1
	mkdir -p "$CRI_TREE/bin" "$CRI_TREE/proc" "$CRI_TREE/sys" "$CRI_TREE/dev" "$CRI_TREE/tmp"
	install -m 0755 "$(command -v busybox)" "$CRI_TREE/bin/busybox"
	for applet in sleep true sh; do
		ln -sf busybox "$CRI_TREE/bin/$applet"
	done
	install -m 0755 "$HELPERS/execsize_static" "$CRI_TREE/bin/execsize"
}

# cri_run ID CGROUP [RUN-OPTION...]: a container sleeping in CGROUP, with
# the annotations the CRI plugin gives a kubelet's container "app" of pod
# "web-7d4f9" in namespace "shop".
cri_run() {
	local id=$1 cgroup=$2
	shift 2
	CRI_IDS+=("$id")
	ctr_k8s run --detach --null-io --rootfs --cgroup "$cgroup" \
		--annotation io.kubernetes.cri.container-type=container \
		--annotation io.kubernetes.cri.sandbox-id="$(cri_id)" \
		--annotation io.kubernetes.cri.sandbox-name=web-7d4f9 \
		--annotation io.kubernetes.cri.sandbox-namespace=shop \
		--annotation io.kubernetes.cri.sandbox-uid="$CRI_POD_UID" \
		--annotation io.kubernetes.cri.container-name=app \
		--annotation io.kubernetes.cri.image-name=registry.example/shop/app:1.2 \
		"$@" "$CRI_TREE" "$id" /bin/sleep 600
}

# cri_over_limit ID: the record of an exec one byte past the limit in container ID.
cri_over_limit() {
	new_records 1 ctr_k8s task exec --exec-id "x$RANDOM" "$1" \
		/bin/execsize $(($(live_limit) + 1)) 0 /bin/true
}

# names_of RECORD: its container as "runtime id pod_uid pod namespace name image".
names_of() {
	jq -r '.container | if . == null then "null" else
		"\(.runtime) \(.id) \(.pod_uid) \(.pod) \(.namespace) \(.name) \(.image)" end' <<<"$1"
}

# cri_cleanup: the EXIT trap. Every container and cgroup the test made goes.
cri_cleanup() {
	local id
	for id in "${CRI_IDS[@]}"; do
		ctr_k8s task kill --signal SIGKILL "$id" >/dev/null 2>&1 || true
		wait_for 10 bash -c "! ctr --namespace k8s.io task ls -q | grep -qx $id" || true
		ctr_k8s task delete "$id" >/dev/null 2>&1 || true
		ctr_k8s container delete "$id" >/dev/null 2>&1 || true
	done
	systemctl stop kubepods.slice 2>/dev/null || true
	rmdir "$CG/kubepods/burstable/pod$CRI_POD_UID" "$CG/kubepods/burstable" "$CG/kubepods" \
		2>/dev/null || true
	find "$CG$CRI_DELEGATED" -depth -type d -exec rmdir {} + 2>/dev/null || true
	rm -rf "$CRI_OPEN_NS"
	systemctl stop containerd.service "cri-containerd-*.scope" 2>/dev/null || true
}

test_containerd_records_name_the_pod_namespace_container_and_image() {
	local id record since_us n i
	trap cri_cleanup EXIT
	cri_setup
	since_us=$(date +%s%6N)
	# The kubelet's systemd driver: runc asks systemd for the scope in the pod's slice.
	id=$(cri_id)
	cri_run "$id" "kubepods-burstable-pod${CRI_POD_UID//-/_}.slice:cri-containerd:$id" \
		--runc-systemd-cgroup
	stat -c '%U %a %n' "$CRI_TASKS/k8s.io/$id/config.json"
	record=$(cri_over_limit "$id")
	echo "systemd driver: $record"
	assert_eq "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${CRI_POD_UID//-/_}.slice/cri-containerd-$id.scope" \
		"$(jq -r .cgroup <<<"$record")" "the scope runc had systemd make"
	assert_eq "containerd $id $CRI_POD_UID web-7d4f9 shop app registry.example/shop/app:1.2" \
		"$(names_of "$record")" "the pod, namespace, container and image of the bundle"
	for ((i = 0; i < 50; i++)); do
		n=$(journalctl _SYSTEMD_UNIT=argguard.service _UID=0 ARGGUARD_CONTAINER_ID="$id" \
			ARGGUARD_CONTAINER_POD=web-7d4f9 ARGGUARD_CONTAINER_NAMESPACE=shop \
			ARGGUARD_CONTAINER_NAME=app ARGGUARD_CONTAINER_IMAGE=registry.example/shop/app:1.2 \
			-o json --since=-5min | jq -s --argjson t "$since_us" \
			'map(select((.__REALTIME_TIMESTAMP | tonumber) >= $t)) | length')
		((n >= 1)) && break
		sleep 0.2
	done
	assert_eq 1 "$n" "journald finds the record by the container's names"

	# The kubelet's cgroupfs driver: the layout does not say which runtime.
	id=$(cri_id)
	cri_run "$id" "/kubepods/burstable/pod$CRI_POD_UID/$id"
	record=$(cri_over_limit "$id")
	echo "cgroupfs driver: $record"
	assert_eq "/kubepods/burstable/pod$CRI_POD_UID/$id" "$(jq -r .cgroup <<<"$record")" \
		"the cgroup runc made"
	assert_eq "cri $id $CRI_POD_UID web-7d4f9 shop app registry.example/shop/app:1.2" \
		"$(names_of "$record")" "the pod uid and id, and the bundle's names"
}

test_containerd_a_users_cgroup_or_bundle_names_no_pod() {
	local real fake record scope
	trap cri_cleanup EXIT
	cri_setup
	real=$(cri_id)
	cri_run "$real" "kubepods-burstable-pod${CRI_POD_UID//-/_}.slice:cri-containerd:$real" \
		--runc-systemd-cgroup
	record=$(cri_over_limit "$real")
	assert_eq "containerd $real $CRI_POD_UID web-7d4f9 shop app registry.example/shop/app:1.2" \
		"$(names_of "$record")" "the real container is named"

	# A subtree delegated to the tester, as systemd delegates one: there the
	# tester names a cgroup as containerd does, with the real container's id.
	mkdir "$CG$CRI_DELEGATED"
	chown "$TESTER" "$CG$CRI_DELEGATED" "$CG$CRI_DELEGATED"/cgroup.{procs,subtree_control,threads}
	fake=$CRI_DELEGATED/kubepods.slice/kubepods-pod${CRI_POD_UID//-/_}.slice/cri-containerd-$real.scope
	"${AS_TESTER[@]}" mkdir -p "$CG$fake"
	record=$(new_records 1 in_cgroup "$fake" "${AS_TESTER[@]}" "$HELPERS/execsize" \
		$(($(live_limit) + 1)) 0 /bin/true)
	echo "the tester's look-alike: $record"
	assert_eq "$fake" "$(jq -r .cgroup <<<"$record")" "the tester's cgroup"
	assert_eq "containerd $real $CRI_POD_UID null null null null" "$(names_of "$record")" \
		"a cgroup the tester made takes no names from the real container's bundle"

	# A bundle the tester could write: in a namespace directory root left
	# open in containerd's own task directory, for a cgroup root made.
	fake=$(cri_id)
	install -d -m 0777 "$CRI_OPEN_NS"
	"${AS_TESTER[@]}" mkdir -m 0700 "$CRI_OPEN_NS/$fake"
	"${AS_TESTER[@]}" sh -c "cat >'$CRI_OPEN_NS/$fake/config.json'" <<-EOF
		{"annotations": {"io.kubernetes.cri.sandbox-name": "forged",
		 "io.kubernetes.cri.sandbox-namespace": "kube-system",
		 "io.kubernetes.cri.container-name": "forged",
		 "io.kubernetes.cri.image-name": "forged"}}
	EOF
	scope=$(held_scope "cri-containerd-$fake" --slice="kubepods-pod${CRI_POD_UID//-/_}")
	record=$(new_records 1 in_cgroup "$scope" "$HELPERS/execsize" $(($(live_limit) + 1)) 0 \
		/bin/true)
	echo "the tester's bundle: $record"
	assert_eq "containerd $fake $CRI_POD_UID null null null null" "$(names_of "$record")" \
		"a bundle the tester wrote names nothing"
	systemctl stop "cri-containerd-$fake.scope"
}
