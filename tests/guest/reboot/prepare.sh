#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The first boot of the reboot suite: leave the machine as an admin would
# before a reboot. The policy file names the cgroup of a unit that starts
# late, and two units exec something oversized as the machine boots: the
# late one (over its cgroup rule) and one with default dependencies (over
# the global rule). Execs of 5000 arguments are counted, and what the state
# file keeps of them is noted. The second boot starts with no pins and
# checks all three.
set -euo pipefail

HELPERS=/usr/lib/argguard/tests/bin
STATE=/var/lib/argguard-test

# The units' program: exec SIZE bytes of arguments, write the outcome
# ("allowed" or the errno) to STATE/NAME.out.
write_exec_helper() {
	cat >/usr/local/bin/argguard-t-exec <<-EOF
		#!/bin/sh
		out=\$($HELPERS/execsize "\$2" 0 /bin/true) && out=allowed
		echo "\$out" >$STATE/\$1.out
	EOF
	chmod 0755 /usr/local/bin/argguard-t-exec
}

# unit NAME DESCRIPTION SIZE [LINE...]: a oneshot unit, wanted at boot, that
# runs the helper; LINEs go in its [Service] section.
unit() {
	local name=$1 what=$2 size=$3
	shift 3
	{
		printf '[Unit]\nDescription=%s\n' "$what"
		printf '[Service]\nType=oneshot\nRemainAfterExit=yes\n'
		printf '%s\n' "$@"
		printf 'ExecStart=/usr/local/bin/argguard-t-exec %s %s\n' "$name" "$size"
		printf '[Install]\nWantedBy=multi-user.target\n'
	} >"/etc/systemd/system/$name.service"
	systemctl enable "$name.service"
}

# Three execs of 5000 arguments (an argc bucket of their own) in the global
# scope, then the stop a reboot makes (this boot ends in poweroff-force,
# which stops no unit): the daemon writes the state file, and what it holds
# of them, and the window's start, go in STATE/sizes-before.json.
count_sizes() {
	local i
	for ((i = 0; i < 3; i++)); do
		"$HELPERS/execsize" 100000 0 /bin/true 5000
	done
	systemctl stop argguard.service
	jq '{start: .window.start, argc_4096: ([.scopes[] | select(.scope == "global") |
		.metrics.argc.buckets[] | select(.low == 4096) | .count] | add // 0)}' \
		/var/lib/argguard/sizes.json >"$STATE/sizes-before.json"
}

main() {
	mkdir -p "$STATE"
	rm -f "$STATE"/*.out # a boot before this one's
	cat >/etc/argguard/argguard.conf <<-'CONF'
		[global]
		mode = enforce
		max_total_bytes = 1M

		# This unit's cgroup exists only once it starts, late in the boot.
		[cgroup /system.slice/argguard-t-late.service]
		max_total_bytes = 64K
	CONF
	write_exec_helper
	unit argguard-t-late "starts late; its cgroup has a rule" 100000 "ExecStartPre=/bin/sleep 3"
	unit argguard-t-plain "default dependencies, no rule of its own" 1500000
	argguard policy check /etc/argguard/argguard.conf
	count_sizes
}

main "$@"
