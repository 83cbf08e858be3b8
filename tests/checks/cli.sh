#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# cli.sh ARGGUARD: what argguard prints without touching BPF, as TAP.
#
# --version and --help; COMMAND --help for every command that --help's
# SYNOPSIS lists (and the policy group): that command's help on stdout,
# exit 0; no command, or an unknown one: the synopsis on stderr, exit 2;
# policy check and policy show --diff of a file with an error: one line
# naming FILE:LINE, nonzero exit; preflight's usage errors, exit 2.
# ARGGUARD is build/argguard or, without a kernel, build/tests/argguard_cli.
set -euo pipefail
source "$(dirname "$0")/tap.sh"

ARGGUARD=
out='' err='' rc=0

# run ARGS...: sets out, err and rc.
run() {
	local o e
	o=$(mktemp) e=$(mktemp)
	rc=0
	"$ARGGUARD" "$@" >"$o" 2>"$e" || rc=$?
	out=$(cat "$o") err=$(cat "$e")
	rm -f "$o" "$e"
}

# fail_run WHAT: a failed result, with what the last run printed.
fail_run() {
	fail "$1"
	diag "  exit status $rc; stdout, then stderr (their first lines):"
	head -n 5 <<<"$out" | sed 's/^/  | /' | diag
	head -n 5 <<<"$err" | sed 's/^/  ! /' | diag
}

# The lines under SYNOPSIS in the help $1.
synopsis() {
	sed -n '/^SYNOPSIS$/,/^$/p' <<<"$1" | sed '1d;/^$/d'
}

# The commands in --help's SYNOPSIS, one a line: "run", "policy check", ...
commands() {
	synopsis "$1" | sed -n -E 's/^    argguard ([a-z]+( [a-z]+)*).*/\1/p'
}

# The SYNOPSIS lines of the command (or group) $2 in the help $1: each
# "argguard $2 ..." line and the lines that continue it.
synopsis_of() {
	synopsis "$1" | awk -v cmd="    argguard $2 " '
		/^    argguard / { on = index($0 " ", cmd) == 1 }
		on'
}

check_version() {
	local v
	for v in --version -V; do
		run "$v"
		if [[ $rc == 0 && $out =~ ^argguard\ [0-9]+\.[0-9]+\.[0-9]+$ && -z $err ]]; then
			pass "argguard $v prints the name and version and exits 0"
		else
			fail_run "argguard $v prints the name and version and exits 0"
		fi
	done
}

check_help() {
	local h
	for h in --help -h help; do
		run "$h"
		if [[ $rc == 0 && $out == NAME* && $out == *SYNOPSIS* && -z $err ]]; then
			pass "argguard $h prints the manual on stdout and exits 0"
		else
			fail_run "argguard $h prints the manual on stdout and exits 0"
		fi
	done
}

# check_command_help HELP CMD: argguard CMD --help, -h and help CMD.
check_command_help() {
	local help=$1 cmd=$2 synopsis h
	local -a words
	read -ra words <<<"$cmd"

	synopsis=$(synopsis_of "$help" "$cmd")
	for h in --help -h; do
		run "${words[@]}" "$h"
		if [[ $rc == 0 && $out == SYNOPSIS* && -n $synopsis && $out == *"$synopsis"* &&
			-z $err ]]; then
			pass "argguard $cmd $h prints its synopsis from --help on stdout and exits 0"
		else
			fail_run "argguard $cmd $h prints its synopsis from --help on stdout and exits 0"
		fi
	done
	if [[ $(synopsis "$out") == "$synopsis" ]]; then
		pass "argguard $cmd --help shows no other command's synopsis"
	else
		fail_run "argguard $cmd --help shows no other command's synopsis"
	fi
	run help "${words[@]}"
	if [[ $rc == 0 && $out == SYNOPSIS* && $out == *"$synopsis"* ]]; then
		pass "argguard help $cmd prints the help of $cmd"
	else
		fail_run "argguard help $cmd prints the help of $cmd"
	fi
}

check_usage_errors() {
	local args
	run
	if [[ $rc == 2 && -z $out && $err == usage:* && $err == *"    argguard run "* &&
		$(wc -l <<<"$err") -lt 20 ]]; then
		pass "argguard with no arguments prints the synopsis alone on stderr and exits 2"
	else
		fail_run "argguard with no arguments prints the synopsis alone on stderr and exits 2"
	fi
	for args in frobnicate "help frobnicate"; do
		# shellcheck disable=SC2086 # two words for "help frobnicate"
		run $args
		if [[ $rc == 2 && -z $out && $err == *"unknown command 'frobnicate'"* &&
			$err == *usage:* ]]; then
			pass "argguard $args names the command, prints the synopsis on stderr, exits 2"
		else
			fail_run "argguard $args names the command, prints the synopsis on stderr, exits 2"
		fi
	done
}

