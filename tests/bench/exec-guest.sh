#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run inside the patched guest, booted with -icount (one CPU; guest time
# counts instructions): what argguard costs an exec, what an offending exec
# costs, how the audit pipeline keeps up, and argguard's footprint. Prints
# one tab-separated line per figure:
#   bench <metric> <configuration> <round> <value>
# and "bench-note <text>" lines the host copies into the results. The
# configurations of a comparison alternate within each round (A B C A B C
# ...); the host takes medians. Asserts nothing about speed.
set -euo pipefail
# Beside tests/guest/guard.sh in the guest, as vm/run.sh lays them out.
source "${BASH_SOURCE[0]%/*}/guard.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"

ROUNDS=${BENCH_ROUNDS:-7}
EXECS=${BENCH_EXECS:-2000} # fork+execs per measurement
OFFENDING_EXECS=${BENCH_OFFENDING_EXECS:-1000}
STORM_EXECS=${BENCH_STORM_EXECS:-30000} # the storm the #13 RSS target names
STORM_ROUNDS=${BENCH_STORM_ROUNDS:-3}
# Offending execs a cgroup count, each from the next cgroup round-robin: the
# daemon's cache (16) never has it. Enough for CPU ticks (10 ms) to resolve.
CGROUP_EXECS=${BENCH_CGROUP_EXECS:-1000}
BIG=6000 # argv bytes of an offending exec: over the 4K limit below
MKDIRS=${BENCH_MKDIRS:-100} # cgroups made and removed per measurement
MKDIRS_WORST=${BENCH_MKDIRS_WORST:-10} # the same, against the costliest patterns
TICK_ROUNDS=${BENCH_TICK_ROUNDS:-3}
TICK_S=${BENCH_TICK_S:-60} # the daemon idle this long: 12 metrics ticks

T=/run/argguard-bench # tmpfs: the loop, its target, the policies
CG=/sys/fs/cgroup
LOOP_CG=$CG/bench/pod/ctr/loop # depth 4, matches no rule
# The container configuration's loop: a scope as podman makes one.
CTR_CG=$CG/machine.slice/libpod-$(printf '%064x' 42).scope
LOOP_IN=$LOOP_CG # where loop runs
# fork+execs of the second loop, with bpf_stats on, after each measurement.
STATS_EXECS=${BENCH_STATS_EXECS:-500}
SITE_CONF=/etc/argguard/argguard.conf
GUEST_OPTS=$(sed -n 's/^ARGGUARD_OPTS="\(.*\)"$/\1/p' /etc/default/argguard)
# Which sections run (names as in main); all of them by default.
SECTIONS=${ARGGUARD_BENCH_SECTIONS:-overhead offending storm cgroups footprint mkdir tick}
# Which ways of logging the storm runs (see storm); all three by default.
STORM_CONFIGS=${ARGGUARD_BENCH_STORM:-all json auditd}
# Which configurations the overhead section compares; all eight by default
# (argguard_patterns, the rules with patterns for the cgroup rules, only
# when named). See bench_overhead.
OVERHEAD_CONFIGS=${ARGGUARD_BENCH_OVERHEAD:-none execsnoop auditd noop_lsm argguard_empty argguard_rules ruled container}

emit() { printf 'bench\t%s\t%s\t%s\t%s\n' "$@"; }
note() { printf 'bench-note\t%s\n' "$*"; }
now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'; }

# cpu_ticks PID: utime + stime of a process, in clock ticks.
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }

