#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the guest with argguard installed and run one job in it: the guest
# test suite or the demo. The job's output (TAP for the suite) is printed on
# stdout and saved; the serial console goes to a log. Exits with the job's
# status; a panic, hang or missing result is a failure that shows the
# console's tail.
#
# usage: vm/run.sh --kernel DIR --build DIR --job JOB [--out DIR]
#                  [--timeout SECONDS] [--icount] [--append ARGS] [--mutants DIR]
# --kernel: a vm/kernel.sh output (bzImage), or a vm/debian-kernel.sh one,
# which also holds initrd.img and the guest tree (root/) to boot.
# JOB: suite (tests/guest/cases), stock-suite (tests/guest/stock, for the
# unpatched kernel), package-suite (tests/guest/package: starts from the
# older package, then upgrades, reinstalls, removes and purges), nobpf-suite
# (tests/guest/nobpf, booted with an lsm= that leaves bpf out),
# recovery-suite (tests/guest/recovery, booted with argguard.mode=audit),
# reboot-suite (two boots of one disk: the first runs
# tests/guest/reboot/prepare.sh, the second tests/guest/reboot/cases),
# mutants (tests/guest/mutants/job.sh: the mutants in --mutants DIR, which
# tests/mutants/guest.sh makes; with reboot-suite mutants, a boot for their
# control and one for each), demo (tests/guest/demo), boot
# (tests/guest/boot: just boot), bench-kernel or bench-exec
# (tests/bench/*-guest.sh), two-guests (a node and a collector on a link of
# their own, tests/guest/two-guests/job.sh; needs a Debian kernel, whose
# virtio-net driver the link takes). tests/guest/ goes into the guest whole,
# with the bench scripts beside it.
# --icount: one CPU whose clock counts instructions, for repeatable timings.
# --append: more kernel command-line parameters, for example lsm=...
# ARGGUARD_TEST_FILTER=REGEX in the environment runs only the suite's tests
# whose names match, ARGGUARD_TEST_EXCLUDE=REGEX all but those whose names
# match. The guest's disk image (OUT/disk.img) is removed after the run
# unless ARGGUARD_KEEP_DISK=1.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

KERNEL= BUILD= JOB= JOB_CMD= OUT= TIMEOUT=1200 ICOUNT=0 APPEND= BOOTS=1 MUTANTS=

GUEST_HELPERS=(execsize execsize32 execsize_static exploit2010 pointer_flood exec_storm unpriv_bpf
	argv_rewrite execloop bench_noop bench_noop_lsm fill_cgroup_ids cpu_ns)

usage() {
	sed -n '3,/^set /{/^#/s/^# \{0,1\}//p}' "$0" >&2
	exit 2
}

