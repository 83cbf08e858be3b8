# SPDX-License-Identifier: GPL-2.0
# The policy file read strictly (issue 16): a long line, a missing mode and a
# policy that would lock admins out are refused by check, apply and the
# daemon, naming file:line, and the live policy stays as it was.
#
# Every command here is expected to succeed; those expected to fail are
# tested with if. While a policy with max_argc = 3 might be live, only
# execs of at most 3 arguments are used until it is gone.

PF_FILE=/tmp/argguard-pf.conf
PF_SITE=/tmp/argguard-pf-site.conf
PF_OUT=

# pf_refused WANT CMD...: CMD must fail, and say WANT. Its output is left in PF_OUT.
pf_refused() {
	local want=$1
	shift
	if PF_OUT=$("$@" 2>&1); then
		fail "expected '$*' to be refused; it passed: $PF_OUT"
	fi
	printf '%s:\n%s\n' "$*" "$PF_OUT"
	[[ $PF_OUT == *"$want"* ]] || fail "expected '$*' to say: $want"
}

# A 64K policy to start from, and a check that it is still the one in force.
pf_start() {
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 64K"
	argguard policy show >/tmp/argguard-pf-before.conf
}

pf_unchanged() {
	assert_eq "$(cat /tmp/argguard-pf-before.conf)" "$(argguard policy show)" \
		"the live policy after $1"
	expect E2BIG "root, 100K after $1: still judged by the 64K limit" \
		"$HELPERS/execsize" 100000 0 /bin/true
}

# pf_wait_live TEXT: wait up to 10 s for 'argguard policy show' to print
# TEXT as a line. Only 3-argument execs: it must work under max_argc = 3.
pf_wait_live() {
	local i
	for ((i = 0; i < 100; i++)); do
		[[ $'\n'$(argguard policy show)$'\n' == *$'\n'"$1"$'\n'* ]] && return 0
		sleep 0.1
	done
	return 1
}

# The site file back, and the daemon told: 3-argument execs only, as the
# daemon may have applied a lockout. Then the site policy through the CLI.
pf_put_site_back() {
	if [[ -f $PF_SITE ]]; then
		mv "$PF_SITE" "$POLICY_FILE"
		systemctl reload argguard.service
		pf_wait_live "max_total_bytes = 1048576" || echo "the daemon did not reapply the site file"
	fi
	restore_policy
}

# The user's report: a comment long enough that inih's 200-byte buffer cut
# it in two, and read its tail as a directive. Lines may be 4096 bytes now;
# one longer, "# ", 4090 bytes of padding and a directive, is refused.
test_policy_file_long_comment_is_refused_and_changes_nothing() {
	trap pf_put_site_back EXIT
	local pad
	pf_start
	printf -v pad '%4090s' ''
	printf '[global]\nmode = enforce\nmax_total_bytes = 64K\n# %s max_total_bytes = 1G\n' \
		"${pad// /x}" >"$PF_FILE"
	pf_refused "$PF_FILE:4: line longer than 4096 bytes" argguard policy check "$PF_FILE"
	pf_refused "$PF_FILE:4: line longer than 4096 bytes" argguard policy apply "$PF_FILE"
	[[ $PF_OUT == *"the live policy is unchanged"* ]] || fail "expected apply to say nothing changed"
	pf_unchanged "a refused long line"
}

test_policy_file_without_mode_is_refused_not_read_as_off() {
	trap pf_put_site_back EXIT
	pf_start
	printf '[global]\nmax_total_bytes = 1M\n' >"$PF_FILE"
	pf_refused "$PF_FILE:1: [global] has no 'mode': add 'mode = enforce', 'audit' or 'off'" \
		argguard policy check "$PF_FILE"
	pf_refused "$PF_FILE:1: [global] has no 'mode'" argguard policy apply "$PF_FILE"
	: >"$PF_FILE"
	pf_refused "$PF_FILE:1: no [global] section" argguard policy apply "$PF_FILE"
	pf_unchanged "a refused file without mode"
}

