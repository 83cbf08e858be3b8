#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The mutants job (vm/run.sh --job mutants), over what tests/mutants/guest.sh
# built (./built: list, good/, and NAME/ per mutant). First the good
# build, installed as each mutant will be, must pass every test a mutant
# names (a control per job); then each mutant in turn is installed over the
# package, must fail at least one of the tests its catch: line names, and
# is taken out again. A suite mutant is the binary or the unit, after which
# argguard starts afresh (no pins), as at a boot; a package-suite mutant is
# the binary, or the control files (maintainer scripts, templates), of
# argguard.deb and argguard-rebuilt.deb, repacked, which the package
# suite's tests install over argguard.deb as shipped, installed again
# before each run and enforcing. The reboot suite's tests run on a boot
# after reboot/prepare.sh: the first boot ends with it, the good build in
# place, and the next boot runs their control; then each reboot-suite
# mutant has a boot of its own, installed after reboot/prepare.sh at the
# end of the boot before. The last boot prints the report: TAP, one
# result per control and per mutant, each run's failures as comments.
set -euo pipefail
source "${BASH_SOURCE[0]%/*}/../guard.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
MUTANTS=$HERE/built
DEBS=$HERE/../debs
STATE=/var/lib/argguard-mutants # kept from each boot to the next
RESULTS=$STATE/results
# The reboot suite's boots still to come, one a line: "control", or the
# index of a mutant. There once the first boot is done.
REBOOTS=$STATE/reboots
SBIN=/usr/sbin/argguard

# The list, one mutant a line: name, job, kind (binary, unit or broken),
# and its catch: regex (for a broken one, why it is).
NAMES=() JOBS=() KINDS=() CATCHES=()

read_list() {
	local name job kind catch
	while IFS=$'\t' read -r name job kind catch; do
		NAMES+=("$name") JOBS+=("$job") KINDS+=("$kind") CATCHES+=("$catch")
	done <"$MUTANTS/list"
}

# Progress, on the console: the job's own output is the report.
say() { echo "mutants-job: $*" >/dev/console 2>/dev/null || true; }

