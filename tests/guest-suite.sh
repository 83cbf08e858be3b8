#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# guest-suite.sh KERNEL_DIR BUILD_DIR: boot the guest, run the guest suite in
# it, and sum up its TAP report. A guest that cannot run the suite fails.
set -euo pipefail

main() {
	local kernel=$1 build=$2 out=$2/vm-suite rc=0
	"$(dirname "$0")/../vm/run.sh" --kernel "$kernel" --build "$build" --job suite \
		--out "$out" >"$out.tap" || rc=$?
	cat "$out.tap"
	"$(dirname "$0")/tap-summary.sh" "$out.tap" || rc=1
	return "$rc"
}

main "$@"
