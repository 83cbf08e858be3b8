#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run every test: build the guest kernel (cached), build argguard against its
# BTF, then run the host unit tests and the guest suite under ctest.
set -euo pipefail

main() {
	local root build kernel
	root=$(cd "$(dirname "$0")/.." && pwd)
	build=${ARGGUARD_BUILD:-$root/build}
	kernel=$("$root/vm/kernel.sh")
	cmake -S "$root" -B "$build" -DARGGUARD_KERNEL_DIR="$kernel" >/dev/null
	cmake --build "$build" -j"$(nproc)"
	ctest --test-dir "$build" --output-on-failure
}

main "$@"
