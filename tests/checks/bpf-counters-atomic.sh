#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Every increment of a per-CPU counter (the counters and drops maps) in the
# BPF object is one atomic add, never a load, an add and a store, which
# loses counts where a program is preempted between them (preempt=full,
# PREEMPT_RT). Read from the object's instructions: after each lookup of
# one of those maps (a relocation against it, then call 1,
# bpf_map_lookup_elem), the block that uses the value it returns must hold
# a "lock ... +=" and no plain store through a pointer. No run can show a
# lost count: the window is three instructions, and QEMU's TCG takes an
# interrupt only between blocks of translated code. Prints TAP.
#
# usage: tests/checks/bpf-counters-atomic.sh ARGGUARD_BPF_OBJECT
set -euo pipefail
source "$(dirname "$0")/tap.sh"

OBJDUMP=${LLVM_OBJDUMP:-llvm-objdump}

# The disassembly, one instruction or label a line, with relocations.
disassemble() { "$OBJDUMP" -d -r --no-show-raw-insn "$1"; }

# Print, for each lookup of a counted map, one line: "ok MAP" when the
# block after its null check adds atomically and stores nothing else, else
# "bad MAP: INSTRUCTIONS".
increments() {
	awk '
	function unmatched() {
		if (state != "")
			print "bad " map ": no null-checked lookup and block after its relocation"
	}
	/R_BPF_64_64[ \t]+argguard_(counters|drops)$/ { unmatched(); map = $NF; state = "reloc"; next }
	state == "reloc" && /call 1$/ { state = "call"; next }
	state == "call" && /if r0 == 0 goto/ { state = "block"; block = ""; next }
	state == "block" && (/^$/ || /^[0-9a-f]+ </) {
		atomic = block ~ /lock \*\(u64 \*\)/
		plain = block ~ /(^|;) *\*\(u(8|16|32|64) \*\)\(r[0-9] [+-] [0-9]+\) = /
		if (atomic && !plain)
			print "ok " map
		else
			print "bad " map ": " block
		state = ""
		next
	}
	state == "block" {
		sub(/^[ \t]*[0-9]+:[ \t]*/, "")
		block = block (block == "" ? "" : "; ") $0
	}
	END { unmatched() }
	' <(disassemble "$1")
}

main() {
	local object=${1:?usage: $0 ARGGUARD_BPF_OBJECT} results n bad counters drops
	tap_start
	if [[ ! -f $object ]]; then
		fail "no BPF object at $object"
		tap_end || return
	fi
	results=$(increments "$object")
	n=$(grep -c . <<<"$results" || true)
	bad=$(grep -c '^bad ' <<<"$results" || true)
	counters=$(grep -c ' argguard_counters' <<<"$results" || true)
	drops=$(grep -c ' argguard_drops' <<<"$results" || true)
	if ((counters > 0 && drops > 0)); then
		pass "increments found: $counters of counters, $drops of drops"
	else
		fail "expected increments of both maps, found $counters of counters, $drops of drops"
	fi
	if ((bad == 0 && n > 0)); then
		pass "each of the $n is one atomic add"
	else
		fail "$bad of $n increments are not one atomic add:"
		grep '^bad ' <<<"$results" | diag
	fi
	tap_end
}

main "$@"
