#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# journal-queries.sh FILE...: every journalctl query for argguard's records
# that FILE documents matches _SYSTEMD_UNIT=argguard.service and _UID=0, as
# TAP. Any user can send journald an entry with ARGGUARD_* fields; only the
# fields journald adds itself (those starting with _) say who sent it.
#
# A query is the text from "journalctl" to the end of its line, or to the
# delimiter that opened it there (` in Markdown, * in scdoc, " in C); one
# that names an ARGGUARD_ field must carry both matches. A query that goes
# on past its line (an inline code span left open, a trailing backslash)
# fails too: keep each on one line, so that this check can read it.
set -euo pipefail
source "$(dirname "$0")/tap.sh"

REQUIRED=(_SYSTEMD_UNIT=argguard.service _UID=0)
queries=0

# check_line WHERE LINE: each journalctl query on LINE.
check_line() {
	local where=$1 rest=$2 before query delim missing m
	while [[ $rest == *journalctl* ]]; do
		before=${rest%%journalctl*}
		rest=${rest#*journalctl}
		query=journalctl${rest%%journalctl*}
		# The delimiter that opened it, if the text before it left one open.
		delim=
		for m in '`' '*' '"'; do
			if (($(tr -cd "$m" <<<"$before" | wc -c) % 2)); then
				delim=$m
				break
			fi
		done
		if [[ -n $delim && $query != *"$delim"* ]] || [[ -z $delim && $query =~ \\[[:space:]]*$ ]]; then
			fail "$where: keep each journalctl query on one line, as this check reads it: $query"
			continue
		fi
		[[ -z $delim ]] || query=${query%%"$delim"*}
		query=${query%\\n} # a C string's newline
		[[ $query == *ARGGUARD_* ]] || continue
		queries=$((queries + 1))
		missing=()
		for m in "${REQUIRED[@]}"; do
			[[ " $query " == *" $m "* ]] || missing+=("$m")
		done
		if ((${#missing[@]})); then
			fail "$where: '$query' must match ${missing[*]} too"
		else
			pass "$where: '$query'"
		fi
	done
}

main() {
	local f i line
	(($#)) || {
		echo "usage: journal-queries.sh FILE..." >&2
		exit 2
	}
	tap_start
	for f in "$@"; do
		i=0
		while IFS= read -r line || [[ -n $line ]]; do
			i=$((i + 1))
			[[ $line == *journalctl* ]] && check_line "${f##*/}:$i" "$line"
		done <"$f"
	done
	# A check that finds no query would pass while checking nothing.
	if ((queries)); then
		pass "found $queries journalctl queries for ARGGUARD_ fields"
	else
		fail "found no journalctl query for ARGGUARD_ fields: has the documentation's layout changed?"
	fi
	tap_end
}

main "$@"