test_policy_file_lockout_is_refused_without_force_naming_the_rule() {
	trap pf_put_site_back EXIT
	local rule
	pf_start
	printf '[global]\nmode = enforce\nmax_argc = 3\n' >"$PF_FILE"
	rule="$PF_FILE:1: [global] max_argc = 3 with action deny in enforce mode would lock admins out"
	pf_refused "$rule" argguard policy check "$PF_FILE"
	[[ $PF_OUT == *"--force"* && $PF_OUT == *"allow_lockout = yes"* ]] ||
		fail "expected the refusal to tell of --force and allow_lockout = yes"
	pf_refused "$rule" argguard policy apply "$PF_FILE"
	pf_unchanged "a refused lockout"
	expect allowed "root, 10 arguments: max_argc = 3 was not applied" \
		"$HELPERS/execsize" 100 0 /bin/true 10

	# Nothing is denied in audit mode, so nothing is refused.
	printf '[global]\nmode = audit\nmax_argc = 3\n' >"$PF_FILE"
	argguard policy check "$PF_FILE"
}

# Forced, the lockout is live. [uid 0] keeps root (this suite) out of it;
# the tester meets [global], as an admin's sudo would.
test_policy_file_forced_lockout_applies_and_is_put_back() {
	trap pf_put_site_back EXIT
	local out
	printf '[global]\nmode = enforce\nmax_argc = 3\n\n[uid 0]\naction = allow\n' >"$PF_FILE"
	pf_refused "$PF_FILE:1: [global] max_argc = 3" argguard policy apply "$PF_FILE"
	out=$(argguard policy check "$PF_FILE" --force 2>&1)
	echo "check --force: $out"
	[[ $out == *"accepted, as --force says"*"$PF_FILE: valid"* ]] ||
		fail "expected check --force to warn, naming the rule, and pass"
	out=$(argguard policy apply --force "$PF_FILE" 2>&1)
	echo "apply --force: $out"
	[[ $out == *"warning: $PF_FILE:1: [global] max_argc = 3"* ]] ||
		fail "expected apply --force to warn, naming the rule"
	pf_wait_live "max_argc = 3" || fail "expected max_argc = 3 live after apply --force"
	if out=$("${AS_TESTER[@]}" /bin/true a b c 2>&1); then
		fail "as the tester, an exec with 4 arguments ran under max_argc = 3"
	fi
	echo "tester, 4 arguments: $out"
	[[ $out == *"Argument list too long"* ]] || fail "expected E2BIG for the tester's exec"
	"${AS_TESTER[@]}" /bin/true a b
	restore_policy
	[[ $(argguard policy show) != *"max_argc = 3"* ]] || fail "expected the site policy back in force"
	"${AS_TESTER[@]}" /bin/true a b c
}

# The daemon never forces: on reload it refuses a lockout file and keeps the
# policy in force, unless the file says allow_lockout = yes.
test_policy_file_daemon_applies_a_lockout_file_only_if_it_says_so() {
	trap pf_put_site_back EXIT
	local i
	cp "$POLICY_FILE" "$PF_SITE"
	pf_start
	printf '[global]\nmode = enforce\nmax_argc = 3\n' >"$POLICY_FILE"
	if systemctl reload argguard.service; then
		fail "expected systemctl reload of a lockout file to fail"
	fi
	for ((i = 0; i < 100; i++)); do
		daemon_said "argguard.conf:1: .global. max_argc = 3 with action deny" && break
		sleep 0.1
	done
	pf_unchanged "a reload of a lockout file"
	daemon_said "$POLICY_FILE:1: .global. max_argc = 3 with action deny.*; refused: fix the rule" ||
		fail "expected the daemon to log its refusal, naming the rule"
	daemon_said "$POLICY_FILE not applied, the live policy is unchanged" ||
		fail "expected the daemon to say it kept the policy in force"
	expect allowed "root, 10 arguments after the refused reload" \
		"$HELPERS/execsize" 100 0 /bin/true 10

	printf '[global]\nmode = enforce\nmax_argc = 3\nallow_lockout = yes\n\n[uid 0]\naction = allow\n' \
		>"$POLICY_FILE"
	systemctl reload argguard.service
	pf_wait_live "max_argc = 3" || fail "expected the daemon to apply a file with allow_lockout = yes"
	daemon_said "accepted, as allow_lockout = yes says" ||
		fail "expected the daemon to warn that it applied a lockout"
}