write_policies() {
	local i
	# A file without "mode" leaves argguard off: "empty" enforces no rules.
	printf '[global]\nmode = enforce\n' >"$T/empty.conf"
	{
		printf '[global]\nmode = enforce\nmax_total_bytes = 1M\n\n'
		for ((i = 2000; i < 3000; i++)); do
			printf '[uid %d]\nmax_total_bytes = 16M\n\n' "$i"
		done
		for ((i = 0; i < 100; i++)); do
			printf '[cgroup /bench-rules/cg-%03d]\nmax_total_bytes = 64M\n\n' "$i"
		done
		printf '[setuid]\nmax_total_bytes = 256K\n'
	} >"$T/rules.conf"
	# The same, with the 100 cgroup rules by pattern: each matches one
	# cgroup of /bench-patterns, none the loop's.
	{
		sed '/^\[cgroup /,$d' "$T/rules.conf"
		for ((i = 0; i < 100; i++)); do
			printf '[cgroup /bench-patterns/cg-%03d-*]\nmax_total_bytes = 64M\n\n' "$i"
		done
		printf '[setuid]\nmax_total_bytes = 256K\n'
	} >"$T/patterns.conf"
	# A 4K global deny could lock admins out: the files say they mean it, so
	# that policy apply and the daemon (at start and on reload) take them.
	printf '[global]\nmode = enforce\nmax_total_bytes = 4K\nallow_lockout = yes\n' >"$T/deny.conf"
	printf '[global]\nmode = enforce\nmax_total_bytes = 4K\naction = audit\n' >"$T/audit.conf"
	printf '[global]\nmode = enforce\nmax_total_bytes = 4K\nevent_rate = 10\nevent_burst = 10\n%s\n' \
		'allow_lockout = yes' >"$T/ratelimited.conf"
	cp "$T/deny.conf" "$T/storm.conf"
	# The shipped policy and one rule for where the loop runs: its own
	# cgroup by a literal path (ruled), a podman scope by pattern (container).
	{
		cat "$HERE/shipped.conf"
		printf '\n[cgroup %s]\nmax_total_bytes = 64M\n' "${LOOP_CG#"$CG"}"
	} >"$T/ruled.conf"
	{
		cat "$HERE/shipped.conf"
		printf '\n[cgroup /machine.slice/libpod-*.scope]\nmax_total_bytes = 64M\n'
	} >"$T/container.conf"
}

setup() {
	local i
	mkdir -p "$T"
	mount -t tmpfs -o size=64m,mode=0755 tmpfs "$T"
	cp "$HELPERS/execloop" "$HELPERS/bench_noop" "$T/"
	for ((i = 0; i < 100; i++)); do
		mkdir -p "$CG/bench-rules/cg-$(printf %03d "$i")"
		mkdir -p "$CG/bench-patterns/cg-$(printf %03d "$i")-a"
	done
	mkdir -p "$LOOP_CG" "$CTR_CG"
	write_policies
	cp "$SITE_CONF" "$T/site.conf"
	auditctl -D >/dev/null
	# One audit.log for the whole run: the storm counts the events auditd
	# writes there, which a rotation would take away. SIGHUP rereads it.
	sed -i 's/^max_log_file_action.*/max_log_file_action = IGNORE/' /etc/audit/auditd.conf
	kill -HUP "$(systemctl show -p MainPID --value auditd.service)"
}

# loop N BYTES: the fork+exec loop, run in the loop's own cgroup (LOOP_IN).
# Prints "n ran refused seconds rate".
loop() {
	(
		echo "$BASHPID" >"$LOOP_IN/cgroup.procs"
		exec setarch -R "$T/execloop" "$1" "$2" "$T/bench_noop"
	)
}

argguard_loaded() { bpftool prog show | grep -c 'name argguard_' || true; }

argguard_off() {
	systemctl stop argguard.service
	(($(argguard_loaded) == 0)) || argguard unload >/dev/null
	(($(argguard_loaded) == 0)) || { echo "argguard programs still loaded" >&2; exit 1; }
}

# argguard_on POLICY: the daemon running, with POLICY as the site policy.
argguard_on() {
	cp "$1" "$SITE_CONF"
	if systemctl -q is-active argguard.service; then
		argguard policy apply "$1" >/dev/null
	else
		systemctl start argguard.service
	fi
}

