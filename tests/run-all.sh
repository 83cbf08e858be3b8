#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run every test: build the guest kernels (6.1 patched and stock, 6.12
# patched, and every proper prefix of each series; all cached) and the guests with Debian's own 6.1 and 6.12 kernels
# (cached), build argguard (against bpf/vmlinux/, Debian 12's kernel types:
# the same build runs on every kernel, CO-RE) and its packages (in a clean
# chroot, cached), then run the host unit tests, the guest suites, the
# guest mutants and 6.12's KUnit suite under ctest. Ends with the guest
# suites' TAP reports and one "N passed, N failed, N skipped" line over them
# (in CI a skip counts as a failure: tests/checks/tap-summary.sh).
set -euo pipefail

# Debian's own kernels: bookworm's 6.1, and 6.12 from bookworm's security
# suite (its smallest flavour).
DEBIAN_61=linux-image-amd64
DEBIAN_612=linux-image-6.12-cloud-amd64

# The guest suites (and mutants_guest), in the order ctest runs them: what
# tap-summary.sh reads.
GUEST_SUITES=(guest_suite guest_suite_612 guest_package_612 guest_reboot_612 guest_package guest_nobpf guest_recovery
	guest_reboot mutants_guest guest_stock
	guest_debian_61 guest_debian_61_nobpf guest_debian_61_package guest_debian_61_reboot guest_two_guests
	guest_debian_612 guest_debian_612_nobpf guest_debian_612_package guest_debian_612_reboot
	series_prefixes_61 series_prefixes_612)

main() {
	local root build kernel kernel612 stock debian61 debian612 rc=0 s taps=()
	root=$(cd "$(dirname "$0")/.." && pwd)
	build=${ARGGUARD_BUILD:-$root/build}
	unset ARGGUARD_TEST_FILTER # every test, always
	# The prefixes first, one build after the other: each is incremental on
	# the one before, and the whole series last is too.
	"$root/vm/check-series.sh" --build-only 6.1 6.12
	kernel=$("$root/vm/kernel.sh")
	stock=$("$root/vm/kernel.sh" --stock)
	kernel612=$("$root/vm/kernel.sh" --version 6.12)
	debian61=$("$root/vm/debian-kernel.sh" "$DEBIAN_61")
	debian612=$("$root/vm/debian-kernel.sh" "$DEBIAN_612")
	cmake -S "$root" -B "$build" -DARGGUARD_KERNEL_DIR="$kernel" \
		-DARGGUARD_STOCK_KERNEL_DIR="$stock" -DARGGUARD_KERNEL_612_DIR="$kernel612" \
		-DARGGUARD_DEBIAN_61_DIR="$debian61" \
		-DARGGUARD_DEBIAN_612_DIR="$debian612" >/dev/null
	cmake --build "$build" -j"$(nproc)"
	rm -f "$build"/vm-*.tap
	"$root/vm/rootfs.sh" >/dev/null # cached; built here, not by two guests at once
	"$root/vm/cache-prune.sh" # what this run did not use, for the disk's sake
	# Two tests at a time: a guest spends much of its run waiting on timers and
	# its own boot, so two share the 2 cores CI has well.
	ctest --test-dir "$build" --output-on-failure -j2 | tee "$build/ctest.log" || rc=$?
	for s in "${GUEST_SUITES[@]}"; do
		taps+=("$build/vm-$s.tap")
	done
	echo "== guest suites: ${GUEST_SUITES[*]}"
	cat "${taps[@]}" 2>/dev/null || true
	"$root/tests/checks/tap-summary.sh" "${taps[@]}" || rc=1
	failed_tail "$build/ctest.log"
	return "$rc"
}

# The tests ctest failed and the end of each one's output, last in the log:
# where a CI log is cut to its tail, the failure still names itself.
failed_tail() {
	local name
	grep -q '^The following tests FAILED' "$1" || return 0
	echo "== failed"
	sed -n '/^The following tests FAILED/,/^Errors while running/p' "$1"
	sed -n 's/^[[:space:]]*[0-9]* - \([A-Za-z0-9_]*\) (.*/\1/p' "$1" | while read -r name; do
		echo "== the end of $name's output"
		awk -v t="$name" '$0 ~ "Test +#[0-9]+: " t " " { on = 1; next }
			on && (/^ *Start +[0-9]+: / || /% tests passed, /) { on = 0 } on' "$1" | tail -n 40
	done
}

main "$@"
