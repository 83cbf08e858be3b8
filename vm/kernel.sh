#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest kernel: Debian's linux-source-6.1 plus kernel-patches/series,
# configured from vm/kernel.config. Prints the directory holding bzImage,
# config, vmlinux.h and the series' selftests. The result is cached under a hash of the tarball, the
# patches, the fragment and this script; unchanged inputs are never rebuilt.
#
# usage: vm/kernel.sh [--stock | --prefix N]
#   --stock      build without the patch series
#   --prefix N   build with only the first N patches of the series
set -euo pipefail
source "$(dirname "$0")/lib.sh"

TARBALL=${ARGGUARD_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
FRAGMENT=$ARGGUARD_ROOT/vm/kernel.config
PATCHES=$ARGGUARD_ROOT/kernel-patches
WORK=$ARGGUARD_CACHE/linux
SRC=$WORK/src # a git tree: tag "pristine" is the tarball, as unpacked
OUT=$WORK/build # one O= tree, so a changed input rebuilds only what it touches
# LOCALVERSION= keeps the "+" of a git source tree out of the release name.
SELFTESTS=(exec/arg_limits)
MAKE=(make -C "$SRC" O="$OUT" ARCH=x86_64 LOCALVERSION= -j"$(nproc)")

series_files() {
	local p
	while read -r p; do
		[[ -z $p || $p == \#* ]] && continue
		[[ -f $PATCHES/$p ]] || die "kernel-patches/series names a missing patch: $p"
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

# allnoconfig with the fragment forced in, then check that nothing we need was
# dropped: BPF_LSM, for one, vanishes silently when a dependency is missing.
configure() {
	local line sym lost=()
	"${MAKE[@]}" -s KCONFIG_ALLCONFIG="$FRAGMENT" allnoconfig
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
	done <"$FRAGMENT"
	((${#lost[@]} == 0)) || die "kernel config dropped required symbols: ${lost[*]}"
}

build() {
	"${MAKE[@]}" -s bzImage
}

# The series' kselftests, built against this tree's harness to run in the guest.
build_selftests() {
	local dest=$1 t
	mkdir -p "$dest"
	for t in "${SELFTESTS[@]}"; do
		[[ -f $SRC/tools/testing/selftests/$t.c ]] || continue
		gcc -Wall -O2 -D_GNU_SOURCE -o "$dest/${t##*/}" "$SRC/tools/testing/selftests/$t.c"
	done
}

export_artefacts() {
	local dest=$1 tmp=$1.tmp.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	cp "$OUT/arch/x86/boot/bzImage" "$OUT/.config" "$OUT/System.map" "$tmp/"
	git -C "$SRC" log --oneline pristine..HEAD >"$tmp/patches"
	build_selftests "$tmp/selftests"
	bpftool btf dump file "$OUT/vmlinux" format c >"$tmp/vmlinux.h"
	rm -rf "$dest"
	mv "$tmp" "$dest"
}

main() {
	local stock=0 prefix= tarsum key dest
	local -a patches=()
	case ${1:-} in
	--stock) stock=1 ;;
	--prefix) prefix=${2:-} ;;
	"") ;;
	*) die "usage: vm/kernel.sh [--stock | --prefix N]" ;;
	esac
	[[ -f $TARBALL ]] || die "missing $TARBALL: install the linux-source-6.1 package"
	((stock)) || mapfile -t patches < <(series_files)
	if [[ -n $prefix ]]; then
		[[ $prefix =~ ^[0-9]+$ ]] && ((prefix <= ${#patches[@]})) ||
			die "--prefix needs a number from 0 to ${#patches[@]}, got '$prefix'"
		patches=("${patches[@]:0:prefix}")
	fi

	tarsum=$(sha256sum <"$TARBALL" | cut -c1-64)
	key=$( (printf '%s\n' "$tarsum"; cat "$0" "$FRAGMENT" "${patches[@]}") | sha256sum | cut -c1-16)
	((stock)) && key=stock-$key || key=patched-$key
	dest=$ARGGUARD_CACHE/kernel/$key
	if [[ -f $dest/bzImage ]]; then
		log "kernel $key is cached"
		printf '%s\n' "$dest"
		return
	fi

	mkdir -p "$WORK"
	exec 9>"$WORK/lock"
	flock 9
	if [[ -f $dest/bzImage ]]; then # built while we waited for the lock
		log "kernel $key is cached"
		printf '%s\n' "$dest"
		return
	fi
	step "unpack kernel source" unpack_tarball "$tarsum"
	step "apply kernel-patches/series" apply_series "${patches[@]}"
	step "configure kernel" configure
	step "build kernel $key" build
	step "export kernel artefacts" export_artefacts "$dest"
	printf '%s\n' "$dest"
}

main "$@"
