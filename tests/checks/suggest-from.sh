#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# suggest-from.sh ARGGUARD FIXTURES: argguard suggest --from merges the
# reports of many hosts into the policy that suggest makes of their
# combined counts, as TAP.
#
# The two hosts' reports (FIXTURES/report-host-a.json and -b.json) are
# summed here with jq, by what the report's JSON means (argguard(8), REPORT
# JSON): scope by scope, the counts and sums add bucket by bucket and the
# largest value is the larger, for what ran, what was denied and each uid's
# execs; since is the earlier, a scope's largest exec the larger; not by
# argguard's own merge. suggest over that one summed report must print the
# very policy that suggest --from the two prints, each section's comment
# too (what ran and was denied, since when, the largest and whose), for
# each --keep-share tried, and say the window the two cover together.
# Reports that cannot be merged are refused, naming the file. ARGGUARD
# needs no kernel: with --policy, suggest reads no map.
set -euo pipefail
source "$(dirname "$0")/tap.sh"

ARGGUARD=$1 FIXTURES=$2
A=$FIXTURES/report-host-a.json B=$FIXTURES/report-host-b.json
POLICY=$FIXTURES/fleet-policy.conf
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The reports given, summed into one report.
sum_reports() {
	jq -s '
	def add_metric($a; $b):
		if $a == null then $b elif $b == null then $a else {
			count: ($a.count + $b.count),
			max: ([$a.max, $b.max] | max),
			sum: ($a.sum + $b.sum),
			buckets: ([$a.buckets[], $b.buckets[]] | group_by(.low)
				| map({low: .[0].low, high: .[0].high, count: (map(.count) | add)}))
		} end;
	def add_metrics($a; $b): [($a // {} | keys[]), ($b // {} | keys[])] | unique
		| map(. as $m | {key: $m, value: add_metric($a[$m]; $b[$m])}) | from_entries;
	def add_counted($a; $b): {
		execs: (($a.execs // 0) + $b.execs),
		metrics: add_metrics($a.metrics; $b.metrics)
	};
	def add_scope($a; $s): {
		scope: $s.scope,
		since: ([$a.since, $s.since] | map(select(. != null)) | min),
		execs: (($a.execs // 0) + $s.execs),
		metrics: add_metrics($a.metrics; $s.metrics),
		limits: [],
		largest: ([$a.largest, $s.largest] | map(select(. != null))
			| max_by(.total_bytes)),
		denied: add_counted($a.denied; $s.denied),
		by_uid: ([($a.by_uid // [])[], $s.by_uid[]] | group_by(.uid)
			| map(reduce .[] as $u (null; add_counted(.; $u) + {uid: $u.uid})))
	};
	{
		schema: .[0].schema, host: "sum", boot_id: null, sizes: .[0].sizes,
		window: {start: (map(.window.start) | min), end: (map(.window.end) | max)},
		policy: "none",
		scopes: ([.[].scopes[]] | group_by(.scope)
			| map(reduce .[] as $s (null; add_scope(.; $s)))),
		largest: ([.[].largest[]] | sort_by(-.total_bytes) | .[:32]),
		largest_denied: ([.[].largest_denied[]] | sort_by(-.total_bytes) | .[:32])
	}' "$@"
}

# The policy lines of a suggestion: all but its comments.
policy_lines() { grep -v '^#' "$1"; }

# Its sections, each with its comment: all but the header, which names the files.
sections() { sed '1,/^$/d' "$1"; }

# check_same_policy SHARE [OPTION...]
check_same_policy() {
	local share=$1
	shift
	"$ARGGUARD" suggest --keep-share "$share" "$@" --policy "$POLICY" --from "$A" "$B" \
		>"$WORK/from.conf"
	"$ARGGUARD" suggest --keep-share "$share" "$@" --policy "$POLICY" \
		--from "$WORK/sum.json" >"$WORK/sum.conf"
	if [[ $(sections "$WORK/from.conf") == "$(sections "$WORK/sum.conf")" ]] &&
		grep -q '^max_total_bytes = ' "$WORK/from.conf" &&
		grep -q ' denied (not counted), in ' "$WORK/from.conf"; then
		pass "--keep-share $share $*: suggest --from the two hosts is suggest over their sum"
	else
		fail "--keep-share $share $*: suggest --from the two hosts is suggest over their sum"
		diff -u "$WORK/sum.conf" "$WORK/from.conf" | diag
	fi
}

# refused WHAT WANT FILE...: suggest --from FILE... fails, and says WANT.
refused() {
	local what=$1 want=$2 err rc=0
	shift 2
	err=$("$ARGGUARD" suggest --policy "$POLICY" --from "$@" 2>&1 >/dev/null) || rc=$?
	if ((rc != 0)) && [[ $err == *"$want"* ]]; then
		pass "$what"
	else
		fail "$what"
		diag "exit status $rc: $err"
	fi
}

main() {
	local header
	tap_start
	sum_reports "$A" "$B" >"$WORK/sum.json"
	check "the fixtures differ, so that the sum matters" \
		test "$(jq -c .scopes "$A")" != "$(jq -c .scopes "$B")"
	for share in 100 99.9 99 90 50; do
		# The build cgroup's 212 execs are under the default minimum sample.
		check_same_policy "$share" --min-execs 100
		check_same_policy "$share"
	done
	header=$(head -n 3 "$WORK/from.conf" | tr '\n' ' ')
	if [[ $header == *"of 2 reports, counted from 2026-04-25T00:00:00Z # to 2026-05-05T12:00:00Z;"* ]]; then
		pass "the suggestion says its window: the earliest start, the latest end"
	else
		fail "the suggestion says its window: the earliest start, the latest end"
		diag "$header"
	fi
	if [[ $(policy_lines "$WORK/from.conf") != "$("$ARGGUARD" suggest --keep-share 50 \
		--policy "$POLICY" --from "$A" | grep -v '^#')" ]]; then
		pass "the second host's counts change the suggestion"
	else
		fail "the second host's counts change the suggestion"
	fi

	# What a host says was denied moves no limit; each uid weighs as one.
	jq '.scopes[].denied = {execs: 0, metrics: {}} | .largest_denied = []
		| .scopes |= map(select(.execs > 0))' "$B" >"$WORK/none-denied.json"
	if [[ $(policy_lines "$WORK/from.conf") == "$("$ARGGUARD" suggest --keep-share 50 \
		--policy "$POLICY" --from "$A" "$WORK/none-denied.json" | grep -v '^#')" ]]; then
		pass "the execs a host denied move no suggested limit"
	else
		fail "the execs a host denied move no suggested limit"
	fi
	# The build cgroup's 12 large execs: 8 of uid 998 under 1M and 4 of uid
	# 0, 3 of them over, each uid weighing as one; all of them one uid's.
	jq '(.scopes[] | select(.scope == "cgroup /system.slice/build.service") | .by_uid) |=
		[{uid: 998, execs: 12, metrics: {total_bytes: {count: 12, max: 1170242,
			sum: (map(.metrics.total_bytes.sum) | add),
			buckets: ([.[].metrics.total_bytes.buckets[]] | group_by(.low)
				| map(.[0] + {count: (map(.count) | add)}))}}}]' \
		"$A" >"$WORK/one-uid.json"
	"$ARGGUARD" suggest --keep-share 50 --min-execs 100 --policy "$POLICY" --from "$A" "$B" \
		>"$WORK/by-uid.conf"
	"$ARGGUARD" suggest --keep-share 50 --min-execs 100 --policy "$POLICY" \
		--from "$WORK/one-uid.json" "$B" >"$WORK/one-uid.conf"
	if [[ $(policy_lines "$WORK/by-uid.conf") != "$(policy_lines "$WORK/one-uid.conf")" ]]; then
		pass "the execs by uid weigh in the share"
	else
		fail "the execs by uid weigh in the share"
	fi

	jq '.schema = 1' "$B" >"$WORK/schema1.json"
	refused "a report of another schema is refused, naming the file" \
		"$WORK/schema1.json: a report of schema 1; this argguard reads schema 2" \
		"$A" "$WORK/schema1.json"
	jq '.sizes = "total" | .scopes[].metrics |= del(.argv_bytes, .envp_bytes)' "$B" \
		>"$WORK/total.json"
	refused "a report of another size mode is refused, naming the file" \
		"$WORK/total.json: total sizes, where $A has exact ones" "$A" "$WORK/total.json"
	jq '.scopes[0].metrics.total_bytes.buckets[0].count += 1' "$B" >"$WORK/miscount.json"
	refused "a report whose buckets do not add up is refused, naming the file" \
		"$WORK/miscount.json: scope global: total_bytes: the buckets hold" \
		"$A" "$WORK/miscount.json"
	refused "a file that is not there is refused, naming it" \
		"$WORK/none.json: No such file or directory" "$A" "$WORK/none.json"
	tap_end
}

main
