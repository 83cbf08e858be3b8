# SPDX-License-Identifier: GPL-2.0
# Podman: containers a real runtime makes, as root and rootless, from a local
# busybox image (the guest has no registry and no network). An exec over the
# limit inside one is recorded with the container podman made for it, by the
# id podman gives it, and a new container's record names the new one.
#
# How podman runs here: storage driver vfs (the guest kernel has no
# overlayfs), --network=none (no network), and systemd's cgroup manager, as
# Debian's podman has it: root's containers get /machine.slice/libpod-ID.scope
# through the system bus. Rootless podman asks the user's own systemd for
# .../user@UID.service/user.slice/libpod-ID.scope through the user's bus: its
# user manager, which logind would start at login (masked in the guest), is
# started here by hand, and dbus-user-session gives it the bus. Without that
# bus podman falls back to --cgroup-manager=cgroupfs, and a rootless
# container then gets no cgroup of its own: its execs were seen in podman's
# own .../user.slice/podman-PID.scope, which names no container. Root's
# podman with cgroupfs makes /libpod_parent/libpod-ID, tested here too.

PODMAN_DIR=/var/tmp/argguard-podman # the image's tree and tar, root's storage
PODMAN_IMAGE=localhost/argguard-busybox
TESTER_HOME=/home/tester
TESTER_RUN=/run/user/$TESTER
TESTER_PODMAN=$TESTER_HOME/argguard-podman # the tester's storage
USER_DROPIN=/run/systemd/system/user@$TESTER.service.d
# What podman may make outside the storage it is given, removed if it did.
PODMAN_STRAYS=(/run/libpod /run/containers /var/lib/containers /etc/containers/networks
	/dev/shm/libpod_lock "/dev/shm/libpod_rootless_lock_$TESTER"
	"$TESTER_HOME/.local/share/containers" "$TESTER_HOME/.config/containers")
PODMAN_FOUND=()  # those of PODMAN_STRAYS there before the test
TESTER_SESSION=0 # 1 once the test starts the tester's user manager

# podman_root ARG...: root's podman, with storage and state of its own.
podman_root() {
	podman --storage-driver=vfs --root="$PODMAN_DIR/root" --runroot="$PODMAN_DIR/run" \
		--tmpdir="$PODMAN_DIR/tmp" "$@"
}

# podman_root_cgroupfs ARG...: the same, with podman's cgroupfs manager.
podman_root_cgroupfs() { podman_root --cgroup-manager=cgroupfs "$@"; }

# podman_tester ARG...: the tester's rootless podman, in its user session.
podman_tester() {
	"${AS_TESTER[@]}" env --chdir="$TESTER_HOME" HOME="$TESTER_HOME" \
		XDG_RUNTIME_DIR="$TESTER_RUN" DBUS_SESSION_BUS_ADDRESS="unix:path=$TESTER_RUN/bus" \
		podman --storage-driver=vfs --root="$TESTER_PODMAN/root" \
		--runroot="$TESTER_RUN/argguard-podman" "$@"
}

# busybox_tar: a tar of an image's tree: busybox-static and a link for each
# of its applets, and execsize built static (the image has no C library).
busybox_tar() {
	local tree=$PODMAN_DIR/tree applet
	mkdir -p "$tree/bin" "$tree/etc" "$tree/proc" "$tree/sys" "$tree/dev" "$tree/tmp"
	install -m 0755 "$(command -v busybox)" "$tree/bin/busybox"
	for applet in $(busybox --list); do
		[[ $applet == busybox ]] || ln -sf busybox "$tree/bin/$applet"
	done
	install -m 0755 "$HELPERS/execsize_static" "$tree/bin/execsize"
	tar -C "$tree" -cf "$PODMAN_DIR/busybox.tar" .
	chmod 0644 "$PODMAN_DIR/busybox.tar"
}

