#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run inside the guest, booted with -icount so that guest time counts
# instructions and repeats: time to E2BIG for pointer floods and for the 2010
# exploit. Floods run once (icount makes them repeat to within 0.1%). Prints one
# tab-separated line per measurement: name, kernel, seconds, errno.
set -euo pipefail
# Beside tests/guest/guard.sh in the guest, as vm/run.sh lays them out.
source "${BASH_SOURCE[0]%/*}/guard.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"

# best_of N CMD...: the fastest of N runs of a helper that prints "ERRNO SECONDS".
best_of() {
	local n=$1 i out best= errno=
	shift
	for ((i = 0; i < n; i++)); do
		out=$("$@" || true)
		errno=${out%% *}
		if [[ -z $best ]] || awk -v a="${out##* }" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=${out##* }
		fi
	done
	printf '%s\t%s\n' "$best" "$errno"
}


main() {
	local kernel n
	kernel=stock
	[[ -e /proc/sys/fs/exec_arg_max ]] && kernel=patched
	bpftool_set_limit 0 # argguard's own limit stays out of these figures
	for n in $((1 << 20)) $((1 << 24)) $((1 << 28)); do
		printf 'pointer_flood_%s\t%s\t%s\n' "$n" "$kernel" \
			"$(best_of 1 "$HELPERS/pointer_flood" "$n")"
	done
	printf 'exploit2010_exec_arg_max_0\t%s\t%s\n' "$kernel" "$(best_of 3 exploit_unlimited)"
	if [[ $kernel == patched ]]; then
		echo 262144 >/proc/sys/fs/exec_arg_max
		printf 'exploit2010_exec_arg_max_256K\t%s\t%s\n' "$kernel" "$(best_of 3 exploit_unlimited)"
		echo 0 >/proc/sys/fs/exec_arg_max
	fi
}

main "$@"
