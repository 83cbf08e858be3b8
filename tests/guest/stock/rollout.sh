# SPDX-License-Identifier: GPL-2.0
# A fleet's rollout needs nothing of the series: fragments that compose,
# a user this host does not know, and a reload that says when it failed
# run on a stock kernel too.
source "$HERE/cases/policy_compose.sh"
source "$HERE/cases/policy_file.sh"

# Of the policy file's tests, the reload's alone: the others judge the
# file, the same on every kernel, and the patched suites run them.
while read -r _ _ name; do
	[[ $name != test_policy_file_* || $name == test_policy_file_reload_fails_when_the_file_is_refused ]] ||
		unset -f "$name"
done < <(declare -F)
