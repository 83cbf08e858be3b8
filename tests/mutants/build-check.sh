#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every guest mutant still compiles. A hunk whose code moved away can go on
# applying to some other line where its names mean nothing: the mutant then
# plants no bug, and only a guest boot would say so ("does not build").
# Each C file a mutant changes, and every part of the BPF object where it
# changes anything in bpf/, is compiled with -fsyntax-only as the build
# compiles it: the loader's files by compile_commands.json, the BPF parts
# by the flags bpf/CMakeLists.txt passes here. TAP, one line per guest mutant.
#
# usage: tests/mutants/build-check.sh BUILD_DIR CLANG BPF_CFLAGS...
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$1
CLANG=$2
shift 2
BPF_CFLAGS=("$@")

# compile_loader WORK FILE: FILE (loader/x.c) of the patched copy in WORK.
compile_loader() {
	local work=$1 file=$2 dir cmd
	dir=$(jq -r --arg f "$ROOT/$file" '[.[] | select(.file == $f)][0].directory // empty' \
		"$BUILD/compile_commands.json")
	cmd=$(jq -r --arg f "$ROOT/$file" '[.[] | select(.file == $f)][0].command // empty' \
		"$BUILD/compile_commands.json")
	[[ -n $cmd ]] || { echo "$file is in no compile command of $BUILD"; return 1; }
	cmd=${cmd//"-I$ROOT/loader"/"-I$work/loader"}
	cmd=${cmd//"-I$ROOT/bpf "/"-I$work/bpf "}
	cmd=$(sed -E "s# -o [^ ]+##; s# -c $ROOT/$file\$# -fsyntax-only $work/$file#" <<<"$cmd")
	(cd "$dir" && eval "$cmd") 2>&1
}

# compile_bpf WORK: each part of the BPF object (bpf/*.bpf.c) in WORK.
compile_bpf() {
	local work=$1 part
	local flags=("${BPF_CFLAGS[@]//"$ROOT/bpf"/"$work/bpf"}")
	for part in "$work"/bpf/*.bpf.c; do
		"$CLANG" "${flags[@]}" -fsyntax-only "$part" 2>&1 || return
	done
}

# check PATCH: compiles what the patch changes, in a patched copy of the tree.
check() {
	local patch=$1 work files=() file h user out='' rc=0 bpf_done=0
	mapfile -t files < <(sed -n 's#^+++ b/\([^[:space:]]*\).*#\1#p' "$patch")
	work=$(mktemp -d "${TMPDIR:-/tmp}/argguard-build-check.XXXXXX")
	(cd "$ROOT" && git ls-files -z | xargs -0 cp --parents -t "$work")
	if ! patch -s -p1 -d "$work" <"$patch" >/dev/null 2>&1; then
		out="does not apply"
		rc=1
	fi
	for file in "${files[@]}"; do
		((rc == 0)) || break
		case $file in
		bpf/*)
			((bpf_done)) || out=$(compile_bpf "$work") || rc=1
			bpf_done=1 # every part, whichever files of bpf/ it changes
			;;
		loader/*.c) out=$(compile_loader "$work" "$file") || rc=1 ;;
		loader/*.h)
			h=${file##*/}
			while read -r user; do
				out=$(compile_loader "$work" "${user#"$work"/}") || { rc=1 && break; }
			done < <(grep -rl --include='*.c' "#include \"$h\"" "$work"/loader)
			;;
		esac
	done
	rm -rf "$work"
	printf '%s' "$out" | head -n 5
	return "$rc"
}

main() {
	local patch n=0 failed=0 out
	local patches=()
	mapfile -t patches < <(grep -L '^catch-ctest: ' "$ROOT"/tests/mutants/*.patch)
	echo "1..${#patches[@]}"
	for patch in "${patches[@]}"; do
		n=$((n + 1))
		if out=$(check "$patch"); then
			echo "ok $n - ${patch##*/}"
		else
			echo "not ok $n - ${patch##*/} does not compile: refresh it against the tree"
			printf '# %s\n' "${out//$'\n'/$'\n'# }"
			failed=$((failed + 1))
		fi
	done
	((failed == 0))
}

main "$@"
