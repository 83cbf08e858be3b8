#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove the series is bisectable and clean: for every prefix of
# kernel-patches/series, build the kernel and boot it to systemd in the
# guest; then run checkpatch --strict over every patch. Slow (a kernel
# build per prefix, incremental after the first), so it is not part of
# tests/run-all.sh.
#
# usage: vm/check-series.sh BUILD_DIR    (a build tree with argguard in it)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# The only warning allowed: checkpatch asks whether MAINTAINERS needs an
# update for any new file; "EXEC & BINFMT API" covers selftests/exec/.
ALLOWED_WARNING=FILE_PATH_CHANGES

boot_prefix() {
	local build=$1 n=$2 kernel
	kernel=$("$ARGGUARD_ROOT/vm/kernel.sh" --prefix "$n")
	"$ARGGUARD_ROOT/vm/run.sh" --kernel "$kernel" --build "$build" --job boot \
		--out "$build/vm-prefix-$n" --timeout 600
}

checkpatch() {
	# spdxcheck.py needs Debian's python3 with python3-ply.
	PATH=/usr/bin:$PATH "$ARGGUARD_CACHE/linux/src/scripts/checkpatch.pl" --strict \
		--ignore "$ALLOWED_WARNING" "$@"
}

main() {
	local build=${1:?usage: vm/check-series.sh BUILD_DIR} total n p failed=0
	total=$(grep -cv '^\s*\(#\|$\)' "$ARGGUARD_ROOT/kernel-patches/series")
	for ((n = 1; n <= total; n++)); do
		if boot_prefix "$build" "$n"; then
			echo "ok $n - series prefix of $n patches builds and boots"
		else
			echo "not ok $n - series prefix of $n patches"
			failed=1
		fi
	done
	while read -r p; do
		[[ -z $p || $p == \#* ]] && continue
		if checkpatch "$ARGGUARD_ROOT/kernel-patches/$p" >/dev/null; then
			echo "ok - checkpatch --strict: $p"
		else
			checkpatch "$ARGGUARD_ROOT/kernel-patches/$p" || true
			echo "not ok - checkpatch --strict: $p"
			failed=1
		fi
	done <"$ARGGUARD_ROOT/kernel-patches/series"
	return "$failed"
}

main "$@"