# podman_setup: the tar, and the strays already there before the test.
podman_setup() {
	local d
	for d in "${PODMAN_STRAYS[@]}" "$CG/libpod_parent"; do
		[[ -e $d ]] && PODMAN_FOUND+=("$d")
	done
	install -d -m 0755 "$PODMAN_DIR"
	busybox_tar
}

# libpod_units: the scopes systemd holds for podman's containers and conmons.
libpod_units() {
	systemctl list-units --all --plain --no-legend 'libpod-*' | awk '{ print $1 }'
}

# podman_cleanup: the EXIT trap. Every container, image and storage the test
# made goes, the tester's session too, so that later tests see none of it;
# what could not be removed fails the test, once all the rest is done.
podman_cleanup() {
	local d units=() left=()
	podman_root_cgroupfs rm --force --ignore --time 0 argguard-t-cgroupfs >/dev/null ||
		left+=("root's cgroupfs container")
	podman_root rm --all --force --time 0 >/dev/null || left+=("root's containers")
	podman_root rmi --all --force >/dev/null || left+=("root's images")
	if ((TESTER_SESSION)); then
		podman_tester rm --all --force --time 0 >/dev/null || left+=("the tester's containers")
		podman_tester rmi --all --force >/dev/null || left+=("the tester's images")
		# Rootless podman's pause process holds its user namespace.
		[[ ! -f $TESTER_RUN/libpod/tmp/pause.pid ]] ||
			kill "$(cat "$TESTER_RUN/libpod/tmp/pause.pid")" || left+=("the pause process")
		systemctl stop "user@$TESTER.service" "user-runtime-dir@$TESTER.service" \
			"user-$TESTER.slice" || left+=("the tester's session")
		rm -rf "$USER_DROPIN"
		systemctl daemon-reload
		! pgrep -u "$TESTER" >/dev/null || left+=("the tester's processes")
	fi
	mapfile -t units < <(libpod_units)
	((${#units[@]} == 0)) || systemctl stop "${units[@]}" || left+=("podman's scopes")
	rm -rf "$PODMAN_DIR" "$TESTER_PODMAN"
	for d in "${PODMAN_STRAYS[@]}"; do
		[[ " ${PODMAN_FOUND[*]} " == *" $d "* ]] || rm -rf "$d"
	done
	# The cgroups podman's cgroupfs manager made (rmdir, leaves first).
	if [[ " ${PODMAN_FOUND[*]} " != *" $CG/libpod_parent "* && -d $CG/libpod_parent ]]; then
		find "$CG/libpod_parent" -depth -type d -exec rmdir {} + || left+=("/libpod_parent")
	fi
	((${#left[@]} == 0)) || fail "the cleanup left: ${left[*]}"
}

# exec_record PODMAN CONTAINER: the record of an exec one byte past the
# global limit in CONTAINER, which keeps running (sleep is its PID 1), so
# that its cgroup is still there when the daemon reads it. Only execsize's:
# nothing podman runs on the way may pass for it.
exec_record() {
	local records n
	records=$(new_records 1 "$1" exec "$2" /bin/execsize $(($(live_limit) + 1)) 0 /bin/true |
		jq -c 'select(.comm == "execsize")')
	n=$(grep -c . <<<"$records" || true) # none is counted, not an error
	assert_eq 1 "$n" "the records of the exec in $2"
	echo "$records"
}

# run_sleeper PODMAN NAME: start container NAME (removing one of that name
# first: sleep, as PID 1, ignores the SIGTERM --replace would wait on),
# sleeping as its PID 1; print the id podman inspect gives it.
run_sleeper() {
	"$1" rm --force --ignore --time 0 "$2" >/dev/null
	"$1" run --detach --network=none --name "$2" "$PODMAN_IMAGE" /bin/sleep 600 >/dev/null
	"$1" inspect --format '{{.Id}}' "$2"
}

test_podman_names_roots_container_in_records() {
	local id new record
	trap podman_cleanup EXIT
	podman_setup
	podman_root import "$PODMAN_DIR/busybox.tar" "$PODMAN_IMAGE" >/dev/null

	id=$(run_sleeper podman_root argguard-t-root)
	record=$(exec_record podman_root argguard-t-root)
	echo "root: $record"
	[[ $(jq -r .cgroup <<<"$record") == "/machine.slice/libpod-$id.scope"* ]] ||
		fail "expected the exec in /machine.slice/libpod-$id.scope, got $(jq -r .cgroup <<<"$record")"
	assert_eq "podman $id null false" "$(container_of "$record")" \
		"the container podman inspect names"
	assert_eq 1 "$(journalctl _SYSTEMD_UNIT=argguard.service _UID=0 \
		ARGGUARD_CONTAINER_ID="$id" -o json --since=-5min | wc -l)" \
		"journald finds the record by the container's id"

	# A restart keeps the id, and systemd makes the scope anew.
	podman_root restart --time 0 argguard-t-root >/dev/null
	record=$(exec_record podman_root argguard-t-root)
	echo "restarted: $record"
	assert_eq "podman $id null false" "$(container_of "$record")" \
		"the restarted container"

	# A new container of the same name has a new id.
	new=$(run_sleeper podman_root argguard-t-root)
	[[ $new != "$id" ]] || fail "expected the new container to have a new id, got $id again"
	record=$(exec_record podman_root argguard-t-root)
	echo "new: $record"
	assert_eq "podman $new null false" "$(container_of "$record")" \
		"the new container, by its own id"

	# Podman's other cgroup manager: cgroupfs, no systemd scope.
	id=$(run_sleeper podman_root_cgroupfs argguard-t-cgroupfs)
	record=$(exec_record podman_root_cgroupfs argguard-t-cgroupfs)
	echo "cgroupfs: $record"
	assert_eq "/libpod_parent/libpod-$id" "$(jq -r .cgroup <<<"$record")" "the cgroupfs cgroup"
	assert_eq "podman $id null false" "$(container_of "$record")" \
		"the container podman's cgroupfs manager made"
}

# tester_session: the tester's user manager and bus, as logind would start them.
tester_session() {
	local i
	grep -q "^tester:" /etc/subuid || fail "expected /etc/subuid to give tester a range"
	grep -q "^tester:" /etc/subgid || fail "expected /etc/subgid to give tester a range"
	# pam_systemd sets XDG_RUNTIME_DIR from logind's answer: logind is masked.
	mkdir -p "$USER_DROPIN"
	printf '[Service]\nEnvironment=XDG_RUNTIME_DIR=%s\n' "$TESTER_RUN" \
		>"$USER_DROPIN/argguard-test.conf"
	systemctl daemon-reload
	TESTER_SESSION=1
	systemctl start "user@$TESTER.service"
	for ((i = 0; i < 100; i++)); do
		[[ -S $TESTER_RUN/bus ]] && return
		sleep 0.1
	done
	fail "the tester's user manager made no bus at $TESTER_RUN/bus"
}

test_podman_names_rootless_container_in_records() {
	local id record
	trap podman_cleanup EXIT
	podman_setup
	tester_session
	install -d -o "$TESTER" -g "$TESTER" "$TESTER_PODMAN"
	podman_tester import "$PODMAN_DIR/busybox.tar" "$PODMAN_IMAGE" >/dev/null

	id=$(run_sleeper podman_tester argguard-t-rootless)
	record=$(exec_record podman_tester argguard-t-rootless)
	echo "rootless: $record"
	local scope=/user.slice/user-$TESTER.slice/user@$TESTER.service/user.slice/libpod-$id.scope
	[[ $(jq -r .cgroup <<<"$record") == "$scope"* ]] ||
		fail "expected the exec in $scope, got $(jq -r .cgroup <<<"$record")"
	assert_eq "podman $id null true" "$(container_of "$record")" \
		"the tester's container, as podman inspect names it"
}
