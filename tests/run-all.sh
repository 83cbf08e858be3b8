#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run every test: build the guest kernel (cached), build argguard against its
# BTF, then run the host unit tests and the guest suite under ctest. Ends
# with the guest suite's TAP report and its "N passed, N failed" line.
set -euo pipefail

main() {
	local root build kernel rc=0
	root=$(cd "$(dirname "$0")/.." && pwd)
	build=${ARGGUARD_BUILD:-$root/build}
	kernel=$("$root/vm/kernel.sh")
	cmake -S "$root" -B "$build" -DARGGUARD_KERNEL_DIR="$kernel" >/dev/null
	cmake --build "$build" -j"$(nproc)"
	rm -f "$build/vm-suite.tap"
	ctest --test-dir "$build" --output-on-failure || rc=$?
	echo "== guest suite"
	cat "$build/vm-suite.tap" 2>/dev/null || true
	"$root/tests/tap-summary.sh" "$build/vm-suite.tap" || rc=1
	return "$rc"
}

main "$@"
