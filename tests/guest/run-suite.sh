#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run-suite.sh [DIR]: run every test case in DIR (default cases; a relative
# DIR is under this script's directory) and report TAP 13 on stdout, each
# result followed by "# took S s", its wall time, and its output.
# ARGGUARD_TEST_FILTER=REGEX runs only the matching tests,
# ARGGUARD_TEST_EXCLUDE=REGEX all but the matching ones.
#
# Each test runs in a subshell of its own under errexit: the first command
# that fails ends the test, which is then "not ok", and an ERR trap names
# that command, its line and its status. A command the test expects to fail
# says so (outcome, expect, expect_fail, `|| true`). A test that calls
# skip "REASON" is reported "ok N - name # SKIP REASON". Exits nonzero if a
# test failed; whether a skip may pass, tests/checks/tap-summary.sh says.
set -euo pipefail
source "${BASH_SOURCE[0]%/*}/guard.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"

# on_err STATUS: the ERR trap. Say which command failed, where, and through
# which helpers the test got there. (No `return` in here or in_trap: bash
# 5.2 trips over one in an ERR trap that fires inside an EXIT trap.)
on_err() {
	local rc=$1 i fn line=${BASH_LINENO[0]} file=${BASH_SOURCE[1]:-} cmd=${BASH_COMMAND//$'\n'/ }
	local where='' trap=0 src note=''
	for ((i = 1; i < ${#FUNCNAME[@]}; i++)); do
		fn=${FUNCNAME[i]}
		[[ $fn == "$ARGGUARD_TEST" ]] && break
		if [[ $fn == run_test || $fn == main ]]; then
			trap=1
			break
		fi
		where+=", in $fn called from line ${BASH_LINENO[i]} of ${BASH_SOURCE[i + 1]##*/}"
	done
	if [[ ${FUNCNAME[1]:-} == run_test && $line == "$CALL_LINE" ]]; then
		echo "the test returned $rc; the last command it ran was '$cmd'" >&2
	elif ((trap)); then
		in_trap "$rc" "$line" "$file" "$where"
	else
		# BASH_COMMAND may not be what failed on this line: when a function
		# called there returned nonzero by itself, it is the last command
		# the function ran (`return 1`, say); in a pipeline, only its last
		# part. The line's own text says what failed.
		src=$(sed -n "${line}{s/^[[:space:]]*//;p}" "$file" 2>/dev/null) || true
		if [[ -n $src && ($cmd == return || $cmd == "return "* || $src != *"${cmd%% *}"*) ]]; then
			note=" (its last command was '$cmd')" cmd=$src
		elif [[ $src =~ $PIPE ]]; then
			cmd=$src
		fi
		printf "line %s of %s: '%s' exited %s%s%s\n" "$line" "${file##*/}" "$cmd" "$rc" "$note" \
			"$where" >&2
	fi
}

# in_trap STATUS LINE FILE WHERE: on_err for a command that a trap (a test's
# EXIT trap, say) ran. There BASH_COMMAND still names the command the trap
# interrupted, so name the failed one by its source line, or the trap's text.
in_trap() {
	local rc=$1 line=$2 file=$3 where=$4 cmd
	if [[ -z $where ]]; then
		eval "set -- $(trap -p EXIT)"
		echo "the EXIT trap '${3:-?}' exited $rc" >&2
	else
		cmd=$(sed -n "${line}{s/^[[:space:]]*//;p}" "$file" 2>/dev/null) || true
		printf "line %s of %s: '%s' exited %s%s, run by a trap\n" "$line" "${file##*/}" \
			"$cmd" "$rc" "${where%% called from*}" >&2
	fi
}

# run_test NAME: the body of one test's subshell. It must be started as a
# plain command (never from if, while, &&, || or !, nor from a function called
# there), or bash ignores errexit in it and everything it calls.
run_test() {
	ARGGUARD_TEST=$1
	set -eE
	shopt -s inherit_errexit
	trap 'on_err $?' ERR
	CALL_LINE=$((LINENO + 1))
	"$ARGGUARD_TEST"
}

# daemon_journal_since EPOCH_US: what argguard.service logged since then, for
# a failed test's output: the cause of a failure is often the daemon's.
daemon_journal_since() {
	systemctl cat argguard.service >/dev/null 2>&1 || return 0
	echo "argguard.service's journal during the test:"
	journalctl -u argguard.service --no-pager -o short-monotonic \
		--since "@$(($1 / 1000000))" 2>&1 | tail -n 40
}

# report N NAME STATUS LOG MICROSECONDS START: the TAP line for one test,
# then how long it took (from START, in epoch microseconds) and its output.
report() {
	local n=$1 name=${2#test_} rc=$3 log=$4 us=$5 start_us=$6
	if [[ -s $ARGGUARD_SKIP_FILE ]]; then
		echo "ok $n - $name # SKIP $(head -n 1 "$ARGGUARD_SKIP_FILE")"
		SKIPPED=$((SKIPPED + 1))
	elif ((rc == 0)); then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		echo "exit status $rc" >>"$log"
		daemon_journal_since "$start_us" >>"$log"
		FAILED=$((FAILED + 1))
	fi
	printf '# took %d.%03d s\n' $((us / 1000000)) $((us / 1000 % 1000))
	sed 's/^/# /' "$log"
}

FAILED=0 SKIPPED=0 WORK='' PIPE='[^|][|][^|]'

main() {
	local dir=${1:-cases} f t n=0 rc tests start
	[[ $dir == /* ]] || dir=$HERE/$dir
	for f in "$dir"/*.sh; do
		source "$f"
	done
	mapfile -t tests < <(compgen -A function test_ | grep -E -- "${ARGGUARD_TEST_FILTER:-.}" |
		grep -vE -- "${ARGGUARD_TEST_EXCLUDE:-^$}" || true)
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/argguard-suite.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
	ARGGUARD_SKIP_FILE=$WORK/skip
	echo "TAP version 13"
	echo "1..${#tests[@]}"
	for t in "${tests[@]}"; do
		n=$((n + 1))
		rm -f "$ARGGUARD_SKIP_FILE"
		rc=0
		start=${EPOCHREALTIME/./}
		# A job of its own, waited for: see run_test.
		run_test "$t" >"$WORK/log" 2>&1 &
		wait $! || rc=$?
		report "$n" "$t" "$rc" "$WORK/log" $((${EPOCHREALTIME/./} - start)) "$start"
	done
	((FAILED == 0))
}

main "$@"
