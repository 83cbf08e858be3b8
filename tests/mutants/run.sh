#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Show that the guest tests catch what they claim. Each patch here plants one
# deliberate bug; its "catch:" line names the tests (a regex) that must then
# fail, an optional "job:" line the vm/run.sh job they are in (default
# suite), and an optional "kernel:" line the vm/kernel.sh options of the
# kernel they boot (default: the patched 6.1 one). For each, build a copy
# of the tree with the patch applied, boot the guest with only those tests,
# and check that at least one fails. A patch
# whose bug is in the test machinery itself (runner-*.patch) has a
# "catch-ctest:" line instead: host ctest tests, run in the configured copy
# without a guest. Prints one line per mutant and exits nonzero if any was
# missed. A package build and a guest boot per mutant: slow, for one mutant
# by hand (CI catches every guest mutant in one guest, with
# tests/mutants/guest.sh); --host runs only the catch-ctest ones, with no guest
# and no kernel (the BPF object needs none; nor do NAMEs that are all
# catch-ctest ones), as ctest's mutants_host does
# in CI (a "build: TARGET" line names what to build for the test, where
# that is not a target of the test's own name).
#
# usage: tests/mutants/run.sh [--host] [NAME...]   (default: every patch;
#        with --host, every catch-ctest one, and only those may be named)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/vm/lib.sh"

# run_ctest_mutant WORK KERNEL REGEX: configure the patched copy in WORK and
# run the host ctest tests matching REGEX there; prints as run_mutant does.
run_ctest_mutant() {
	local work=$1 kernel=$2 catch=$3
	local targets=() target=${catch#^}
	target=${target%\$} # "^test_x$" names the target test_x
	if ! cmake -S "$work" -B "$work/build" ${kernel:+-DARGGUARD_KERNEL_DIR="$kernel"} \
		>"$work/build.log" 2>&1; then
		echo "does not configure (see $work/build.log)"
		return
	fi
	# Build only what the test runs: the target its "build:" line names, else
	# a target of the test's own name, else (a script) none.
	targets=(--target "$(sed -n 's/^build: //p' "$work/mutant.patch")")
	if [[ ${targets[1]} == "" ]]; then
		targets=(--target help)
		[[ $'\n'$(cmake --build "$work/build" --target help)$'\n' == *$'\n'"... $target"$'\n'* ]] &&
			targets=(--target "$target")
	fi
	if ! cmake --build "$work/build" -j"$(nproc)" "${targets[@]}" >>"$work/build.log" 2>&1; then
		echo "does not build (see $work/build.log)"
	elif ctest --test-dir "$work/build" -R "^($catch)$" --output-on-failure --no-tests=error \
		>"$work/ctest.log" 2>&1; then
		echo "MISSED (see $work/ctest.log)"
	elif grep -q 'No tests were found' "$work/ctest.log"; then
		echo "no test matches '$catch' in this configuration (see $work/ctest.log)"
	elif grep -q 'Not Run' "$work/ctest.log"; then
		echo "its test was not built, so did not run (see $work/ctest.log)"
	else
		echo "caught: $(grep -m 1 -E '^not ok' "$work/ctest.log" || echo "ctest -R '$catch' failed")"
		rm -rf "$work"
	fi
}

# run_mutant PATCH KERNEL: prints "caught", "MISSED" or why it could not run.
run_mutant() {
	local patch=$1 kernel=$2 work catch job kernel_options
	work=$(mktemp -d "${TMPDIR:-/tmp}/argguard-mutant.XXXXXX")
	catch=$(sed -n 's/^catch: //p' "$patch")
	job=$(sed -n 's/^job: //p' "$patch")
	kernel_options=$(sed -n 's/^kernel: //p' "$patch")
	if [[ -n $kernel_options ]]; then
		# shellcheck disable=SC2086 # the options, word by word
		kernel=$("$ROOT/vm/kernel.sh" $kernel_options) || {
			echo "no kernel for vm/kernel.sh $kernel_options"
			return
		}
	fi
	(cd "$ROOT" && git ls-files -z | sort -zu | xargs -0 cp --parents -t "$work")
	cp "$patch" "$work/mutant.patch"
	if ! patch -s -p1 -d "$work" <"$patch"; then
		echo "does not apply"
		return
	fi
	if grep -q '^catch-ctest: ' "$patch"; then
		run_ctest_mutant "$work" "$kernel" "$(sed -n 's/^catch-ctest: //p' "$patch")"
		return
	fi
	if ! cmake -S "$work" -B "$work/build" -DARGGUARD_KERNEL_DIR="$kernel" >"$work/build.log" 2>&1 ||
		! cmake --build "$work/build" -j"$(nproc)" >>"$work/build.log" 2>&1; then
		echo "does not build (see $work/build.log)"
		return
	fi
	ARGGUARD_TEST_FILTER=$catch "$work/vm/run.sh" --kernel "$kernel" --build "$work/build" \
		--job "${job:-suite}" --out "$work/vm" >"$work/tap" 2>"$work/run.log" || true
	if grep -q '^not ok' "$work/tap"; then
		echo "caught: $(grep '^not ok' "$work/tap" | head -n 1)"
		rm -rf "$work"
	elif grep -q '^ok' "$work/tap"; then
		echo "MISSED (see $work/tap)"
	else
		echo "no result (see $work/run.log)"
	fi
}

main() {
	local kernel='' name patch result missed=0
	local -a patches=()
	if [[ ${1:-} == --host ]]; then
		shift
		for name in "$@"; do
			patch=$ROOT/tests/mutants/$(basename "${name%.patch}").patch
			grep -q '^catch-ctest: ' "$patch" 2>/dev/null ||
				die "$name is no host mutant (catch-ctest:)"
		done
		if (($# == 0)); then
			mapfile -t names < <(grep -l '^catch-ctest: ' "$ROOT"/tests/mutants/*.patch)
			set -- "${names[@]}"
		fi
	fi
	if (($# == 0)); then
		set -- "$ROOT"/tests/mutants/*.patch
	fi
	for name in "$@"; do
		patch=$ROOT/tests/mutants/$(basename "${name%.patch}").patch
		[[ -f $patch ]] || die "no mutant $name"
		patches+=("$patch")
	done
	# Only a guest mutant needs a kernel: a host one is judged by ctest alone.
	for patch in "${patches[@]}"; do
		if ! grep -q '^catch-ctest: ' "$patch"; then
			kernel=$("$ROOT/vm/kernel.sh")
			break
		fi
	done
	for patch in "${patches[@]}"; do
		result=$(run_mutant "$patch" "$kernel")
		printf '%-20s %s\n' "$(basename "${patch%.patch}")" "$result"
		[[ $result == caught* ]] || missed=1
	done
	return "$missed"
}

main "$@"
