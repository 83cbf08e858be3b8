#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The reboot suite's job, run on each of two boots of one disk: the first
# prepares the machine (prepare.sh), the second runs the cases in cases/.
set -euo pipefail
source "${BASH_SOURCE[0]%/*}/../guard.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
FIRST_BOOT_DONE=/var/lib/argguard-test/first-boot-done

main() {
	if [[ -e $FIRST_BOOT_DONE ]]; then
		exec "$HERE/../run-suite.sh" reboot/cases
	fi
	"$HERE/prepare.sh"
	mkdir -p "${FIRST_BOOT_DONE%/*}"
	touch "$FIRST_BOOT_DONE"
	sync
	echo "first boot prepared; the second boot runs the suite"
}

main "$@"
