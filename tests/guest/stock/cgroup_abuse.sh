# SPDX-License-Identifier: GPL-2.0
# The cgroup abuse cases need nothing of the series: a stock kernel runs them too.
source "$HERE/cases/cgroup_abuse.sh"
