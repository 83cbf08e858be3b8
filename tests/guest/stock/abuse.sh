# SPDX-License-Identifier: GPL-2.0
# What a user with a login may try needs nothing of the series: a stock
# kernel runs those tests too.
source "$HERE/cases/abuse.sh"
