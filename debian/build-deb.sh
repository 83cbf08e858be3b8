#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the binary package from the working tree as it is (uncommitted
# edits included, build trees left out), out of tree: dpkg-buildpackage
# runs in a copy under WORK and leaves the .deb there; it is then copied
# to OUTPUT. dpkg-buildpackage -b in a clean checkout builds the same.
#
# usage: debian/build-deb.sh KERNEL_DIR WORK OUTPUT [VERSION_SUFFIX [CMAKE_ARG...]]
# KERNEL_DIR: a vm/kernel.sh output, whose vmlinux.h the BPF program is
# built against. VERSION_SUFFIX (for example ~prev1) is appended to
# debian/changelog's version; CMAKE_ARGs go to the package's cmake.
set -euo pipefail

# copy_tree SRC DEST: the files of SRC's working tree, as they are now; in a
# copy that is not a git checkout (tests/mutants/run.sh makes one), all but
# its build trees.
copy_tree() {
	if git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$1" ls-files -z --cached --others --exclude-standard |
			(cd "$1" && tar --null --ignore-failed-read -T - -cf -) | tar -C "$2" -xf -
	else
		tar -C "$1" --exclude=./build --exclude='./build-*' -cf - . | tar -C "$2" -xf -
	fi
}

main() {
	(($# >= 3)) || { sed -n '3,/^set /{/^#/s/^# \{0,1\}//p}' "$0" >&2; exit 2; }
	local kernel=$1 work=$2 output=$3 suffix=${4:-} src version stage log
	shift $(($# >= 4 ? 4 : 3))
	src=$(cd "$(dirname "$0")/.." && pwd)
	version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)$suffix
	stage=$work/argguard-$version
	log=$work/build.log
	rm -rf "$work"
	mkdir -p "$stage"
	copy_tree "$src" "$stage"
	if [[ -n $suffix ]]; then
		sed -i "1s/(\([^)]*\))/(\1$suffix)/" "$stage/debian/changelog"
	fi
	if ! (cd "$stage" && ARGGUARD_KERNEL_DIR=$kernel ARGGUARD_CMAKE_ARGS="$*" \
		DEB_BUILD_OPTIONS="nocheck noddebs parallel=$(nproc)" \
		dpkg-buildpackage -b -us -uc) >"$log" 2>&1; then
		tail -n 40 "$log" >&2
		echo "build-deb.sh: dpkg-buildpackage failed; the whole log is $log" >&2
		exit 1
	fi
	cp "$work/argguard_${version}_amd64.deb" "$output"
}

main "$@"
