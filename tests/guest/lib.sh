# SPDX-License-Identifier: GPL-2.0
# Assertions and helpers for guest test cases. Each test runs in its own
# subshell under errexit (run-suite.sh): any command that fails ends it. A
# failed assertion prints what was expected and ends the test. A command that
# is meant to fail must say so: outcome, expect, expect_fail, or `|| true`
# with a reason. (`! CMD` alone asserts nothing: errexit ignores it.)

PIN_DIR=/sys/fs/bpf/argguard
EVENT_LOG=/var/log/argguard/events.jsonl
HELPERS=${HELPERS:-/usr/lib/argguard/tests/bin}
# The daemon's metrics textfile, where every guest's daemon writes it (vm/run.sh).
TEXTFILE_DIR=/var/lib/prometheus/node-exporter
TEXTFILE=$TEXTFILE_DIR/argguard.prom

# prom_value METRIC: the value of METRIC (with its labels, as exposed) on stdin.
prom_value() { awk -v m="$1" '$1 == m { print $2 }'; }

# textfile_says METRIC VALUE: the textfile has METRIC at VALUE.
textfile_says() { [[ -f $TEXTFILE && $(prom_value "$1" <"$TEXTFILE") == "$2" ]]; }

# fail MESSAGE: end the test as failed. To stderr, so that a failure inside
# $( ) still shows.
fail() {
	printf '%s\n' "$*" >&2
	exit 1
}

# skip REASON: end the test here, reported "ok N - name # SKIP REASON". In
# CI a skip counts as a failure (tests/checks/tap-summary.sh).
skip() {
	printf '%s' "$*" | tr '\n' ' ' >"${ARGGUARD_SKIP_FILE:?skip: not run by run-suite.sh}"
	exit 77
}

# expect_fail WHAT CMD...: CMD must fail; its output is passed on.
expect_fail() {
	local what=$1
	shift
	if "$@"; then
		fail "expected $what to fail"
	fi
}

assert_eq() { # expected actual what
	[[ $1 == "$2" ]] || fail "expected $3 to be '$1', got '$2'"
}

# le N VALUE: VALUE as N little-endian bytes, the way bpftool takes them.
le() {
	local n=$1 v=$2 i out=()
	for ((i = 0; i < n; i++)); do
		out+=("$(((v >> (8 * i)) & 0xff))")
	done
	echo "${out[@]}"
}

config_json() {
	bpftool -j map lookup pinned "$PIN_DIR/config" key 0 0 0 0 | jq -c .formatted.value
}

active_set() { config_json | jq -r .active_set; }

# The live set's settings (the settings map's entry for active_set & 1).
settings_json() {
	bpftool -j map lookup pinned "$PIN_DIR/settings" key $(le 4 $(($(active_set) & 1))) |
		jq -c .formatted.value
}

# set_config FIELD VALUE: with bpftool, write one field of config
# (active_set, cgroup_generation, policy_state), or one field of the live
# set's settings (mode, empty_argv_action, head_bytes, ...).
set_config() {
	local j set
	set=$(active_set)
	if [[ $1 == active_set || $1 == cgroup_generation || $1 == policy_state ]]; then
		j=$(config_json | jq -c ".$1 = $2") || return 1
		bpftool map update pinned "$PIN_DIR/config" key 0 0 0 0 value \
			$(le 4 "$(jq .active_set <<<"$j")") $(le 4 "$(jq .cgroup_generation <<<"$j")") \
			$(le 4 "$(jq .policy_state <<<"$j")")
		return
	fi
	j=$(settings_json | jq -c ".$1 = $2") || return 1
	bpftool map update pinned "$PIN_DIR/settings" key $(le 4 $((set & 1))) value \
		$(le 4 "$(jq .mode <<<"$j")") $(le 4 "$(jq .empty_argv_action <<<"$j")") \
		$(le 4 "$(jq .head_bytes <<<"$j")") $(le 4 "$(jq .event_rate <<<"$j")") \
		$(le 4 "$(jq .event_burst <<<"$j")") $(le 4 "$(jq .event_rate_total <<<"$j")")
}

# What logrotate's postrotate does: the daemon reopens its log, nothing else.
reopen_log() { systemctl kill --kill-whom=main --signal=USR1 argguard.service; }

