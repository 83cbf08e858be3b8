#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The main job, from a fresh Debian 12 box: install what is needed, build the
# patched guest kernel, the guest and argguard, boot the guest with argguard
# enforcing, and show it catching a huge exec.
set -euo pipefail

main() {
	local root build kernel
	root=$(cd "$(dirname "$0")/.." && pwd)
	build=${ARGGUARD_BUILD:-$root/build}
	"$root/vm/install-deps.sh"
	kernel=$("$root/vm/kernel.sh")
	cmake -S "$root" -B "$build" -DARGGUARD_KERNEL_DIR="$kernel" >/dev/null
	cmake --build "$build" -j"$(nproc)"
	"$root/vm/run.sh" --kernel "$kernel" --build "$build" --job demo
}

main "$@"
