#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest mutants (a "catch:" line), all caught in one guest: ctest's
# mutants_guest. tests/mutants/run.sh builds the packages and boots a guest
# per mutant; here each mutant is built in one copy of the tree,
# incrementally (apply, build what changed, save the artefact, reverse),
# and one guest (vm/run.sh --job mutants, which runs
# tests/guest/mutants/job.sh) installs each in turn over the package, runs
# the tests its catch: line names and puts the good build back. The good
# build, made the same way, must pass those tests first: a mutant counts as
# caught only where its build alone makes them fail.
#
# What a patch changes decides what it is built into: bpf/ and loader/ C
# files, the argguard binary (the BPF object is in it, by the skeleton),
# built as debian/rules builds it; argguard.service, the unit file; the
# package's maintainer scripts or templates (debian/argguard.config,
# .templates, .postinst, .prerm, .postrm), the package's control files:
# the patch is applied to those of build/argguard.deb, as debhelper made
# them. A package-suite mutant's binary is built twice, as argguard.deb's
# and as argguard-rebuilt.deb's (another BPF prefix: another build of the
# same programs); the guest repacks the two packages with them, or with
# the good build and the mutant's control files, and its tests start from
# argguard.deb as shipped, installed again before each run. The
# reboot-suite mutants' tests run on boots of their own: their control on
# the second, then each mutant's on the next. A mutant of another job or
# kernel, or whose patch does not apply, does not build, or changes nothing
# that can be installed, fails here as one that is missed does.
#
# Writes BUILD_DIR/vm-mutants_guest.tap, one result per control and mutant.
# usage: tests/mutants/guest.sh KERNEL_DIR BUILD_DIR [NAME...]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/vm/lib.sh"

# header PATCH KEY: the value of the patch's "KEY: " line.
header() { sed -n "s/^$2: //p" "$1"; }

# kind_of FILE...: what the files a patch changes are built into: binary,
# unit, scripts (the package's control files), or "none: FILE" for one
# that is none of them.
kind_of() {
	local f k kind=''
	for f in "$@"; do
		case $f in
		*/argguard.service) k=unit ;;
		bpf/*.[ch] | loader/*.[ch]) k=binary ;;
		debian/argguard.config | debian/argguard.templates | debian/argguard.postinst | \
			debian/argguard.prerm | debian/argguard.postrm) k=scripts ;;
		*)
			echo "none: $f"
			return
			;;
		esac
		if [[ -n $kind && $kind != "$k" ]]; then
			echo "none: both the $kind and the $k"
			return
		fi
		kind=$k
	done
	echo "${kind:-none: no file}"
}

# configure SRC DIR [CMAKE_ARG...]: a build of the copy as debian/rules
# configures it (dh's cmake options, dpkg-buildflags' hardening), for the
# binary alone.
configure() {
	local src=$1 dir=$2
	shift 2
	export DEB_BUILD_MAINT_OPTIONS=hardening=+all
	CFLAGS="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)" \
		LDFLAGS=$(dpkg-buildflags --get LDFLAGS) \
		cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=None -DCMAKE_INSTALL_PREFIX=/usr \
		-DBUILD_TESTING=OFF "$@" >"$dir.log" 2>&1
}

# build DIR OUT: build argguard in DIR, save it as OUT.
build() {
	cmake --build "$1" -j"$(nproc)" --target argguard >>"$1.log" 2>&1 && cp "$1/argguard" "$2"
}

# make_scripts PATCH OUT: the mutant's control files in OUT/control: the
# patch applied to those of the good package (debian/argguard.X is its
# DEBIAN/X); prints why there are none, if there are none.
make_scripts() {
	local patch=$1 out=$2 scratch=$WORK/scripts f
	rm -rf "$scratch"
	mkdir -p "$scratch/debian" "$out/control"
	for f in "$WORK/control-good"/*; do
		cp -p "$f" "$scratch/debian/argguard.${f##*/}"
	done
	if ! patch -s --no-backup-if-mismatch -p1 -d "$scratch" <"$patch" >"$WORK/${out##*/}.patch.log" 2>&1; then
		echo "does not apply to the control files of $BUILD/argguard.deb"
		return
	fi
	for f in "$WORK/control-good"/*; do
		cmp -s "$f" "$scratch/debian/argguard.${f##*/}" ||
			cp -p "$scratch/debian/argguard.${f##*/}" "$out/control/${f##*/}"
	done
	[[ -n $(ls "$out/control") ]] || echo "changes no control file of the package: it plants nothing"
}

