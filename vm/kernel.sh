#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a guest kernel: Debian's linux-source-VERSION plus
# kernel-patches/VERSION/series, configured from vm/kernel.config and, if it
# exists, vm/kernel-VERSION.config. Prints the directory holding bzImage,
# config, vmlinux.h and the series' selftests. The result is cached under a
# hash of the tarball, the patches, the fragments and this script; unchanged
# inputs are never rebuilt. Each version has its own source and O= tree.
#
# usage: vm/kernel.sh [--version 6.1|6.12] [--stock | --prefix N]
#   --version V  the kernel to build: 6.1 (the default) or 6.12
#   --stock      build without the patch series
#   --prefix N   build with only the first N patches of the series
set -euo pipefail
source "$(dirname "$0")/lib.sh"

VERSIONS=(6.1 6.12)
SELFTESTS=(exec/arg_limits)
BPF_SELFTESTS=(bprm_read_argv)

# Set the paths for one kernel version.
use_version() {
	VERSION=$1
	TARBALL=/usr/src/linux-source-$VERSION.tar.xz
	FRAGMENTS=("$ARGGUARD_ROOT/vm/kernel.config")
	[[ -f $ARGGUARD_ROOT/vm/kernel-$VERSION.config ]] &&
		FRAGMENTS+=("$ARGGUARD_ROOT/vm/kernel-$VERSION.config")
	PATCHES=$ARGGUARD_ROOT/kernel-patches/$VERSION
	WORK=$ARGGUARD_CACHE/linux-$VERSION
	SRC=$WORK/src # a git tree: tag "pristine" is the tarball, as unpacked
	OUT=$WORK/build # one O= tree, so a changed input rebuilds only what it touches
	# LOCALVERSION= keeps the "+" of a git source tree out of the release
	# name. -fno-var-tracking: BTF needs DWARF's types, not where each
	# variable lives; gcc spends a tenth of the build on that.
	MAKE=(make -C "$SRC" O="$OUT" ARCH=x86_64 LOCALVERSION= KCFLAGS=-fno-var-tracking
		-j"$(nproc)")
}

