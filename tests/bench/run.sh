#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every benchmark and write the results: the kernel series (stock and
# patched guests), exec overhead, offending execs, the audit pipeline and
# footprint (patched guest), and argguard's JSON on the host. Guests boot
# with -icount, so guest time counts instructions and runs repeat; the
# figures are printed and written, never asserted. argguard's exec overhead
# is the mean over OVERHEAD_BOOTS boots of each kernel (see there).
#
# usage: tests/bench/run.sh [--report] BUILD_DIR [RESULTS_DIR]
# --report: only rewrite the results from the raw output of the last run.
# RESULTS_DIR (default tests/bench/results): results.tsv (every figure, and
# the commit it was measured on), results.md (the tables), overhead.svg and
# flood.svg. Raw guest output stays in BUILD_DIR/bench/.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/bench/stats.sh"
BUILD='' OUT='' RAW=''

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The kernel versions the project builds. The exec benchmarks run on each:
# every section on the first; on the others, those whose figures have
# targets (overhead, the storm, the footprint).
VERSIONS=(6.1 6.12)
OTHER_SECTIONS="overhead storm footprint"
EXEC_TSV='' # the exec benchmarks' raw figures for the version at hand
# argguard's overhead moves by up to 0.2 point from one boot to the next
# (where the kernel's memory lands), as much as its targets: its rows are
# the mean over this many boots of each boot's paired median. The first
# boot is the exec benchmarks'; the others run argguard's configurations
# and the no-op floor alone.
OVERHEAD_BOOTS=3
OVERHEAD_CONFIGS="none noop_lsm argguard_empty argguard_rules ruled container"
# The rows of the exec loop's table, in order; the overhead of those in
# OVERHEAD_CONFIGS (BOOT_MEAN_CONFIGS) is the mean over the boots.
EXEC_CONFIGS="none argguard_empty argguard_rules execsnoop auditd noop_lsm ruled container"
BOOT_MEAN_CONFIGS="argguard_empty argguard_rules noop_lsm ruled container"

# col METRIC CONFIG: the values of one figure over its rounds.
col() { awk -F'\t' -v m="$1" -v c="$2" '$1 == "bench" && $2 == m && $3 == c { print $5 }' "$EXEC_TSV"; }
med() { col "$1" "$2" | median; }

# paired_overhead CONFIG [TSV]: the median over one boot's rounds of
# none / CONFIG - 1, in %; the boot of EXEC_TSV by default.
paired_overhead() {
	awk -F'\t' -v c="$1" '$1 == "bench" && $2 == "exec_rate" && $3 == "none" { n[$4] = $5 }
		$1 == "bench" && $2 == "exec_rate" && $3 == c { x[$4] = $5 }
		END { for (r in x) if (r in n) printf "%.3f\n", (n[r] / x[r] - 1) * 100 }' \
		"${2:-$EXEC_TSV}" | median
}

# overhead_tsvs VERSION: the raw figures of each boot that measured
# VERSION's overhead, the exec benchmarks' first.
overhead_tsvs() {
	local b
	echo "$RAW/exec-$1.tsv"
	for ((b = 2; b <= OVERHEAD_BOOTS; b++)); do
		echo "$RAW/overhead-$1-$b.tsv"
	done
}

# boot_overheads VERSION CONFIG: each boot's paired median, on one line.
boot_overheads() {
	local f
	overhead_tsvs "$1" | while read -r f; do
		paired_overhead "$2" "$f"
	done | tr '\n' ' ' | sed 's/ $//'
}

# The commit the figures are measured on, stamped when a run starts.
stamp_commit() {
	local dirty=
	git -C "$ROOT" diff --quiet HEAD -- . ':!tests/bench/results' || dirty=-dirty
	echo "$(git -C "$ROOT" rev-parse --short HEAD)$dirty" >"$RAW/commit"
}

