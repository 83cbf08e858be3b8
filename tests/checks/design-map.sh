#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# design-map.sh DESIGN_MD: every path that doc/design.md's "Where each
# behaviour lives" table names exists in the tree, as TAP. A path is a code
# span with a '/' in it, between the table's design-map markers; a table
# that names fewer than MIN_PATHS paths fails too, so that losing the
# markers cannot pass for a clean map. Every test that the "What a user
# could abuse" table names (a code span between the abuse-map markers) is
# defined in tests/guest/cases/ (or, for the two-guest job's collector, in
# tests/guest/two-guests/cases/).
set -euo pipefail
source "$(dirname "$0")/tap.sh"

MIN_PATHS=20
MIN_ABUSES=9

main() {
	local design=${1:?usage: $0 DESIGN_MD} root path test
	local -a paths tests
	root=$(cd "$(dirname "$design")/.." && pwd)
	mapfile -t paths < <(sed -n '/<!-- design-map: begin -->/,/<!-- design-map: end -->/p' "$design" |
		grep -o '`[^`]*/[^`]*`' | tr -d '`' | sort -u)
	tap_start
	for path in "${paths[@]}"; do
		if [[ -e $root/$path ]]; then
			pass "$path exists"
		else
			fail "$path, which design.md names, does not exist"
		fi
	done
	if ((${#paths[@]} >= MIN_PATHS)); then
		pass "the map names ${#paths[@]} paths"
	else
		fail "the map names ${#paths[@]} paths, fewer than $MIN_PATHS: are its markers gone?"
	fi
	mapfile -t tests < <(sed -n '/<!-- abuse-map: begin -->/,/<!-- abuse-map: end -->/p' "$design" |
		grep -o '`[a-z0-9_]*`' | tr -d '`' | sort -u)
	for test in "${tests[@]}"; do
		if grep -rqs "^test_$test()" "$root/tests/guest/cases" "$root/tests/guest/two-guests/cases"; then
			pass "abuse test $test is defined"
		else
			fail "$test, which design.md's abuse table names, is defined in no tests/guest/cases file"
		fi
	done
	if ((${#tests[@]} >= MIN_ABUSES)); then
		pass "the abuse table names ${#tests[@]} tests"
	else
		fail "the abuse table names ${#tests[@]} tests, fewer than $MIN_ABUSES: are its markers gone?"
	fi
	tap_end
}

main "$@"
