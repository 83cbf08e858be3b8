#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# man-lint.sh PAGE...: groff formats each built man page with every warning
# on (-ww) and must say nothing.
set -euo pipefail

main() {
	local page out status=0
	for page in "$@"; do
		out=$(groff -man -ww -z "$page" 2>&1) || true
		if [[ -n $out ]]; then
			echo "$page: groff -man -ww says:"
			echo "$out"
			status=1
		else
			echo "$page: no groff warnings"
		fi
	done
	return "$status"
}

main "$@"
