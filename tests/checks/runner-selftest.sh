#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# runner-selftest.sh [GUEST_DIR]: check, on the host, that the guest suite
# runner (GUEST_DIR/run-suite.sh with its lib.sh; default tests/guest)
# reports planted tests as it should: a test whose middle command fails is
# "not ok" and names that command, each result says how long it took, a
# skip is "ok ... # SKIP reason", and failures a test expects pass. Then
# check tests/checks/tap-summary.sh's rule for skips. Pure userspace; ctest
# runs it as runner_selftest.
set -euo pipefail
source "$(dirname "$0")/tap.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
GUEST=$ROOT/tests/guest
WORK=

# The planted cases. The line numbers in EXPECTED_TAP below count from here.
PLANTED=$(
	cat <<'CASES'
# SPDX-License-Identifier: GPL-2.0
helper_fails_midway() {
	true
	false
	echo "helper ran on"
}

helper_returns_3() {
	return 3
}

cleanup_fails() {
	test -e /nonexistent/argguard-selftest
}

test_a_middle_command_fails() {
	echo before
	false
	echo after
}

test_b_middle_command_of_a_helper_fails() {
	helper_fails_midway
	echo "test ran on"
}

test_c_middle_command_of_a_substitution_fails() {
	local x
	x=$(false; echo leaked)
	echo "x=$x"
}

test_d_skips_with_a_reason() {
	skip "no widget in this guest"
	fail "ran on after skip"
}

test_e_passes() {
	echo fine
}

test_f_expected_failures_pass() {
	expect E2BIG "a refused exec" sh -c 'echo E2BIG; exit 1'
	expect_fail "false" false
	false || true
}

test_g_failed_cleanup_fails_the_test() {
	trap cleanup_fails EXIT
	true
}

test_h_failed_assertion_in_a_substitution_shows() {
	local x
	x=$(fail "expected the widget")
	echo "x=$x"
}

test_i_failed_list_at_the_end_fails_the_test() {
	true
	[[ widget == gadget ]] && echo "the same"
}

test_j_failed_inline_exit_trap_fails_the_test() {
	trap 'test -e /nonexistent/argguard-selftest' EXIT
	true
}

test_k_helper_returning_nonzero_is_named() {
	helper_returns_3
	echo "test ran on"
}

test_l_failed_pipeline_is_named_whole() {
	echo widget | grep gadget | cat
	echo "test ran on"
}
CASES
)

EXPECTED_TAP=$(
	cat <<'REPORT'
TAP version 13
1..12
not ok 1 - a_middle_command_fails
# took T s
# before
# line 18 of planted.sh: 'false' exited 1
# exit status 1
not ok 2 - b_middle_command_of_a_helper_fails
# took T s
# line 4 of planted.sh: 'false' exited 1, in helper_fails_midway called from line 23 of planted.sh
# exit status 1
not ok 3 - c_middle_command_of_a_substitution_fails
# took T s
# line 29 of planted.sh: 'false' exited 1
# line 29 of planted.sh: 'x=$(false; echo leaked)' exited 1
# exit status 1
ok 4 - d_skips_with_a_reason # SKIP no widget in this guest
# took T s
ok 5 - e_passes
# took T s
# fine
ok 6 - f_expected_failures_pass
# took T s
not ok 7 - g_failed_cleanup_fails_the_test
# took T s
# line 13 of planted.sh: 'test -e /nonexistent/argguard-selftest' exited 1, in cleanup_fails, run by a trap
# exit status 1
not ok 8 - h_failed_assertion_in_a_substitution_shows
# took T s
# expected the widget
# line 55 of planted.sh: 'x=$(fail "expected the widget")' exited 1
# exit status 1
not ok 9 - i_failed_list_at_the_end_fails_the_test
# took T s
# the test returned 1; the last command it ran was '[[ widget == gadget ]]'
# exit status 1
not ok 10 - j_failed_inline_exit_trap_fails_the_test
# took T s
# the EXIT trap 'test -e /nonexistent/argguard-selftest' exited 1
# exit status 1
not ok 11 - k_helper_returning_nonzero_is_named
# took T s
# line 70 of planted.sh: 'helper_returns_3' exited 3 (its last command was 'return 3')
# exit status 3
not ok 12 - l_failed_pipeline_is_named_whole
# took T s
# line 75 of planted.sh: 'echo widget | grep gadget | cat' exited 1
# exit status 1
REPORT
)

