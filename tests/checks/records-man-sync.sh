#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# records-man-sync.sh PRINT_RECORDS PAGE: argguard-records(5) (PAGE, its
# scdoc source) documents every field the record writers write, and no
# other, as TAP.
#
# PRINT_RECORDS (tests/unit/print_records.c) prints records with every
# field set, through the writers themselves: the JSON log's lines, the
# journal's fields and the Linux audit messages. Then:
# - each member of an exec record's JSON has an entry under EXEC RECORDS,
#   and each of a summary's under SUMMARY RECORDS; an entry is a line that
#   names it in bold ("*pid*, *ppid*") with an indented line after it;
# - each member of an object inside a record ("uid" in suppressed_by_uid)
#   is named, in quotes, in the page;
# - each journal field is ARGGUARD_ and a JSON member's name in capitals,
#   or has an entry under JOURNAL;
# - each audit field is a JSON member named under LINUX AUDIT, or has an
#   entry there;
# - and each entry names a field that the writers write, under its section.
set -euo pipefail
source "$(dirname "$0")/tap.sh"

# section PAGE TITLE: the lines of the section "# TITLE", up to the next.
section() {
	awk -v title="# $2" '$0 == title { on = 1; next } /^# / { on = 0 } on' "$1"
}

# entries PAGE TITLE: the names the section's entries define, one a line.
entries() {
	section "$1" "$2" | awk '/^\t/ && head != "" { print head } { head = /^\*/ ? $0 : "" }' |
		grep -o -E '\*[A-Za-z_]+\*' | tr -d '*' | sort -u
}

# The page's text with scdoc's formatting removed, on one line.
page_text() {
	sed -E -e '/^; /d' -e 's/[*\\]//g' "$1" | tr -s ' \t\n' ' '
}

# has NAME LIST: NAME is a line of LIST.
has() {
	grep -qx -- "$1" <<<"$2"
}

# contains TEXT WORD: WORD is in TEXT, not as part of a longer name.
contains() {
	[[ " $1 " =~ [^a-z_]"$2"[^a-z_] ]]
}

# expect_some WHAT LIST: the writers gave at least one name.
expect_some() {
	if [[ -z $2 ]]; then
		fail "print_records gave no $1: has its output changed?"
		return 1
	fi
}

main() {
	local print=${1:?usage: tests/checks/records-man-sync.sh PRINT_RECORDS PAGE} page=${2:?} json
	local exec_fields summary_fields nested journal audit name field text
	local exec_entries summary_entries journal_entries audit_entries audit_text
	tap_start
	json=$("$print" json)
	exec_fields=$(jq -r 'select(.verdict != "summary") | keys_unsorted[]' <<<"$json" | sort -u)
	summary_fields=$(jq -r 'select(.verdict == "summary") | keys_unsorted[]' <<<"$json" | sort -u)
	nested=$(jq -r '.[] | (objects, (arrays | .[] | objects)) | keys_unsorted[]' <<<"$json" |
		sort -u)
	journal=$("$print" journal | sed -n 's/=.*//p' | sort -u)
	audit=$("$print" audit | grep -o -E '(^| )[a-z_]+=' | tr -d ' =' | sort -u)
	exec_entries=$(entries "$page" 'EXEC RECORDS')
	summary_entries=$(entries "$page" 'SUMMARY RECORDS')
	journal_entries=$(entries "$page" 'JOURNAL')
	audit_entries=$(entries "$page" 'LINUX AUDIT')
	audit_text=$(section "$page" 'LINUX AUDIT' | sed -E 's/[*\\]//g' | tr -s ' \t\n' ' ')
	text=$(page_text "$page")

	expect_some "exec record fields" "$exec_fields" || true
	for field in $exec_fields; do
		check "argguard-records(5) has an entry for the exec record's field $field" \
			has "$field" "$exec_entries"
	done
	expect_some "summary record fields" "$summary_fields" || true
	for field in $summary_fields; do
		check "argguard-records(5) has an entry for the summary record's field $field" \
			has "$field" "$summary_entries"
	done
	for field in $nested; do
		check "argguard-records(5) names the member \"$field\" of a field's object" \
			contains "$text" "\"$field\""
	done
	expect_some "journal fields" "$journal" || true
	for name in $journal; do
		field=$(tr 'A-Z' 'a-z' <<<"${name#ARGGUARD_}")
		if [[ $name == ARGGUARD_* ]] && ! has "$name" "$journal_entries"; then
			check "the journal field $name is a record field's name in capitals" \
				has "$field" "$exec_fields"$'\n'"$summary_fields"
		else
			check "argguard-records(5) has an entry under JOURNAL for the field $name" \
				has "$name" "$journal_entries"
		fi
	done
	expect_some "audit fields" "$audit" || true
	for name in $audit; do
		if has "$name" "$exec_fields"$'\n'"$summary_fields"; then
			check "argguard-records(5) names the audit field $name under LINUX AUDIT" \
				contains "$audit_text" "$name"
		else
			check "argguard-records(5) has an entry under LINUX AUDIT for the field $name" \
				has "$name" "$audit_entries"
		fi
	done

	# And no entry for a field the writers do not write.
	for name in $exec_entries; do
		check "the exec record has the field $name that argguard-records(5) defines" \
			has "$name" "$exec_fields"
	done
	for name in $summary_entries; do
		check "the summary record has the field $name that argguard-records(5) defines" \
			has "$name" "$summary_fields"
	done
	for name in $journal_entries; do
		check "the journal entry has the field $name that argguard-records(5) defines" \
			has "$name" "$journal"
	done
	for name in $audit_entries; do
		check "the audit message has the field $name that argguard-records(5) defines" \
			has "$name" "$audit"
	done
	tap_end
}

main "$@"
