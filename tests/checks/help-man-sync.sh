#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# help-man-sync.sh ARGGUARD DOC_DIR LOADER_DIR ARGGUARD_H: keep the help and
# the man pages in step, as TAP.
#
# argguard(8) (DOC_DIR/argguard.8.scd) must name every command, option
# (short and long form together), signal, file and exit status that
# `ARGGUARD --help` names, and every long option it names must be one
# --help knows; each command and exit status has an entry of its own.
# argguard.conf(5) (DOC_DIR/argguard.conf.5.scd) must have an entry
# ("*KEY* = ...") for every key the parser knows (the POLICY_KEYS table in
# LOADER_DIR/policy/policy_parser.h, and the rule limits, the POLICY_LIMITS
# table in LOADER_DIR/policy/policy.h) and for no other, name every errno a rule can take (the
# ARGGUARD_DENY_ERRNOS table in ARGGUARD_H) and every section --help
# names, and give the longest line that --help gives. Apart from the
# entries, the pages are read as text: scdoc's *bold*, _underline_ and \
# escapes removed and the lines joined, so a phrase may wrap.
set -euo pipefail
source "$(dirname "$0")/tap.sh"

# The text of an scdoc source, formatting removed, on one line.
page_text() {
	sed -E -e '/^; /d' -e 's/[*\\]//g' \
		-e ':u' -e 's/(^|[^[:alnum:]])_([^_ ]+)_/\1\2/' -e 'tu' "$1" | tr -s ' \t\n' ' '
}

# The lines of section $2 of the help $1, up to the next blank line.
help_section() {
	sed -n "/^$2/,/^\$/p" <<<"$1" | sed '1d;/^$/d'
}

