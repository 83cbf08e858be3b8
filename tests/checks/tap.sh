# SPDX-License-Identifier: GPL-2.0
# tap.sh: the TAP 13 that the checks here print, sourced after
# set -euo pipefail. tap_start prints the header; pass, fail, skip and check
# one numbered result each (and return 0, so that errexit goes on past a
# failed result); diag comment lines; tap_end the plan, "# N passed, N
# failed, N skipped", and a status: nonzero if a result failed, or if there
# was none (a check that finds nothing to check must not pass).

TAP_N=0 TAP_FAILED=0 TAP_SKIPPED=0

tap_start() {
	echo "TAP version 13"
}

# pass WHAT, fail WHAT: one result.
pass() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1"
}

fail() {
	TAP_N=$((TAP_N + 1)) TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $1"
}

# skip WHAT REASON: a result that could not be checked here.
skip() {
	TAP_N=$((TAP_N + 1)) TAP_SKIPPED=$((TAP_SKIPPED + 1))
	echo "ok $TAP_N - $1 # SKIP $2"
}

# check WHAT CMD...: one result, CMD's success.
check() {
	local what=$1
	shift
	if "$@"; then
		pass "$what"
	else
		fail "$what"
	fi
}

# diag [LINE...]: each LINE, or else each line of stdin, as a comment.
diag() {
	if (($#)); then
		printf '%s\n' "$@"
	else
		cat
	fi | sed 's/^/# /'
}

tap_end() {
	echo "1..$TAP_N"
	echo "# $((TAP_N - TAP_FAILED - TAP_SKIPPED)) passed, $TAP_FAILED failed, $TAP_SKIPPED skipped"
	if ((TAP_N == 0)); then
		diag "no result: nothing was checked"
		return 1
	fi
	((TAP_FAILED == 0))
}
