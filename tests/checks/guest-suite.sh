#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# guest-suite.sh KERNEL_DIR BUILD_DIR JOB NAME: boot the guest, run a suite
# job (see vm/run.sh) in it, and sum up its TAP report in BUILD_DIR/vm-NAME.tap.
# A guest that cannot run the suite fails.
set -euo pipefail

main() {
	local kernel=$1 build=$2 job=$3 name=$4 rc=0
	local out=$build/vm-$name
	# A guard against a hang, under ctest's 2,400 s: the two patched suites,
	# side by side on two cores that helpers' guests shared, took 1,353 and
	# 1,499 s (stop 46); the Prometheus case adds about 170 s to the 6.1 one.
	"$(dirname "$0")/../../vm/run.sh" --kernel "$kernel" --build "$build" --job "$job" \
		--timeout 2300 --out "$out" >"$out.tap" || rc=$?
	cat "$out.tap"
	"$(dirname "$0")/tap-summary.sh" "$out.tap" || rc=1
	return "$rc"
}

main "$@"
