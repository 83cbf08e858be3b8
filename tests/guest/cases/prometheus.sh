# SPDX-License-Identifier: GPL-2.0
# The shipped alert rules (/usr/share/argguard/argguard-alerts.yml), evaluated
# by Debian's prometheus over what Debian's prometheus-node-exporter serves
# from argguard's textfile, all on localhost. The test starts a Prometheus
# of its own, with an empty database, and stops it. The rules lose their
# for: durations (1 to 15 minutes; alerts-test.yml, promtool's, tests those):
# here each alert must fire within two evaluation intervals of the scrape
# that first carried its cause, as Prometheus's own samples and the alert's
# activeAt time it.

PROM_TEXTFILES=/var/lib/prometheus/node-exporter
PROM_DIR=/run/argguard-test-prometheus
PROM_UNIT=argguard-test-prometheus
PROM=http://127.0.0.1:9090
# Seconds between scrapes, and between evaluations of the rules.
PROM_INTERVAL=2

# fsub A B: A - B, in seconds to the millisecond; fle A B: A <= B.
fsub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }
fle() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# prom_get PATH [CURL_ARG...]: a GET of Prometheus's HTTP API, its JSON.
prom_get() {
	local path=$1
	shift
	curl -fsS --max-time 20 -G "$PROM$path" "$@"
}

# prom_query EXPR: the instant query's result, a JSON array.
prom_query() { prom_get /api/v1/query --data-urlencode "query=$1" | jq -c .data.result; }

# The active alerts (pending or firing) argguard's rules raise, one JSON
# object a line.
prom_alerts() {
	prom_get /api/v1/alerts | jq -c '.data.alerts[] | select(.labels.alertname | startswith("Argguard"))'
}

# prom_has EXPR: the instant query EXPR has a result.
prom_has() { [[ $(prom_query "$1" | jq length) -gt 0 ]]; }

prom_stop() {
	systemctl stop "$PROM_UNIT" 2>/dev/null || true
	systemctl reset-failed "$PROM_UNIT" 2>/dev/null || true
	rm -rf "$PROM_DIR"
}

# prom_start: a Prometheus of the test's own, with an empty database, that
# scrapes node_exporter's textfile collector and evaluates the shipped
# rules, their for: durations taken out. Returns once it has scraped
# argguard's textfile and evaluated the rules twice.
prom_start() {
	local t0=$EPOCHREALTIME
	prom_stop
	mkdir -p "$PROM_DIR/data"
	sed '/^[[:space:]]*for:/d' /usr/share/argguard/argguard-alerts.yml >"$PROM_DIR/rules.yml"
	cat >"$PROM_DIR/prometheus.yml" <<-EOF
		global:
		  scrape_interval: ${PROM_INTERVAL}s
		  scrape_timeout: ${PROM_INTERVAL}s
		  evaluation_interval: ${PROM_INTERVAL}s
		rule_files:
		  - $PROM_DIR/rules.yml
		scrape_configs:
		  - job_name: node
		    params:
		      collect[]: [textfile]
		    static_configs:
		      - targets: ['127.0.0.1:9100']
	EOF
	systemd-run --quiet --unit="$PROM_UNIT" -p StandardOutput=null -p StandardError=journal \
		/usr/bin/prometheus --config.file="$PROM_DIR/prometheus.yml" \
		--storage.tsdb.path="$PROM_DIR/data" --web.listen-address=127.0.0.1:9090
	wait_for 90 prom_has 'argguard_policy_mode{job="node"} == 1' 2>/dev/null ||
		fail "expected Prometheus to scrape argguard's textfile within 90 s: $(journalctl -u "$PROM_UNIT" -n 5 --no-pager)"
	assert_eq "$(grep -c '^[[:space:]]*- alert:' "$PROM_DIR/rules.yml")" \
		"$(prom_get /api/v1/rules | jq '[.data.groups[].rules[] | select(.type == "alerting")] | length')" \
		"the alerting rules Prometheus loaded"
	sleep $((2 * PROM_INTERVAL))
	echo "Prometheus ready in $(fsub "$EPOCHREALTIME" "$t0") s"
}

# no_alerts WHAT: none of argguard's alerts is active, after three more rounds.
no_alerts() {
	local active
	sleep $((3 * PROM_INTERVAL))
	active=$(prom_alerts)
	[[ -z $active ]] || fail "expected no argguard alert $1, got: $active"
}

# firing_since ALERTNAME LABELS_JSON: the firing alert's activeAt, in seconds
# since the epoch, or nothing.
firing_since() {
	local at
	at=$(prom_alerts | jq -r --arg n "$1" --argjson l "$2" \
		'select(.labels.alertname == $n and (.labels | contains($l)) and .state == "firing") | .activeAt' |
		head -n 1)
	[[ -n $at ]] && date -d "$at" +%s.%N
}

