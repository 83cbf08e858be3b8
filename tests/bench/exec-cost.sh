#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What the kernel series costs an exec with no BPF program loaded: boot the
# stock and the patched kernel of each VERSION in turn, BOOTS times each,
# in a one-CPU -icount guest, and run execloop's rounds in each boot
# (ARGGUARD_BENCH_SECTIONS=kernel of tests/bench/exec-guest.sh). Within one
# boot the rounds agree to about 0.1%; from one boot to the next the whole
# set moves by up to 0.3% (where the kernel's memory lands), so the
# comparison is between the means of the boots' medians. Prints the figures;
# asserts nothing.
#
# usage: tests/bench/exec-cost.sh BUILD_DIR [BOOTS [VERSION...]]
#   BOOTS    boots of each kernel (default 3)
#   VERSION  6.1 or 6.12 (default both)
# Raw output: BUILD_DIR/bench/exec-cost/.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/bench/stats.sh"

# boot_median KERNEL OUT: one boot's rounds, then their median, on one line.
boot_median() {
	local rates
	rates=$(ARGGUARD_BENCH_SECTIONS=kernel "$ROOT/vm/run.sh" --kernel "$1" --build "$BUILD" \
		--job bench-exec --icount --out "$2" --timeout 3600 |
		awk -F'\t' '$1 == "bench" && $2 == "exec_rate" { print $5 }')
	[[ -n $rates ]] || { echo "exec-cost.sh: no rounds from $1" >&2; exit 1; }
	echo "$(tr '\n' ' ' <<<"$rates")| $(median <<<"$rates")"
}

compare() {
	local version=$1 boots=$2 stock patched b line s=() p=()
	stock=$("$ROOT/vm/kernel.sh" --version "$version" --stock)
	patched=$("$ROOT/vm/kernel.sh" --version "$version")
	echo "| $version | boot | execs/s, each round | median |"
	echo "|---|---|---|---|"
	for ((b = 1; b <= boots; b++)); do
		line=$(boot_median "$stock" "$RAW/$version-stock-$b")
		s+=("${line##*| }")
		echo "| stock | $b | $line |"
		line=$(boot_median "$patched" "$RAW/$version-patched-$b")
		p+=("${line##*| }")
		echo "| patched | $b | $line |"
	done
	awk -v s="${s[*]}" -v p="${p[*]}" -v v="$version" 'BEGIN {
		n = split(s, a, " "); split(p, b, " ")
		for (i = 1; i <= n; i++) { ms += a[i] / n; mp += b[i] / n }
		printf "\n%s: mean of the medians, stock %.1f, patched %.1f: patched %+.2f%%\n\n",
			v, ms, mp, (mp / ms - 1) * 100
	}'
}

main() {
	local boots version
	BUILD=$(cd "${1:?usage: tests/bench/exec-cost.sh BUILD_DIR [BOOTS [VERSION...]]}" && pwd)
	boots=${2:-3}
	[[ $boots =~ ^[1-9][0-9]*$ ]] || { echo "exec-cost.sh: BOOTS must be a positive number" >&2; exit 2; }
	shift $(($# > 1 ? 2 : 1))
	(($#)) || set -- 6.1 6.12
	RAW=$BUILD/bench/exec-cost
	mkdir -p "$RAW"
	for version; do
		compare "$version" "$boots"
	done
}

main "$@"
