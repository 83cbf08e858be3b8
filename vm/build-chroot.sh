#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The clean Debian 12 system the package is built in, as a buildd's: a
# debootstrap --variant=buildd bookworm (essential packages and
# build-essential) from the mirror this machine's apt configuration names,
# with debian/control's Build-Depends installed by apt, and nothing else
# argguard's source could lean on. An unprivileged user, builder, runs the
# build (debian/build-deb.sh). Prints the chroot's root directory. Cached
# under a hash of this script and the Build-Depends field, so a new
# Build-Depends makes a new chroot; two callers at once build it once.
#
# usage: vm/build-chroot.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"

SUITE=bookworm
CONTROL=$ARGGUARD_ROOT/debian/control
BUILDER=builder

# debian/control's Build-Depends, on one line, as apt-get satisfy takes it.
build_depends() {
	awk '/^Build-Depends:/ { on = 1; sub(/^Build-Depends:/, ""); print; next }
	     on && /^[ \t]/ { print; next }
	     { on = 0 }' "$CONTROL" | tr -s ' \t\n' ' ' | sed 's/^ //; s/,* *$//'
}

# The URI of the apt source this machine uses for $SUITE main.
suite_mirror() {
	apt-get indextargets --format '$(REPO_URI)' "Codename: $SUITE" 'Component: main' \
		'Created-By: Packages' | head -n1
}

# Install DEPENDS in ROOT with apt, under this machine's Acquire settings
# (a proxy, a snapshot mirror's dates), which are taken away again afterwards.
install_build_depends() {
	local root=$1 depends=$2 rc=0 conf=etc/apt/apt.conf.d/99argguard-host
	apt-config dump | grep '^Acquire::' >"$root/$conf" || true
	cp -L /etc/resolv.conf "$root/etc/resolv.conf"
	mount -t proc proc "$root/proc"
	{
		chroot "$root" apt-get update -q &&
			DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get satisfy -y -q \
				--no-install-recommends "$depends"
	} >"$root.install.log" 2>&1 || rc=$?
	umount "$root/proc"
	rm -f "${root:?}/$conf"
	rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb
	if ((rc)); then
		tail -n 20 "$root.install.log" >&2
		return "$rc"
	fi
}

# make_chroot DEST: build the chroot in DEST/root, whole or not at all.
make_chroot() {
	local dest=$1 depends=$2 mirror tmp=$1.tmp.$$
	mirror=$(suite_mirror)
	[[ -n $mirror ]] || die "no apt source for $SUITE main in this machine's apt configuration"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	step "debootstrap --variant=buildd $SUITE" debootstrap --variant=buildd "$SUITE" \
		"$tmp/root" "$mirror" >"$tmp/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$tmp/debootstrap.log" >&2; die "debootstrap failed"; }
	step "install the Build-Depends: $depends" install_build_depends "$tmp/root" "$depends"
	step "add the unprivileged user $BUILDER" chroot "$tmp/root" useradd -m "$BUILDER"
	rm -rf "$dest"
	mv "$tmp" "$dest"
}

main() {
	local depends key dest
	(($# == 0)) || die "usage: vm/build-chroot.sh"
	depends=$(build_depends)
	[[ -n $depends ]] || die "$CONTROL has no Build-Depends"
	key=$( (content_hash "$0"; printf '%s\n' "$SUITE" "$depends") | sha256sum | cut -c1-16)
	dest=$ARGGUARD_CACHE/build-chroot/$key
	mkdir -p "${dest%/*}"
	exec 9>"${dest%/*}/lock"
	flock 9 # a build that waited here finds the chroot made
	[[ -d $dest/root ]] || make_chroot "$dest" "$depends"
	cache_used "$dest"
	printf '%s\n' "$dest/root"
}

main "$@"
