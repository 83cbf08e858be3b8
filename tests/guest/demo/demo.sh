#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The README's main job, run inside the guest: show argguard enforcing and
# catching huge execs, with the audit record of each.
set -euo pipefail
source "${BASH_SOURCE[0]%/*}/../guard.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib.sh"

say() { printf '\n== %s\n' "$*"; }

# show_record N: wait for the log to hold N records and print the last one.
show_record() {
	wait_log_lines "$1" || {
		echo "no audit record arrived in $EVENT_LOG"
		return 1
	}
	echo "audit record in $EVENT_LOG:"
	tail -n 1 "$EVENT_LOG" | jq -M 'del(.argv_head) + {argv_head: (.argv_head | map(.[0:40]))}'
}

main() {
	say "kernel $(uname -r), LSMs: $(cat /sys/kernel/security/lsm)"
	say "argguard.service is $(systemctl is-active argguard.service); policy:"
	argguard policy show

	say "the 2010 exploit: 24,000 pointers to one 128 KiB string, ulimit -s unlimited"
	echo "execv: $(ulimit -s unlimited && "$HELPERS/exploit2010" /bin/true | cut -d' ' -f1)" \
		"(refused by the kernel's own cap, before argguard's hook)"
	show_record 1

	say "a 4 MiB exec under ulimit -s unlimited, over argguard's $(live_limit)-byte limit"
	echo "execve: $(ulimit -s unlimited && "$HELPERS/execsize" $((4 << 20)) 0 /bin/true || true)"
	show_record 2

	say "decisions so far"
	argguard status | grep -v ': 0$'
}

main "$@"
