# SPDX-License-Identifier: GPL-2.0
# What the two guests of the two-guest job share: their names and
# addresses on the link, the collector's URL, and how each reads the
# documented queries and the node's manifest.

NODE=argguard-node COLLECTOR=argguard-collector
NODE_ADDR=169.254.41.1 COLLECTOR_ADDR=169.254.41.2
URL=https://$COLLECTOR_ADDR:19532
CA=/etc/ssl/ca/trusted.pem
REMOTE_DIR=/var/log/journal/remote
PAGE=/usr/share/man/man5/argguard-records.5.gz
# The page as tests/mutants/collector-query-unpinned.patch leaves it (vm/run.sh).
MUTANT_PAGE=${BASH_SOURCE[0]%/*}/mutant-argguard-records.5.gz

# documented_query PAGE REGEX: the match words (between "journalctl" and its
# first option) of the first query in the man page PAGE that matches REGEX.
documented_query() {
	local line
	# roff: \& is nothing, \- a hyphen, \e a backslash.
	line=$(zcat "$1" | sed -e 's/\\&//g' -e 's/\\-/-/g' -e 's/\\e/\\/g' | grep -m 1 -E -- "$2") ||
		fail "expected ${1##*/} to give a journalctl query matching '$2'"
	line=${line#journalctl }
	echo "${line%% -*}"
}

# collector_query [PAGE]: the query argguard-records(5) gives for denials on
# a collector, over the collector's files.
collector_query() {
	documented_query "${1:-$PAGE}" "^journalctl .*ARGGUARD_VERDICT=deny -D $REMOTE_DIR"
}

# remote_json MATCH...: the entries on the collector that MATCH, as JSON lines.
remote_json() { journalctl -D "$REMOTE_DIR" -o json "$@" 2>/dev/null; }

# manifest: the node's manifest, as the collector has it (from root in the
# node's job unit, on the node).
manifest() {
	remote_json _SYSTEMD_UNIT=argguard-guest-job.service _UID=0 "_HOSTNAME=$NODE" \
		TWO_GUESTS_MANIFEST=1 | tail -n 1 | grep .
}

# manifest_field NAME: one field of the manifest.
manifest_field() { manifest | jq -r --arg k "$1" '.[$k]'; }
