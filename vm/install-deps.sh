#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install, from Debian 12's own packages, everything argguard needs to build
# the guest kernel, the guest, argguard itself and its tests.
set -euo pipefail

PACKAGES=(
	# guest kernels: the sources (6.1, and 6.12 from the security suite), and
	# what builds them with BTF
	linux-source-6.1 linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev dwarves
	cpio kmod rsync xz-utils git
	# guest: root file system and emulator
	debootstrap e2fsprogs qemu-system-x86
	# the two-guest job's TLS: a CA and a certificate for each guest
	openssl
	# argguard
	cmake pkg-config clang llvm bpftool libbpf-dev libaudit-dev
	# systemd.pc: where the unit is installed (debian/control's Build-Depends too)
	systemd
	# man pages: doc/*.scd to roff
	scdoc
	# the Debian package the guests install (built in a debootstrap chroot), its
	# checks, and diffoscope, which says where two builds that should be the
	# same differ
	debhelper fakeroot lintian diffoscope-minimal
	# tests: libFuzzer and the sanitizers' runtime for clang, static analysis, and
	# groff, which lints the man pages
	clang-format jq libclang-rt-dev cppcheck clang-tidy groff-base
	# tests: json-c, the parser of their own that the unit and fuzz tests read
	# argguard's JSON with (argguard itself has one writer, and no parser)
	libjson-c-dev
	# tests: promtool, which checks and tests the shipped alert rules
	prometheus
	# tests: static 32-bit helpers (int 0x80 and compat execve in the guest)
	gcc-multilib
	# benchmarks: tests/bench/run.sh plots its results
	gnuplot-nox
	# kernel-patches: checkpatch.pl and its SPDX check
	python3-ply python3-git
)

main() {
	local sudo=()
	((EUID == 0)) || sudo=(sudo)
	"${sudo[@]}" apt-get update -q
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends \
		"${PACKAGES[@]}"
}

main "$@"
