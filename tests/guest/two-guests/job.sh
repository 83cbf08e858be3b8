#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The two-guest job (vm/run.sh --job two-guests): one disk, booted twice at
# once, as a node (argguard enforcing, systemd-journal-upload) and as a
# collector (systemd-journal-remote), on a link of their own with link-local
# addresses, set up as argguard-records(5) says (SHIPPING). The kernel
# command line says which (argguard.two_guests=).
#
# The node denies a user's huge exec, lets the user forge what a user can
# (a journal entry with argguard's fields; an upload straight to the
# collector from the user's slice), and sends last a manifest of what it
# did, from root in this unit: the record, its own journal entry of it, and
# the forgeries. The collector waits for the manifest, then runs the cases
# in cases/ (TAP: the job's result).
set -euo pipefail
source "${BASH_SOURCE[0]%/*}/../guard.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib.sh"
source "$HERE/lib.sh"

# link_up ADDRESS: the one network interface up, with ADDRESS/16 on it.
link_up() {
	local iface=
	wait_for 60 first_iface >/dev/null || fail "no network interface appeared"
	iface=$(first_iface)
	ip link set dev "$iface" up
	ip address add "$1/16" dev "$iface"
	echo "link: $iface, $1/16"
}

first_iface() {
	local f
	for f in /sys/class/net/*; do
		[[ ${f##*/} == lo ]] && continue
		echo "${f##*/}"
		return 0
	done
	return 1
}

# page_lines REGEX: the lines of argguard-records(5) that match REGEX, as
# man shows them, with this link's collector for COLLECTOR.
page_lines() {
	local lines
	lines=$(zcat "$PAGE" | sed -e 's/\\&//g' -e 's/\\-/-/g' -e 's/\\e/\\/g' | grep -E -- "$1") ||
		fail "argguard-records(5) has no line matching '$1'"
	echo "${lines//COLLECTOR/$COLLECTOR_ADDR}"
}

# drop_in UNIT: the drop-in argguard-records(5) gives for UNIT.
drop_in() {
	local unit=$1 file=/etc/systemd/system/$1.service.d/tls.conf lines
	lines=$(page_lines "^(LoadCredential=key:/etc/ssl/private/$unit\.pem|ExecStart=/lib/systemd/$unit )")
	[[ $(grep -c . <<<"$lines") == 2 ]] || fail "expected 2 lines of argguard-records(5) for $unit: $lines"
	mkdir -p "${file%/*}"
	printf '%s\n' "[Service]" "ExecStart=" "$lines" >"$file"
	cat "$file"
}

# as_user CMD...: CMD as the unprivileged tester.
as_user() { setpriv --reuid=1000 --regid=1000 --init-groups "$@"; }

# export_entry PID TAG: a journal export-format entry (what journal-upload
# sends) claiming to be argguard's denial of PID on the node, trusted fields
# and all.
export_entry() {
	printf '%s\n' "__REALTIME_TIMESTAMP=${EPOCHREALTIME/./}" "__MONOTONIC_TIMESTAMP=1000000" \
		"_BOOT_ID=$(tr -d - </proc/sys/kernel/random/boot_id)" "_HOSTNAME=$NODE" \
		"_SYSTEMD_UNIT=argguard.service" "_UID=0" "_GID=0" "_TRANSPORT=journal" "PRIORITY=4" \
		"SYSLOG_IDENTIFIER=argguard" "MESSAGE=argguard: deny: forged, $2" "ARGGUARD_VERDICT=deny" \
		"ARGGUARD_PID=$1" "TWO_GUESTS_FORGED=$2" ""
}

# post FILE [CURL_ARG...]: POST an export-format FILE to the collector's
# /upload; prints curl's exit status and the HTTP status ("7 000": no
# connection).
post() {
	local file=$1 rc=0 code
	shift
	code=$(curl -sS --max-time 20 --cacert "$CA" -H 'Content-Type: application/vnd.fdo.journal' \
		--data-binary "@$file" -o /dev/null -w '%{http_code}' "$@" "$URL/upload") || rc=$?
	echo "$rc ${code:-000}"
}