# use_policy POLICY: make POLICY the site file and reload, with a fresh log.
use_policy() {
	cp "$1" "$SITE_CONF"
	rm -f "$EVENT_LOG"
	systemctl reload argguard.service
	systemctl kill --kill-whom=main --signal=USR1 argguard.service # a fresh log
	sleep 1.5 # the reload is asynchronous; let a summary record go out first
}

EXECSNOOP_PID=
execsnoop_start() {
	local i
	# Line-buffered: its header shows once its probes are attached.
	stdbuf -oL execsnoop >"$T/execsnoop.out" 2>"$T/execsnoop.err" &
	EXECSNOOP_PID=$!
	for ((i = 0; i < 100; i++)); do
		kill -0 "$EXECSNOOP_PID" 2>/dev/null || break
		[[ -s $T/execsnoop.out ]] && return 0 # its header: the probes are attached
		sleep 0.1
	done
	kill "$EXECSNOOP_PID" 2>/dev/null || true
	wait "$EXECSNOOP_PID" 2>/dev/null || true
	EXECSNOOP_PID=
	return 1
}

execsnoop_stop() {
	kill -INT "$EXECSNOOP_PID"
	wait "$EXECSNOOP_PID" || true
	EXECSNOOP_PID=
}

AUDIT_RULE=('always,exit' -F arch=b64 -S execve -k argguard-bench)

# measure CONFIG ROUND: one loop of non-offending execs, once the switch
# to CONFIG has settled; and the CPU time the daemon took meanwhile, which
# falls inside the loop's time on the guest's one CPU. A running daemon
# rewrites its metrics every 5 seconds, and the first rewrite after a
# switch reads the changed policy file again (30 to 70 ms of guest time
# here): the loop starts after it.
measure() {
	local out n ran rate pid ticks=0
	sync
	pid=$(systemctl show -P MainPID argguard.service)
	if ((pid == 0)); then sleep 1; else sleep 6; fi
	((pid == 0)) || ticks=$(cpu_ticks "$pid")
	out=$(loop "$EXECS" 0)
	((pid == 0)) || ticks=$(($(cpu_ticks "$pid") - ticks))
	read -r n ran _ _ rate <<<"$out"
	((ran == n)) || { echo "$1: only $ran of $n execs ran" >&2; exit 1; }
	emit exec_rate "$1" "$2" "$rate"
	emit daemon_cpu_ticks "$1" "$2" "$ticks"
	bpf_stats "$1" "$2"
}

# prog_stats: "id name run_time_ns run_cnt" of each argguard and no-op program.
prog_stats() {
	bpftool -j prog show | jq -r '.[] | select(.name | test("^(argguard|noop)_"))
		| "\(.id) \(.name) \(.run_time_ns // 0) \(.run_cnt // 0)"'
}

# bpf_stats CONFIG ROUND: each program's time a run (run_time_ns / run_cnt),
# over a second loop of STATS_EXECS with kernel.bpf_stats_enabled on, and
# its runs. Not in the timed loop: the stats read the clock twice a run.
bpf_stats() {
	local before
	before=$(prog_stats)
	[[ -n $before ]] && ((STATS_EXECS > 0)) || return 0
	sysctl -qw kernel.bpf_stats_enabled=1
	loop "$STATS_EXECS" 0 >/dev/null
	sysctl -qw kernel.bpf_stats_enabled=0
	prog_stats | awk -v c="$1" -v r="$2" -v before="$before" '
		BEGIN { n = split(before, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, " "); ns[f[1]] = f[3]; cnt[f[1]] = f[4] } }
		($1 in cnt) && $4 > cnt[$1] {
			printf "bench\tbpf_ns_per_run.%s\t%s\t%s\t%.1f\n", $2, c, r, ($3 - ns[$1]) / ($4 - cnt[$1])
			printf "bench\tbpf_runs.%s\t%s\t%s\t%d\n", $2, c, r, $4 - cnt[$1] }'
}

