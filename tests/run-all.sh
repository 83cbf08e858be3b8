#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run every test: build the guest kernels (patched and stock, both cached),
# build argguard against the patched kernel's BTF, then run the host unit
# tests and the guest suites under ctest. Ends with the guest suites' TAP
# reports and one "N passed, N failed, N skipped" line over them (in CI a
# skip counts as a failure: tests/tap-summary.sh).
set -euo pipefail

main() {
	local root build kernel stock rc=0
	root=$(cd "$(dirname "$0")/.." && pwd)
	build=${ARGGUARD_BUILD:-$root/build}
	unset ARGGUARD_TEST_FILTER # every test, always
	kernel=$("$root/vm/kernel.sh")
	stock=$("$root/vm/kernel.sh" --stock)
	cmake -S "$root" -B "$build" -DARGGUARD_KERNEL_DIR="$kernel" \
		-DARGGUARD_STOCK_KERNEL_DIR="$stock" >/dev/null
	cmake --build "$build" -j"$(nproc)"
	rm -f "$build"/vm-*.tap
	ctest --test-dir "$build" --output-on-failure || rc=$?
	echo "== guest suites (patched kernel, then stock)"
	cat "$build/vm-suite.tap" "$build/vm-stock-suite.tap" 2>/dev/null || true
	"$root/tests/tap-summary.sh" "$build/vm-suite.tap" "$build/vm-stock-suite.tap" || rc=1
	return "$rc"
}

main "$@"