series_files() {
	local p
	while read -r p; do
		[[ -z $p || $p == \#* ]] && continue
		[[ -f $PATCHES/$p ]] || die "kernel-patches/$VERSION/series names a missing patch: $p"
		printf '%s\n' "$PATCHES/$p"
	done <"$PATCHES/series"
}

unpack_tarball() {
	local sum=$1
	[[ -f $SRC/.argguard-tarball ]] && [[ $(cat "$SRC/.argguard-tarball") == "$sum" ]] && return
	log "unpacking $TARBALL"
	rm -rf "$SRC" "$OUT"
	mkdir -p "$SRC"
	tar -xJf "$TARBALL" -C "$SRC" --strip-components=1
	# Debian's top-level .gitignore ignores everything, hence -f.
	git -C "$SRC" init -q
	git -C "$SRC" add -f -A
	git -C "$SRC" -c user.name=argguard -c user.email=argguard@localhost \
		commit -q -m "pristine $(basename "$TARBALL")"
	git -C "$SRC" tag -f pristine >/dev/null
	printf '%s\n' "$sum" >"$SRC/.argguard-tarball"
}

# Reset the tree to the tarball, keeping the mtime of every file that does not
# change, then apply the series as commits so each one can be built alone.
apply_series() {
	local p
	git -C "$SRC" am --abort >/dev/null 2>&1 || true
	git -C "$SRC" checkout -q -f -B argguard pristine
	git -C "$SRC" clean -q -f -d -x -e /.argguard-tarball
	for p in "$@"; do
		git -C "$SRC" -c user.name=argguard -c user.email=argguard@localhost \
			am -q --keep-cr "$p" ||
			die "patch does not apply cleanly: ${p#"$ARGGUARD_ROOT"/}"
	done
}

# allnoconfig with the fragments forced in, then check that nothing we need was
# dropped: BPF_LSM, for one, vanishes silently when a dependency is missing.
configure() {
	local line sym lost=() fragment=$WORK/fragment.config
	cat "${FRAGMENTS[@]}" >"$fragment"
	"${MAKE[@]}" -s KCONFIG_ALLCONFIG="$fragment" allnoconfig
	"${MAKE[@]}" -s olddefconfig
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$OUT/.config" || lost+=("${line%%=*}")
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			! grep -q "^$sym=" "$OUT/.config" || lost+=("$sym (wanted off)")
			;;
		esac
	done <"$fragment"
	((${#lost[@]} == 0)) || die "kernel config dropped required symbols: ${lost[*]}"
}

build() {
	"${MAKE[@]}" -s bzImage
}

# The series' kselftests, built against this tree's harness to run in the
# guest: native, and as static i386 programs (NAME_32) whose execs take the
# compat entry points.
build_selftests() {
	local dest=$1 t src
	mkdir -p "$dest"
	for t in "${SELFTESTS[@]}"; do
		src=$SRC/tools/testing/selftests/$t.c
		[[ -f $src ]] || continue
		gcc -Wall -O2 -D_GNU_SOURCE -o "$dest/${t##*/}" "$src"
		gcc -Wall -O2 -D_GNU_SOURCE -m32 -static -o "$dest/${t##*/}_32" "$src"
	done
}

# The series' BPF selftests (tools/testing/selftests/bpf/prog_tests/NAME.c and
# progs/test_NAME.c), each as bpf_NAME: the program built with clang against
# this kernel's vmlinux.h, its skeleton, and the runner linked against
# tests/bpf-selftest's stand-in for test_progs (TAP, one line a subtest).
build_bpf_selftests() {
	local dest=$1 t dir=$SRC/tools/testing/selftests/bpf shim=$ARGGUARD_ROOT/tests/bpf-selftest
	local tmp=$dest/.bpf-build
	for t in "${BPF_SELFTESTS[@]}"; do
		[[ -f $dir/prog_tests/$t.c ]] || continue
		mkdir -p "$tmp"
		clang -g -O2 -Wall -target bpf -D__TARGET_ARCH_x86 -I "$dest/.." \
			-idirafter /usr/include -idirafter /usr/include/x86_64-linux-gnu \
			-c "$dir/progs/test_$t.c" -o "$tmp/test_$t.bpf.o"
		bpftool gen skeleton "$tmp/test_$t.bpf.o" name "test_$t" >"$tmp/test_$t.skel.h"
		gcc -Wall -Werror -O2 -I "$shim" -I "$tmp" -DTEST_FUNC="test_$t" \
			-o "$dest/bpf_$t" "$dir/prog_tests/$t.c" "$shim/test_progs.c" -lbpf
	done
	rm -rf "$tmp"
}

# kunit.py from this tree, for a tree with the exec KUnit suite: it boots
# this very bzImage with kunit.enable=1 (tests/kunit.sh).
export_kunit() {
	local dest=$1
	[[ -f $SRC/fs/tests/exec_kunit.c ]] || return 0
	mkdir -p "$dest/tools/testing"
	cp -r "$SRC/tools/testing/kunit" "$dest/tools/testing/"
}

export_artefacts() {
	local dest=$1 tmp=$1.tmp.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	cp "$OUT/arch/x86/boot/bzImage" "$OUT/.config" "$OUT/System.map" "$tmp/"
	git -C "$SRC" log --oneline pristine..HEAD >"$tmp/patches"
	bpftool btf dump file "$OUT/vmlinux" format c >"$tmp/vmlinux.h"
	build_selftests "$tmp/selftests"
	build_bpf_selftests "$tmp/selftests"
	export_kunit "$tmp/kunit"
	rm -rf "$dest"
	mv "$tmp" "$dest"
}

main() {
	local stock=0 prefix='' version=6.1 tarsum key dest
	local -a patches=()
	while (($#)); do
		case $1 in
		--version | --prefix)
			(($# > 1)) || die "$1 needs a value"
			[[ $1 == --version ]] && version=$2 || prefix=$2
			shift
			;;
		--stock) stock=1 ;;
		*) die "usage: vm/kernel.sh [--version 6.1|6.12] [--stock | --prefix N]" ;;
		esac
		shift
	done
	[[ " ${VERSIONS[*]} " == *" $version "* ]] ||
		die "--version takes one of ${VERSIONS[*]}, got '$version'"
	use_version "$version"
	[[ -f $TARBALL ]] || die "missing $TARBALL: install the linux-source-$VERSION package"
	((stock)) || mapfile -t patches < <(series_files)
	if [[ -n $prefix ]]; then
		[[ $prefix =~ ^[0-9]+$ ]] && ((prefix <= ${#patches[@]})) ||
			die "--prefix needs a number from 0 to ${#patches[@]}, got '$prefix'"
		patches=("${patches[@]:0:prefix}")
	fi

	tarsum=$(sha256sum <"$TARBALL" | cut -c1-64)
	key=$( (printf '%s\n' "$tarsum"
		cat "$0" "$ARGGUARD_ROOT"/tests/bpf-selftest/* "${FRAGMENTS[@]}" "${patches[@]}") |
		sha256sum | cut -c1-16)
	((stock)) && key=stock-$VERSION-$key || key=patched-$VERSION-$key
	dest=$ARGGUARD_CACHE/kernel/$key
	mkdir -p "$WORK"
	cache_used "$WORK" # kept for the next build of this version
	if [[ -f $dest/bzImage ]]; then
		log "kernel $key is cached"
		cache_used "$dest"
		printf '%s\n' "$dest"
		return
	fi

	exec 9>"$WORK/lock"
	flock 9
	if [[ -f $dest/bzImage ]]; then # built while we waited for the lock
		log "kernel $key is cached"
		cache_used "$dest"
		printf '%s\n' "$dest"
		return
	fi
	step "unpack kernel source" unpack_tarball "$tarsum"
	step "apply kernel-patches/$VERSION/series" apply_series "${patches[@]}"
	step "configure kernel" configure
	step "build kernel $key" build
	step "export kernel artefacts" export_artefacts "$dest"
	printf '%s\n' "$dest"
}

main "$@"
