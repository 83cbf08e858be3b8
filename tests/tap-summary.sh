#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tap-summary.sh FILE: check a TAP 13 report and end with "N passed, N failed".
# Fails when a test failed, when the plan and the results disagree, or when
# the report is missing.
set -euo pipefail

main() {
	local file=$1 plan passed failed ran
	[[ -s $file ]] || { echo "0 passed, 1 failed (no TAP report in $file)"; return 1; }
	grep -qx 'TAP version 13' "$file" || { echo "0 passed, 1 failed (not TAP 13)"; return 1; }
	plan=$(sed -n 's/^1\.\.\([0-9]\+\)$/\1/p' "$file" | head -n1)
	passed=$(grep -cE '^ok [0-9]+' "$file" || true)
	failed=$(grep -cE '^not ok [0-9]+' "$file" || true)
	ran=$((passed + failed))
	if [[ -z $plan || $plan -ne $ran ]]; then
		echo "plan was ${plan:-missing} but $ran tests reported"
		failed=$((failed + ${plan:-1} - ran))
		((failed > 0)) || failed=1
	fi
	echo "$passed passed, $failed failed"
	((failed == 0))
}

main "$@"
