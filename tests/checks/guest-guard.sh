#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Each guest job's entry point refuses to run on a machine that is not the
# test guest (tests/guest/guard.sh), before it runs any command. Every job
# of vm/run.sh is run here from a copy of the guest's test directory, laid
# out as vm/run.sh lays it: as nobody (when this runs as root), with no
# environment, and with a PATH that names no directory. So even a broken
# guard can do no harm: every command but bash's builtins is not found,
# and a job that got past the guard says so on stderr, which must hold the
# one line of the refusal and nothing else. And each entry point sources
# the guard first, before any other command. Prints TAP.
#
# usage: tests/checks/guest-guard.sh
set -euo pipefail
source "$(dirname "$0")/tap.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=
AS=()

# The entry point of each job of vm/run.sh (its JOB_CMD's first word), below the guest's tests directory.
entry_points() {
	sed -n -E 's/.*JOB_CMD="?([^" ]+).*/\1/p' "$ROOT/vm/run.sh" | sort -u
}

# refuses JOB: the job as the guest runs it, here: exit 1, and the refusal alone on stderr.
refuses() {
	local job=$1 rc=0 out
	out=$(cd "$TMP/tests" &&
		"${AS[@]}" env -i PATH=/nonexistent /bin/bash "$TMP/tests/$job" 2>"$TMP/err") || rc=$?
	if [[ $rc == 1 && -z $out && $(wc -l <"$TMP/err") == 1 ]] &&
		grep -q "^${job##*/}: refusing to run: this is not the argguard test guest" "$TMP/err"; then
		return 0
	fi
	diag "exit $rc; stdout: ${out:0:200}" "stderr:"
	head -n 5 "$TMP/err" | diag
	return 1
}

# guard_first JOB: the first command of JOB's script is the guard's source.
guard_first() {
	local first
	first=$(grep -v -E '^(#|$|set -euo pipefail$)' "$TMP/tests/$1" | head -n 1)
	[[ $first =~ ^source\ \"\$\{BASH_SOURCE\[0\]%/\*\}/(\.\./)?guard\.sh\"$ ]] ||
		{ diag "its first command: $first"; return 1; }
}

main() {
	local job
	local -a jobs
	tap_start
	if grep -qw argguard.test_guest /proc/cmdline; then
		fail "this machine is no test guest (its kernel command line has argguard.test_guest)"
		tap_end
	fi
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
	chmod 0755 "$TMP"
	mkdir "$TMP/tests"
	cp -r "$ROOT/tests/guest/." "$TMP/tests/"
	cp "$ROOT"/tests/bench/*-guest.sh "$TMP/tests/"
	chmod -R a+rX "$TMP/tests"
	((EUID)) || AS=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
	mapfile -t jobs < <(entry_points)
	((${#jobs[@]} >= 5)) || fail "vm/run.sh names its jobs' entry points (found ${#jobs[@]})"
	for job in "${jobs[@]}"; do
		check "$job sources the guard before any other command" guard_first "$job"
		check "$job refuses to run outside the test guest, and does nothing else" refuses "$job"
	done
	tap_end
}

main "$@"
