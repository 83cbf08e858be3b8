#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove each series is bisectable and clean: for every prefix of
# kernel-patches/VERSION/series, build the kernel and boot it to systemd in
# the guest; then run checkpatch --strict over every patch, with that
# version's checkpatch. Slow (a kernel build per prefix, incremental after the
# first), so it is not part of tests/run-all.sh.
#
# usage: vm/check-series.sh BUILD_DIR [VERSION...]
#   BUILD_DIR  a build tree with argguard in it
#   VERSION    6.1 or 6.12; both when none is given
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# The only warning allowed: checkpatch asks whether MAINTAINERS needs an
# update for any new file; "EXEC & BINFMT API" covers selftests/exec/.
ALLOWED_WARNING=FILE_PATH_CHANGES
# And in a patch that adds a trace event, the CHECKs that the layout of every
# TRACE_EVENT() in include/trace/events/ draws.
ALLOWED_IN_TRACE_EVENTS=PARENTHESIS_ALIGNMENT,OPEN_ENDED_LINE

boot_prefix() {
	local build=$1 version=$2 n=$3 kernel
	kernel=$("$ARGGUARD_ROOT/vm/kernel.sh" --version "$version" --prefix "$n")
	"$ARGGUARD_ROOT/vm/run.sh" --kernel "$kernel" --build "$build" --job boot \
		--out "$build/vm-prefix-$version-$n" --timeout 600
}

checkpatch() {
	local version=$1 patch=$2 allowed=$ALLOWED_WARNING
	grep -q '^+++ b/include/trace/events/' "$patch" && allowed+=,$ALLOWED_IN_TRACE_EVENTS
	# spdxcheck.py needs Debian's python3 with python3-ply.
	PATH=/usr/bin:$PATH "$ARGGUARD_CACHE/linux-$version/src/scripts/checkpatch.pl" --strict \
		--ignore "$allowed" "$patch"
}

# check_series BUILD_DIR VERSION: TAP lines for one series; fails if any does.
check_series() {
	local build=$1 version=$2 dir=$ARGGUARD_ROOT/kernel-patches/$2 total n p failed=0
	total=$(grep -cv '^\s*\(#\|$\)' "$dir/series")
	for ((n = 1; n <= total; n++)); do
		if boot_prefix "$build" "$version" "$n"; then
			echo "ok - $version: series prefix of $n patches builds and boots"
		else
			echo "not ok - $version: series prefix of $n patches"
			failed=1
		fi
	done
	while read -r p; do
		[[ -z $p || $p == \#* ]] && continue
		if checkpatch "$version" "$dir/$p" >/dev/null; then
			echo "ok - $version: checkpatch --strict: $p"
		else
			checkpatch "$version" "$dir/$p" || true
			echo "not ok - $version: checkpatch --strict: $p"
			failed=1
		fi
	done <"$dir/series"
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