parse_args() {
	while (($#)); do
		case $1 in
		--kernel) KERNEL=$2 ;;
		--build) BUILD=$2 ;;
		--job) JOB=$2 ;;
		--out) OUT=$2 ;;
		--timeout) TIMEOUT=$2 ;;
		--append) APPEND=$2 ;;
		--mutants) MUTANTS=$2 ;;
		--icount)
			ICOUNT=1
			shift
			continue
			;;
		*) usage ;;
		esac
		shift 2 || usage
	done
	[[ -f $KERNEL/bzImage ]] || die "--kernel must name a vm/kernel.sh output (no bzImage in '$KERNEL')"
	[[ -f $BUILD/argguard.deb && -f $BUILD/argguard-previous.deb && -f $BUILD/argguard-rebuilt.deb ]] ||
		die "--build must name a build tree with argguard.deb, argguard-previous.deb and argguard-rebuilt.deb in it"
	case $JOB in
	suite) JOB_CMD="run-suite.sh cases" ;;
	stock-suite) JOB_CMD="run-suite.sh stock" ;;
	package-suite) JOB_CMD="run-suite.sh package" ;;
	nobpf-suite)
		JOB_CMD="run-suite.sh nobpf"
		APPEND+=" lsm=capability"
		;;
	recovery-suite)
		JOB_CMD="run-suite.sh recovery"
		APPEND+=" argguard.mode=audit"
		;;
	reboot-suite)
		JOB_CMD=reboot/job.sh
		BOOTS=2
		;;
	mutants)
		JOB_CMD=mutants/job.sh
		[[ -f $MUTANTS/list ]] || die "--job mutants needs --mutants DIR (tests/mutants/guest.sh makes it)"
		# The reboot suite's control, then each of its mutants, a boot each.
		BOOTS=$(grep -cE $'\treboot-suite\t(binary|unit)\t' "$MUTANTS/list" || true)
		((BOOTS == 0)) || BOOTS=$((BOOTS + 2))
		((BOOTS > 0)) || BOOTS=1
		;;
	demo) JOB_CMD=demo/demo.sh ;;
	boot) JOB_CMD=boot/boot.sh ;;
	bench-kernel) JOB_CMD=kernel-series-guest.sh ;;
	bench-exec) JOB_CMD=exec-guest.sh ;;
	two-guests)
		JOB_CMD=two-guests/job.sh
		[[ -f $KERNEL/initrd.img ]] ||
			die "--job two-guests needs a Debian kernel (vm/debian-kernel.sh): this one has no network driver"
		;;
	*) die "--job must be suite, stock-suite, package-suite, nobpf-suite, recovery-suite, reboot-suite, mutants, demo, boot, bench-kernel, bench-exec or two-guests" ;;
	esac
	OUT=${OUT:-$BUILD/vm-$JOB}
}

# enable_unit ROOT UNIT: what systemctl enable does, from the unit's WantedBy=.
enable_unit() {
	local root=$1 unit=$2 target
	for target in $(sed -n 's/^WantedBy=//p' "$root$unit"); do
		mkdir -p "$root/etc/systemd/system/$target.wants"
		ln -sf "$unit" "$root/etc/systemd/system/$target.wants/${unit##*/}"
	done
}

# install_package ROOT DEB: dpkg -i in a chroot of the guest tree, as an
# admin installs it. Nothing may start there: policy-rc.d forbids it, and the
# chroot has no running systemd.
install_package() {
	local root=$1 deb=$2
	[[ ! -e $root/run/systemd/system ]] || die "the guest tree has /run/systemd/system: a chroot install would start units"
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 0755 "$root/usr/sbin/policy-rc.d"
	cp "$deb" "$root/tmp/argguard.deb"
	chroot "$root" dpkg -i /tmp/argguard.deb >"$OUT/dpkg.log" 2>&1 ||
		{ cat "$OUT/dpkg.log" >&2; die "dpkg -i of $deb failed in the guest tree"; }
	rm -f "$root/tmp/argguard.deb" "$root/usr/sbin/policy-rc.d"
}