EXECSNOOP_OK=1

# enter CONFIG: from whatever ran before, to CONFIG. Fails if CONFIG cannot run.
enter() {
	case $1 in
	none) argguard_off ;;
	execsnoop)
		argguard_off
		((EXECSNOOP_OK)) && execsnoop_start && return 0
		((EXECSNOOP_OK)) &&
			note "execsnoop did not start: $(tr '\n' ' ' <"$T/execsnoop.err" | cut -c1-400)"
		EXECSNOOP_OK=0
		return 1
		;;
	auditd)
		argguard_off
		auditctl -a "${AUDIT_RULE[@]}" >/dev/null
		;;
	argguard_empty) argguard_on "$T/empty.conf" ;;
	argguard_rules) argguard_on "$T/rules.conf" ;;
	argguard_patterns) argguard_on "$T/patterns.conf" ;;
	noop_lsm)
		argguard_off
		"$HELPERS/bench_noop_lsm" attach >/dev/null
		;;
	ruled) argguard_on "$T/ruled.conf" ;;
	container)
		argguard_on "$T/container.conf"
		LOOP_IN=$CTR_CG
		;;
	esac
}

leave() {
	case $1 in
	execsnoop) execsnoop_stop ;;
	auditd) auditctl -d "${AUDIT_RULE[@]}" >/dev/null ;;
	noop_lsm) "$HELPERS/bench_noop_lsm" detach ;;
	container) LOOP_IN=$LOOP_CG ;;
	esac
}

# 1. Exec overhead (OVERHEAD_CONFIGS): no program; execsnoop; auditd with
# an execve rule; noop_lsm, the floor: two programs that return 0 on
# argguard's hooks; argguard with an empty policy; with 1,000 uid and 100
# cgroup rules; the same with 100 cgroup patterns; ruled, the shipped
# policy and a literal rule for the loop's cgroup; container, the shipped
# policy and a pattern rule for a podman scope the loop runs in
# (/machine.slice/libpod-ID.scope, not the others' cgroup), sizes on. Odd
# rounds go through them in one order, even rounds in reverse.
bench_overhead() {
	local r c i a b configs reversed=() order
	read -r -a configs <<<"$OVERHEAD_CONFIGS"
	for ((i = ${#configs[@]} - 1; i >= 0; i--)); do
		reversed+=("${configs[i]}")
	done
	if [[ " ${configs[*]} " == *" container "* ]]; then
		a=$(<"$LOOP_CG/cgroup.controllers") b=$(<"$CTR_CG/cgroup.controllers")
		note "overhead: controllers on the loop's cgroup: ${a:-none}; on the container's scope: ${b:-none}"
	fi
	loop 200 0 >/dev/null # warm up
	for ((r = 1; r <= ROUNDS; r++)); do
		order=("${configs[@]}")
		((r % 2)) || order=("${reversed[@]}")
		for c in "${order[@]}"; do
			enter "$c" || continue
			measure "$c" "$r"
			leave "$c"
		done
	done
}

# 1b. The kernel's own exec cost, with no BPF program loaded: run on the
# stock and the patched kernel, it compares the two (the series must cost
# nothing when unused).
bench_kernel() {
	local r
	argguard_off
	loop 200 0 >/dev/null # warm up
	for ((r = 1; r <= ROUNDS; r++)); do
		measure none "$r"
	done
	systemctl start argguard.service
}

# reconcile KEY D0 S0 L0 COMM: once a run is over, its decisions, and the
# suppressed and lost records, are final in the counters; wait until the
# daemon has logged the rest. Prints "decisions logged suppressed lost" and
# the time of the log's last write.
reconcile() {
	local d s l logged i
	d=$(($(counter "$1") - $2)) s=$(($(counter records_dropped.rate_limited) - $3))
	l=$(($(counter records_dropped.ring_full) - $4))
	for ((i = 0; i < 3000; i++)); do
		logged=$(grep -c '"comm":"'"$5"'"' "$EVENT_LOG" 2>/dev/null || true)
		((${logged:-0} + s + l >= d)) && break
		sleep 0.02
	done
	echo "$d ${logged:-0} $s $l $(date +%s.%N -r "$EVENT_LOG" 2>/dev/null || echo 0)"
}

# 2. Offending execs: the same argv allowed (no limit), denied with a
# record each, audited (allowed, with a record), denied with records
# rate-limited to 10 a second.
bench_offending() {
	local r cfg key d0 s0 l0 t0 t1 out rate counts last n ran refused want
	argguard_on "$T/empty.conf"
	for ((r = 1; r <= ROUNDS; r++)); do
		for cfg in allow deny audit ratelimited; do
			case $cfg in
			allow) key= ;;
			audit) key=global.audit ;;
			*) key=global.deny ;;
			esac
			use_policy "$T/${cfg/allow/empty}.conf"
			[[ -z $key ]] || d0=$(counter "$key") s0=$(counter records_dropped.rate_limited) \
				l0=$(counter records_dropped.ring_full)
			t0=$(now)
			out=$(loop "$OFFENDING_EXECS" "$BIG")
			t1=$(now)
			read -r n ran refused _ rate <<<"$out"
			case $cfg in
			allow | audit) want=$ran ;;
			*) want=$refused ;;
			esac
			((want == n)) || { echo "$cfg: $ran ran, $refused refused of $n" >&2; exit 1; }
			emit offending_rate "$cfg" "$r" "$rate"
			[[ -n $key ]] || continue
			counts=$(reconcile "$key" "$d0" "$s0" "$l0" execloop)
			last=${counts##* }
			counts=${counts% *}
			# Until the daemon wrote its last record, if that came after the loop.
			emit offending_drained_rate "$cfg" "$r" \
				"$(awk -v n="$OFFENDING_EXECS" -v a="$t0" -v b="$t1" -v c="$last" \
					'BEGIN { if (c > b) b = c; printf "%.1f", n / (b - a) }')"
			emit offending_counts "$cfg" "$r" "$counts"
		done
	done
}

