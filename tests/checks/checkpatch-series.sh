#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run each kernel version's own scripts/checkpatch.pl --strict over every file
# in kernel-patches/VERSION/: the cover letter, the upstream patches and the
# site-only one. Prints TAP; fails if any file draws a report not allowed
# below. Exits 77 (skipped) only when no tree and no tarball of that version
# are on this machine.
#
# checkpatch comes from vm/kernel.sh's source tree when it has one (a full
# git tree: checkpatch runs there as in a kernel checkout, spdxcheck
# included). Otherwise only scripts/ is unpacked from the tarball, into the
# cache, and checkpatch runs with --no-tree.
#
# usage: tests/checks/checkpatch-series.sh [VERSION...]   (default: 6.1 6.12)
set -euo pipefail
source "$(dirname "$0")/../../vm/lib.sh"
source "$(dirname "$0")/tap.sh"

# The reports allowed, each for a reason no patch can remove:
# - FILE_PATH_CHANGES: checkpatch asks whether MAINTAINERS needs an update for
#   any new file; "EXEC & BINFMT API" already covers selftests/exec/.
# - UNKNOWN_COMMIT_ID: the tarball has no upstream history, so every commit a
#   message cites is unknown here. How it is cited (GIT_COMMIT_ID: the id
#   with its title) is still checked.
ALLOWED=FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID

# checkpatch_dir VERSION: print the directory to run checkpatch from, and
# "tree" or "no-tree"; returns 1 if this version has neither tree nor tarball.
checkpatch_dir() {
	local version=$1 src=$ARGGUARD_CACHE/linux-$1/src tarball=/usr/src/linux-source-$1.tar.xz
	local dir=$ARGGUARD_CACHE/checkpatch-$1 stamp
	if [[ -f $src/scripts/checkpatch.pl && -d $src/.git ]]; then
		printf '%s tree\n' "$src"
		return
	fi
	[[ -f $tarball ]] || return 1
	stamp=$(stat -c '%s %Y' "$tarball")
	if [[ ! -f $dir/.tarball || $(cat "$dir/.tarball") != "$stamp" ]]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		tar -xJf "$tarball" -C "$dir" --strip-components=1 --wildcards '*/scripts/*'
		printf '%s\n' "$stamp" >"$dir/.tarball"
	fi
	printf '%s no-tree\n' "$dir"
}

# checkpatch VERSION FILE: checkpatch's report on one file; fails if it
# reports anything not allowed.
checkpatch() {
	local version=$1 file=$2 dir mode
	read -r dir mode < <(checkpatch_dir "$version")
	local args=(--strict --quiet --ignore "$ALLOWED")
	[[ $mode == no-tree ]] && args+=(--no-tree)
	# spdxcheck.py needs Debian's python3 with python3-ply.
	(cd "$dir" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl "${args[@]}" "$file")
}

main() {
	local version dir f out
	(($#)) || set -- 6.1 6.12
	tap_start
	for version in "$@"; do
		dir=$ARGGUARD_ROOT/kernel-patches/$version
		[[ -d $dir ]] || die "no series for version '$version' (kernel-patches/$version)"
		if ! checkpatch_dir "$version" >/dev/null; then
			diag "no kernel tree or /usr/src/linux-source-$version.tar.xz: skipped"
			exit 77
		fi
		for f in "$dir"/*.patch; do
			if out=$(checkpatch "$version" "$f" 2>&1); then
				pass "$version: checkpatch --strict: ${f##*/}"
			else
				fail "$version: checkpatch --strict: ${f##*/}"
				diag <<<"$out"
			fi
		done
	done
	tap_end
}

main "$@"
