#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The package is reproducible: a copy of the tree at another path, built by
# its own debian/build-deb.sh under a differently named work directory (so
# in another directory of the chroot), gives a .deb byte for byte equal to
# DEB, the build's own. Where they differ, diffoscope says where. Prints TAP.
#
# usage: tests/checks/package-reproducible.sh DEB WORK
set -euo pipefail
source "$(dirname "$0")/tap.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)

main() {
	local deb=${1:?usage: tests/checks/package-reproducible.sh DEB WORK} work=${2:?usage: tests/checks/package-reproducible.sh DEB WORK}
	local copy=$work/elsewhere/argguard-tree again=$work/reproducible-check.deb
	rm -rf "$work"
	mkdir -p "$copy"
	rsync -a --exclude='/build*' --exclude=/.git "$ROOT/" "$copy/"
	"$copy/debian/build-deb.sh" "$work/a-second-build-directory" "$again"
	tap_start
	if cmp "$deb" "$again"; then
		pass "a second build, of a copy at another path, gives the same .deb"
		rm -rf "$work"
	else
		fail "a second build, of a copy at another path, gives the same .deb"
		if command -v diffoscope >/dev/null; then
			diffoscope --text - "$deb" "$again" | head -n 200 | diag || true
		fi
	fi
	tap_end
}

main "$@"
