#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run-suite.sh [DIR]: run every test case in DIR (default cases) and report
# TAP 13 on stdout. ARGGUARD_TEST_FILTER=REGEX runs only the matching tests.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"

main() {
	local dir=$HERE/${1:-cases} f t n=0 failed=0 out
	for f in "$dir"/*.sh; do
		source "$f"
	done
	mapfile -t tests < <(compgen -A function test_ | grep -E -- "${ARGGUARD_TEST_FILTER:-.}")
	echo "TAP version 13"
	echo "1..${#tests[@]}"
	for t in "${tests[@]}"; do
		n=$((n + 1))
		out=$("$t" 2>&1)
		if (($? == 0)); then
			echo "ok $n - ${t#test_}"
		else
			echo "not ok $n - ${t#test_}"
			failed=$((failed + 1))
		fi
		[[ -z $out ]] || sed 's/^/# /' <<<"$out"
	done
	((failed == 0))
}

main "$@"