# policy show --diff checks its file before it reads any map, so a file
# with an error, or none, is exit 2 naming it, with or without argguard
# loaded; and with no pins, no live policy is exit 2 too, not "they match".
check_diff_errors() {
	local dir
	dir=$(mktemp -d)
	printf '[global]\nmode = enforce\nmax_total_bytes = lots\n' >"$dir/bad.conf"
	run policy show --diff "$dir/bad.conf"
	if [[ $rc == 2 && -z $out && $err == *"$dir/bad.conf:3: max_total_bytes = lots: expected"* ]]; then
		pass "policy show --diff FILE with an error names FILE:LINE and exits 2"
	else
		fail_run "policy show --diff FILE with an error names FILE:LINE and exits 2"
	fi
	run policy show --diff "$dir/none.conf"
	if [[ $rc == 2 && -z $out && $err == *"$dir/none.conf: No such file or directory"* ]]; then
		pass "policy show --diff with no such FILE names it and exits 2"
	else
		fail_run "policy show --diff with no such FILE names it and exits 2"
	fi
	if [[ ! -e /sys/fs/bpf/argguard ]]; then
		printf '[global]\nmode = enforce\n' >"$dir/good.conf"
		run policy show --diff "$dir/good.conf"
		if [[ $rc == 2 && -z $out && $err == *"is argguard loaded?"* ]]; then
			pass "policy show --diff with no live policy exits 2, not 0 or 1"
		else
			fail_run "policy show --diff with no live policy exits 2, not 0 or 1"
		fi
	fi
	run policy show --diff "$dir/good.conf" extra
	if [[ $rc == 2 && $err == *"usage: "*"show [--diff [FILE]]"* ]]; then
		pass "policy show --diff with two files is a usage error, exit 2"
	else
		fail_run "policy show --diff with two files is a usage error, exit 2"
	fi
	rm -rf "$dir"
}

# policy check reads the file and judges it with the lockout gate, touching
# no map: each error is one line naming FILE:LINE and the problem, exit 1,
# nothing on stdout; a valid file is "FILE: valid" on stdout, exit 0.
check_policy_check() {
	local dir
	dir=$(mktemp -d)
	printf '[global]\nmode = enforce\nmax_total_bytes = lots\nbogus = 1\n' >"$dir/bad.conf"
	run policy check "$dir/bad.conf"
	if [[ $rc == 1 && -z $out && $err == "argguard: $dir/bad.conf:3: max_total_bytes = lots: expected a byte count"* &&
		$(wc -l <<<"$err") == 1 ]]; then
		pass "policy check FILE with errors names the first one's FILE:LINE, once, and exits 1"
	else
		fail_run "policy check FILE with errors names the first one's FILE:LINE, once, and exits 1"
	fi
	run policy check "$dir/none.conf"
	if [[ $rc == 1 && -z $out &&
		$err == "argguard: failed to open $dir/none.conf: No such file or directory" ]]; then
		pass "policy check with no such FILE names it and exits 1"
	else
		fail_run "policy check with no such FILE names it and exits 1"
	fi
	printf '[global]\nmode = enforce\nmax_argc = 3\n' >"$dir/lockout.conf"
	run policy check "$dir/lockout.conf"
	if [[ $rc == 1 && -z $out &&
		$err == "argguard: $dir/lockout.conf:1: [global] max_argc = 3 with action deny in enforce mode would lock admins out: "*"; refused: "*--force* &&
		$(wc -l <<<"$err") == 1 ]]; then
		pass "policy check of a lockout names the rule, once, refuses it and exits 1"
	else
		fail_run "policy check of a lockout names the rule, once, refuses it and exits 1"
	fi
	run policy check --force "$dir/lockout.conf"
	if [[ $rc == 0 && $out == "$dir/lockout.conf: valid" &&
		$err == "argguard: warning: $dir/lockout.conf:1: [global] max_argc = 3 "*"; accepted, as --force says" ]]; then
		pass "policy check --force of a lockout warns, naming the rule, and passes"
	else
		fail_run "policy check --force of a lockout warns, naming the rule, and passes"
	fi
	printf '[global]\nmode = enforce\nmax_total_bytes = 1M\n' >"$dir/good.conf"
	run policy check "$dir/good.conf"
	if [[ $rc == 0 && $out == "$dir/good.conf: valid" && -z $err ]]; then
		pass "policy check of a valid FILE says so on stdout alone and exits 0"
	else
		fail_run "policy check of a valid FILE says so on stdout alone and exits 0"
	fi
	run policy check
	if [[ $rc == 2 && -z $out && $err == *"usage: argguard policy check [--force] FILE"* ]]; then
		pass "policy check with no FILE is a usage error, exit 2"
	else
		fail_run "policy check with no FILE is a usage error, exit 2"
	fi
	rm -rf "$dir"
}

