#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# smoke.sh FUZZER SEEDS RUNS
#
# Run a libFuzzer target from its seed corpus for RUNS inputs (or 20 s,
# whichever comes first). A crash, a leak, a sanitizer report or a hang
# fails; the input that did it is left in the working directory as
# crash-*, leak-* or timeout-*, to replay with `FUZZER FILE`.
set -euo pipefail

main() {
	local fuzzer=$1 seeds=$2 runs=$3 scratch rc=0

	if [[ ! -x $fuzzer ]]; then
		echo "smoke: no fuzz target $fuzzer (was the build's fuzz sub-build skipped?)" >&2
		return 1
	fi
	# New inputs go to a scratch directory, never into the seeds.
	scratch=$(mktemp -d)
	# shellcheck disable=SC2064 # expanded now: scratch is local to main
	trap "rm -rf '$scratch'" EXIT
	mkdir "$scratch/corpus"
	timeout -k 10 120 "$fuzzer" -runs="$runs" -max_total_time=20 -timeout=10 \
		-print_final_stats=1 -artifact_prefix="$PWD/$(basename "$fuzzer")-" \
		"$scratch/corpus" "$seeds" >"$scratch/log" 2>&1 || rc=$?
	grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' "$scratch/log" | tail -n 60
	return "$rc"
}

main "$@"
