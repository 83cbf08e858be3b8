#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A guest that runs one of Debian's own kernels, as Debian ships it: the
# cached base root tree (vm/rootfs.sh) with the kernel package installed by
# apt inside it, initramfs and all. Prints a directory that vm/run.sh takes as
# --kernel: bzImage, initrd.img and config (copies of the package's /boot
# files), release, and root/ (the guest tree to boot). Cached under a hash of
# this script, the base tree and the package version apt resolves; apt reads
# its sources and settings from this machine's configuration.
#
# usage: vm/debian-kernel.sh PACKAGE
#   PACKAGE  a Debian kernel image package or metapackage, for example
#            linux-image-amd64 (bookworm's 6.1) or linux-image-6.12-cloud-amd64
#            (6.12, from bookworm's security suite)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# The version apt would install now, as "name=version"; metapackages resolve
# to the image they depend on, so a new point release is a new cache key.
resolve() {
	local pkg=$1 version dep
	version=$(apt-cache policy "$pkg" | awk '/Candidate:/ { print $2 }')
	[[ -n $version && $version != "(none)" ]] ||
		die "apt knows no package $pkg (run apt-get update, or check the name)"
	dep=$(apt-cache depends "$pkg" 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	if [[ -n $dep ]]; then
		resolve "$dep"
		return
	fi
	printf '%s=%s\n' "$pkg" "$version"
}

# Give the chroot this machine's apt sources and Acquire settings, for the
# one install, and take them away again afterwards.
HOST_APT=(etc/apt/sources.list.d/argguard-host.sources etc/apt/sources.list.d/argguard-host.list
	etc/apt/apt.conf.d/99argguard-host)
lend_apt_config() {
	local root=$1 f
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] && cat "$f" && echo
	done >"$root/${HOST_APT[0]}"
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null >"$root/${HOST_APT[1]}" || true
	apt-config dump | grep '^Acquire::' >"$root/${HOST_APT[2]}" || true
	cp -L /etc/resolv.conf "$root/etc/resolv.conf"
}

return_apt_config() {
	local root=$1 f
	for f in "${HOST_APT[@]}"; do
		rm -f "${root:?}/$f"
	done
	rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb
}

install_kernel() {
	local root=$1 pkg=$2 rc=0
	lend_apt_config "$root"
	mount -t proc proc "$root/proc"
	mount --bind /dev "$root/dev"
	{
		chroot "$root" apt-get update -q &&
			DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -q \
				--no-install-recommends "$pkg" initramfs-tools
	} >"$root.install.log" 2>&1 || rc=$?
	umount "$root/dev" "$root/proc"
	return_apt_config "$root"
	if ((rc)); then
		tail -n 20 "$root.install.log" >&2
		return "$rc"
	fi
}

export_boot_files() {
	local dest=$1 root=$1/root release
	release=$(cd "$root/boot" && ls vmlinuz-* | sed 's/^vmlinuz-//' | sort -V | tail -n1)
	[[ -n $release && -f $root/boot/initrd.img-$release ]] ||
		die "the package left no kernel and initramfs in /boot"
	cp "$root/boot/vmlinuz-$release" "$dest/bzImage"
	cp "$root/boot/initrd.img-$release" "$dest/initrd.img"
	cp "$root/boot/config-$release" "$dest/config"
	printf '%s\n' "$release" >"$dest/release"
}

main() {
	local pkg=${1:-} resolved base key dest tmp
	[[ -n $pkg && $# -eq 1 ]] || die "usage: vm/debian-kernel.sh PACKAGE"
	resolved=$(resolve "$pkg")
	base=$("$ARGGUARD_ROOT/vm/rootfs.sh")
	key=$( (content_hash "$0"; printf '%s\n' "$base" "$resolved") | sha256sum | cut -c1-16)
	dest=$ARGGUARD_CACHE/debian-kernel/${resolved%%=*}-$key
	if [[ -f $dest/bzImage ]]; then
		log "Debian kernel $resolved is cached"
		cache_used "$dest"
		printf '%s\n' "$dest"
		return
	fi
	tmp=$dest.tmp.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	step "copy the base root tree" cp -a "$base" "$tmp/root"
	step "install $resolved in the guest tree" install_kernel "$tmp/root" "$resolved"
	step "export the boot files" export_boot_files "$tmp"
	rm -rf "$dest"
	mv "$tmp" "$dest"
	printf '%s\n' "$dest"
}

main "$@"