# exec_benchmarks VERSION: the exec benchmarks in VERSION's patched guest.
exec_benchmarks() {
	local sections=
	[[ $1 == "${VERSIONS[0]}" ]] || sections=$OTHER_SECTIONS
	ARGGUARD_BENCH_SECTIONS=$sections "$ROOT/vm/run.sh" --kernel "$("$ROOT/vm/kernel.sh" --version "$1")" \
		--build "$BUILD" --job bench-exec --icount --out "$RAW/vm-exec-$1" --timeout 3600 |
		grep -P '^bench(-note)?\t' >"$RAW/exec-$1.tsv"
}

# overhead_boots VERSION: boots 2 to OVERHEAD_BOOTS of VERSION's patched
# guest, argguard's overhead alone.
overhead_boots() {
	local b
	for ((b = 2; b <= OVERHEAD_BOOTS; b++)); do
		ARGGUARD_BENCH_SECTIONS=overhead ARGGUARD_BENCH_OVERHEAD=$OVERHEAD_CONFIGS \
			"$ROOT/vm/run.sh" --kernel "$("$ROOT/vm/kernel.sh" --version "$1")" --build "$BUILD" \
			--job bench-exec --icount --out "$RAW/vm-overhead-$1-$b" --timeout 3600 |
			grep -P '^bench\t' >"$RAW/overhead-$1-$b.tsv"
	done
}

# Two guests at a time, one a core: under -icount a guest's figures do not
# depend on what else the host runs.
run_guests() {
	local v series
	# Every kernel first, one build at a time: the tracks below share the trees.
	for v in "${VERSIONS[@]}"; do
		"$ROOT/vm/kernel.sh" --version "$v" --stock >/dev/null
		"$ROOT/vm/kernel.sh" --version "$v" >/dev/null
	done
	log "the kernel series and its exec cost (stock and patched guests), beside the exec benchmarks"
	{
		"$ROOT/tests/bench/kernel-series.sh" "$BUILD" >/dev/null
		"$ROOT/tests/bench/exec-cost.sh" "$BUILD" 3 "${VERSIONS[@]}" >"$RAW/exec-cost.md"
		for v in "${VERSIONS[@]}"; do
			log "argguard's overhead: patched $v guest, boots 2 to $OVERHEAD_BOOTS"
			overhead_boots "$v"
		done
	} &
	series=$!
	for v in "${VERSIONS[@]}"; do
		log "exec benchmarks: patched $v guest"
		exec_benchmarks "$v"
	done
	wait "$series" || die "the kernel series benchmarks failed"
}

run_host() {
	log "argguard's JSON, its writer against json-c: host"
	"$BUILD/tests/bench_json" >"$RAW/json.tsv"
}

# storm_tsv CONFIG: the storm's figures for one way of logging, medians
# over its rounds, counts summed. CPU per record: per record argguard
# logged, or, with auditd, per exec auditd logged.
storm_tsv() {
	local c=$1 p counts d l s x
	counts=$(col storm_counts "$c" | awk '{ for (i = 1; i <= 4; i++) s[i] += $i }
		END { if (NR) print s[1], s[2], s[3], s[4] }')
	[[ -n $counts ]] || return 0
	read -r d l s x <<<"$counts"
	printf 'audit\tstorm_rate\t%s\t%s\texecs/s\n' "$c" "$(med storm_rate "$c")"
	printf 'audit\tstorm_wall_s\t%s\t%s\ts\n' "$c" "$(med storm_wall_s "$c")"
	printf 'audit\tstorm_decisions\t%s\t%s\texecs\n' "$c" "$d"
	printf 'audit\tstorm_logged\t%s\t%s\trecords\n' "$c" "$l"
	printf 'audit\tstorm_suppressed\t%s\t%s\trecords\n' "$c" "$s"
	printf 'audit\tstorm_lost\t%s\t%s\trecords\n' "$c" "$x"
	printf 'audit\tstorm_unaccounted\t%s\t%s\trecords\n' "$c" \
		"$(col storm_unaccounted "$c" | awk '{ s += $1 } END { print s }')"
	printf 'audit\tstorm_audit_events\t%s\t%s\tevents\n' "$c" \
		"$(col storm_audit_events "$c" | awk '{ s += $1 } END { print s }')"
	col storm_sink_lost "$c" | awk -v c="$c" '{ j += $1; a += $2 } END {
		if (NR) printf "audit\tstorm_lost_by_journald\t%s\t%d\trecords\naudit\tstorm_lost_by_audit\t%s\t%d\trecords\n", c, j, c, a }'
	printf 'footprint\tdaemon_VmHWM\t%s\t%s\tKiB\n' "$c" "$(col storm_vmhwm_kib "$c" | sort -n | tail -n1)"
	for p in argguard journald auditd; do
		printf 'audit\tcpu_per_record_%s\t%s\t%s\tus\n' "$p" "$c" "$(cpu_per_record "$p" "$c")"
	done
}