# first_sample_since SERIES SINCE BASELINE: the time of the first sample of
# SERIES (one series) scraped after SINCE (seconds since the epoch) whose
# value is not BASELINE.
first_sample_since() {
	prom_query "$1[5m]" | jq -r --argjson since "$2" --arg base "$3" \
		'[.[0].values[] | select(.[0] >= $since and .[1] != $base)][0][0] // empty'
}

# fires_in_time ALERTNAME LABELS_JSON SERIES SINCE BASELINE: the alert fires
# (within 30 s of SINCE: the daemon rewrites its textfile every 5 s), and
# within two evaluation intervals of the first scrape in which SERIES was no
# longer BASELINE.
fires_in_time() {
	local name=$1 labels=$2 series=$3 since=$4 base=$5 at changed
	wait_for 30 firing_since "$name" "$labels" >/dev/null ||
		fail "expected $name $labels to fire within 30 s; active: $(prom_alerts)"
	at=$(firing_since "$name" "$labels")
	changed=$(first_sample_since "$series" "$since" "$base")
	[[ -n $changed ]] || fail "expected a sample of $series other than $base since $since"
	echo "$name $labels: $series changed in the scrape at $changed, firing from $at" \
		"($(fsub "$at" "$changed") s later)"
	fle "$changed" "$at" || fail "expected $name active no earlier than its cause"
	fle "$(fsub "$at" "$changed")" $((2 * PROM_INTERVAL)) ||
		fail "expected $name to fire within two evaluation intervals (${PROM_INTERVAL} s each) of the scrape"
}

# sample_value SERIES: its value now, as Prometheus has it.
sample_value() { prom_query "$1" | jq -r '.[0].value[1] // empty'; }

# fleet_query TITLE: the query of the dashboard's Fleet panel TITLE, over
# the last 10 minutes.
fleet_query() {
	jq -r --arg t "$1" '.panels[] | select(.title == $t) | .targets[0].expr' \
		/usr/share/argguard/argguard-dashboard.json | sed 's/[$]__range/10m/g'
}

# alert_gone ALERTNAME: no active alert of that name.
alert_gone() { [[ -z $(prom_alerts | jq -c --arg n "$1" 'select(.labels.alertname == $n)') ]]; }

