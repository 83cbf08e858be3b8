#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# design-map.sh DESIGN_MD: every path that doc/design.md's "Where each
# behaviour lives" table names exists in the tree, as TAP. A path is a code
# span with a '/' in it, between the table's design-map markers; a table
# that names fewer than MIN_PATHS paths fails too, so that losing the
# markers cannot pass for a clean map.
set -euo pipefail

MIN_PATHS=20

main() {
	local design=${1:?usage: $0 DESIGN_MD} root n=0 failed=0 path
	local -a paths
	root=$(cd "$(dirname "$design")/.." && pwd)
	mapfile -t paths < <(sed -n '/<!-- design-map: begin -->/,/<!-- design-map: end -->/p' "$design" |
		grep -o '`[^`]*/[^`]*`' | tr -d '`' | sort -u)
	for path in "${paths[@]}"; do
		n=$((n + 1))
		if [[ -e $root/$path ]]; then
			echo "ok $n - $path exists"
		else
			failed=$((failed + 1))
			echo "not ok $n - $path, which design.md names, does not exist"
		fi
	done
	n=$((n + 1))
	if ((${#paths[@]} >= MIN_PATHS)); then
		echo "ok $n - the map names ${#paths[@]} paths"
	else
		failed=$((failed + 1))
		echo "not ok $n - the map names ${#paths[@]} paths, fewer than $MIN_PATHS: are its markers gone?"
	fi
	echo "1..$n"
	((failed == 0))
}

main "$@"