# cpu_per_record PROCESS CONFIG: the median over rounds of PROCESS's CPU
# time per record in µs.
cpu_per_record() {
	awk -F'\t' -v p="storm_cpu_ticks_$1" -v c="$2" '
		$1 == "bench" && $2 == "storm_clk_tck" { hz = $5 }
		$1 == "bench" && $3 == c && $2 == p { t[$4] = $5 }
		$1 == "bench" && $3 == c && $2 == "storm_counts" { split($5, f, " "); n[$4] = f[2] }
		$1 == "bench" && $3 == c && $2 == "storm_audit_events" { e[$4] = $5 }
		END { for (r in t) { d = c == "auditd" ? e[r] : n[r]; if (d) printf "%.0f\n", t[r] / hz * 1e6 / d } }' \
		"$EXEC_TSV" | median
}

# version_rows VERSION SUFFIX: the exec benchmarks' figures for one kernel
# version, SUFFIX on each section name ("" for the first version, whose
# rows keep their names).
version_rows() {
	local x=$2 c m cfg v
	EXEC_TSV=$RAW/exec-$1.tsv
	for c in $EXEC_CONFIGS; do
		m=$(med exec_rate "$c")
		[[ -n $m ]] || continue
		printf 'exec%s\texec_rate\t%s\t%s\texecs/s\n' "$x" "$c" "$m"
		if [[ $c == none ]]; then
			continue
		elif [[ " $OVERHEAD_CONFIGS " == *" $c "* ]]; then
			m=$(boot_overheads "$1" "$c")
			printf 'exec%s\toverhead_boots\t%s\t%s\t%%\n' "$x" "$c" "$m"
			printf 'exec%s\toverhead\t%s\t%s\t%%\n' "$x" "$c" \
				"$(awk '{ for (i = 1; i <= NF; i++) s += $i; printf "%.3f", s / NF }' <<<"$m")"
		else
			printf 'exec%s\toverhead\t%s\t%s\t%%\n' "$x" "$c" "$(paired_overhead "$c")"
		fi
	done
	bpf_rows "$1" "$x"
	if [[ -n $(col offending_rate allow) ]]; then
		for c in allow deny audit ratelimited; do
			printf 'offending\texec_rate\t%s\t%s\texecs/s\n' "$c" "$(med offending_rate "$c")"
			[[ $c == allow ]] && continue
			printf 'offending\tdrained_rate\t%s\t%s\texecs/s\n' "$c" "$(med offending_drained_rate "$c")"
		done
	fi
	if [[ -n $(col cgroup_cpu_us 100) ]]; then
		for c in 100 10000; do
			printf 'audit\tcgroup_cpu_per_record\t%s\t%s\tus\n' "$c" "$(col cgroup_cpu_us "$c" | median)"
		done
	fi
	for c in all json auditd; do
		storm_tsv "$c"
	done | sed "s/^\(audit\|footprint\)\t/\1$x\t/"
	awk -F'\t' '$1 == "bench" && $2 ~ /^(daemon_kib|bpf_)/ { print }' "$EXEC_TSV" |
		while IFS=$'\t' read -r _ m cfg _ v; do
			case $m in
			daemon_kib) printf 'footprint%s\tdaemon_%s\t-\t%s\tKiB\n' "$x" "$cfg" "$v" ;;
			bpf_progs | bpf_maps) printf 'footprint%s\t%s\t-\t%s\t-\n' "$x" "$m" "$v" ;;
			bpf_*) printf 'footprint%s\t%s_%s\t-\t%s\tbytes\n' "$x" "$m" "$cfg" "$v" ;;
			esac
		done
	printf 'footprint%s\tcold_start\t-\t%s\ts\n' "$x" "$(col cold_start_s enforcing | median)"
	for c in empty rules; do
		[[ -z $(col daemon_tick_us "$c") ]] && continue
		printf 'footprint%s\tdaemon_tick\t%s\t%s\tus\n' "$x" "$c" "$(col daemon_tick_us "$c" | median)"
		printf 'footprint%s\tdaemon_tick_mean\t%s\t%s\tus\n' "$x" "$c" "$(col daemon_tick_mean_us "$c" | median)"
	done
	awk -F'\t' -v v="$1" '$1 == "bench-note" { printf "note\t-\t%s\t%s\t-\n", v, $2 }' "$EXEC_TSV"
}