# Prometheus, over what node_exporter serves: a healthy node raises none
# of argguard's alerts, and neither does another collector's broken
# textfile (node_exporter's scrape error is one flag for all its files; only
# argguard.prom's own is argguard's). A denial, a policy that is not the
# file's, records lost to a full ring buffer, a hook with no program and a
# stopped daemon each raise theirs, within two evaluation intervals of the
# scrape that carried it; a node that is down (node_exporter stopped)
# raises no ArgguardMetricsGone: that is the node-down alert's.
test_prometheus_evaluates_the_shipped_alerts_quiet_when_healthy_firing_on_trouble() {
	local other=$PROM_TEXTFILES/argguard-test-other.prom since base limit pid refused last at t builds
	trap 'rm -f '"$other"'; kill -CONT $(daemon_pid) 2>/dev/null; systemctl start prometheus-node-exporter;
		systemctl restart argguard.service; systemctl reload argguard.service; prom_stop' EXIT
	systemctl reload argguard.service
	argguard status >/dev/null || fail "expected a healthy node to start from: $(argguard status 2>&1)"
	prom_start
	no_alerts "on a healthy node"

	printf 'apt_upgrades_pending{arch="amd64" 3\n' >"$other" # a collector's broken output
	wait_for 30 prom_has 'node_textfile_scrape_error{job="node"} == 1' ||
		fail "expected node_exporter to report $other's error"
	echo "mtime series beside the broken file: $(prom_query node_textfile_mtime_seconds | jq -c '[.[].metric.file]')"
	no_alerts "for another collector's broken textfile"
	rm "$other"

	base=$(sample_value 'argguard_decisions_total{scope="global",verdict="deny"}')
	since=$(date +%s.%N)
	limit=$(live_limit)
	expect E2BIG "an exec one byte over the global limit" "$HELPERS/execsize" $((limit + 1)) 0 /bin/true
	fires_in_time ArgguardExecsDenied '{"scope": "global"}' \
		'argguard_decisions_total{scope="global",verdict="deny"}' "$since" "$base"

	# Another file applied (4K, and no record rates): the live policy is
	# not the policy file's.
	since=$(date +%s.%N)
	apply_policy "[global]" "mode = enforce" "allow_lockout = yes" "max_total_bytes = 4K"
	fires_in_time ArgguardPolicyDrift '{}' argguard_policy_drift "$since" 0

	# The daemon stopped reading: the ring buffer (1 MiB, some 380 records)
	# fills, and the rest of the denials' records are lost.
	base=$(sample_value 'argguard_records_dropped_total{reason="ring_full"}')
	pid=$(daemon_pid)
	since=$(date +%s.%N)
	kill -STOP "$pid"
	refused=$("$HELPERS/exec_storm" 600 8000) || fail "the storm had an exec allowed"
	kill -CONT "$pid"
	assert_eq 600 "$refused" "execs refused while the daemon was stopped"
	fires_in_time ArgguardRecordsLost '{}' 'argguard_records_dropped_total{reason="ring_full"}' "$since" "$base"

	since=$(date +%s.%N)
	rm "$PIN_DIR/link_creds"
	fires_in_time ArgguardHookDetached '{"hook": "bprm_creds_from_file"}' \
		'argguard_hook_attached{hook="bprm_creds_from_file"}' "$since" 1

	# What the dashboard's Fleet row finds: this node, in each ranking of
	# what happened, and its build; each sink the daemon opened, counted.
	for t in "Top instances by denials" "Top instances by drift" "Top instances by records lost"; do
		assert_eq 127.0.0.1:9100 "$(prom_query "$(fleet_query "$t")" | jq -r '[.[].metric.instance] | join(" ")')" \
			"the instances the Fleet panel '$t' ranks"
	done
	builds=$(prom_query "$(fleet_query Builds)" | jq -c '[.[] | [.metric.version, .metric.bpf_object, .value[1]]]')
	echo "Builds: $builds"
	[[ $builds =~ ^\[\[\"$(argguard --version | awk '{ print $2 }')\",\"[0-9a-f]{16}\",\"1\"\]\]$ ]] ||
		fail "expected the Fleet row's one build: argguard's version, a 16-digit object id, one instance"
	assert_eq "audit journald log" "$(prom_query argguard_records_lost_total | jq -r '[.[].metric.sink] | sort | join(" ")')" \
		"the sinks argguard_records_lost_total counts"

	systemctl stop prometheus-node-exporter
	wait_for 30 prom_has 'up{job="node"} == 0' || fail "expected Prometheus to find node_exporter down"
	if prom_has argguard_policy_mode; then
		fail "expected argguard's series gone with node_exporter"
	fi
	sleep $((3 * PROM_INTERVAL))
	alert_gone ArgguardMetricsGone || fail "expected no ArgguardMetricsGone for a node that is down"
	alert_gone ArgguardMetricsStale || fail "expected no ArgguardMetricsStale for a node that is down"
	systemctl start prometheus-node-exporter
	wait_for 30 prom_has 'argguard_policy_mode{job="node"} == 1' || fail "expected argguard's series back"

	systemctl stop argguard.service
	wait_for 60 firing_since ArgguardMetricsGone '{}' >/dev/null ||
		fail "expected ArgguardMetricsGone to fire for a stopped daemon; active: $(prom_alerts)"
	at=$(firing_since ArgguardMetricsGone '{}')
	last=$(prom_query 'argguard_policy_mode{mode="enforce"}[5m]' | jq -r '.[0].values[-1][0]')
	echo "ArgguardMetricsGone: argguard_policy_mode last scraped at $last, gone from the next" \
		"scrape; firing from $at ($(fsub "$at" "$last") s later)"
	fle "$(fsub "$at" "$last")" $((3 * PROM_INTERVAL)) ||
		fail "expected ArgguardMetricsGone within two evaluation intervals of the scrape without argguard.prom"
}

# node_exporter serves every *.prom in its textfile directory as the
# machine's own: a user who could put one there, or write argguard.prom,
# would forge argguard's series (a mode, a hook attached, no denials) or
# break the scrape. The directory is root's, and no one else may write it
# or the file (the daemon refuses a directory another account can write).
test_metrics_a_user_cannot_forge_a_textfile_node_exporter_reads() {
	local forged=$PROM_TEXTFILES/argguard-forged.prom owner mode
	trap 'rm -f '"$forged"' /tmp/argguard-forged' EXIT
	wait_for 10 test -f "$PROM_TEXTFILES/argguard.prom" || fail "expected the daemon's textfile"
	ls -ld "$PROM_TEXTFILES" "$PROM_TEXTFILES/argguard.prom"
	read -r owner mode < <(stat -c '%u %a' "$PROM_TEXTFILES")
	assert_eq 0 "$owner" "the owner of $PROM_TEXTFILES"
	((((8#$mode) & 8#022) == 0)) || fail "expected $PROM_TEXTFILES writable by root alone, not mode $mode"
	expect_fail "a user's new textfile" "${AS_TESTER[@]}" \
		sh -c "echo 'argguard_hook_attached{hook=\"bprm_creds_from_file\"} 1' >$forged"
	[[ ! -e $forged ]] || fail "a user made $forged"
	expect_fail "a user's write of argguard.prom" "${AS_TESTER[@]}" \
		sh -c "echo 'argguard_policy_mode{mode=\"enforce\"} 1' >>$PROM_TEXTFILES/argguard.prom"
	expect_fail "a user's rename over argguard.prom" "${AS_TESTER[@]}" \
		sh -c "echo x >/tmp/argguard-forged && mv -f /tmp/argguard-forged $PROM_TEXTFILES/argguard.prom"
	promtool check metrics <"$PROM_TEXTFILES/argguard.prom" ||
		fail "expected argguard.prom as the daemon wrote it"
}