# systemctl reload runs argguard reload: it fails when the daemon refuses
# the file, the error's FILE:LINE in the unit's journal, and the policy in
# force stays; once the file applies, it returns with the file live.
test_policy_file_reload_fails_when_the_file_is_refused() {
	trap pf_put_site_back EXIT
	local since
	cp "$POLICY_FILE" "$PF_SITE"
	pf_start
	since=$(date '+%Y-%m-%d %H:%M:%S')
	printf '[global]\nmode = enforce\nmax_total_bytes = lots\n' >"$POLICY_FILE"
	if systemctl reload argguard.service; then
		fail "expected systemctl reload of a file with an error to fail"
	fi
	journalctl -q -u argguard.service --since "$since" --no-pager |
		grep -F "$POLICY_FILE:3: max_total_bytes = lots" ||
		fail "expected the unit's journal to name $POLICY_FILE:3"
	assert_eq active "$(systemctl is-active argguard.service)" "the daemon after a refused reload"
	pf_unchanged "a refused reload"
	printf '[global]\nmode = enforce\nmax_total_bytes = 48K\n' >"$POLICY_FILE"
	systemctl reload argguard.service
	# No wait: the reload returned once the file was live.
	[[ $'\n'$(argguard policy show)$'\n' == *$'\n'"max_total_bytes = 49152"$'\n'* ]] ||
		fail "expected the file live when systemctl reload returned: $(argguard policy show)"
}

# Users and a group made for the admin tests, and removed again.
PF_ADMIN=ag-alice PF_OPS_ADMIN=ag-bob PF_OPS=ag-ops

pf_admins_cleanup() {
	userdel "$PF_ADMIN" 2>/dev/null || true
	userdel "$PF_OPS_ADMIN" 2>/dev/null || true
	groupdel "$PF_OPS" 2>/dev/null || true
	if [[ -f /tmp/argguard-pf-made-sudo ]]; then
		groupdel sudo
		rm /tmp/argguard-pf-made-sudo
	fi
	pf_put_site_back
}

# Issue 28: admins log in as themselves. A rule that leaves a member of sudo
# one environment string would keep her from logging in and from sudo.
test_policy_file_lockout_of_a_sudo_member_is_refused_naming_the_group() {
	trap pf_admins_cleanup EXIT
	local uid rule
	if ! getent group sudo >/dev/null; then
		groupadd sudo
		touch /tmp/argguard-pf-made-sudo
	fi
	useradd -G sudo "$PF_ADMIN"
	uid=$(id -u "$PF_ADMIN")
	pf_start
	printf '[global]\nmode = enforce\nmax_total_bytes = 64K\n\n[user %s]\nmax_envc = 1\n' \
		"$PF_ADMIN" >"$PF_FILE"
	rule="$PF_FILE:5: [uid $uid] max_envc = 1 with action deny in enforce mode would lock admins"
	rule+=" out: $PF_ADMIN is in group sudo, which administers this machine"
	pf_refused "$rule" argguard policy check "$PF_FILE"
	pf_refused "$rule" argguard policy apply "$PF_FILE"
	[[ $PF_OUT == *"the live policy is unchanged"* ]] || fail "expected apply to say nothing changed"
	pf_unchanged "a refused lockout of a sudo member"

	# The same rule for a user in no admin group is no lockout.
	sed -i "s/^\[user $PF_ADMIN\]/[user tester]/" "$PF_FILE"
	argguard policy check "$PF_FILE"
}