# set_opts OPTS: the daemon restarted with ARGGUARD_OPTS=OPTS; the pins,
# and so the policy, stay.
set_opts() {
	sed -i "s|^ARGGUARD_OPTS=.*|ARGGUARD_OPTS=\"$1\"|" /etc/default/argguard
	systemctl restart argguard.service
}

audit_events() { grep -c 'key="argguard-bench"' /var/log/audit/audit.log || true; }

# storm CONFIG: one process calls execve() as fast as it can and every exec
# is denied; every decision must be logged, suppressed or lost. CONFIG:
#   all: the records go to the JSON log, journald and the Linux audit log;
#   json: to the JSON log alone (--no-journal);
#   auditd: argguard's records held back (event_rate 1), and auditd logs
#     each execve() instead, through an audit rule: its CPU per exec logged
#     is what argguard's per record is compared with.
storm() {
	local cfg=$1 round=$2 pid jpid apid c0 j0 a0 e0 d0 s0 l0 t0 t1 out refused rate counts d logged s l
	case $cfg in
	all) set_opts "$GUEST_OPTS" && use_policy "$T/storm.conf" ;;
	json) set_opts "--no-journal" && use_policy "$T/storm.conf" ;;
	auditd)
		set_opts "--no-journal" && use_policy "$T/ratelimited.conf"
		auditctl -a "${AUDIT_RULE[@]}" >/dev/null
		;;
	esac
	pid=$(daemon_pid)
	jpid=$(systemctl show -p MainPID --value systemd-journald.service)
	apid=$(systemctl show -p MainPID --value auditd.service)
	c0=$(cpu_ticks "$pid") j0=$(cpu_ticks "$jpid") a0=$(cpu_ticks "$apid") e0=$(audit_events)
	d0=$(counter global.deny) s0=$(counter records_dropped.rate_limited) l0=$(counter records_dropped.ring_full)
	t0=$(now)
	out=$("$T/execloop" --no-fork "$STORM_EXECS" 8000 /bin/true || true)
	t1=$(now)
	read -r _ _ refused _ rate <<<"$out"
	counts=$(reconcile global.deny "$d0" "$s0" "$l0" execloop)
	counts=${counts% *}
	sleep 2 # journald and auditd catch up
	emit storm_rate "$cfg" "$round" "${rate:-0}"
	emit storm_refused "$cfg" "$round" "${refused:-0}"
	# From before the helper starts to after it ends, to catch a stall
	# outside the timed loop.
	emit storm_wall_s "$cfg" "$round" "$(elapsed "$t0" "$t1")"
	emit storm_counts "$cfg" "$round" "$counts"
	read -r d logged s l <<<"$counts"
	emit storm_unaccounted "$cfg" "$round" $((d - logged - s - l))
	# CPU time over the storm and its draining, in clock ticks; the host
	# divides it by the records logged.
	emit storm_cpu_ticks_argguard "$cfg" "$round" $(($(cpu_ticks "$pid") - c0))
	emit storm_cpu_ticks_journald "$cfg" "$round" $(($(cpu_ticks "$jpid") - j0))
	emit storm_cpu_ticks_auditd "$cfg" "$round" $(($(cpu_ticks "$apid") - a0))
	emit storm_audit_events "$cfg" "$round" $(($(audit_events) - e0))
	emit storm_vmhwm_kib "$cfg" "$round" "$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$pid/status")"
	# The records the log has and journald or the audit log gave up (their
	# queues' bounds), as the summaries count them.
	emit storm_sink_lost "$cfg" "$round" "$(jq -rs '[.[] | select(.verdict == "summary")
		| .lost_by_sink // {}] | "\(map(.journald // 0) | add // 0) \(map(.audit // 0) | add // 0)"' \
		"$EVENT_LOG")"
	[[ $cfg != auditd ]] || auditctl -d "${AUDIT_RULE[@]}" >/dev/null
}

