#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark the kernel series: boot the stock and the patched guest with
# -icount (guest time counts instructions, so runs repeat to within 0.1%),
# time pointer floods and the 2010 exploit to E2BIG in each, and print the
# figures and their ratios. Asserts nothing about speed.
#
# usage: tests/bench/kernel-series.sh BUILD_DIR
# Results: BUILD_DIR/bench/kernel-series.tsv (name, kernel, seconds, errno).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)

run_in() {
	local kernel=$1 build=$2 out=$3
	"$ROOT/vm/run.sh" --kernel "$kernel" --build "$build" --job bench-kernel --icount \
		--out "$out" --timeout 3600 | grep -P '\t'
}

seconds() { # TSV NAME KERNEL
	awk -F'\t' -v n="$2" -v k="$3" '$1 == n && $2 == k { print $3 }' "$1"
}

report() {
	local tsv=$1 n s p a b
	echo "| pointer flood | stock (s) | patched (s) | stock / patched |"
	echo "|---|---|---|---|"
	for n in 1048576 16777216 268435456; do
		s=$(seconds "$tsv" "pointer_flood_$n" stock)
		p=$(seconds "$tsv" "pointer_flood_$n" patched)
		awk -v n="$n" -v s="$s" -v p="$p" \
			'BEGIN { printf "| %d M pointers | %.6f | %.6f | %.0fx |\n", n / 1048576, s, p, s / p }'
	done
	echo
	a=$(seconds "$tsv" exploit2010_exec_arg_max_0 patched)
	b=$(seconds "$tsv" exploit2010_exec_arg_max_256K patched)
	echo "| 2010 exploit, patched kernel, one boot | seconds to E2BIG |"
	echo "|---|---|"
	echo "| fs.exec_arg_max = 0 | $a |"
	echo "| fs.exec_arg_max = 256K | $b |"
	awk -v a="$a" -v b="$b" 'BEGIN { printf "| ratio | %.1fx |\n", a / b }'
}

main() {
	local build=${1:?usage: tests/bench/kernel-series.sh BUILD_DIR} stock patched tsv
	build=$(cd "$build" && pwd)
	mkdir -p "$build/bench"
	tsv=$build/bench/kernel-series.tsv
	stock=$("$ROOT/vm/kernel.sh" --stock)
	patched=$("$ROOT/vm/kernel.sh")
	{
		run_in "$stock" "$build" "$build/bench/vm-stock"
		run_in "$patched" "$build" "$build/bench/vm-patched"
	} >"$tsv"
	cat "$tsv"
	echo
	report "$tsv" | tee "$build/bench/kernel-series.md"
}

main "$@"