# bpf_rows VERSION SUFFIX: each program's time a run (bpf_stats), by
# configuration: the median over every boot's rounds.
bpf_rows() {
	local f
	overhead_tsvs "$1" | while read -r f; do
		[[ ! -f $f ]] || cat "$f"
	done | awk -F'\t' '$1 == "bench" && $2 ~ /^bpf_ns_per_run\./ { print $2 "\t" $3 "\t" $5 }' |
		sort -t $'\t' -k1,1 -k2,2 -k3,3g |
		awk -F'\t' -v x="$2" '
			function flush() {
				if (n) printf "exec%s\t%s\t%s\t%.1f\tns\n", x, m, c,
					n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
				n = 0
			}
			$1 != m || $2 != c { flush(); m = $1; c = $2 }
			{ v[++n] = $3 }
			END { flush() }'
}

# The results file: section, name, configuration, value, unit.
write_tsv() {
	local v
	printf 'meta\tcommit\t-\t%s\t-\n' "$(cat "$RAW/commit")"
	printf 'meta\tdate\t-\t%s\t-\n' "$(date -u +%Y-%m-%d)"
	EXEC_TSV=$RAW/exec-${VERSIONS[0]}.tsv
	printf 'meta\trounds\t-\t%s\t-\n' "$(col exec_rate none | wc -l)"
	printf 'meta\toverhead_boots\t-\t%s\t-\n' "$OVERHEAD_BOOTS"
	for v in "${VERSIONS[@]}"; do
		if [[ $v == "${VERSIONS[0]}" ]]; then
			version_rows "$v" ""
		else
			version_rows "$v" "-$v"
		fi
	done
	# bench_json: case, the writer's and json-c's outputs a second, json-c's time over the writer's
	awk -F'\t' 'NF == 5 && $1 !~ /^#/ {
		if ($1 !~ /^(status|report)$/)
			printf "host\tevent_to_json\t%s\t%s\trecords/s\n", $1, $2
		printf "host\tjson_c_over_writer\t%s\t%s\tx\n", $1, $4 }' "$RAW/json.tsv"
	awk -F'\t' 'NF == 4 && $1 ~ /^(pointer_flood|exploit2010)/ {
		printf "kernel\t%s\t%s\t%s\ts\n", $1, $2, $3 }' "$RAW/kernel-series.tsv"
	# exec-cost.sh: "6.1: mean of the medians, stock S, patched P: patched +X%"
	sed -n 's/^\([0-9.]*\): mean of the medians, stock \([0-9.]*\), patched \([0-9.]*\): patched \([-+0-9.]*\)%$/\1 \2 \3 \4/p' \
		"$RAW/exec-cost.md" | while read -r v stock patched over; do
		printf 'kernel\texec_rate_stock\t%s\t%s\texecs/s\n' "$v" "$stock"
		printf 'kernel\texec_rate_patched\t%s\t%s\texecs/s\n' "$v" "$patched"
		printf 'kernel\tpatched_vs_stock\t%s\t%s\t%%\n' "$v" "$over"
	done
}

