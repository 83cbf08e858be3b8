#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Remove the cache entries no run has used for DAYS days (default 3): kernels,
# root trees, Debian kernels and build chroots built from inputs that have
# since changed, and anything else left at the top of the cache, such as a
# source tree from an older layout. vm/kernel.sh, vm/rootfs.sh,
# vm/debian-kernel.sh and vm/build-chroot.sh mark what they hand out as
# used, cached or not; run this after them.
#
# usage: vm/cache-prune.sh [DAYS]
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# Directories of entries, each entry one build's output.
KINDS=(kernel rootfs debian-kernel build-chroot)

main() {
	local days=${1:-3} entry kind
	[[ $days =~ ^[1-9][0-9]*$ ]] || die "usage: vm/cache-prune.sh [DAYS]"
	[[ -d $ARGGUARD_CACHE ]] || return 0
	for kind in "${KINDS[@]}"; do
		[[ -d $ARGGUARD_CACHE/$kind ]] && cache_used "$ARGGUARD_CACHE/$kind"
	done
	while IFS= read -r -d '' entry; do
		log "removing $entry: unused for $days days"
		rm -rf "$entry"
	done < <(find "$ARGGUARD_CACHE" "${KINDS[@]/#/$ARGGUARD_CACHE/}" -mindepth 1 -maxdepth 1 \
		-mtime +"$((days - 1))" -print0 2>/dev/null)
	df -h "$ARGGUARD_CACHE" | awk -v c="$ARGGUARD_CACHE" 'NR == 2 { print "cache-prune.sh: " c ": " $4 " free" }' >&2
}

main "$@"
