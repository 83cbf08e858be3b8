#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# monitoring-check.sh DASHBOARD RULES EXPOSITION: the shipped Grafana
# dashboard and Prometheus alert rules (monitoring/), as TAP.
#
# The dashboard is valid JSON shaped as Grafana imports it: a title and a
# uid, a data source variable, and panels each with a type, a title, a place
# on the 24-column grid and (but rows) queries on that data source. Every
# query of the dashboard and every expr of the rules names only metrics
# that argguard or node_exporter's textfile collector exports (or
# Prometheus's up), with labels those metrics have and, where it asks for
# one value (label="value"), a value argguard writes. argguard's names, labels and values come from
# EXPOSITION, a program that prints them with metrics_print() itself
# (tests/unit/metrics_exposition.c). Both files cover denials, drops, a
# hook detached, the policy state, drift, a sink's losses and a stale
# textfile. The dashboard's first row, Fleet, ranks every instance (no
# $instance in its queries) with topk by denials, drift and both kinds of
# loss, and counts the builds.
set -euo pipefail
source "$(dirname "$0")/tap.sh"

# What node_exporter's textfile collector exports about the files it reads,
# and Prometheus about each target it scrapes (up), and the labels each has.
NODE_METRICS="node_textfile_mtime_seconds:file node_textfile_scrape_error: up:"
# Labels Prometheus adds to every scraped series.
TARGET_LABELS="instance job"

EXPOSITION=''

# The metric names argguard exports: its exposition's TYPE lines.
argguard_metrics() { awk '$1 == "#" && $2 == "TYPE" { print $3 }' <<<"$EXPOSITION"; }

known_metric() {
	argguard_metrics | grep -qx -- "$1" && return 0
	[[ " $NODE_METRICS " == *" $1:"* ]]
}