# fig SECTION NAME [CONFIG]: one figure from the results file.
fig() {
	awk -F'\t' -v s="$1" -v n="$2" -v c="${3:--}" '$1 == s && $2 == n && $3 == c { print $4 }' \
		"$OUT/results.tsv"
}

# storm_cell METRIC FORMAT METRIC2 CONFIG: two storm figures in one cell.
storm_cell() {
	# shellcheck disable=SC2059
	printf "$2" "$(fig audit "$1" "$4")" "$(fig audit "$3" "$4")"
}

# cpu_cell CONFIG [SUFFIX]: CPU per record of argguard, journald and auditd.
cpu_cell() {
	local a=audit${2:-}
	echo "$(fig "$a" cpu_per_record_argguard "$1") / $(fig "$a" cpu_per_record_journald "$1") / $(fig "$a" cpu_per_record_auditd "$1")"
}

# rate_cell SECTION CONFIG: an exec rate, and its overhead if it has one.
rate_cell() {
	local over
	over=$(fig "$1" overhead "$2")
	printf '%.0f%s' "$(fig "$1" exec_rate "$2")" "${over:+ ($(printf '%+.2f %%' "$over"))}"
}

# boots_cell SECTION CONFIG: argguard's overhead, the mean and each boot's.
boots_cell() {
	printf '%+.2f %% (%s)' "$(fig "$1" overhead "$2")" \
		"$(fig "$1" overhead_boots "$2" | awk '{ for (i = 1; i <= NF; i++) printf "%s%+.2f", (i > 1 ? ", " : ""), $i }')"
}

# version_md VERSION: the figures of a version that ran the target sections only.
version_md() {
	local x=-$1
	echo "| patched $1 guest, the sections the targets need | |"
	echo "|---|---|"
	echo "| exec loop, execs/s: no program / argguard, empty policy / 1,000 uid + 100 cgroup rules / execsnoop / auditd | $(rate_cell "exec$x" none) / $(rate_cell "exec$x" argguard_empty) / $(rate_cell "exec$x" argguard_rules) / $(rate_cell "exec$x" execsnoop) / $(rate_cell "exec$x" auditd) |"
	echo "| storm, all sinks: denied execs/s; decisions / logged / suppressed / lost; given up by journald / the audit log | $(printf '%.0f' "$(fig "audit$x" storm_rate all)"); $(fig "audit$x" storm_decisions all) / $(fig "audit$x" storm_logged all) / $(fig "audit$x" storm_suppressed all) / $(fig "audit$x" storm_lost all); $(fig "audit$x" storm_lost_by_journald all) / $(fig "audit$x" storm_lost_by_audit all) |"
	echo "| CPU per logged record: argguard / journald / auditd, µs: all sinks; JSON log alone; auditd, execve rule | $(cpu_cell all "$x"); $(cpu_cell json "$x"); $(cpu_cell auditd "$x") |"
	echo "| daemon VmRSS idle / VmHWM after the storm (all sinks) | $(fig "footprint$x" daemon_VmRSS) / $(fig "footprint$x" daemon_VmHWM all) KiB |"
	echo "| daemon VmHWM after a fresh start; its loader process's peak RSS | $(fig "footprint$x" daemon_VmHWM_idle) / $(fig "footprint$x" daemon_loader_peak) KiB |"
	printf '| cold start to the first denial (median of 3) | %.2f s |\n' "$(fig "footprint$x" cold_start)"
}