# result ok|not-ok TEXT [DETAILS...]: one result, numbered in the report,
# and how long it took since the last; DETAILS (files) follow as comments.
LAST=$SECONDS
result() {
	local status=ok
	[[ $1 == ok ]] || status="not ok"
	printf '%s - %s\n# took %d s\n' "$status" "$2" $((SECONDS - LAST)) >>"$RESULTS"
	say "$status - $2 ($((SECONDS - LAST)) s)"
	LAST=$SECONDS
	shift 2
	if (($#)); then
		cat "$@" | sed 's/^/# /' >>"$RESULTS"
	fi
}

# run_tests DIR FILTER OUT: the tests in DIR (a run-suite.sh directory)
# whose names match FILTER, TAP to OUT; sets RAN, FAILED and SKIPPED.
run_tests() {
	ARGGUARD_TEST_FILTER=$2 "$HERE/../run-suite.sh" "$1" >"$3" 2>&1 || true
	RAN=$(grep -cE '^(not )?ok [0-9]+ ' "$3" || true)
	FAILED=$(grep -cE '^not ok [0-9]+ ' "$3" || true)
	SKIPPED=$(grep -ciE '^ok [0-9]+ [^#]*# *skip' "$3" || true)
}

# control JOB DIR FILTER: the good build passes, and skips none of, the
# tests in DIR that match FILTER (the catch: lines of JOB's mutants).
control() {
	local out=$STATE/control-$1.tap
	run_tests "$2" "$3" "$out"
	if ((RAN == 0)); then
		result not-ok "control, $1: no test in $2 matches '$3'" "$out"
	elif ((FAILED + SKIPPED > 0)); then
		result not-ok "control, $1: the good build fails or skips $((FAILED + SKIPPED)) of the $RAN tests that are to catch mutants, so their failing proves nothing" "$out"
	else
		result ok "control, $1: the good build passes the $RAN tests that are to catch mutants"
	fi
}

# judge NAME DIR FILTER: the mutant's tests, run with the mutant in place.
judge() {
	local name=$1 out=$STATE/$1.tap
	run_tests "$2" "$3" "$out"
	echo "argguard.service with the mutant in place: $(systemctl is-active argguard.service)," \
		"$(systemctl show -p StatusText --value argguard.service)" >>"$out"
	if ((RAN == 0)); then
		result not-ok "$name: no test in $2 matches '$3'" "$out"
	elif ((FAILED > 0)); then
		grep -E '^not ok [0-9]+ |^argguard.service with' "$out" >"$out.caught"
		result ok "$name caught by $FAILED of its $RAN tests" "$out.caught"
	else
		result not-ok "$name MISSED: its $RAN tests passed" "$out"
	fi
}

# fresh_start: argguard started with no pins, as at a boot. A mutant's
# start may fail: the caller says whether that is an error.
fresh_start() {
	systemctl stop argguard.service
	argguard unload >/dev/null || true # nothing pinned, say
	systemctl reset-failed argguard.service 2>/dev/null || true
	systemctl start argguard.service
}

# install_unit FILE: FILE as the package's argguard.service, enabled by its
# own [Install] section.
install_unit() {
	local unit
	unit=$(systemctl show -p FragmentPath --value argguard.service)
	cmp -s "$1" "$unit" && return
	systemctl disable --quiet argguard.service
	install -m 0644 "$1" "$unit"
	systemctl daemon-reload
	systemctl enable --quiet argguard.service
}

# install_artefact DIR: DIR's argguard or argguard.service in place of the
# installed one.
install_artefact() {
	if [[ -f $1/argguard ]]; then
		install -m 0755 "$1/argguard" "$SBIN"
	else
		install_unit "$1/argguard.service"
	fi
}

# stop_run WHAT LOG: a result that ends the run: what follows would judge
# the wrong build.
stop_run() {
	result not-ok "$1" "$2"
	report
	exit 1
}

# good_again AFTER: the good build back in place, started afresh, enforcing.
good_again() {
	install -m 0755 "$MUTANTS/good/argguard" "$SBIN"
	install_unit "$MUTANTS/good/argguard.service"
	fresh_start >"$STATE/good-again.log" 2>&1 || true
	if [[ $(systemctl show -p StatusText --value argguard.service) != enforcing* ]]; then
		systemctl status argguard.service --no-pager >>"$STATE/good-again.log" 2>&1 || true
		stop_run "the good build enforces again after $1" "$STATE/good-again.log"
	fi
}

# repack NAME BINARY OUT [CONTROL]: the shipped NAME.deb with BINARY as its
# argguard, and the files in the directory CONTROL, if there is one, as its
# control files. Each shipped package is unpacked once (xz is slow in a
# guest), and copied for each repack.
repack() {
	local tree=$STATE/unpacked/$1 dir=$STATE/repack sum
	if [[ ! -d $tree ]]; then
		mkdir -p "$STATE/unpacked"
		dpkg-deb -R "$STATE/debs/$1.deb" "$tree"
	fi
	rm -rf "$dir"
	cp -a "$tree" "$dir"
	[[ ! -d ${4:-} ]] || cp -p "$4"/* "$dir/DEBIAN/"
	install -m 0755 "$2" "$dir$SBIN"
	sum=$(md5sum <"$2" | cut -d' ' -f1)
	sed -i "s#^[0-9a-f]\{32\}  ${SBIN#/}\$#$sum  ${SBIN#/}#" "$dir/DEBIAN/md5sums"
	grep -q "^$sum  ${SBIN#/}\$" "$dir/DEBIAN/md5sums"
	dpkg-deb -b -Znone --root-owner-group "$dir" "$3" >/dev/null # xz is slow in a guest
	rm -rf "$dir"
}

# package_tests DIR FILTER NAME: with argguard.deb and argguard-rebuilt.deb
# carrying DIR's argguard and argguard-rebuilt (else the good build's) and
# DIR's control files, if any, the package tests matching FILTER, from
# argguard.deb as shipped, installed and running (shipped_again). NAME: a
# mutant's, or control.
package_tests() {
	local dir=$1 filter=$2 name=$3 deb bin
	for deb in argguard argguard-rebuilt; do
		bin=$dir/$deb
		[[ -f $bin ]] || bin=$MUTANTS/good/$deb # a mutant of the control files alone
		repack "$deb" "$bin" "$DEBS/$deb.deb" "$dir/control"
	done
	if [[ $name == control ]]; then
		control package-suite package "$filter"
	else
		judge "$name" package "$filter"
	fi
	shipped_again "$name"
}

# shipped_again AFTER: the packages as shipped back in place, and
# argguard.deb installed over what the tests left and enforcing, its own
# build running: where the control's package tests start, and each
# mutant's. (A fresh start of the good build would add a restart to each
# mutant, and the package tests install their own builds.)
shipped_again() {
	local deb
	mkdir -p "$STATE/debs"
	for deb in argguard argguard-rebuilt; do
		[[ -f $STATE/debs/$deb.deb ]] || cp "$DEBS/$deb.deb" "$STATE/debs/"
	done
	cp "$STATE"/debs/*.deb "$DEBS/"
	if ! dpkg -i "$DEBS/argguard.deb" </dev/null >"$STATE/shipped.log" 2>&1; then
		stop_run "the package as shipped installs again after $1" "$STATE/shipped.log"
	fi
	if [[ $(systemctl show -p StatusText --value argguard.service) != enforcing* ]]; then
		systemctl status argguard.service --no-pager >>"$STATE/shipped.log" 2>&1 || true
		stop_run "the package as shipped enforces again after $1" "$STATE/shipped.log"
	fi
}

# report: every result, numbered; fails if any is "not ok".
report() {
	local n=0 line
	echo "TAP version 13"
	echo "1..$(grep -cE '^(not )?ok - ' "$RESULTS")"
	while IFS= read -r line; do
		case $line in
		'ok - '* | 'not ok - '*)
			n=$((n + 1))
			echo "${line/ - / $n - }"
			;;
		*) echo "$line" ;;
		esac
	done <"$RESULTS"
	! grep -qE '^not ok - ' "$RESULTS"
}

# union JOB: the catch: regexes of JOB's mutants, as one; empty if none.
union() {
	local i out=''
	for i in "${!NAMES[@]}"; do
		[[ ${JOBS[i]} == "$1" && ${KINDS[i]} != broken ]] || continue
		out+="${out:+|}(${CATCHES[i]})"
	done
	echo "$out"
}

# next_reboot: reboot/prepare.sh, and the mutant that the next line of
# REBOOTS names installed (the good build stays for "control").
next_reboot() {
	local next what=control
	next=$(head -n 1 "$REBOOTS")
	[[ $next == control ]] || what=${NAMES[next]}
	"$HERE/../reboot/prepare.sh" >"$STATE/reboot-prepare.log" 2>&1 ||
		stop_run "reboot/prepare.sh, before the reboot suite's $what" "$STATE/reboot-prepare.log"
	[[ $next == control ]] || install_artefact "$MUTANTS/$what"
	sync
	echo "boot done; the next runs the reboot suite's $what"
}

first_boot() {
	local i
	rm -rf "$STATE"
	mkdir -p "$STATE"
	: >"$RESULTS"
	for i in "${!NAMES[@]}"; do
		if [[ ${KINDS[i]} == broken ]]; then
			result not-ok "${NAMES[i]} ${CATCHES[i]}"
		fi
	done
	good_again "the package's own build"
	if [[ -n $(union suite) ]]; then
		control suite cases "$(union suite)"
	fi
	for i in "${!NAMES[@]}"; do
		[[ ${JOBS[i]} == suite && ${KINDS[i]} != broken ]] || continue
		install_artefact "$MUTANTS/${NAMES[i]}"
		fresh_start >"$STATE/${NAMES[i]}.start.log" 2>&1 || true
		judge "${NAMES[i]}" cases "${CATCHES[i]}"
		good_again "${NAMES[i]}"
	done
	if [[ -n $(union package-suite) ]]; then
		shipped_again "the suite's mutants"
		package_tests "$MUTANTS/good" "$(union package-suite)" control
		for i in "${!NAMES[@]}"; do
			[[ ${JOBS[i]} == package-suite && ${KINDS[i]} != broken ]] || continue
			package_tests "$MUTANTS/${NAMES[i]}" "${CATCHES[i]}" "${NAMES[i]}"
		done
		good_again "the package suite's mutants"
	fi
	if [[ -z $(union reboot-suite) ]]; then
		report
		return
	fi
	{
		echo control
		for i in "${!NAMES[@]}"; do
			[[ ${JOBS[i]} == reboot-suite && ${KINDS[i]} != broken ]] && echo "$i"
		done
	} >"$REBOOTS"
	next_reboot
}

# A boot of the reboot suite's: its control or a mutant's tests, then the
# next one's preparation, or the report after the last.
reboot_boot() {
	local this
	this=$(head -n 1 "$REBOOTS")
	sed -i 1d "$REBOOTS"
	if [[ $this == control ]]; then
		control reboot-suite reboot/cases "$(union reboot-suite)"
	else
		judge "${NAMES[this]}" reboot/cases "${CATCHES[this]}"
		good_again "${NAMES[this]}"
	fi
	if [[ ! -s $REBOOTS ]]; then
		report
		return
	fi
	next_reboot
}

main() {
	read_list
	if [[ -e $REBOOTS ]]; then
		reboot_boot
	else
		first_boot
	fi
}

main "$@"
