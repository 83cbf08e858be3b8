#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The README's main job, run inside the guest: show argguard enforcing and
# catching huge execs.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"

say() { printf '\n== %s\n' "$*"; }

main() {
	say "kernel $(uname -r), LSMs: $(cat /sys/kernel/security/lsm)"
	say "argguard.service is $(systemctl is-active argguard.service)"
	argguard status

	say "the 2010 exploit: 24,000 pointers to one 128 KiB string, ulimit -s unlimited"
	echo "execv: $("$HELPERS/exploit2010" /bin/true | cut -d' ' -f1) (refused by the kernel's own cap)"

	say "a 4 MiB exec under ulimit -s unlimited, over argguard's $(live_limit)-byte limit"
	echo "execve: $(ulimit -s unlimited && "$HELPERS/execsize" $((4 << 20)) 0 /bin/true || true)"
	wait_log_lines 1 || { echo "no audit record arrived in $EVENT_LOG"; return 1; }
	echo "audit record in $EVENT_LOG:"
	tail -n 1 "$EVENT_LOG" | jq -M .
	argguard status
}

main "$@"