# 4. The audit pipeline, each way of logging in turn, in STORM_ROUNDS
# rounds (odd rounds forward, even rounds backward).
bench_storm() {
	local r cfg configs
	emit storm_clk_tck hz 1 "$(getconf CLK_TCK)"
	for ((r = 1; r <= STORM_ROUNDS; r++)); do
		configs=$STORM_CONFIGS
		((r % 2)) || configs=$(tr ' ' '\n' <<<"$STORM_CONFIGS" | tac | tr '\n' ' ')
		for cfg in $configs; do
			storm "$cfg" "$r"
		done
	done
	set_opts "$GUEST_OPTS"
}

# 6. Naming a record's cgroup: offending execs, each from a cgroup of its
# own (so that the daemon's cache of 16 never has it), among 100 cgroups and
# among 10,000. The daemon's CPU per record must not grow with the count.
bench_cgroups() {
	local count i pid c0 d0 s0 l0 counts ticks
	use_policy "$T/deny.conf"
	pid=$(daemon_pid)
	ticks=$(getconf CLK_TCK)
	for count in 100 10000; do
		mkdir -p "$CG/bench-cgroups"
		for ((i = 0; i < count; i++)); do
			mkdir -p "$CG/bench-cgroups/c$i"
		done
		c0=$(cpu_ticks "$pid") d0=$(counter global.deny)
		s0=$(counter records_dropped.rate_limited) l0=$(counter records_dropped.ring_full)
		for ((i = 0; i < CGROUP_EXECS; i++)); do
			(echo "$BASHPID" >"$CG/bench-cgroups/c$((i * count / CGROUP_EXECS))/cgroup.procs" &&
				exec "$HELPERS/execsize" "$BIG" 0 /bin/true >/dev/null) || true
		done
		counts=$(reconcile global.deny "$d0" "$s0" "$l0" execsize)
		emit cgroup_cpu_us "$count" 1 "$(awk -v c="$(($(cpu_ticks "$pid") - c0))" -v hz="$ticks" \
			-v n="$(cut -d' ' -f2 <<<"$counts")" 'BEGIN { printf "%.0f", c / hz * 1e6 / n }')"
		for ((i = 0; i < count; i++)); do
			rmdir "$CG/bench-cgroups/c$i"
		done
		rmdir "$CG/bench-cgroups"
	done
}

