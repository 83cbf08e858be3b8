#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every mutant applies to the tree as it is: one that no longer applies
# plants nothing, and so tests nothing. TAP, one line per mutant.
set -euo pipefail

main() {
	local root patch n=0 failed=0
	root=$(cd "$(dirname "$0")/../.." && pwd)
	local patches=("$root"/tests/mutants/*.patch)
	echo "1..${#patches[@]}"
	for patch in "${patches[@]}"; do
		n=$((n + 1))
		if ! grep -qE '^catch(-ctest)?: .' "$patch"; then
			echo "not ok $n - ${patch##*/} names no test that catches it (catch: or catch-ctest:)"
			failed=$((failed + 1))
		elif patch -p1 --dry-run -s -d "$root" <"$patch" >/dev/null 2>&1; then
			echo "ok $n - ${patch##*/}"
		else
			echo "not ok $n - ${patch##*/} does not apply: refresh it against the tree"
			failed=$((failed + 1))
		fi
	done
	((failed == 0))
}

main "$@"