# make_artefact PATCH SRC ART: the mutant's artefact in ART/NAME, built in
# the copy SRC; prints its kind, or why there is none.
make_artefact() {
	local patch=$1 src=$2 art=$3 name files kind out why rc=0
	name=$(basename "${patch%.patch}")
	out=$art/$name
	mkdir -p "$out"
	mapfile -t files < <(sed -n 's#^+++ b/\([^[:space:]]*\).*#\1#p' "$patch")
	kind=$(kind_of "${files[@]}")
	if [[ $kind == none:* ]]; then
		echo "changes what the guest cannot install (${kind#none: })"
		return
	fi
	if [[ $(header "$patch" job) == package-suite && $kind == unit ]]; then
		echo "changes the unit, which the package suite's repacked packages do not take"
		return
	fi
	if [[ $kind == scripts ]]; then
		if [[ $(header "$patch" job) != package-suite ]]; then
			echo "changes the package's control files, which only the package suite installs"
		elif why=$(make_scripts "$patch" "$out") && [[ -z $why ]]; then
			echo scripts
		else
			echo "$why"
		fi
		return
	fi
	# A dry run first: a patch that fails applies the hunks that do not.
	if ! patch -s --dry-run -p1 -d "$src" <"$patch" >"$WORK/$name.patch.log" 2>&1 ||
		! patch -s --no-backup-if-mismatch -p1 -d "$src" <"$patch" >>"$WORK/$name.patch.log" 2>&1; then
		echo "does not apply"
		return
	fi
	if [[ $kind == unit ]]; then
		cp "$src/${files[0]}" "$out/argguard.service"
	elif ! build "$WORK/build" "$out/argguard"; then
		rc=1 && echo "does not build (see $WORK/build.log)"
	elif cmp -s "$out/argguard" "$art/good/argguard"; then
		rc=1 && echo "builds the very binary the good tree builds: it plants nothing"
	elif [[ $(header "$patch" job) == package-suite ]] &&
		! build "$WORK/build-rebuilt" "$out/argguard-rebuilt"; then
		rc=1 && echo "does not build as the rebuilt package (see $WORK/build-rebuilt.log)"
	fi
	if ! patch -s -R --no-backup-if-mismatch -p1 -d "$src" <"$patch" >>"$WORK/$name.patch.log" 2>&1; then
		touch "$WORK/spoilt" # main stops: every later build would carry this bug
		rc=1 && echo "does not reverse"
	fi
	((rc == 0)) && echo "$kind"
	return 0
}

main() {
	local kernel=$1 build=$2 patch name job result rc=0
	BUILD=$build
	shift 2
	local patches=()
	WORK=$build/mutants-guest
	local src=$WORK/src art=$WORK/artefacts out=$build/vm-mutants_guest
	if (($# == 0)); then
		mapfile -t patches < <(grep -l '^catch: ' "$ROOT"/tests/mutants/*.patch)
	else
		for name in "$@"; do
			patches+=("$ROOT/tests/mutants/$(basename "${name%.patch}").patch")
		done
	fi
	rm -rf "$WORK"
	mkdir -p "$src" "$art/good"
	(cd "$ROOT" && git ls-files -z | sort -zu | xargs -0 cp --parents -t "$src")
	# The ctest run of mutants_guest, not the by-hand filter of a suite.
	unset ARGGUARD_TEST_FILTER
	step "build the good argguard" configure "$src" "$WORK/build"
	build "$WORK/build" "$art/good/argguard" || die "the good tree does not build (see $WORK/build.log)"
	cp "$(find "$src/loader" -name argguard.service)" "$art/good/"
	mkdir -p "$WORK/control-good"
	dpkg-deb -e "$build/argguard.deb" "$WORK/control-good"
	if grep -q '^job: package-suite$' "${patches[@]}"; then
		configure "$src" "$WORK/build-rebuilt" -DARGGUARD_BPF_PREFIX=/rebuilt
		build "$WORK/build-rebuilt" "$art/good/argguard-rebuilt" ||
			die "the good tree does not build as the rebuilt package (see $WORK/build-rebuilt.log)"
	fi
	# list: NAME, JOB, KIND (binary, unit, or "broken") and CATCH (or why broken).
	: >"$art/list"
	for patch in "${patches[@]}"; do
		name=$(basename "${patch%.patch}")
		job=''
		[[ ! -f $patch ]] || job=$(header "$patch" job)
		job=${job:-suite}
		if [[ ! -f $patch ]] || ! grep -q '^catch: ' "$patch"; then
			result="is no guest mutant (no tests/mutants/$name.patch with a catch: line)"
		elif [[ -n $(header "$patch" kernel) ]]; then
			result="boots another kernel (kernel: $(header "$patch" kernel)): tests/mutants/run.sh runs it"
		elif [[ $job != suite && $job != package-suite && $job != reboot-suite ]]; then
			result="is in job $job, which this guest does not run: tests/mutants/run.sh runs it"
		else
			log "build mutant $name"
			result=$(make_artefact "$patch" "$src" "$art")
			[[ ! -e $WORK/spoilt ]] || die "$name's patch does not reverse in $src"
		fi
		case $result in
		binary | unit | scripts) printf '%s\t%s\t%s\t%s\n' "$name" "$job" "$result" "$(header "$patch" catch)" ;;
		*) printf '%s\t%s\tbroken\t%s\n' "$name" "$job" "$result" ;;
		esac >>"$art/list"
	done
	"$ROOT/vm/run.sh" --kernel "$kernel" --build "$build" --job mutants --mutants "$art" \
		--timeout 3000 --out "$out" >"$out.tap" || rc=$?
	cat "$out.tap"
	"$ROOT/tests/checks/tap-summary.sh" "$out.tap" || rc=1
	return "$rc"
}

main "$@"
