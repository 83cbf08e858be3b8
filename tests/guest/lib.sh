# SPDX-License-Identifier: GPL-2.0
# Assertions and helpers for guest test cases. A failed assertion prints what
# was expected and ends the test (each test runs in its own subshell).

PIN_DIR=/sys/fs/bpf/argguard
EVENT_LOG=/var/log/argguard/events.jsonl
HELPERS=${HELPERS:-/usr/lib/argguard/tests/bin}

fail() {
	printf '%s\n' "$*"
	exit 1
}

assert_eq() { # expected actual what
	[[ $1 == "$2" ]] || fail "expected $3 to be '$1', got '$2'"
}

# The live max_total_bytes, read back from the pinned map with bpftool.
live_limit() {
	bpftool -j map lookup pinned "$PIN_DIR/config" key 0 0 0 0 |
		jq -r '.formatted.value.max_total_bytes'
}

# Write max_total_bytes through bpftool, as an admin would: 8 bytes, little endian.
bpftool_set_limit() {
	local v=$1 bytes=() i
	for ((i = 0; i < 8; i++)); do
		bytes+=("$(((v >> (8 * i)) & 0xff))")
	done
	bpftool map update pinned "$PIN_DIR/config" key 0 0 0 0 value "${bytes[@]}"
}

log_lines() { [[ -f $EVENT_LOG ]] && wc -l <"$EVENT_LOG" || echo 0; }

# wait_log_lines N: wait up to 10 s for the log to hold at least N lines.
wait_log_lines() {
	local i
	for ((i = 0; i < 100; i++)); do
		(($(log_lines) >= $1)) && return 0
		sleep 0.1
	done
	return 1
}
