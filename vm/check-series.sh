#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove each series is bisectable: for every proper prefix of
# kernel-patches/VERSION/series, build the kernel (vm/kernel.sh --prefix N,
# cached like every kernel) and boot it to systemd in the guest. The whole
# series is the kernel every guest suite boots, so it is not booted again
# here; checkpatch over the series is the ctest checkpatch_series.
# Prints a TAP 13 report, a line per prefix, and fails if any prefix does.
#
# usage: vm/check-series.sh BUILD_DIR VERSION...
#        vm/check-series.sh --build-only VERSION...
#   BUILD_DIR     a build tree with argguard in it
#   --build-only  build the prefixes' kernels, boot none: tests/run-all.sh
#                 builds them before its guests run, one after the other,
#                 so each build after the first is incremental
#   VERSION       6.1 or 6.12
set -euo pipefail
source "$(dirname "$0")/lib.sh"

BUILD_ONLY=0

# proper_prefixes VERSION: 1 .. (patches in the series - 1)
proper_prefixes() {
	local total
	total=$(grep -cv '^\s*\(#\|$\)' "$ARGGUARD_ROOT/kernel-patches/$1/series")
	seq 1 $((total - 1))
}

# boot_prefix BUILD VERSION N: boot the kernel of the first N patches and
# check the job ran under that very kernel.
boot_prefix() {
	local build=$1 version=$2 n=$3 kernel out
	kernel=$("$ARGGUARD_ROOT/vm/kernel.sh" --version "$version" --prefix "$n") || return 1
	out=$build/vm-prefix-$version-$n
	"$ARGGUARD_ROOT/vm/run.sh" --kernel "$kernel" --build "$build" --job boot \
		--out "$out" --timeout 900 >"$out.log" 2>&1 || { cat "$out.log" >&2; return 1; }
	grep -q "^booted $version" "$out.log" || { cat "$out.log" >&2; return 1; }
}

TESTS=0

check_series() {
	local build=$1 version=$2 n failed=0 patch
	for n in $(proper_prefixes "$version"); do
		if ((BUILD_ONLY)); then
			"$ARGGUARD_ROOT/vm/kernel.sh" --version "$version" --prefix "$n" >/dev/null || failed=1
			continue
		fi
		patch=$(grep -v '^\s*\(#\|$\)' "$ARGGUARD_ROOT/kernel-patches/$version/series" | sed -n "${n}p")
		TESTS=$((TESTS + 1))
		if boot_prefix "$build" "$version" "$n"; then
			echo "ok $TESTS - $version up to ${patch%.patch} builds and boots"
		else
			echo "not ok $TESTS - $version up to ${patch%.patch} builds and boots"
			failed=1
		fi
	done
	return "$failed"
}

main() {
	local version build='' failed=0
	if [[ ${1:-} == --build-only ]]; then
		BUILD_ONLY=1
	else
		build=${1:-}
		[[ -f $build/argguard.deb ]] || die "BUILD_DIR must be a build tree with argguard.deb in it, got '$build'"
		echo "TAP version 13"
	fi
	shift || true
	(($#)) || die "usage: vm/check-series.sh BUILD_DIR VERSION... | --build-only VERSION..."
	for version in "$@"; do
		[[ -f $ARGGUARD_ROOT/kernel-patches/$version/series ]] ||
			die "no series for version '$version' (kernel-patches/$version/series)"
		check_series "$build" "$version" || failed=1
	done
	((BUILD_ONLY)) || echo "1..$TESTS"
	return "$failed"
}

main "$@"
