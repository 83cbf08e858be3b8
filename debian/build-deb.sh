#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the binary package the Debian way, from the working tree as it is
# (uncommitted edits included, build trees left out): make the source
# package (dpkg-source -b), then, in a clean Debian 12 chroot holding only
# build-essential and the Build-Depends (vm/build-chroot.sh), unpack it and
# run dpkg-buildpackage as an unprivileged user. No kernel is needed. The
# chroot is not changed: each build writes to an overlay of it under WORK.
# The source is unpacked at /build/NAME in the chroot, NAME being WORK's own
# name: two builds under differently named WORKs give the same bytes. The
# .deb is copied to OUTPUT. Needs root (mount, chroot).
#
# usage: debian/build-deb.sh WORK OUTPUT [VERSION_SUFFIX [CMAKE_ARG...]]
# VERSION_SUFFIX (for example ~prev1) is appended to debian/changelog's
# version; CMAKE_ARGs go to the package's cmake.
set -euo pipefail

# copy_tree SRC DEST: the files of SRC's working tree, as they are now; in a
# copy that is not the top of a git checkout (tests/mutants/run.sh and
# tests/checks/package-reproducible.sh make some), all but its build trees.
copy_tree() {
	if [[ $(git -C "$1" rev-parse --show-toplevel 2>/dev/null) == "$(realpath "$1")" ]]; then
		git -C "$1" ls-files -z --cached --others --exclude-standard |
			(cd "$1" && tar --null --ignore-failed-read -T - -cf -) | tar -C "$2" -xf -
	else
		tar -C "$1" --exclude=./build --exclude='./build-*' -cf - . | tar -C "$2" -xf -
	fi
}

MERGED=
unmount_overlay() {
	[[ -n $MERGED ]] && mountpoint -q "$MERGED" && umount "$MERGED"
	return 0
}

main() {
	(($# >= 2)) || { sed -n '3,/^set /{/^#/s/^# \{0,1\}//p}' "$0" >&2; exit 2; }
	local work=$1 output=$2 suffix=${3:-} src version name chroot uid log
	shift $(($# >= 3 ? 3 : 2))
	src=$(cd "$(dirname "$0")/.." && pwd)
	((EUID == 0)) || { echo "build-deb.sh: needs root, to mount the chroot's overlay" >&2; exit 1; }
	chroot=$("$src/vm/build-chroot.sh")
	version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)$suffix
	work=$(mkdir -p "$work" && cd "$work" && pwd)
	name=${work##*/}
	log=$work/build.log
	mountpoint -q "$work/root" && umount "$work/root"
	rm -rf "${work:?}"/*

	# The source package, as a maintainer uploads it.
	mkdir -p "$work/source/argguard-$version"
	copy_tree "$src" "$work/source/argguard-$version"
	if [[ -n $suffix ]]; then
		sed -i "1s/(\([^)]*\))/(\1$suffix)/" "$work/source/argguard-$version/debian/changelog"
	fi
	(cd "$work/source" && dpkg-source -b "argguard-$version") >"$log" 2>&1 ||
		{ cat "$log" >&2; echo "build-deb.sh: dpkg-source -b failed" >&2; exit 1; }

	# The build, in an overlay of the clean chroot.
	mkdir -p "$work/upper/build/$name" "$work/overlay-work" "$work/root"
	cp "$work/source/argguard_$version.dsc" "$work/source/argguard_$version.tar.xz" \
		"$work/upper/build/$name/"
	uid=$(chroot "$chroot" id -u builder)
	chown -R "$uid:$uid" "$work/upper/build"
	MERGED=$work/root
	trap unmount_overlay EXIT
	mount -t overlay overlay -o "lowerdir=$chroot,upperdir=$work/upper,workdir=$work/overlay-work" \
		"$MERGED"
	if ! chroot --userspec=builder:builder "$MERGED" env -i PATH=/usr/bin:/bin \
		HOME=/home/builder LC_ALL=C.UTF-8 ARGGUARD_CMAKE_ARGS="$*" \
		DEB_BUILD_OPTIONS="nocheck noddebs parallel=$(nproc)" \
		sh -ec "cd /build/$name; dpkg-source -x argguard_$version.dsc argguard-$version
			cd argguard-$version; dpkg-buildpackage -b -us -uc" >>"$log" 2>&1; then
		tail -n 40 "$log" >&2
		echo "build-deb.sh: dpkg-buildpackage failed in the chroot; the whole log is $log" >&2
		exit 1
	fi
	cp "$MERGED/build/$name/argguard_${version}_amd64.deb" "$output"
	unmount_overlay
}

main "$@"