# 5. Footprint: RSS, BPF memory, cold start to enforcement.
bench_footprint() {
	local pid progs maps r t0 t1 i
	# After a storm journald still works through its backlog, on the one
	# CPU the starts below need: wait until it has written all it has.
	journalctl --sync
	argguard_off
	argguard_on "$T/site.conf"
	sleep 2
	pid=$(daemon_pid)
	emit daemon_kib VmRSS 1 "$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$pid/status")"
	emit daemon_kib VmHWM_idle 1 "$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$pid/status")"
	# The full load ran in a process of its own, which the daemon reports.
	journalctl --sync
	emit daemon_kib loader_peak 1 "$(journalctl -u argguard.service _PID="$pid" -o cat |
		sed -n 's/.*whose peak RSS was \([0-9]*\) KiB.*/\1/p' | tail -n 1)"
	progs=$(bpftool -j prog show | jq -c '[.[] | select(.name | startswith("argguard_"))]')
	emit bpf_progs count 1 "$(jq length <<<"$progs")"
	emit bpf_prog_bytes jited 1 "$(jq '[.[].bytes_jited] | add' <<<"$progs")"
	emit bpf_prog_bytes xlated 1 "$(jq '[.[].bytes_xlated] | add' <<<"$progs")"
	emit bpf_prog_bytes memlock 1 "$(jq '[.[].bytes_memlock] | add' <<<"$progs")"
	maps=$(jq -c '[.[].map_ids[]] | unique' <<<"$progs")
	emit bpf_maps count 1 "$(jq length <<<"$maps")"
	emit bpf_map_bytes memlock 1 \
		"$(bpftool -j map show | jq --argjson ids "$maps" \
			'[.[] | select(.id as $i | $ids | index($i)) | .bytes_memlock] | add')"
	for ((r = 1; r <= 3; r++)); do
		argguard_off
		t0=$(now)
		systemctl start --no-block argguard.service
		# 1.5 MiB: over the site's 1M, under the kernel's own 2 MiB.
		for ((i = 0; i < 6000; i++)); do
			[[ $("$HELPERS/execsize" $((3 << 19)) 0 /bin/true 2>/dev/null) == E2BIG ]] && break
		done
		t1=$(now)
		emit cold_start_s enforcing "$r" "$(elapsed "$t0" "$t1")"
		systemctl start argguard.service # wait for READY before the next stop
	done
}

# The mkdir section's policies: no pattern, one a runtime's, 128 of the
# kind a site writes (each a literal prefix and a '*'), and 128 of the
# costliest shape, a '*' then a long run of literal bytes (test_cgroup_pattern).
write_mkdir_policies() {
	local i a
	printf '[global]\nmode = enforce\n' >"$T/mkdir-p0.conf"
	printf '[global]\nmode = enforce\n[cgroup /system.slice/docker-*.scope]\nmax_total_bytes = 1M\n' \
		>"$T/mkdir-p1.conf"
	{
		printf '[global]\nmode = enforce\n'
		for ((i = 0; i < 127; i++)); do
			printf '[cgroup /bench-mkdir/cg-%03d-*.scope]\nmax_total_bytes = 1M\n' "$i"
		done
		printf '[cgroup /kubepods.slice/**/cri-containerd-*.scope]\nmax_total_bytes = 1M\n'
	} >"$T/mkdir-p128.conf"
	a=$(printf 'a%.0s' {1..240})
	{
		printf '[global]\nmode = enforce\n'
		for ((i = 0; i < 128; i++)); do
			printf '[cgroup /*%sb]\nmax_total_bytes = 1M\n' "${a:0:$((100 + i))}"
		done
	} >"$T/mkdir-p128worst.conf"
}