# label_known METRIC LABEL: the metric has that label (or it is a target label).
label_known() {
	local metric=$1 label=$2 spec
	[[ " $TARGET_LABELS " == *" $label "* ]] && return 0
	if [[ $metric == node_* ]]; then
		spec=" $NODE_METRICS "
		spec=${spec#*" $metric:"}
		[[ ",${spec%% *}," == *",$label,"* ]]
		return
	fi
	grep -E "^$metric\{" <<<"$EXPOSITION" | grep -q -- "[{,]$label=\""
}

# value_known METRIC LABEL OP VALUE: for argguard's metrics, = names a value
# it writes, =~ a list of such values (a|b) or a regex that matches one;
# != and !~ are free, as are node's values and Grafana variables.
value_known() {
	local metric=$1 label=$2 op=$3 value=$4 values
	[[ $metric == argguard_* && ($op == = || $op == =~) && $value != *'$'* ]] || return 0
	values=$(grep -E "^$metric\{" <<<"$EXPOSITION" | grep -oE "[{,]$label=\"[^\"]*\"" |
		sed -E 's/^.[^=]*="(.*)"$/\1/' | sort -u)
	if [[ $op == = ]]; then
		grep -qx -- "$value" <<<"$values"
	elif [[ $value =~ ^[a-zA-Z0-9_-]+(\|[a-zA-Z0-9_-]+)*$ ]]; then
		# A list of words: each one a value.
		local word
		for word in ${value//|/ }; do
			grep -qx -- "$word" <<<"$values" || return 1
		done
	else
		grep -qxE -- "$value" <<<"$values"
	fi
}

# The metric names an expression uses: what is left of it once strings,
# label matchers, ranges, Grafana variables, grouping clauses, numbers,
# functions and keywords are gone.
expr_metrics() {
	sed -E -e 's/"([^"\\]|\\.)*"//g' -e 's/\{[^}]*\}//g' -e 's/\[[^]]*\]//g' \
		-e 's/\$[a-zA-Z_]+//g' \
		-e 's/(^|[^a-zA-Z0-9_:])(by|without|on|ignoring|group_left|group_right)[[:space:]]*\([^)]*\)/\1/g' \
		-e 's/(^|[^a-zA-Z0-9_:])[0-9][0-9a-zA-Z.]*/\1/g' <<<"$1" |
		grep -oE '[a-zA-Z_:][a-zA-Z0-9_:]*[[:space:]]*\(?' | grep -v '($' | sed -E 's/[[:space:]]+$//' |
		grep -vxE 'and|or|unless|bool|offset|by|without|on|ignoring' || true
}

# check_expr WHERE EXPR: every metric EXPR names is exported, with the labels
# and values it asks for.
check_expr() {
	local where=$1 expr=$2 metric sel matcher label op value ok=1 why=''
	local -a metrics matchers
	mapfile -t metrics < <(expr_metrics "$expr")
	if ((${#metrics[@]} == 0)); then
		fail "$where names a metric: $expr"
		return
	fi
	for metric in "${metrics[@]}"; do
		known_metric "$metric" || { ok=0 why+=" unknown metric $metric;"; }
	done
	while IFS= read -r sel; do
		[[ -n $sel ]] || continue
		metric=${sel%%\{*}
		sel=${sel#*\{}
		IFS=, read -ra matchers <<<"${sel%\}}"
		for matcher in "${matchers[@]}"; do
			matcher=$(sed -E 's/^[[:space:]]+|[[:space:]]+$//g' <<<"$matcher")
			[[ $matcher =~ ^([a-zA-Z_][a-zA-Z0-9_]*)(=~|!~|!=|=)\"(.*)\"$ ]] || {
				ok=0 why+=" unreadable matcher '$matcher';"
				continue
			}
			label=${BASH_REMATCH[1]} op=${BASH_REMATCH[2]} value=${BASH_REMATCH[3]//\\\\/\\}
			label_known "$metric" "$label" || { ok=0 why+=" $metric has no label $label;"; }
			value_known "$metric" "$label" "$op" "$value" ||
				{ ok=0 why+=" $metric never has $label$op\"$value\";"; }
		done
	done < <(grep -oE '[a-zA-Z_:][a-zA-Z0-9_:]*\{[^}]*\}' <<<"$expr")
	if ((ok)); then
		pass "$where names only exported metrics, labels and values: $expr"
	else
		fail "$where:$why $expr"
	fi
}

# covers WHAT TEXT: TEXT uses each metric the shipped files must watch.
covers() {
	local what=$1 text=$2 metric
	for metric in argguard_decisions_total argguard_records_dropped_total \
		argguard_records_lost_total argguard_hook_attached argguard_policy_state \
		argguard_policy_drift node_textfile_mtime_seconds; do
		check "$what watches $metric" grep -q -- "$metric" <<<"$text"
	done
}

check_dashboard() {
	local dash=$1 exprs
	if ! jq -e . "$dash" >/dev/null; then
		fail "$dash is valid JSON"
		return
	fi
	pass "$dash is valid JSON"
	check "the dashboard has a title, a uid and a schemaVersion" jq -e \
		'(.title | type == "string" and length > 0) and (.uid | type == "string" and length > 0)
		and (.schemaVersion | type == "number")' "$dash"
	check "the dashboard has a Prometheus data source variable, 'datasource'" jq -e \
		'[.templating.list[] | select(.type == "datasource" and .query == "prometheus"
		and .name == "datasource")] | length == 1' "$dash"
	check "the dashboard has panels, each with its own id" jq -e \
		'(.panels | length > 0) and ([.panels[].id] | length == (unique | length))' "$dash"
	check "every panel has a known type and a title" jq -e \
		'all(.panels[]; (.type | IN("row", "stat", "timeseries", "table", "gauge", "text"))
		and (.title | type == "string" and length > 0))' "$dash"
	check "every panel has a place on the 24-column grid" jq -e \
		'all(.panels[]; .gridPos as $g | all($g.x, $g.y, $g.w, $g.h; type == "number" and
		. == floor and . >= 0) and $g.w >= 1 and $g.h >= 1 and $g.x + $g.w <= 24)' "$dash"
	check "every panel but a row queries the data source variable" jq -e \
		'all(.panels[] | select(.type != "row"); .datasource.uid == "${datasource}"
		and (.targets | length > 0)
		and all(.targets[]; (.expr | type == "string" and length > 0)
		and (.refId | type == "string") and .datasource.uid == "${datasource}"))' "$dash"
	exprs=$(jq -r '(.panels[].targets[]?.expr),
		(.templating.list[] | select(.type == "query") | .definition
		| sub("^label_values\\((?<m>[^,]*),.*"; "\(.m)"))' "$dash")
	while IFS= read -r expr; do
		check_expr "dashboard" "$expr"
	done <<<"$exprs"
	covers "the dashboard" "$exprs"
	check_fleet_row "$dash"
}

# The Fleet row: the first row, and the queries of the panels up to the next.
FLEET_EXPRS='. as $d | [.panels[] | select(.type == "row") | .title][0] as $first
	| [foreach $d.panels[] as $p ({in: false};
		.in = (if $p.type == "row" then $p.title == "Fleet" else .in end); {in, $p})
	  | select(.in and .p.type != "row") | .p.targets[].expr]
	| select($first == "Fleet")'

check_fleet_row() {
	local dash=$1 what metric
	check "the dashboard's first row is Fleet, with queries" jq -e "$FLEET_EXPRS | length > 0" "$dash"
	check "no Fleet query is limited to the picked instances" \
		jq -e "$FLEET_EXPRS | length > 0 and all(contains(\"\$instance\") | not)" "$dash"
	for what in 'argguard_decisions_total{verdict="deny"}' argguard_policy_drift \
		'argguard_records_dropped_total{reason="ring_full"}' argguard_records_lost_total; do
		metric=${what%%\{*}
		check "the Fleet row ranks instances (topk) by $what" jq -e --arg m "$metric" \
			--arg sel "${what#"$metric"}" \
			"$FLEET_EXPRS | any(startswith(\"topk(\") and contains(\$m) and contains(\$sel)
			and test(\"by \\\\((instance|instance, sink)\\\\)|argguard_policy_drift\"))" "$dash"
	done
	check "the Fleet row counts the builds" jq -e \
		"$FLEET_EXPRS | any(test(\"^count by \\\\(version, bpf_object\\\\) \\\\(argguard_build_info\\\\)\"))" "$dash"
}

check_rules() {
	local rules=$1 exprs
	exprs=$(sed -n -E 's/^[[:space:]]*expr:[[:space:]]*//p' "$rules")
	check "the rules have an expr each, on one line" \
		test "$(grep -c . <<<"$exprs")" -eq "$(grep -cE '^[[:space:]]*- alert:' "$rules")"
	while IFS= read -r expr; do
		check_expr "alert rules" "$expr"
	done <<<"$exprs"
	covers "the alert rules" "$exprs"
}

main() {
	local dash=${1:?usage: tests/checks/monitoring-check.sh DASHBOARD RULES EXPOSITION}
	local rules=${2:?} exposition=${3:?}
	tap_start
	EXPOSITION=$("$exposition")
	check "the exposition names argguard's metrics" test "$(argguard_metrics | wc -l)" -ge 8
	check_dashboard "$dash"
	check_rules "$rules"
	tap_end
}

main "$@"
