#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The smallest job: show that the guest booted its kernel and systemd.
set -euo pipefail
source "${BASH_SOURCE[0]%/*}/../guard.sh"
echo "booted $(uname -r); LSMs: $(cat /sys/kernel/security/lsm); system: $(systemctl is-system-running || true)"
