#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# kunit.sh KERNEL_DIR OUT_DIR: run the exec KUnit suite of a vm/kernel.sh
# kernel with the kernel tree's own kunit.py, under QEMU x86_64 (TCG). The
# guest kernel has the suite built in and off at boot (vm/kernel-6.12.config);
# kunit.py boots that same bzImage with kunit.enable=1, and the kernel powers
# off once the tests have run. Fails unless every case passed, none was
# skipped, and the series' own cases are among them.
set -euo pipefail

SUITE="exec"
# Cases the series adds: a kernel without it must not pass by having fewer.
SERIES_CASES=(exec_test_bprm_max_ptrs exec_test_bprm_arg_limit_cap exec_test_exec_arg_max_valid)

main() {
	local kernel=${1:?usage: tests/checks/kunit.sh KERNEL_DIR OUT_DIR} out=${2:?usage: tests/checks/kunit.sh KERNEL_DIR OUT_DIR}
	local build=$out/build rc=0 c summary
	[[ -f $kernel/kunit/tools/testing/kunit/kunit.py ]] ||
		{ echo "kunit.sh: $kernel has no kunit.py: not a kernel with the exec KUnit suite" >&2; return 1; }
	rm -rf "$out"
	mkdir -p "$build/arch/x86/boot"
	ln -s "$kernel/bzImage" "$build/arch/x86/boot/bzImage"
	cp "$kernel/.config" "$build/.config"
	printf 'CONFIG_KUNIT=y\nCONFIG_EXEC_KUNIT_TEST=y\n' >"$build/.kunitconfig"

	/usr/bin/python3 "$kernel/kunit/tools/testing/kunit/kunit.py" exec "$SUITE" \
		--arch x86_64 --build_dir "$build" --timeout 300 \
		--json="$out/results.json" | tee "$out/kunit.log" || rc=$?
	((rc == 0)) || { echo "kunit.sh: kunit.py exited $rc" >&2; return 1; }

	summary=$(jq -r '[.. | objects | .test_cases? // empty | .[]] |
		"\(length) \(map(select(.status == "PASS")) | length)"' "$out/results.json")
	echo "kunit.sh: $SUITE suite: ${summary% *} cases, ${summary#* } passed"
	[[ ${summary% *} -gt 0 && ${summary% *} == "${summary#* }" ]] ||
		{ echo "kunit.sh: expected every case to pass, none skipped" >&2; return 1; }
	for c in "${SERIES_CASES[@]}"; do
		jq -e --arg c "$c" '[.. | objects | .test_cases? // empty | .[] |
			select(.name == $c and .status == "PASS")] | length > 0' \
			"$out/results.json" >/dev/null ||
			{ echo "kunit.sh: expected the series' case $c to have run and passed" >&2; return 1; }
	done
}

main "$@"
