# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the vm/ scripts. Source it after set -euo pipefail.

ARGGUARD_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ARGGUARD_CACHE=${ARGGUARD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/argguard}

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# step NAME CMD...: run one named build step. Under set -e a failing command
# ends the script; the EXIT trap then names the step that was running.
STEP=
step() {
	STEP=$1
	shift
	log "$STEP"
	"$@"
	STEP=
}
report_failed_step() {
	local rc=$?
	((rc == 0)) || [[ -z $STEP ]] || log "error: step '$STEP' failed (exit $rc)"
}
trap report_failed_step EXIT

# content_hash FILE...: one hash over the names and contents of FILEs.
content_hash() {
	local f
	for f in "$@"; do
		printf '%s\n' "${f#"$ARGGUARD_ROOT"/}"
		sha256sum <"$f"
	done | sha256sum | cut -c1-16
}

# cache_used DIR: mark a cache entry as used by this run (its mtime), so that
# vm/cache-prune.sh keeps it.
cache_used() {
	touch "$1"
}