node() {
	local limit records pid entry forged=$((5000000 + RANDOM)) remote=$((6000000 + RANDOM)) tmp
	local user control cursor conf=/etc/systemd/system/user.slice.d/argguard-collector.conf
	rm -f /etc/ssl/private/systemd-journal-remote.pem
	link_up "$NODE_ADDR"
	drop_in systemd-journal-upload
	mkdir -p "${conf%/*}"
	printf '%s\n' "[Slice]" "$(page_lines '^IPAddressDeny=')" >"$conf"
	cat "$conf"
	systemctl daemon-reload
	# journal-upload gives up after a few failed starts: wait for the
	# collector to listen first (any answer will do, a refusal too).
	wait_for 300 collector_listens || fail "the collector never listened on $URL: $(link_state)"
	systemctl start systemd-journal-upload.service

	limit=$(live_limit)
	records=$(new_records 1 as_user "$HELPERS/execsize" $((limit + 1)) 0 /bin/true)
	echo "record: $records"
	[[ $(jq -r .verdict <<<"$records") == deny ]] || fail "expected a denial of tester's huge exec"
	pid=$(jq -r .pid <<<"$records")
	wait_for 10 node_entry "$pid" >/dev/null || fail "no journal entry of the denial of pid $pid on the node"
	entry=$(node_entry "$pid")

	# A user's forgery in the node's own journal: journald drops the
	# trusted fields a client sends, and stamps its own.
	printf '%s\n' "MESSAGE=argguard: deny: forged by tester" ARGGUARD_VERDICT=deny "ARGGUARD_PID=$forged" \
		SYSLOG_IDENTIFIER=argguard _SYSTEMD_UNIT=argguard.service _UID=0 "_HOSTNAME=$NODE" \
		TWO_GUESTS_FORGED=local | as_user logger --journald
	# The user's upload straight to the collector, from the user's slice,
	# as from a login; then the same upload from root here: the control
	# that shows the collector takes it, so that the user's refusal is the
	# node's doing.
	tmp=$(mktemp /tmp/argguard-forged.XXXXXX)
	chmod 0644 "$tmp"
	export_entry "$remote" user >"$tmp"
	user=$(systemd-run --quiet --wait --pipe --uid=1000 --gid=1000 --slice=user.slice \
		bash -c "$(declare -f post); CA=$CA URL=$URL post $tmp")
	export_entry "$remote" root-control >"$tmp"
	control=$(post "$tmp")
	rm -f "$tmp"
	echo "uploads straight to the collector (curl status, HTTP status): tester in user.slice: $user; root: $control"

	printf '%s\n' "MESSAGE=two-guests: the node's manifest" TWO_GUESTS_MANIFEST=1 \
		"TWO_GUESTS_RECORD=$records" "TWO_GUESTS_ENTRY=$entry" "TWO_GUESTS_FORGED_PID=$forged" \
		"TWO_GUESTS_REMOTE_PID=$remote" "TWO_GUESTS_POST_USER=$user" \
		"TWO_GUESTS_POST_CONTROL=$control" | logger --journald
	wait_for 10 manifest_cursor >/dev/null || fail "the manifest is not in the node's journal"
	cursor=$(manifest_cursor)
	wait_for 120 uploaded "$cursor" ||
		fail "journal-upload did not send the manifest in 120 s: $(journalctl -u systemd-journal-upload.service --no-pager | tail -n 20)"
	echo "journal-upload sent the manifest"
}

# link_state: what the link saw, for a failure's message.
link_state() {
	ip -s link show dev "$(first_iface)"
	ip address show dev "$(first_iface)"
	ip neighbour
	curl -sSv --max-time 3 --cacert "$CA" "$URL/" 2>&1 | tail -n 5
}

collector_listens() {
	local rc=0
	curl -s -o /dev/null --max-time 3 --cacert "$CA" "$URL/" || rc=$?
	((rc != 7 && rc != 28))
}

node_entry() {
	local q
	read -ra q <<<"$(documented_query "$PAGE" '^journalctl .*ARGGUARD_VERDICT=deny -o json')"
	journalctl -o json "${q[@]}" ARGGUARD_PID="$1" | tail -n 1 | grep .
}

manifest_cursor() { journalctl -o json _SYSTEMD_UNIT=argguard-guest-job.service _UID=0 TWO_GUESTS_MANIFEST=1 | jq -r .__CURSOR | grep .; }

# uploaded CURSOR: journal-upload's saved state is at CURSOR or past it.
uploaded() {
	local state
	state=$(sed -n 's/^LAST_CURSOR=//p' /var/lib/systemd/journal-upload/state 2>/dev/null)
	[[ -n $state ]] || return 1
	[[ $state == "$1" ]] && return 0
	# Past it: the entry at CURSOR is not after the saved one.
	[[ -z $(journalctl -q --after-cursor="$state" -o json | jq -r .__CURSOR | grep -Fx -- "$1") ]]
}

collector() {
	rm -f /etc/ssl/private/systemd-journal-upload.pem
	link_up "$COLLECTOR_ADDR"
	drop_in systemd-journal-remote
	systemctl daemon-reload
	systemctl start systemd-journal-remote.socket
	SECONDS=0
	while ((SECONDS < 420)) && ! manifest >/dev/null; do
		sleep 2
	done
	if manifest >/dev/null; then
		echo "# the node's manifest came after $SECONDS s"
	else
		echo "# no manifest from the node in 420 s: the cases fail"
		{
			systemctl status --no-pager systemd-journal-remote.socket
			journalctl -u systemd-journal-remote.service --no-pager | tail -n 20
			ip -s link show dev "$(first_iface)"
			ss -ltn
		} 2>&1 | sed 's/^/# /'
	fi
	ls -l /var/log/journal/remote/ 2>&1 | sed 's/^/# /'
	exec "$HERE/../run-suite.sh" two-guests/cases
}

main() {
	local role=
	role=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^argguard\.two_guests=//p')
	case $role in
	node) node ;;
	collector) collector ;;
	*) fail "no argguard.two_guests=node or =collector on the kernel command line" ;;
	esac
}

main "$@"
