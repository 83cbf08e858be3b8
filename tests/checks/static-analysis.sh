#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# static-analysis.sh cppcheck | clang-tidy BUILD_DIR
#
# Run one static analyser over the C files of loader/ and tests/ (unit,
# fuzz and the guest helpers); clang-tidy over those that BUILD_DIR
# compiles. Any finding fails. The checks and their
# exceptions, each with its reason, are in .clang-tidy and
# tests/cppcheck/suppressions.txt.
set -euo pipefail

ROOT=$(realpath "$(dirname "$0")/../..")
FILES=() # set by main(), in ROOT

need() {
	if ! command -v "$1" >/dev/null; then
		echo "static-analysis: $1 is not installed (vm/install-deps.sh installs it)" >&2
		exit 1
	fi
}

run_cppcheck() {
	local dir
	local -a INCLUDES=()
	need cppcheck
	for dir in loader loader/*/ bpf; do
		INCLUDES+=(-I "${dir%/}")
	done
	cppcheck --enable=warning,style,performance,portability,information --std=c11 \
		--error-exitcode=1 --inline-suppr --quiet "${INCLUDES[@]}" -I tests/unit \
		--library=posix --library=tests/cppcheck/libbpf.cfg \
		--suppressions-list=tests/cppcheck/suppressions.txt "${FILES[@]}"
}

# Keep in FILES only what BUILD compiles: clang-tidy needs a file's real
# compile command. A build without ARGGUARD_KERNEL_DIR leaves out the guest
# helpers; they are named.
keep_built() {
	local build=$1 f kept=() left=()
	local -A built=()

	while IFS= read -r f; do
		built[$(realpath -m "$f")]=1
	done < <(jq -r '.[].file' "$build/compile_commands.json")
	for f in "${FILES[@]}"; do
		if [[ -n ${built[$ROOT/$f]-} ]]; then
			kept+=("$f")
		else
			left+=("$f")
		fi
	done
	if ((${#left[@]})); then
		echo "clang-tidy: not compiled in $build, not analysed: ${left[*]}"
	fi
	FILES=("${kept[@]}")
}

run_clang_tidy() {
	local build=$1 out findings

	need clang-tidy
	need jq
	if [[ ! -f $build/compile_commands.json ]]; then
		echo "static-analysis: no $build/compile_commands.json" >&2
		return 1
	fi
	keep_built "$build"
	out=$(mktemp)
	# shellcheck disable=SC2064 # expanded now: out is local
	trap "rm -f '$out'" RETURN
	# The guest helpers return from main() with their buffers still
	# allocated; the process ends there, so unix.Malloc is off for them.
	{
		printf '%s\n' "${FILES[@]}" | grep -v '^tests/guest/' |
			xargs -P "$(nproc)" -n 1 clang-tidy -p "$build" --quiet || true
		printf '%s\n' "${FILES[@]}" | grep '^tests/guest/' |
			xargs -P "$(nproc)" -n 1 clang-tidy -p "$build" --quiet \
				--checks=-clang-analyzer-unix.Malloc || true
	} >"$out" 2>&1
	# Findings located in the generated skeleton are bpftool's, not ours:
	# its one report is a leak the analyzer assumes because it takes
	# libbpf's bpf_object__destroy_skeleton() for a system function that
	# frees nothing.
	findings=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error): ' "$out" |
		grep -v -E '/argguard\.skel\.h:' || true)
	if [[ -n $findings ]] || grep -q -E '^Error while processing' "$out"; then
		cat "$out"
		echo "== clang-tidy findings:"
		printf '%s\n' "$findings"
		return 1
	fi
	echo "clang-tidy: ${#FILES[@]} files, no findings"
}

main() {
	cd "$ROOT"
	FILES=(loader/*.c loader/*/*.c tests/unit/*.c tests/fuzz/*.c tests/guest/*.c)
	case ${1-} in
	cppcheck) run_cppcheck ;;
	clang-tidy) run_clang_tidy "$(realpath "${2:?usage: $0 clang-tidy BUILD_DIR}")" ;;
	*)
		echo "usage: $0 cppcheck | clang-tidy BUILD_DIR" >&2
		return 2
		;;
	esac
}

main "$@"
