# SPDX-License-Identifier: GPL-2.0
# Sourced first by each guest job's entry point (each JOB_CMD of
# vm/run.sh: run-suite.sh, */job.sh, demo/demo.sh, boot/boot.sh, and the
# bench's *-guest.sh beside it in the guest): go on only inside the test
# guest that vm/run.sh boots, and refuse anywhere else. The jobs run as
# root and do to a machine what a test guest is for: stop and start
# argguard, load BPF programs, rewrite /etc, add users and cgroups, reboot.
# The guest is known positively, by the parameter that vm/run.sh puts on
# its kernel command line (argguard.test_guest); no other machine boots
# with it. Bash builtins only: the refusal comes before any command runs,
# with no PATH at all (tests/checks/guest-guard.sh).
guard_cmdline=
read -r guard_cmdline </proc/cmdline || true
if [[ " $guard_cmdline " != *" argguard.test_guest "* ]]; then
	echo "${0##*/}: refusing to run: this is not the argguard test guest" \
		"(no argguard.test_guest on the kernel command line); vm/run.sh boots one" >&2
	exit 1
fi
unset guard_cmdline
