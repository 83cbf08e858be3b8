#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove each series is bisectable and clean: for every prefix of
# kernel-patches/VERSION/series, build the kernel and boot it to systemd in
# the guest; then run that version's checkpatch --strict over every file of
# the series (tests/checkpatch-series.sh, also the ctest checkpatch_series).
# Slow (a kernel build per prefix, incremental after the first), so it is
# not part of tests/run-all.sh.
#
# usage: vm/check-series.sh BUILD_DIR [VERSION...]
#   BUILD_DIR  a build tree with argguard in it
#   VERSION    6.1 or 6.12; both when none is given
set -euo pipefail
source "$(dirname "$0")/lib.sh"

boot_prefix() {
	local build=$1 version=$2 n=$3 kernel
	kernel=$("$ARGGUARD_ROOT/vm/kernel.sh" --version "$version" --prefix "$n")
	"$ARGGUARD_ROOT/vm/run.sh" --kernel "$kernel" --build "$build" --job boot \
		--out "$build/vm-prefix-$version-$n" --timeout 600
}

# check_series BUILD_DIR VERSION: TAP lines for one series; fails if any does.
check_series() {
	local build=$1 version=$2 dir=$ARGGUARD_ROOT/kernel-patches/$2 total n failed=0
	total=$(grep -cv '^\s*\(#\|$\)' "$dir/series")
	for ((n = 1; n <= total; n++)); do
		if boot_prefix "$build" "$version" "$n"; then
			echo "ok - $version: series prefix of $n patches builds and boots"
		else
			echo "not ok - $version: series prefix of $n patches"
			failed=1
		fi
	done
	"$ARGGUARD_ROOT/tests/checkpatch-series.sh" "$version" || failed=1
	return "$failed"
}

main() {
	local build=${1:?usage: vm/check-series.sh BUILD_DIR [VERSION...]} version failed=0
	shift
	(($#)) || set -- 6.1 6.12
	for version in "$@"; do
		[[ -f $ARGGUARD_ROOT/kernel-patches/$version/series ]] ||
			die "no series for version '$version' (kernel-patches/$version/series)"
		check_series "$build" "$version" || failed=1
	done
	return "$failed"
}

main "$@"