# full_log_holds_offending_execs N: the log's file system full (a 64k tmpfs
# over /var/log/argguard, its space taken by a file "fill"), then N execs
# over the live limit, each refused, whose records the daemon must hold.
# The caller's EXIT trap unmounts the tmpfs.
full_log_holds_offending_execs() {
	local limit i
	limit=$(live_limit)
	mount -t tmpfs -o size=64k,mode=0750 tmpfs /var/log/argguard
	reopen_log
	sleep 1
	head -c 1M /dev/zero >/var/log/argguard/fill 2>/dev/null || true
	for ((i = 0; i < $1; i++)); do
		expect E2BIG "exec $i over the limit, the disk full" \
			"$HELPERS/execsize" $((limit + 1)) 0 /bin/true
	done
}

# cgroup_key SET PATH: a cgroup_rules key (struct argguard_cgroup_key) as bytes.
cgroup_key() {
	local set=$1 path=$2 i
	le 4 "$set"
	for ((i = 0; i < 256; i++)); do
		if ((i < ${#path})); then
			printf '%d ' "'${path:i:1}"
		else
			printf '0 '
		fi
	done
}

# rule_bytes JSON: a struct argguard_rule, from bpftool's JSON, as bytes.
rule_bytes() {
	local f w
	for f in max_argv_bytes:8 max_envp_bytes:8 max_total_bytes:8 max_argc:4 max_envc:4 \
		action:4 deny_errno:4 audit_max_argv_bytes:8 audit_max_envp_bytes:8 \
		audit_max_total_bytes:8 audit_max_argc:4 audit_max_envc:4 size_slot:4 flags:4; do
		w=${f#*:}
		le "$w" "$(jq ".${f%:*}" <<<"$1")"
	done | tr '\n' ' '
}

# rule_json MAP KEY...: the rule at KEY (bytes) in a rule map.
rule_json() {
	local map=$1
	shift
	bpftool -j map lookup pinned "$PIN_DIR/$map" key "$@" | jq -c .formatted.value
}

# set_rule_field MAP FIELD VALUE KEY...: change one field of one rule with bpftool.
set_rule_field() {
	local map=$1 field=$2 value=$3 j
	shift 3
	j=$(rule_json "$map" "$@" | jq -c ".$field = $value") || return 1
	bpftool map update pinned "$PIN_DIR/$map" key "$@" value $(rule_bytes "$j")
}

# The live global max_total_bytes, read back from the pinned map with bpftool.
# run_bpf_selftest NAME: run the series' BPF selftest NAME (bpf_NAME, built by
# vm/kernel.sh with a stand-in for test_progs) and print its TAP; then prints,
# as the last line, "PASSED SKIPPED FAILED EXIT" of its tests and subtests.
run_bpf_selftest() {
	local bin=$KSELFTESTS/bpf_$1 out status=0 n
	[[ -x $bin ]] || { echo "missing $bin"; echo "0 0 1 127"; return; }
	out=$("$bin" 2>&1) || status=$?
	echo "$out" | sed 's/^/  /'
	n=$(grep -cE '^ok [0-9]+ .*# SKIP' <<<"$out" || true)
	echo "$(($(grep -cE '^ok [0-9]+ ' <<<"$out" || true) - n)) $n" \
		"$(grep -cE '^not ok [0-9]+ ' <<<"$out" || true) $status"
}

# run_kselftest NAME: run the series' kselftest NAME (and NAME_32, its i386
# build) with argguard's own limit lifted, and print its TAP; then prints, as
# the last line, "PASSED SKIPPED FAILED EXIT" summed over both.
KSELFTESTS=/usr/lib/argguard/tests/kselftests
run_kselftest() {
	local name=$1 bin out old passed=0 skipped=0 failed=0 status=0 n
	old=$(live_limit)
	bpftool_set_limit 0 # the tests exec up to the kernel's own limits
	for bin in "$KSELFTESTS/$name" "$KSELFTESTS/${name}_32"; do
		[[ -x $bin ]] || { echo "missing $bin"; failed=$((failed + 1)); continue; }
		out=$("$bin" 2>&1) || status=$?
		echo "$out" | sed 's/^/  /'
		n=$(grep -cE '^ok [0-9]+ .*# SKIP' <<<"$out" || true)
		skipped=$((skipped + n))
		passed=$((passed + $(grep -cE '^ok [0-9]+ ' <<<"$out" || true) - n))
		failed=$((failed + $(grep -cE '^not ok [0-9]+ ' <<<"$out" || true)))
	done
	bpftool_set_limit "$old"
	echo "$passed $skipped $failed $status"
}

live_limit() { rule_json global_rules $(le 4 "$(active_set)") | jq -r .max_total_bytes; }

# Write the global max_total_bytes through bpftool, as an admin would.
bpftool_set_limit() { set_rule_field global_rules max_total_bytes "$1" $(le 4 "$(active_set)"); }

log_lines() { [[ -f $EVENT_LOG ]] && wc -l <"$EVENT_LOG" || echo 0; }

# wait_log_lines N: wait up to 10 s for the log to hold at least N lines.
# wait_for SECONDS CMD...: run CMD every half second until it succeeds.
wait_for() {
	local i n=$(($1 * 2))
	shift
	for ((i = 0; i < n; i++)); do
		if "$@"; then
			return 0
		fi
		sleep 0.5
	done
	return 1
}

wait_log_lines() {
	local i
	for ((i = 0; i < 100; i++)); do
		(($(log_lines) >= $1)) && return 0
		sleep 0.1
	done
	return 1
}

# complete_lines: stdin's lines that end in a newline. A line the daemon is
# still writing has none yet, and is left for the next read.
complete_lines() {
	local line
	while IFS= read -r line; do
		printf '%s\n' "$line"
	done
}

# new_records N CMD...: run CMD, then print the records it added, waiting for N.
new_records() {
	local n=$1 before
	shift
	before=$(log_lines)
	"$@" >/dev/null || true # refused or not, the records tell
	records_since "$before" "$n"
}

# records_since LINES N: wait for N records past the log's first LINES lines,
# then print every record past them.
records_since() {
	wait_log_lines $(($1 + $2)) || true # the caller counts what came
	sleep 0.5 # a record too many would be here by now
	tail -n +$(($1 + 1)) "$EVENT_LOG"
}

# The JSON report's scope named $1, as one object.
# The window of size counts (argguard report's): execs of 4096 to 8191
# arguments in a scope, its start, and the sizes map's id.
SIZES_STATE=/var/lib/argguard/sizes.json
BIG_ARGC=5000
scope_argc_execs() {
	argguard report --format json | jq --arg s "$1" \
		'[.scopes[] | select(.scope == $s) | .metrics.argc.buckets[] |
			select(.low == 4096) | .count] | add // 0'
}
window_start() { argguard report --format json | jq -r .window.start; }
sizes_map_id() { bpftool -j map show pinned "$PIN_DIR/sizes" | jq .id; }

# big_argc_execs N [CMD_PREFIX...]: N execs of BIG_ARGC arguments, 100000 bytes.
big_argc_execs() {
	local n=$1 i
	shift
	for ((i = 0; i < n; i++)); do
		"$@" "$HELPERS/execsize" 100000 0 /bin/true $BIG_ARGC ||
			fail "expected an exec of $BIG_ARGC arguments to run"
	done
}

report_scope() { argguard report --format json | jq -c --arg s "$1" '.scopes[] | select(.scope == $s)'; }

# The suggested policy's value of key $2 in section $1 ("[uid 1000]").
suggested() { awk -v sec="$1" -v key="$2" '/^\[/ { in_sec = ($0 == sec) } in_sec && $1 == key { print $3 }' "$3"; }

counter() { argguard status | awk -v k="$1:" '$1 == k { print $2 }'; }

daemon_pid() { systemctl show -p MainPID --value argguard.service; }

# Whether the kernel has the series' refusal tracepoint (patch 4): a bare
# tracepoint, with no tracefs event, known by its BTF type as the daemon
# knows it.
has_refusal_tp() {
	bpftool btf dump file /sys/kernel/btf/vmlinux |
		grep "TYPEDEF 'btf_trace_sched_process_exec_args_failed_tp'" >/dev/null
}

# The ids of the pinned LSM links and of those that catch kernel refusals:
# the series' tracepoint where the kernel has it, else the exec exits. They
# change only when a program is attached anew; a missing pin shows as such.
pinned_link_ids() {
	local l refusals=(link_execve link_execveat)
	has_refusal_tp && refusals=(link_exec_args_failed)
	for l in link link_creds "${refusals[@]}"; do
		bpftool -j link show pinned "$PIN_DIR/$l" 2>/dev/null | jq -r .id | grep . || echo "no-$l"
	done | tr '\n' ' '
}

# The entries in denied_execs, over every instance of the map (a restart may
# leave an older one); "no map" if there is none.
denied_execs_entries() {
	local id ids
	ids=$(bpftool -j map show | jq '.[] | select(.name == "argguard_denied") | .id')
	[[ -n $ids ]] || {
		echo "no map"
		return
	}
	for id in $ids; do
		bpftool -j map dump id "$id" | jq length
	done | awk '{ n += $1 } END { print n + 0 }'
}

# What the running daemon has written to its journal since it started, its
# loader process included (a PID of its own).
daemon_journal() {
	journalctl -u argguard.service --no-pager \
		_SYSTEMD_INVOCATION_ID="$(systemctl show -p InvocationID --value argguard.service)"
}

# daemon_said TEXT: daemon_journal has TEXT (a grep pattern).
daemon_said() { daemon_journal | grep -- "$1" >/dev/null; }

# daemon_says PATTERN: wait up to 10 s for daemon_said PATTERN. The unit is
# ready before journald has filed every line the daemon wrote on the way.
daemon_says() {
	local i
	for ((i = 0; i < 100; i++)); do
		daemon_said "$1" && return 0
		sleep 0.1
	done
	return 1
}

# The 2010 exploit, under an unlimited stack: only the kernel's own cap stops it.
exploit_unlimited() {
	ulimit -s unlimited
	"$HELPERS/exploit2010" /bin/true
}

POLICY_FILE=/etc/argguard/argguard.conf
TEST_POLICY=/tmp/argguard-test.conf
TESTER=1000
AS_TESTER=(setpriv --reuid=$TESTER --regid=$TESTER --clear-groups)

# apply_policy LINE...: make these lines the live policy.
apply_policy() {
	printf '%s\n' "$@" >"$TEST_POLICY"
	argguard policy apply "$TEST_POLICY" || fail "could not apply: $*"
}

restore_policy() { argguard policy apply "$POLICY_FILE"; }

CG=/sys/fs/cgroup
SUID_TRUE=/usr/local/bin/argguard-suid-true
PLAIN_TRUE=/usr/local/bin/argguard-plain-true
FCAP_TRUE=/usr/local/bin/argguard-fcap-true

# A test's EXIT trap: on its way out, pass or fail, put the site policy back
# and remove its cgroups (named $CG/argguard-t-*, and a child of each).
cleanup() {
	if [[ -f /tmp/argguard-policy.orig ]]; then
		mv /tmp/argguard-policy.orig "$POLICY_FILE"
	fi
	restore_policy
	rmdir $CG/argguard-t-*/child $CG/argguard-t-* 2>/dev/null || true
}

# in_cgroup PATH CMD...: run CMD inside an existing cgroup.
in_cgroup() {
	local path=$1
	shift
	(echo "$BASHPID" >"$CG$path/cgroup.procs" && exec "$@")
}

# Copies of /bin/true: setuid root, plain, and with a file capability (a
# privilege-gaining exec for anyone but root).
make_setuid_copies() {
	install -m 4755 /bin/true "$SUID_TRUE"
	install -m 0755 /bin/true "$PLAIN_TRUE"
	install -m 0755 /bin/true "$FCAP_TRUE"
	setcap cap_net_raw+ep "$FCAP_TRUE"
}

last_record() { tail -n 1 "$EVENT_LOG"; }

# outcome CMD...: "allowed" if the exec ran, else the errno it failed with.
outcome() {
	local out
	out=$("$@") && echo allowed || echo "${out:-failed}"
}

# expect WANT WHAT CMD...: the exec's outcome must be WANT.
expect() {
	local want=$1 what=$2
	shift 2
	assert_eq "$want" "$(outcome "$@")" "$what"
}

# subid_base FILE NAME: the first of NAME's subordinate ids in /etc/FILE,
# subuid or subgid (vm/rootfs.sh gives tester and root a range each).
subid_base() {
	local base
	base=$(awk -F: -v name="$2" '$1 == name { print $2; exit }' "/etc/$1")
	[[ -n $base ]] || fail "expected /etc/$1 to give $2 a range"
	echo "$base"
}

subuid_base() { subid_base subuid "$1"; }

# as_subuid UID CMD...: run CMD in a user namespace the tester makes with its
# subordinate range mapped from 0 (newuidmap, as rootless podman does), as
# namespace uid UID: the tester's subordinate uid base + UID.
as_subuid() {
	"${AS_TESTER[@]}" unshare --map-auto --setuid "$1" --setgid "$1" "${@:2}"
}

# as_root_subuid UID CMD...: the same in a namespace that root makes with
# its own range (a rootful container with remapped ids). Not --map-auto:
# util-linux 2.38 takes a user name in /etc/subuid that is not root's, read
# as a number, for uid 0.
as_root_subuid() {
	local uids gids
	uids=$(subid_base subuid root) gids=$(subid_base subgid root)
	unshare --map-users="$uids,0,65536" --map-groups="$gids,0,65536" \
		--setuid "$1" --setgid "$1" "${@:2}"
}