# A site's own admin group, named in admin_groups, is protected as sudo is;
# here its member has it as primary group. Before it is named, it is not.
test_policy_file_lockout_of_an_admin_groups_member_is_refused() {
	trap pf_admins_cleanup EXIT
	local uid rule
	groupadd "$PF_OPS"
	useradd -g "$PF_OPS" "$PF_OPS_ADMIN"
	uid=$(id -u "$PF_OPS_ADMIN")
	pf_start
	printf '[global]\nmode = enforce\nmax_total_bytes = 64K\n\n[user %s]\nmax_argc = 2\n' \
		"$PF_OPS_ADMIN" >"$PF_FILE"
	argguard policy check "$PF_FILE"

	printf '[global]\nmode = enforce\nmax_total_bytes = 64K\nadmin_groups = sudo, adm, %s\n' \
		"$PF_OPS" >"$PF_FILE"
	printf '\n[user %s]\nmax_argc = 2\n' "$PF_OPS_ADMIN" >>"$PF_FILE"
	rule="$PF_FILE:6: [uid $uid] max_argc = 2 with action deny in enforce mode would lock admins"
	rule+=" out: $PF_OPS_ADMIN is in group $PF_OPS, which administers this machine"
	pf_refused "$rule" argguard policy check "$PF_FILE"
	pf_refused "$rule" argguard policy apply "$PF_FILE"
	pf_unchanged "a refused lockout of a member of admin_groups"

	# A group this machine does not know (its directory not up yet, say) is a
	# warning, not a file refused; but its members are unknown, not none: the
	# gate counts each uid a rule names as maybe one of them (issue 40).
	sed -i "s/^admin_groups = .*/admin_groups = sudo, ag-no-such-group/" "$PF_FILE"
	rule="$PF_FILE:6: [uid $uid] max_argc = 2 with action deny in enforce mode would lock admins"
	rule+=" out: $PF_OPS_ADMIN (uid $uid) may be in group ag-no-such-group, which administers"
	rule+=" this machine (admin_groups) and which this host does not know now"
	pf_refused "$rule" argguard policy apply "$PF_FILE"
	[[ $PF_OUT == *"warning: $PF_FILE:4: admin_groups = sudo, ag-no-such-group: no such group ag-no-such-group on this host"* ]] ||
		fail "expected a warning naming the unknown group at $PF_FILE:4"
	pf_unchanged "a lockout of a member that an unknown admin group may have"
	sed -i -e "/^admin_groups = /a unknown_names = error" -e "s/^max_argc = 2$/max_argc = 64/" \
		"$PF_FILE"
	pf_refused "$PF_FILE:4: admin_groups = sudo, ag-no-such-group: no such group ag-no-such-group on this host (unknown_names = error" \
		argguard policy apply "$PF_FILE"
	pf_unchanged "a refused admin_groups"
}

# Issue 31: inih kept 49 bytes of a section's name, so [cgroup PATH] held
# for the cgroup at PATH's first 42 bytes ("cgroup " takes 7), one the file
# never named; and its 197-byte lines refused a header for a path over 188
# bytes, the one policy show prints for a rule that bpftool may write.
PF_LONG_TOP=/argguard-t-long

# pf_long_path LEN: "$PF_LONG_TOP/xxx.../xxx..." of LEN bytes, parts of 60.
pf_long_path() {
	local path=$PF_LONG_TOP part
	printf -v part '%60s' ''
	while ((${#path} < $1)); do
		path+=/${part// /x}
	done
	echo "${path:0:$1}"
}

pf_long_cleanup() {
	find "$CG$PF_LONG_TOP" -depth -type d -exec rmdir {} + 2>/dev/null || true
	restore_policy
}

test_policy_file_rule_for_a_220_byte_cgroup_path_holds_there_not_at_its_prefix() {
	trap pf_long_cleanup EXIT
	local path prefix out
	path=$(pf_long_path 220)
	prefix=${path:0:42} # what inih read: a sibling, cut in the middle of a name
	mkdir -p "$CG$path" "$CG$prefix"
	apply_policy "[global]" "mode = enforce" "max_total_bytes = 1M" \
		"[cgroup $path]" "max_total_bytes = 64K"

	argguard policy show >/tmp/argguard-pf-show.conf
	grep -qxF "[cgroup $path]" /tmp/argguard-pf-show.conf ||
		fail "expected policy show to print the rule's header, [cgroup $path]"
	out=$(argguard policy check /tmp/argguard-pf-show.conf 2>&1) ||
		fail "expected policy check to read back what policy show printed: $out"
	[[ $out == *"/tmp/argguard-pf-show.conf: valid"* ]] ||
		fail "expected policy check to call policy show's output valid: $out"

	expect E2BIG "root, 100K in the 220-byte cgroup: its 64K rule" \
		in_cgroup "$path" "$HELPERS/execsize" 100000 0 /bin/true
	expect allowed "root, 100K in $prefix, the path's first 42 bytes: only the 1M global rule" \
		in_cgroup "$prefix" "$HELPERS/execsize" 100000 0 /bin/true
}
