#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the cached base of the Debian guest: debootstrap bookworm (minbase,
# systemd, argguard's runtime and test packages) from the mirror this machine's
# apt configuration names. Prints the directory of the root tree. Cached under
# a hash of this script, so a changed package list rebuilds it.
#
# usage: vm/rootfs.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"

SUITE=bookworm
PACKAGES=(
	systemd systemd-sysv dbus # a real init, as on a real machine
	auditd # the Linux audit log, a sink of argguard's
	libbpf1 libaudit1 # argguard's runtime
	bpftool jq util-linux procps libcap2-bin logrotate # what the guest tests drive
	inotify-tools # a test watches the pin directory while a start swaps its pins
	uidmap # newuidmap: user namespaces with subordinate uids, as rootless containers make
	podman crun busybox-static # real containers, root and rootless, from a local busybox image
	netavark # the network stack containers-common depends on (a virtual package debootstrap leaves out)
	containerd # Kubernetes' runtime: a container with the CRI's annotations, made with ctr
	# The user's bus for the user's systemd, which rootless podman asks for each container's
	# scope (with no bus it falls back to cgroupfs, and on cgroup v2 makes no cgroup at all).
	dbus-user-session
	sudo # a setuid program real workloads exec with large environments
	libbpf-tools # execsnoop: the exec tracer the benchmarks compare against
	prometheus-node-exporter curl # serves argguard's textfile on :9100/metrics
	prometheus # for promtool, which checks the exposition format; its server stays masked
	# A node's journal to a collector (systemd-journal-upload and -remote, both
	# left disabled: the two-guest job starts them), over a link iproute2 sets up.
	systemd-journal-remote iproute2
)

# The first apt source that serves $SUITE main, in either sources format.
apt_mirror() {
	local f files=()
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] && files+=("$f")
	done
	((${#files[@]})) || return 0
	awk -v suite="$SUITE" '
		/^deb / && $0 !~ /\[/ && $3 == suite { print $2; exit }
		/^deb \[/ { sub(/\[[^]]*\] /, ""); if ($3 == suite) { print $2; exit } }
		/^URIs:/ { uri = $2 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) hit = 1 }
		/^[ \t]*$/ { if (hit && uri) { print uri; exit } uri = ""; hit = 0 }
		END { if (hit && uri) print uri }
	' "${files[@]}" | head -n1
}

configure_base() {
	local root=$1
	echo argguard-guest >"$root/etc/hostname"
	echo '/dev/vda / ext4 rw,relatime 0 1' >"$root/etc/fstab"
	# Nobody logs in: the job unit drives the guest and powers it off.
	ln -sf /dev/null "$root/etc/systemd/system/getty@.service"
	ln -sf /dev/null "$root/etc/systemd/system/serial-getty@.service"
	ln -sf /dev/null "$root/etc/systemd/system/systemd-logind.service"
	ln -sf /dev/null "$root/etc/systemd/system/prometheus.service"
	chroot "$root" passwd -d root >/dev/null
	chroot "$root" useradd -m -s /bin/bash -u 1000 tester
	# Subordinate ids (subuid(5)): tester's for rootless namespaces, and
	# root's, as LXD and rootful containers with remapped ids have them.
	printf '%s\n' tester:100000:65536 root:200000:65536 | tee "$root/etc/subuid" >"$root/etc/subgid"
	rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
}

main() {
	local key dest mirror tmp
	key=$( (content_hash "$0"; printf '%s\n' "$SUITE" "${PACKAGES[@]}") | sha256sum | cut -c1-16)
	dest=$ARGGUARD_CACHE/rootfs/$key
	if [[ -d $dest/root ]]; then
		log "rootfs $key is cached"
		cache_used "$dest"
		printf '%s\n' "$dest/root"
		return
	fi
	mirror=$(apt_mirror)
	[[ -n $mirror ]] || die "no apt source for $SUITE main in /etc/apt; cannot pick a mirror"
	tmp=$dest.tmp.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	local include
	include=$(IFS=,; echo "${PACKAGES[*]}")
	step "debootstrap $SUITE" debootstrap --variant=minbase --include="$include" \
		"$SUITE" "$tmp/root" "$mirror" >"$tmp/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$tmp/debootstrap.log" >&2; die "debootstrap failed"; }
	step "configure rootfs" configure_base "$tmp/root"
	rm -rf "$dest"
	mv "$tmp" "$dest"
	printf '%s\n' "$dest/root"
}

main "$@"