# expect_in PAGE_NAME PAGE_TEXT WHAT ITEM...: each ITEM occurs in the page.
expect_in() {
	local name=$1 text=$2 what=$3 item
	shift 3
	if (($# == 0)); then
		fail "found no $what to look for: has the help's layout changed?"
		return
	fi
	for item in "$@"; do
		if [[ $text == *"$item"* ]]; then
			pass "$name names $what '$item'"
		else
			fail "$name names $what '$item'"
		fi
	done
}

check_argguard_8() {
	local help=$1 page=$2 text cmd opt status
	local -a items
	text=$(page_text "$page")

	mapfile -t items < <(sed -n -E 's/^    argguard ([a-z]+( [a-z]+)*).*/\1/p' \
		<<<"$(help_section "$help" SYNOPSIS)")
	expect_in "argguard(8)" "$text" "the command" "${items[@]/#/argguard }"
	# Each command an entry of its own under COMMANDS: a line "*CMD* ...".
	for cmd in "${items[@]}"; do
		if grep -q "^\*$cmd\*" "$page"; then
			pass "argguard(8) has an entry for the command $cmd"
		else
			fail "argguard(8) has an entry for the command $cmd"
		fi
	done
	mapfile -t items < <(grep -o -E -- '^    -[a-zA-Z], --[a-z][a-z-]*' <<<"$help" |
		sed 's/^ *//')
	expect_in "argguard(8)" "$text" "the option" "${items[@]}"
	mapfile -t items < <(grep -o -E -- '--[a-z][a-z-]*' <<<"$help" | sort -u)
	expect_in "argguard(8)" "$text" "the long option" "${items[@]}"
	mapfile -t items < <(help_section "$help" SIGNALS | grep -o -E 'SIG[A-Z0-9]+')
	expect_in "argguard(8)" "$text" "the signal" "${items[@]}"
	mapfile -t items < <(help_section "$help" FILES | awk '{ print $1 }')
	expect_in "argguard(8)" "$text" "the file" "${items[@]}"
	# Each exit status an entry of its own under EXIT STATUS: a line "*N*".
	for status in $(help_section "$help" 'EXIT STATUS' | grep -o -E '\b[0-9]+\b'); do
		if sed -n '/^# EXIT STATUS/,/^# /p' "$page" | grep -qx "\*$status\*"; then
			pass "argguard(8) has an entry for exit status $status"
		else
			fail "argguard(8) has an entry for exit status $status"
		fi
	done

	# And no option the program does not have.
	for opt in $(page_text "$page" | grep -o -E -- '(^|[^-[:alnum:]])--[a-z][a-z-]*' |
		sed 's/^[^-]*//' | sort -u); do
		if grep -q -E -- "(^|[^-[:alnum:]])$opt([^-[:alnum:]]|\$)" <<<"$help"; then
			pass "argguard --help knows the option $opt that argguard(8) names"
		else
			fail "argguard --help knows the option $opt that argguard(8) names"
		fi
	done
}

check_argguard_conf_5() {
	local help=$1 page=$2 loader=$3 argguard_h=$4 text key
	local -a keys items
	text=$(page_text "$page")

	mapfile -t keys < <(awk '/^#define POLICY_KEYS\(X\)/ { on = 1 } on { print } on && !/\\$/ { exit }' \
		"$loader/policy/policy_parser.h" | sed -n -E 's/^[[:space:]]*X\([A-Z_]+, "([a-z_]+)"\).*/\1/p'
		awk '/^#define POLICY_LIMITS\(X\)/ { on = 1 } on { print } on && !/\\$/ { exit }' \
			"$loader/policy/policy.h" | sed -n -E 's/^[[:space:]]*X\(([a-z_]+),.*/\1/p')
	# Each key an entry of its own: a line "*KEY* = ...".
	for key in "${keys[@]}"; do
		if grep -q "^\*$key\* = " "$page"; then
			pass "argguard.conf(5) has an entry for the key $key"
		else
			fail "argguard.conf(5) has an entry for the key $key"
		fi
	done
	# The table's lines, "X(NAME, NUMBER)", up to the first without a "\".
	mapfile -t items < <(awk '/^#define ARGGUARD_DENY_ERRNOS\(X\)/ { on = 1 }
		on { print } on && !/\\$/ { exit }' "$argguard_h" |
		sed -n -E 's/^[[:space:]]*X\((E[A-Z0-9]+),.*/\1/p')
	expect_in "argguard.conf(5)" "$text" "the errno" "${items[@]}"
	mapfile -t items < <(help_section "$help" 'POLICY FILE' | grep -o -E '\[[a-z]+( [^]]+)?\]' |
		sort -u)
	expect_in "argguard.conf(5)" "$text" "the section" "${items[@]}"

	# The longest line: one number, the help's (POLICY_LINE_MAX), in both.
	local help_max page_max
	help_max=$(grep -o -E 'lines of at most [0-9]+ bytes' <<<"$help" | grep -o -E '[0-9]+' || true)
	page_max=$(grep -o -E 'a line longer than [0-9]+ bytes' <<<"$text" | grep -o -E '[0-9]+' || true)
	if [[ -n $help_max && $help_max == "$page_max" ]]; then
		pass "argguard.conf(5) gives the longest line as --help does ($help_max bytes)"
	else
		fail "argguard.conf(5) gives the longest line as --help does: '$page_max', '$help_max'"
	fi

	# And no key the parser does not know: each "*key* = ..." entry.
	while IFS= read -r key; do
		# A here-string, not a pipe: grep -q stops at the first match, and
		# under pipefail printf's SIGPIPE would fail the check.
		if grep -qx -- "$key" <<<"$(printf '%s\n' "${keys[@]}")"; then
			pass "the parser knows the key $key that argguard.conf(5) defines"
		else
			fail "the parser knows the key $key that argguard.conf(5) defines"
		fi
	done < <(sed -n -E 's/^\*([a-z_]+)\* = .*/\1/p' "$page")
}

main() {
	local argguard=${1:?usage: tests/checks/help-man-sync.sh ARGGUARD DOC_DIR LOADER_DIR ARGGUARD_H}
	local doc=${2:?} loader=${3:?} argguard_h=${4:?} help
	tap_start
	help=$("$argguard" --help)

	check_argguard_8 "$help" "$doc/argguard.8.scd"
	check_argguard_conf_5 "$help" "$doc/argguard.conf.5.scd" "$loader" "$argguard_h"
	tap_end
}

main "$@"