# Issue 38: a cgroup pattern below the slice of a user whose primary group
# is an admin group (admin_groups) meets the gate as that user's sessions do.
check_policy_check_admin_slice() {
	local dir user uid gid group
	read -r user uid gid < <(getent passwd | awk -F: '$3 != 0 && $4 != 0 { print $1, $3, $4; exit }')
	group=$(getent group "$gid" | cut -d: -f1)
	if [[ -z $group ]]; then
		skip "policy check of a pattern below an admin's slice" \
			"no user whose primary group is not root's"
		return
	fi
	dir=$(mktemp -d)
	printf '[global]\nmode = enforce\nadmin_groups = %s\n[cgroup /user.slice/user-%s.slice/*]\nmax_total_bytes = 1K\n' \
		"$group" "$uid" >"$dir/slice.conf"
	run policy check "$dir/slice.conf"
	if [[ $rc == 1 && -z $out &&
		$err == "argguard: $dir/slice.conf:4: [cgroup /user.slice/user-$uid.slice/*] max_total_bytes = 1024 "*"$user (uid $uid) is in group $group"*" in /user.slice/user-$uid.slice/session-"*"; refused: "* ]]; then
		pass "policy check of a pattern below an admin's slice names the admin and session, refuses it"
	else
		fail_run "policy check of a pattern below an admin's slice names the admin and session, refuses it"
	fi
	run policy check --force "$dir/slice.conf"
	if [[ $rc == 0 && $out == "$dir/slice.conf: valid" && $err == *"accepted, as --force says" ]]; then
		pass "policy check --force of a pattern below an admin's slice passes"
	else
		fail_run "policy check --force of a pattern below an admin's slice passes"
	fi
	rm -rf "$dir"
}

# reload signals only argguard run: a bad or missing --pid is a usage error,
# and a process that is not argguard is named and left alone (SIGHUP would
# end a sleep).
check_reload_errors() {
	local victim
	run reload
	if [[ $rc == 2 && $err == *"reload needs --pid PID"* ]]; then
		pass "reload with no --pid is a usage error, exit 2"
	else
		fail_run "reload with no --pid is a usage error, exit 2"
	fi
	run reload --pid 12x
	if [[ $rc == 2 && $err == *"--pid takes a process id, not '12x'"* ]]; then
		pass "reload --pid 12x names the bad value, exit 2"
	else
		fail_run "reload --pid 12x names the bad value, exit 2"
	fi
	run reload --pid 1 --timeout 0
	if [[ $rc == 2 && $err == *"--timeout takes whole seconds from 1 to 3600, not '0'"* ]]; then
		pass "reload --timeout 0 names the bad value, exit 2"
	else
		fail_run "reload --timeout 0 names the bad value, exit 2"
	fi
	sleep 30 &
	victim=$!
	run reload --pid "$victim" --timeout 1
	if [[ $rc == 1 && $err == *"pid $victim is not argguard run"* ]] && kill -0 "$victim" 2>/dev/null; then
		pass "reload --pid of a process that is not argguard refuses, signals nothing, exit 1"
	else
		fail_run "reload --pid of a process that is not argguard refuses, signals nothing, exit 1"
	fi
	kill "$victim" 2>/dev/null || true
	wait "$victim" 2>/dev/null || true
}

# preflight checks its options and the policy file before it reads /proc
# or asks systemctl anything: each is exit 2, never 0 ("nothing found") nor 1.
check_preflight_errors() {
	local dir
	dir=$(mktemp -d)
	run preflight --format yaml
	if [[ $rc == 2 && -z $out && $err == *"--format takes text or json, not 'yaml'"* ]]; then
		pass "preflight --format yaml names the bad value, exit 2"
	else
		fail_run "preflight --format yaml names the bad value, exit 2"
	fi
	run preflight extra
	if [[ $rc == 2 && -z $out && $err == *"unexpected argument 'extra' to preflight"* ]]; then
		pass "preflight with an argument is a usage error, exit 2"
	else
		fail_run "preflight with an argument is a usage error, exit 2"
	fi
	if ((EUID == 0)); then
		printf '[global]\nmode = enforce\nmax_total_bytes = lots\n' >"$dir/bad.conf"
		run preflight --policy "$dir/bad.conf"
		if [[ $rc == 2 && -z $out && $err == *"$dir/bad.conf:3: max_total_bytes = lots: expected"* ]]; then
			pass "preflight --policy FILE with an error names FILE:LINE and exits 2"
		else
			fail_run "preflight --policy FILE with an error names FILE:LINE and exits 2"
		fi
	else
		run preflight
		if [[ $rc == 2 && -z $out && $err == *"run it as root"* ]]; then
			pass "preflight as another user than root refuses, exit 2"
		else
			fail_run "preflight as another user than root refuses, exit 2"
		fi
	fi
	rm -rf "$dir"
}

main() {
	local help cmd
	local -a cmds
	ARGGUARD=${1:?usage: tests/checks/cli.sh ARGGUARD}
	tap_start

	check_version
	check_help
	run --help
	help=$out
	mapfile -t cmds < <(commands "$help")
	if ((${#cmds[@]} >= 6)); then
		pass "--help's SYNOPSIS lists the commands: ${cmds[*]}"
	else
		fail_run "--help's SYNOPSIS lists the commands (found: ${cmds[*]})"
	fi
	for cmd in "${cmds[@]}" policy; do
		check_command_help "$help" "$cmd"
	done
	check_usage_errors
	check_diff_errors
	check_policy_check
	check_policy_check_admin_slice
	check_reload_errors
	check_preflight_errors
	tap_end
}

main "$@"