# bpf_md: bpf_stats' time a run of each program, by configuration and version.
bpf_md() {
	local v name c
	printf '| bpf_stats: run_time_ns / run_cnt, median over rounds (program, configuration) |'
	printf ' patched %s |' "${VERSIONS[@]}"
	printf '\n|---|'
	printf -- '---|%.0s' "${VERSIONS[@]}"
	echo
	awk -F'\t' '$1 == "exec" && $2 ~ /^bpf_ns_per_run\./ { sub(/^bpf_ns_per_run\./, "", $2); print $2, $3 }' \
		"$OUT/results.tsv" | while read -r name c; do
		printf '| %s, %s |' "$name" "$c"
		for v in "${VERSIONS[@]}"; do
			[[ $v == "${VERSIONS[0]}" ]] && v= || v=-$v
			printf ' %s |' "$(fig "exec$v" "bpf_ns_per_run.$name" "$c")"
		done
		echo
	done
}

write_md() {
	local c v rate over label
	local -A counts
	echo "Measured on commit $(fig meta commit), $(fig meta date); guest under TCG with"
	echo "\`-icount shift=0,sleep=off -smp 1\`, medians over $(fig meta rounds) alternating rounds;"
	echo "patched ${VERSIONS[0]} guest where a table does not name another."
	echo
	echo "| exec loop (fork + exec of a static no-op from tmpfs) | execs/s | overhead vs none (argguard: the mean of $(fig meta overhead_boots) boots) |"
	echo "|---|---|---|"
	for c in $EXEC_CONFIGS; do
		rate=$(fig exec exec_rate "$c")
		case $c in
		none) label="no program (argguard unloaded, auditd without rules)" ;;
		argguard_empty) label="argguard, empty policy" ;;
		argguard_rules) label="argguard, 1,000 uid + 100 cgroup rules" ;;
		execsnoop) label="execsnoop (libbpf-tools)" ;;
		auditd) label="auditd, execve rule" ;;
		noop_lsm) label="the floor: two no-op BPF LSM programs on argguard's hooks" ;;
		ruled) label="argguard, shipped policy + a literal rule for the loop's cgroup" ;;
		container) label="argguard, shipped policy + a pattern rule for the loop's podman scope" ;;
		esac
		if [[ -z $rate ]]; then
			echo "| $label | did not run | see notes |"
			continue
		fi
		over=$(fig exec overhead "$c")
		printf '| %s | %.0f | %s |\n' "$label" "$rate" "${over:+$(printf '%+.2f %%' "$over")}"
	done
	echo
	printf "| argguard's overhead: the mean of %s boots' medians of paired rounds (each boot's) |" \
		"$(fig meta overhead_boots)"
	printf ' patched %s |' "${VERSIONS[@]}"
	printf '\n|---|'
	printf -- '---|%.0s' "${VERSIONS[@]}"
	echo
	for c in $BOOT_MEAN_CONFIGS; do
		label=${c/argguard_/}
		[[ $c != noop_lsm ]] || label="noop_lsm (the floor: no argguard)"
		printf '| %s |' "$label"
		for v in "${VERSIONS[@]}"; do
			[[ $v == "${VERSIONS[0]}" ]] && v= || v=-$v
			printf ' %s |' "$(boots_cell "exec$v" "$c")"
		done
		echo
	done
	echo
	bpf_md
	echo
	echo "| offending exec (argv 6,000 B, limit 4K) | execs/s | µs per exec | until logged, execs/s |"
	echo "|---|---|---|---|"
	for c in allow deny audit ratelimited; do
		rate=$(fig offending exec_rate "$c")
		over=$(fig offending drained_rate "$c")
		printf '| %s | %.0f | %.0f | %s |\n' "$c" "$rate" "$(awk -v r="$rate" 'BEGIN { print 1e6 / r }')" \
			"${over:+$(printf '%.0f' "$over")}"
	done
	echo
	echo "| audit pipeline: one process, execve() in a loop, every exec denied, no rate limit | all sinks | JSON log alone | auditd, execve rule |"
	echo "|---|---|---|---|"
	printf '| denied execs/s (seconds from start to exit of the helper) | %s | %s | %s |\n' \
		"$(storm_cell storm_rate '%.0f (%.2f)' storm_wall_s all)" \
		"$(storm_cell storm_rate '%.0f (%.2f)' storm_wall_s json)" \
		"$(storm_cell storm_rate '%.0f (%.2f)' storm_wall_s auditd)"
	for c in all json auditd; do
		counts[$c]="$(fig audit storm_decisions "$c") / $(fig audit storm_logged "$c") / $(fig audit storm_suppressed "$c") / $(fig audit storm_lost "$c")"
	done
	echo "| decisions / logged / suppressed / lost | ${counts[all]} | ${counts[json]} | ${counts[auditd]} (auditd logged $(fig audit storm_audit_events auditd)) |"
	echo "| unaccounted | $(fig audit storm_unaccounted all) | $(fig audit storm_unaccounted json) | $(fig audit storm_unaccounted auditd) |"
	echo "| of the logged, given up by journald / the audit log (queue full) | $(fig audit storm_lost_by_journald all) / $(fig audit storm_lost_by_audit all) | | |"
	echo "| CPU per logged record: argguard / journald / auditd, µs | $(cpu_cell all) | $(cpu_cell json) | $(cpu_cell auditd) |"
	echo "| argguard's CPU per record, each exec from a cgroup of its own, among 100 / 10,000 cgroups | $(fig audit cgroup_cpu_per_record 100) / $(fig audit cgroup_cpu_per_record 10000) µs |"
	echo "| host: event_to_json, records/s (256 B head / kernel-refused / hex head) | $(fig host event_to_json deny_256B_head) / $(fig host event_to_json kernel_refused) / $(fig host event_to_json deny_hex_head) |"
	echo "| host: json-c's time over the JSON writer's: records (256 B head / kernel-refused / hex head), status, report | $(fig host json_c_over_writer deny_256B_head) / $(fig host json_c_over_writer kernel_refused) / $(fig host json_c_over_writer deny_hex_head), $(fig host json_c_over_writer status), $(fig host json_c_over_writer report) |"
	echo
	echo "| footprint | |"
	echo "|---|---|"
	echo "| daemon VmRSS idle / VmHWM after the storm (all sinks) | $(fig footprint daemon_VmRSS) / $(fig footprint daemon_VmHWM all) KiB |"
	echo "| daemon VmHWM after a fresh start; its loader process's peak RSS | $(fig footprint daemon_VmHWM_idle) / $(fig footprint daemon_loader_peak) KiB |"
	echo "| BPF programs: count, jited / xlated bytes | $(fig footprint bpf_progs), $(fig footprint bpf_prog_bytes_jited) / $(fig footprint bpf_prog_bytes_xlated) |"
	echo "| BPF memlock: programs / $(fig footprint bpf_maps) maps | $(fig footprint bpf_prog_bytes_memlock) / $(fig footprint bpf_map_bytes_memlock) bytes |"
	printf '| cold start to the first denial (median of 3) | %.2f s |\n' "$(fig footprint cold_start)"
	echo "| the daemon's CPU a 5-second metrics tick, idle, the median tick / the mean: the empty policy; 1,000 uid + 100 cgroup rules | $(fig footprint daemon_tick empty) / $(fig footprint daemon_tick_mean empty); $(fig footprint daemon_tick rules) / $(fig footprint daemon_tick_mean rules) µs |"
	echo
	cat "$RAW/kernel-series.md"
	echo
	echo "| patched kernel vs stock, no program loaded: fork+exec, mean of 3 boots' medians | stock, execs/s | patched, execs/s | patched's rate vs stock's (+: faster) |"
	echo "|---|---|---|---|"
	for v in "${VERSIONS[@]}"; do
		printf '| %s | %s | %s | %+.2f %% |\n' "$v" "$(fig kernel exec_rate_stock "$v")" \
			"$(fig kernel exec_rate_patched "$v")" "$(fig kernel patched_vs_stock "$v")"
	done
	for v in "${VERSIONS[@]:1}"; do
		echo
		version_md "$v"
	done
	if grep -q '^note' "$OUT/results.tsv"; then
		echo
		awk -F'\t' '$1 == "note" { print "Note: " $4 }' "$OUT/results.tsv"
	fi
}

