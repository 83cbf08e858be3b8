#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The BPF object is reproducible and stripped: two copies of the tree under
# directories of different names and lengths, each configured and built on
# its own, give an object byte for byte equal to OBJECT (the build's own);
# it has no DWARF left, and keeps the BTF and .BTF.ext that CO-RE and the
# verifier need, which bpftool still reads. Prints TAP.
#
# usage: tests/checks/bpf-reproducible.sh ARGGUARD_BPF_OBJECT
set -euo pipefail
source "$(dirname "$0")/tap.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
READELF=${LLVM_READELF:-llvm-readelf}
TMP=

# build_copy DIR: the object of a copy of the tree at DIR.
build_copy() {
	local dir=$1
	mkdir -p "$dir"
	rsync -a --exclude='/build*' --exclude=/.git "$ROOT/" "$dir/"
	cmake -S "$dir" -B "$dir/out" -DBUILD_TESTING=OFF >"$dir.log" 2>&1 &&
		cmake --build "$dir/out" --target argguard_skel_gen >>"$dir.log" 2>&1 ||
		{ cat "$dir.log" >&2; echo "bpf-reproducible.sh: the copy at $dir did not build" >&2; exit 1; }
}

sections() { "$READELF" -S -W "$1" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\).*/\1/p'; }
no_dwarf() { ! sections "$1" | grep -q '^\.debug_'; }
has_section() { sections "$2" | grep -qx -- "$1"; }
btf_reads() { bpftool btf dump file "$1" >/dev/null; }

main() {
	local obj=${1:?usage: tests/checks/bpf-reproducible.sh ARGGUARD_BPF_OBJECT} tmp
	tmp=$(mktemp -d)
	TMP=$tmp
	trap 'rm -rf "$TMP"' EXIT
	build_copy "$tmp/a/argguard"
	build_copy "$tmp/a-much-longer-directory-name/src"
	tap_start
	check "two trees at different paths build the same object" \
		cmp "$tmp/a/argguard/out/bpf/argguard.bpf.o" \
		"$tmp/a-much-longer-directory-name/src/out/bpf/argguard.bpf.o"
	check "and it is the build's own object" cmp "$obj" "$tmp/a/argguard/out/bpf/argguard.bpf.o"
	check "no DWARF left in the object" no_dwarf "$obj"
	check "the object keeps .BTF" has_section .BTF "$obj"
	check "the object keeps .BTF.ext" has_section .BTF.ext "$obj"
	check "bpftool reads the object's BTF" btf_reads "$obj"
	tap_end
}

main "$@"
