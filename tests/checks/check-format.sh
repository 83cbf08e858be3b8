#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Check that every C file is formatted by the repository's .clang-format:
# all but the kernel's (the series, and bpf/vmlinux/, which bpftool writes).
set -euo pipefail

main() {
	cd "$(dirname "$0")/../.."
	git ls-files --cached --others --exclude-standard -- '*.c' '*.h' |
		grep -v -e '^kernel-patches/' -e '^bpf/vmlinux/' | xargs -r clang-format --dry-run -Werror
}

main "$@"