plot() {
	local data=$RAW/plot
	mkdir -p "$data"
	awk -F'\t' '$1 == "exec" && $2 == "overhead" { print $3, $4 }' "$OUT/results.tsv" >"$data/overhead.dat"
	awk -F'\t' '$1 == "kernel" && $2 ~ /^pointer_flood_/ && $3 == "stock" { sub(/pointer_flood_/, "", $2); print $2, $4 }' \
		"$OUT/results.tsv" >"$data/flood-stock.dat"
	awk -F'\t' '$1 == "kernel" && $2 ~ /^pointer_flood_/ && $3 == "patched" { sub(/pointer_flood_/, "", $2); print $2, $4 }' \
		"$OUT/results.tsv" >"$data/flood-patched.dat"
	gnuplot <<-GP
		set terminal svg size 640,360 font 'sans,11' background '#ffffff'
		set output '$OUT/overhead.svg'
		set title 'fork+exec overhead vs no program (median of paired rounds)' noenhanced
		set ylabel 'extra time per exec (%, log scale)'
		set style fill solid 0.7 border -1
		set boxwidth 0.6
		set grid ytics
		set logscale y
		set yrange [0.01:1000]
		set xtics noenhanced
		plot '$data/overhead.dat' using 0:2:xtic(1) with boxes lc rgb '#4477aa' notitle, \
		     '' using 0:2:(sprintf('%+.2f %%', \$2)) with labels offset 0,0.8 notitle
		unset logscale y
		set output '$OUT/flood.svg'
		set title 'pointer flood: execve() time to E2BIG'
		set logscale xy
		set xlabel 'pointers in argv'
		set ylabel 'seconds (guest, icount)'
		set yrange [*:*]
		set key top left
		set format x '2^{%L}'
		set logscale x 2
		plot '$data/flood-stock.dat' using 1:2 with linespoints lw 2 pt 7 title 'stock 6.1', \
		     '$data/flood-patched.dat' using 1:2 with linespoints lw 2 pt 5 title 'patched'
	GP
}

main() {
	local start=$SECONDS report=0
	[[ ${1:-} == --report ]] && report=1 && shift
	BUILD=${1:?usage: tests/bench/run.sh [--report] BUILD_DIR [RESULTS_DIR]}
	BUILD=$(cd "$BUILD" && pwd)
	OUT=${2:-$ROOT/tests/bench/results}
	RAW=$BUILD/bench
	[[ -x $BUILD/tests/execloop && -x $BUILD/tests/bench_json ]] ||
		die "build the tree first, configured with -DARGGUARD_KERNEL_DIR=\$(vm/kernel.sh): cmake --build $BUILD"
	command -v gnuplot >/dev/null || die "gnuplot is missing: vm/install-deps.sh installs gnuplot-nox"
	mkdir -p "$RAW" "$OUT"
	if ((!report)); then
		stamp_commit
		run_guests
		run_host
	fi
	write_tsv >"$OUT/results.tsv"
	write_md >"$OUT/results.md"
	plot
	cat "$OUT/results.md"
	log "done in $(((SECONDS - start) / 60))m$(((SECONDS - start) % 60))s; results in $OUT"
}

main "$@"