# What every run installs fresh on top of the cached base: the package (the
# package suite starts from the older one, which it upgrades), the options
# the tests need set in its conffiles as an admin would (the suites' site
# policy but in the package suite, which lives with the shipped one), and
# the tests.
install_argguard() {
	local root=$1 tests=$1/usr/lib/argguard/tests deb=$BUILD/argguard.deb
	[[ $JOB == package-suite ]] && deb=$BUILD/argguard-previous.deb
	install_package "$root" "$deb"
	sed -i 's|^ARGGUARD_OPTS=.*|ARGGUARD_OPTS="--linux-audit --metrics-dir /var/lib/prometheus/node-exporter"|' \
		"$root/etc/default/argguard"
	grep -q '^ARGGUARD_OPTS="--linux-audit' "$root/etc/default/argguard" ||
		die "the package's /etc/default/argguard has no ARGGUARD_OPTS= line to set"

	install -D -m 0644 "$ARGGUARD_ROOT/vm/guest-job.service" \
		"$root/etc/systemd/system/argguard-guest-job.service"
	enable_unit "$root" /etc/systemd/system/argguard-guest-job.service
	mkdir -p "$tests/bin"
	cp -r "$ARGGUARD_ROOT/tests/guest/." "$tests/"
	cp "$ARGGUARD_ROOT"/tests/bench/*-guest.sh "$tests/"
	rm -f "$tests"/*.c
	install -m 0755 "${GUEST_HELPERS[@]/#/$BUILD/tests/}" "$tests/bin/"
	if [[ $JOB != package-suite ]]; then
		cp "$root/etc/argguard/argguard.conf" "$tests/shipped.conf"
		install -m 0644 "$ARGGUARD_ROOT/tests/guest/site-policy.conf" "$root/etc/argguard/argguard.conf"
	fi
	install -D -m 0644 "$BUILD/argguard.deb" "$tests/debs/argguard.deb"
	install -D -m 0644 "$BUILD/argguard-rebuilt.deb" "$tests/debs/argguard-rebuilt.deb"
	[[ $JOB != mutants ]] || cp -r "$MUTANTS/." "$tests/mutants/built/"
	mkdir -p "$tests/kselftests"
	# The kernel's own series selftests, or else the build's (a stock kernel
	# has none: there they must skip).
	if compgen -G "$KERNEL/selftests/*" >/dev/null; then
		cp -r "$KERNEL/selftests/." "$tests/kselftests/"
	elif [[ -d $BUILD/kselftests ]]; then
		cp -r "$BUILD/kselftests/." "$tests/kselftests/"
	fi
	cat >"$tests/job" <<-JOB
		#!/bin/sh
		export ARGGUARD_TEST_FILTER='${ARGGUARD_TEST_FILTER:-}'
		export ARGGUARD_TEST_EXCLUDE='${ARGGUARD_TEST_EXCLUDE:-}'
		export ARGGUARD_BENCH_SECTIONS='${ARGGUARD_BENCH_SECTIONS:-}'
		export ARGGUARD_BENCH_STORM='${ARGGUARD_BENCH_STORM:-}'
		export ARGGUARD_BENCH_OVERHEAD='${ARGGUARD_BENCH_OVERHEAD:-}'
		/usr/lib/argguard/tests/$JOB_CMD
		rc=\$?
		echo "argguard-job-exit: \$rc"
		exit \$rc
	JOB
	chmod 0755 "$tests/job"
}

make_image() {
	local base=$1 stage=$OUT/root
	rm -rf "$stage" "$OUT/disk.img"
	cp -a "$base" "$stage"
	install_argguard "$stage"
	[[ $JOB != two-guests ]] || two_guests_files "$stage"
	mkfs.ext4 -q -F -L argguard -d "$stage" "$OUT/disk.img" 2G >/dev/null
	rm -rf "$stage"
}

# /dev/kvm may open and still hang every guest: trust it only after a guest
# kernel has really printed something under it.
probe_accel() {
	local probe=$OUT/kvm-probe.log
	if [[ -r /dev/kvm && -w /dev/kvm ]]; then
		rm -f "$probe"
		timeout -k 2 10 qemu-system-x86_64 -accel kvm -machine q35 -m 256 -nodefaults \
			-display none -no-reboot -kernel "$KERNEL/bzImage" \
			-append "console=ttyS0 panic=-1" -serial "file:$probe" >/dev/null 2>&1 || true
		if grep -q 'Linux version' "$probe" 2>/dev/null; then
			echo kvm
			return
		fi
		log "KVM does not run guests here; using TCG"
	fi
	echo tcg
}

# Whether KVM runs guests is a fact of this host until it reboots: probe once
# per host boot and build tree, not once per guest, since a hung probe costs
# its whole timeout.
pick_accel() {
	local known=$BUILD/accel boot_id id accel
	boot_id=$(cat /proc/sys/kernel/random/boot_id)
	if [[ -f $known ]] && read -r id accel <"$known" && [[ $id == "$boot_id" && -n $accel ]]; then
		echo "$accel"
		return
	fi
	accel=$(probe_accel)
	printf '%s %s\n' "$boot_id" "$accel" >"$known.$$"
	mv "$known.$$" "$known"
	echo "$accel"
}

boot() {
	local accel=$1 cpu=max rc=0 smp=(-smp 2) initrd=()
	[[ ! -f $KERNEL/initrd.img ]] || initrd=(-initrd "$KERNEL/initrd.img")
	[[ $accel == kvm ]] && cpu=host
	# Guest time then counts instructions: timings repeat to within 0.1%.
	((ICOUNT)) && accel=tcg cpu=max smp=(-smp 1 -icount shift=0,sleep=off)
	rm -f "$OUT/console.log" "$OUT/job.log"
	# argguard.test_guest tells the guest jobs where they are (tests/guest/guard.sh).
	log "booting the guest ($accel, timeout ${TIMEOUT}s); console: $OUT/console.log"
	timeout -k 10 "$TIMEOUT" qemu-system-x86_64 \
		-accel "$accel" -machine q35 -cpu "$cpu" "${smp[@]}" -m 2G \
		-nodefaults -display none -no-reboot \
		-kernel "$KERNEL/bzImage" "${initrd[@]}" \
		-append "root=/dev/vda rw console=ttyS0 panic=-1 oops=panic systemd.show_status=0 argguard.test_guest $APPEND" \
		-drive "file=$OUT/disk.img,if=virtio,format=raw" \
		-device virtio-rng-pci \
		-serial "file:$OUT/console.log" -serial "file:$OUT/job.log" || rc=$?
	((rc != 124 && rc != 137)) || log "the guest hit the ${TIMEOUT}s timeout"
	return 0
}

# job_status [PREFIX]: print the job's output (OUT/PREFIXjob.log), return its status.
job_status() {
	local line job=$OUT/${1:-}job.log
	[[ -f $job ]] && cat "$job" | tr -d '\r' | grep -v '^argguard-job-exit:' || true
	line=$(tr -d '\r' <"$job" 2>/dev/null | grep '^argguard-job-exit:' | tail -n1 || true)
	if [[ -z $line ]]; then
		log "error: the ${1:+${1%-} }guest job never finished; console tail:"
		tail -n 40 "$OUT/${1:-}console.log" >&2 || true
		return 1
	fi
	return "${line##*: }"
}

# Boot BOOTS times; every boot before the last must finish its job.
boot_all() {
	local accel=$1 n
	for ((n = 1; n < BOOTS; n++)); do
		boot "$accel"
		job_status >&2 || { log "error: boot $n of $BOOTS failed its job"; return 1; }
	done
	boot "$accel"
	job_status
}

# The files the two-guest job needs beyond the package and the tests: TLS
# for the link, as argguard-records(5) gives it (a CA both guests trust, a
# certificate and key for each, root's alone), and argguard-records(5) as
# the mutant tests/mutants/collector-query-unpinned.patch leaves it, whose
# query the collector must find answering a forgery.
two_guests_files() {
	local root=$1 tls=$OUT/tls tests=$1/usr/lib/argguard/tests/two-guests
	rm -rf "$tls"
	mkdir -p "$tls" "$tests"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -noenc -days 2 \
		-subj /CN=argguard-ca -keyout "$tls/ca.key" -out "$tls/ca.pem" 2>/dev/null
	# cert NAME [EXTENSION]: a key and a certificate for NAME, which the CA signs.
	cert() {
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -noenc -subj "/CN=argguard-$1" \
			-keyout "$tls/$1.key" -out "$tls/$1.csr" 2>/dev/null
		openssl x509 -req -in "$tls/$1.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -days 2 \
			-extfile <(printf '%s\n' "${2:-basicConstraints=CA:FALSE}") -out "$tls/$1.pem" 2>/dev/null
	}
	cert collector subjectAltName=IP:169.254.41.2
	cert node
	install -D -m 0644 "$tls/ca.pem" "$root/etc/ssl/ca/trusted.pem"
	install -D -m 0600 "$tls/collector.key" "$root/etc/ssl/private/systemd-journal-remote.pem"
	install -D -m 0644 "$tls/collector.pem" "$root/etc/ssl/certs/systemd-journal-remote.pem"
	install -D -m 0600 "$tls/node.key" "$root/etc/ssl/private/systemd-journal-upload.pem"
	install -D -m 0644 "$tls/node.pem" "$root/etc/ssl/certs/systemd-journal-upload.pem"
	chmod 0700 "$root/etc/ssl/private"
	rm -rf "$tls"
	local mutant=$OUT/mutant-doc
	rm -rf "$mutant"
	mkdir -p "$mutant"
	cp "$ARGGUARD_ROOT/doc/argguard-records.5.scd" "$mutant/"
	sed -n '/^--- /,$p' "$ARGGUARD_ROOT/tests/mutants/collector-query-unpinned.patch" |
		patch -s -p2 -d "$mutant" || die "tests/mutants/collector-query-unpinned.patch does not apply"
	scdoc <"$mutant/argguard-records.5.scd" | gzip -n >"$tests/mutant-argguard-records.5.gz"
	rm -rf "$mutant"
}

# The two-guest job: a node and a collector, each booted from the one disk
# image (snapshot=on: each writes to a throwaway overlay of its own), on one
# QEMU-internal link: -netdev dgram between two unix sockets, and no other
# netdev (no user-mode NAT, no route off the host). The collector's job
# output (TAP) is the result, printed on stdout; the node's goes to stderr.
boot_pair() {
	local accel=$1 cpu=max link role peer n=0 rc=0 pids=()
	[[ $accel == kvm ]] && cpu=host
	# Short: a unix socket's path has 108 bytes at most.
	link=$(mktemp -d /tmp/argguard-link.XXXXXX)
	log "booting the node and the collector ($accel, timeout ${TIMEOUT}s); consoles: $OUT/{node,collector}-console.log"
	for role in node collector; do
		peer=collector
		[[ $role == node ]] || peer=node
		n=$((n + 1))
		rm -f "$OUT/$role-console.log" "$OUT/$role-job.log"
		timeout -k 10 "$TIMEOUT" qemu-system-x86_64 \
			-accel "$accel" -machine q35 -cpu "$cpu" -smp 1 -m 768M \
			-nodefaults -display none -no-reboot \
			-kernel "$KERNEL/bzImage" -initrd "$KERNEL/initrd.img" \
			-append "root=/dev/vda rw console=ttyS0 panic=-1 oops=panic systemd.show_status=0 argguard.test_guest argguard.two_guests=$role systemd.hostname=argguard-$role $APPEND" \
			-drive "file=$OUT/disk.img,if=virtio,format=raw,snapshot=on" \
			-netdev "dgram,id=link,local.type=unix,local.path=$link/$role,remote.type=unix,remote.path=$link/$peer" \
			-device "virtio-net-pci,netdev=link,mac=52:54:00:00:41:0$n" \
			-device virtio-rng-pci \
			-serial "file:$OUT/$role-console.log" -serial "file:$OUT/$role-job.log" &
		pids+=($!)
	done
	# shellcheck disable=SC2064 # the pids, now
	trap "kill ${pids[*]} 2>/dev/null; rm -rf '$link'" EXIT
	trap 'exit 143' TERM INT
	for n in 0 1; do
		rc=0
		wait "${pids[n]}" || rc=$?
		((rc != 124 && rc != 137)) || log "a guest hit the ${TIMEOUT}s timeout"
	done
	trap report_failed_step EXIT
	trap - TERM INT
	rm -rf "$link"
	rc=0
	job_status node- >&2 || { rc=1; log "error: the node's job failed"; }
	job_status collector- || rc=1
	return "$rc"
}

main() {
	local base accel rc=0
	parse_args "$@"
	mkdir -p "$OUT"
	if [[ -d $KERNEL/root ]]; then
		base=$KERNEL/root # a Debian kernel's own guest tree
	else
		base=$(step "build rootfs" "$ARGGUARD_ROOT/vm/rootfs.sh")
	fi
	step "make guest disk image" make_image "$base"
	((ICOUNT)) && accel=tcg || accel=$(pick_accel)
	if [[ $JOB == two-guests ]]; then
		boot_pair "$accel" || rc=$?
	else
		boot_all "$accel" || rc=$?
	fi
	# A gigabyte or so per run, and eleven runs in CI: keep it only on request.
	[[ -n ${ARGGUARD_KEEP_DISK:-} ]] || rm -f "$OUT/disk.img"
	return "$rc"
}

main "$@"
