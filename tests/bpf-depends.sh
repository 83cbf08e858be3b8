#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The BPF object is rebuilt whenever a file it is compiled from changes:
# bpf/CMakeLists.txt makes each part (bpf/*.bpf.c) depend on every header
# of bpf/ and on vmlinux.h, and nothing else of the tree. Here the compiler
# lists what each part includes (clang -MM, with the build's own flags): of
# the tree, only those. Prints TAP.
#
# usage: tests/bpf-depends.sh CLANG BPF_CFLAGS...
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLANG=$1
shift
BPF_CFLAGS=("$@")

# check PART: prints what PART includes of the tree beyond bpf/*.h and
# vmlinux.h; fails if the compiler cannot say, or names no header at all.
check() {
	local part=$1 deps file headers=0 bad=''
	deps=$("$CLANG" "${BPF_CFLAGS[@]}" -MM -MT x "$part" 2>&1) || {
		echo " (clang -MM failed: $(grep -m 1 'error' <<<"$deps"))"
		return 1
	}
	for file in $deps; do
		[[ $file == "$ROOT"/* && $file != "$part" ]] || continue
		file=${file#"$ROOT"/}
		if [[ $file == bpf/vmlinux/*/vmlinux.h || ($file == bpf/*.h && $file != bpf/*/*) ]]; then
			headers=$((headers + 1))
		else
			bad+=" $file"
		fi
	done
	((headers > 0)) || bad+=" (no header at all: is the tree at $ROOT?)"
	printf '%s' "$bad"
	[[ -z $bad ]]
}

main() {
	local parts=("$ROOT"/bpf/*.bpf.c) part n=0 failed=0 bad
	echo "1..${#parts[@]}"
	for part in "${parts[@]}"; do
		n=$((n + 1))
		if bad=$(check "$part"); then
			echo "ok $n - ${part#"$ROOT"/} includes of the tree only bpf/*.h and vmlinux.h"
		else
			echo "not ok $n - ${part#"$ROOT"/} includes what its DEPENDS leave out:$bad"
			failed=1
		fi
	done
	return "$failed"
}

main "$@"
