#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tap-summary.sh FILE...: check TAP 13 reports and end with one line,
# "N passed, N failed, N skipped", over all of them. A report that is
# missing, is not TAP 13, or whose plan disagrees with its results counts as
# a failure. A skip ("ok N - name # SKIP reason") counts apart, except in CI
# (CI=true): there the guest has everything, and a skip counts as a failure
# unless ARGGUARD_ALLOW_SKIP=1.
set -euo pipefail

passed=0 failed=0 skipped=0

skips_allowed() {
	[[ ${ARGGUARD_ALLOW_SKIP:-} == 1 ]] && return 0
	case ${CI:-} in
	'' | 0 | false) return 0 ;;
	*) return 1 ;;
	esac
}

check_report() {
	local file=$1 plan ok not_ok skips line
	if [[ ! -s $file ]] || ! grep -qx 'TAP version 13' "$file"; then
		echo "$file: no TAP 13 report"
		failed=$((failed + 1))
		return
	fi
	plan=$(sed -n 's/^1\.\.\([0-9]\+\)$/\1/p' "$file" | head -n1)
	ok=$(grep -cE '^ok [0-9]+' "$file" || true)
	not_ok=$(grep -cE '^not ok [0-9]+' "$file" || true)
	skips=$(grep -ciE '^ok [0-9]+[^#]*# *skip' "$file" || true)
	if ((skips > 0)) && ! skips_allowed; then
		while IFS= read -r line; do
			echo "$file: $line: a skip is a failure in CI (ARGGUARD_ALLOW_SKIP=1 allows it)"
		done < <(grep -iE '^ok [0-9]+[^#]*# *skip' "$file")
		failed=$((failed + skips))
	else
		skipped=$((skipped + skips))
	fi
	passed=$((passed + ok - skips))
	failed=$((failed + not_ok))
	if [[ -z $plan ]] || ((plan != ok + not_ok)); then
		echo "$file: plan was ${plan:-missing} but $((ok + not_ok)) tests reported"
		if [[ -n $plan ]] && ((plan > ok + not_ok)); then
			failed=$((failed + plan - ok - not_ok))
		else
			failed=$((failed + 1))
		fi
	fi
}

main() {
	local f
	for f in "$@"; do
		check_report "$f"
	done
	echo "$passed passed, $failed failed, $skipped skipped"
	((failed == 0))
}

main "$@"