# same WHAT EXPECTED ACTUAL: one result, and where ACTUAL differs.
same() {
	if [[ $2 == "$3" ]]; then
		pass "$1"
	else
		fail "$1"
		diff -u <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed 's/^/  /' | diag || true
	fi
}

# A copy of the runner beside a directory of the planted cases only. The
# host is no guest: guard.sh would refuse (guest-guard.sh checks that it
# does), and the planted cases are harmless, so a stand-in lets it run.
plant() {
	mkdir -p "$WORK/guest/planted"
	cp "$GUEST/run-suite.sh" "$GUEST/lib.sh" "$WORK/guest/"
	echo '# the guard left out: only the planted cases run' >"$WORK/guest/guard.sh"
	printf '%s\n' "$PLANTED" >"$WORK/guest/planted/planted.sh"
}

check_runner() {
	local out rc=0
	out=$(env -u ARGGUARD_TEST_FILTER "$WORK/guest/run-suite.sh" planted 2>&1) || rc=$?
	out=$(sed -E 's/^# took [0-9]+\.[0-9]{3} s$/# took T s/' <<<"$out")
	same "a test whose middle command fails, and whose last passes, is not ok" \
		"not ok 1 - a_middle_command_fails" "$(grep -m 1 a_middle_command_fails <<<"$out")"
	same "the runner's TAP report of the planted tests, line by line" "$EXPECTED_TAP" "$out"
	same "the runner's exit status with tests failing" 1 "$rc"
	rc=0
	out=$(ARGGUARD_TEST_FILTER='_(d|e|f)_' "$WORK/guest/run-suite.sh" planted 2>&1) || rc=$?
	same "the runner's exit status with tests passing and skipping" 0 "$rc"
	rc=0
	out=$(env -u ARGGUARD_TEST_FILTER ARGGUARD_TEST_EXCLUDE='^test_[a-cg-l]_' \
		"$WORK/guest/run-suite.sh" planted 2>&1) || rc=$?
	same "the tests ARGGUARD_TEST_EXCLUDE leaves, and the runner's exit status" \
		"1..3|ok 1 - d_skips_with_a_reason # SKIP|ok 2 - e_passes|ok 3 - f_expected_failures_pass|0" \
		"$(grep -E '^(1\.\.|ok|not ok)' <<<"$out" | sed 's/ # SKIP .*/ # SKIP/' | paste -sd '|')|$rc"
}

# summary ENV...: the last line and status of tap-summary.sh over a report
# of one pass and one skip, with ENV set.
summary() {
	local rc=0 out
	printf 'TAP version 13\n1..2\nok 1 - a\nok 2 - b # SKIP no widget\n' >"$WORK/skip.tap"
	out=$(env -u CI -u ARGGUARD_ALLOW_SKIP "$@" "$ROOT/tests/checks/tap-summary.sh" "$WORK/skip.tap") ||
		rc=$?
	echo "$(tail -n 1 <<<"$out"); exit $rc"
}

check_summary() {
	same "a skip outside CI" "1 passed, 0 failed, 1 skipped; exit 0" "$(summary)"
	same "a skip in CI" "1 passed, 1 failed, 0 skipped; exit 1" "$(summary CI=true)"
	same "a skip in CI with ARGGUARD_ALLOW_SKIP=1" "1 passed, 0 failed, 1 skipped; exit 0" \
		"$(summary CI=true ARGGUARD_ALLOW_SKIP=1)"
}

main() {
	GUEST=$(cd "${1:-$GUEST}" && pwd)
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/argguard-runner-selftest.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
	tap_start
	plant
	check_runner
	check_summary
	tap_end
}

main "$@"
