# SPDX-License-Identifier: GPL-2.0
# argguard suggest, which no user can steer, needs nothing of the series:
# a stock kernel, where only the total and the counts are known, runs those
# tests too.
source "$HERE/cases/suggest.sh"