# mkdir_loop N PATH: make and remove N cgroups PATH-I below the root;
# prints the mean microseconds of one mkdir and rmdir.
mkdir_loop() {
	local i start
	start=$(now)
	for ((i = 0; i < $1; i++)); do
		mkdir "$CG/$2-$i"
		rmdir "$CG/$2-$i"
	done
	awk -v s="$(elapsed "$start" "$(now)")" -v n="$1" 'BEGIN { printf "%.1f", s * 1e6 / n }'
}

# 6. What the cgroup_mkdir program costs a new cgroup: argguard off, then
# 0, 1 and 128 realistic patterns (in both rule sets: each policy is
# applied twice), against a path a user chose so that the realistic ones
# match as far as they can; and 128 of the costliest patterns against 249
# bytes of 'a', the worst a user can make them walk.
bench_mkdir() {
	local r c path n long
	write_mkdir_policies
	mkdir -p "$CG/bench-mkdir"
	long=$(printf 'a%.0s' {1..249})
	for ((r = 1; r <= ROUNDS; r++)); do
		for c in none p0 p1 p128 p128worst; do
			if [[ $c == none ]]; then
				argguard_off
			else
				argguard_on "$T/mkdir-$c.conf"
				argguard policy apply "$T/mkdir-$c.conf" >/dev/null
			fi
			path=bench-mkdir/cg-000-user.scope.x n=$MKDIRS
			[[ $c == p128worst ]] && path=$long n=$MKDIRS_WORST
			emit mkdir_us "$c" "$r" "$(mkdir_loop "$n" "$path")"
		done
	done
	argguard_on "$T/site.conf"
}

# 7. The daemon's CPU a metrics tick (issue 42), idle: the empty policy and
# the 1,000 uid + 100 cgroup rules, each as the site file. Its CPU time is
# read every 5 seconds, the metrics interval, for TICK_S seconds from 6
# seconds after the switch: each interval holds one tick, and the sink
# threads' and the ring buffer's wakeups (1 a second each). The median
# interval is a tick; the mean counts what lands in some intervals only: the
# size keeper's write (every 300 s), and the policy file parsed again.
bench_tick() {
	local r c pid i t0 t1 deltas
	for ((r = 1; r <= TICK_ROUNDS; r++)); do
		for c in empty rules; do
			argguard_on "$T/$c.conf"
			sleep 6
			pid=$(daemon_pid)
			deltas=()
			t0=$("$HELPERS/cpu_ns" "$pid")
			for ((i = 0; i < TICK_S / 5; i++)); do
				sleep 5
				t1=$("$HELPERS/cpu_ns" "$pid")
				deltas+=($(((t1 - t0) / 1000)))
				t0=$t1
			done
			emit daemon_tick_us "$c" "$r" "$(printf '%s\n' "${deltas[@]}" | sort -n |
				awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }')"
			emit daemon_tick_mean_us "$c" "$r" "$(printf '%s\n' "${deltas[@]}" |
				awk '{ s += $1 } END { printf "%.0f", s / NR }')"
			note "daemon_tick $c round $r: each 5 s, µs: ${deltas[*]}"
		done
	done
	argguard_on "$T/site.conf"
}

main() {
	local section
	setup
	for section in $SECTIONS; do
		"bench_$section"
	done
	cp "$T/site.conf" "$SITE_CONF"
	systemctl reload argguard.service
}

main "$@"
