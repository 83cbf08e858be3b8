# SPDX-License-Identifier: GPL-2.0
# A policy that composes, for a mixed fleet (issue 40): fragments in
# argguard.conf.d/*.conf merge after the file and are live, a key or rule
# given twice names both places and changes nothing, and a user this host
# does not know is skipped with a warning, not a file refused, until
# argguard-names.service applies the file again once the user is known.
#
# Every command here is expected to succeed; those expected to fail are
# tested with if.

PC_DIR=$POLICY_FILE.d
PC_SITE=/tmp/argguard-pc-site.conf
PC_GHOST=ag-ghost
PC_OUT=

# The site file back with no fragments, the daemon told, the user made gone.
pc_cleanup() {
	userdel "$PC_GHOST" 2>/dev/null || true
	rm -rf "$PC_DIR"
	[[ ! -f $PC_SITE ]] || mv "$PC_SITE" "$POLICY_FILE"
	systemctl reload argguard.service
}

# What the running daemon has logged since it started, one message a line.
pc_journal() {
	journalctl -u argguard.service --no-pager -o cat \
		_SYSTEMD_INVOCATION_ID="$(systemctl show -p InvocationID --value argguard.service)"
}

# pc_said TEXT: the running daemon has logged TEXT, as it is (brackets and all).
pc_said() { pc_journal | grep -F -- "$1" >/dev/null; }

# The daemon refuses the policy file on reload, and systemctl reload says so.
pc_reload_refused() {
	if systemctl reload argguard.service; then
		fail "expected systemctl reload to fail: the daemon to refuse the policy"
	fi
}

# pc_refused WANT CMD...: CMD must fail, and say WANT. Its output is left in PC_OUT.
pc_refused() {
	local want=$1
	shift
	if PC_OUT=$("$@" 2>&1); then
		fail "expected '$*' to be refused; it passed: $PC_OUT"
	fi
	printf '%s:\n%s\n' "$*" "$PC_OUT"
	[[ $PC_OUT == *"$want"* ]] || fail "expected '$*' to say: $want"
}

# pc_live TEXT: 'argguard policy show' prints TEXT, lines and all.
pc_live() { [[ $'\n'$(argguard policy show)$'\n' == *$'\n'"$1"$'\n'* ]]; }

test_policy_compose_fragments_merge_and_are_live() {
	trap pc_cleanup EXIT
	local rc=0 diff
	cp "$POLICY_FILE" "$PC_SITE"
	mkdir -m 0755 "$PC_DIR"
	printf '; the testers of this role\n[uid %s]\nmax_total_bytes = 64K\n' "$TESTER" \
		>"$PC_DIR/50-tester.conf"
	printf 'not a policy\n' >"$PC_DIR/README"
	printf 'not a policy\n' >"$PC_DIR/40-old.conf.dpkg-old"
	chmod 0644 "$PC_DIR"/*
	argguard policy check "$POLICY_FILE"
	systemctl reload argguard.service
	pc_live $'[uid 1000]\nmax_total_bytes = 65536' ||
		fail "expected the fragment's [uid 1000] live after a reload: $(argguard policy show)"
	expect E2BIG "the tester, 100K: the fragment's 64K" \
		"${AS_TESTER[@]}" "$HELPERS/execsize" 100000 0 /bin/true
	expect allowed "root, 100K: the file's 1M" "$HELPERS/execsize" 100000 0 /bin/true
	diff=$(argguard policy show --diff) || rc=$?
	assert_eq "0:" "$rc:$diff" "policy show --diff against the file and its fragment"
	wait_for 15 textfile_says argguard_policy_drift 0 ||
		fail "expected the daemon's drift gauge 0 with the merged policy live"

	# The daemon's drift check sees a fragment edited, not only the file.
	printf '[uid %s]\nmax_total_bytes = 32K\n' "$TESTER" >"$PC_DIR/50-tester.conf"
	wait_for 15 textfile_says argguard_policy_drift 1 ||
		fail "expected the daemon's drift gauge 1 once a fragment changed"
	[[ $(argguard status | grep '^policy_file: ') == "policy_file: DIFFERS from $POLICY_FILE"* ]] ||
		fail "expected status to say the live policy differs from the file and its fragments"
	systemctl reload argguard.service
	pc_live $'[uid 1000]\nmax_total_bytes = 32768' || fail "expected the edited fragment live"

	# Whoever can write a fragment writes the policy: one that is not root's is refused.
	chown nobody "$PC_DIR/50-tester.conf"
	pc_refused "refusing $PC_DIR/50-tester.conf: it belongs to uid $(id -u nobody), who could write the policy; it must be root's" \
		argguard policy check "$POLICY_FILE"
	pc_reload_refused
	pc_live $'[uid 1000]\nmax_total_bytes = 32768' ||
		fail "expected the policy in force kept after a refused fragment"
}

test_policy_compose_duplicate_names_both_places_and_the_policy_stays() {
	trap pc_cleanup EXIT
	local first before want
	cp "$POLICY_FILE" "$PC_SITE"
	first=$(grep -n '^max_total_bytes' "$POLICY_FILE" | head -n 1 | cut -d: -f1)
	[[ -n $first ]] || fail "expected max_total_bytes in the site's [global]"
	before=$(argguard policy show)
	mkdir -m 0755 "$PC_DIR"
	printf '; a role that wants more\n[global]\nmax_total_bytes = 2M\n' >"$PC_DIR/60-dup.conf"
	want="$PC_DIR/60-dup.conf:3: a second 'max_total_bytes' in [global] (the first is at $POLICY_FILE:$first)"
	pc_refused "$want" argguard policy check "$POLICY_FILE"
	pc_refused "$want" argguard policy apply "$POLICY_FILE"
	[[ $PC_OUT == *"the live policy is unchanged"* ]] || fail "expected apply to say nothing changed"
	pc_reload_refused
	pc_said "$want" || fail "expected the daemon to name both places on reload"
	assert_eq "$before" "$(argguard policy show)" "the live policy after a duplicate key"

	printf '[uid %s]\nmax_argc = 100\n' "$TESTER" >"$PC_DIR/60-dup.conf"
	printf '\n[uid %s]\nmax_argc = 200\n' "$TESTER" >"$PC_DIR/70-dup.conf"
	pc_refused "$PC_DIR/70-dup.conf:2: a second rule for uid $TESTER (the first is at $PC_DIR/60-dup.conf:1)" \
		argguard policy apply "$POLICY_FILE"
	assert_eq "$before" "$(argguard policy show)" "the live policy after a duplicate rule"
}

# A rule for a user this host does not know, as at boot before SSSD: the
# rest applies, the journal says what was skipped, and once the user is
# known argguard-names.service applies the file again.
test_policy_compose_unknown_user_applies_with_a_warning_then_resolves() {
	trap pc_cleanup EXIT
	local uid want
	cp "$POLICY_FILE" "$PC_SITE"
	mkdir -m 0755 "$PC_DIR"
	printf '[user %s]\nmax_argc = 500\n\n[uid %s]\nmax_total_bytes = 64K\n' "$PC_GHOST" "$TESTER" \
		>"$PC_DIR/50-builders.conf"
	want="$PC_DIR/50-builders.conf:1: [user $PC_GHOST]: no such user on this host; rule skipped"
	PC_OUT=$(argguard policy check "$POLICY_FILE" 2>&1)
	echo "$PC_OUT"
	[[ $PC_OUT == *"warning: $want"*"$POLICY_FILE: valid"* ]] ||
		fail "expected policy check to warn, naming FILE:LINE, and pass"
	systemctl reload argguard.service
	pc_said "$want" || fail "expected the daemon's journal to say what it skipped"
	pc_live $'[uid 1000]\nmax_total_bytes = 65536' ||
		fail "expected the rest of the fragment live: $(argguard policy show)"
	[[ $(argguard status | grep '^last apply: ') == *"applied $POLICY_FILE, skipping 1 name unknown on this host (the first at $PC_DIR/50-builders.conf:1)"* ]] ||
		fail "expected status to say a name was skipped: $(argguard status | grep '^last apply: ')"
	[[ -f /run/argguard.names-unknown ]] || fail "expected /run/argguard.names-unknown"

	# The unit that applies the file again once names resolve, after NSS is up.
	assert_eq enabled "$(systemctl is-enabled argguard-names.service)" "argguard-names.service"
	[[ " $(systemctl show -p After --value argguard-names.service) " == *" nss-user-lookup.target "* ]] ||
		fail "expected argguard-names.service ordered after nss-user-lookup.target"
	useradd "$PC_GHOST"
	uid=$(id -u "$PC_GHOST")
	# Its reload returns once the file is live.
	systemctl start argguard-names.service
	pc_live $'[uid '"$uid"$']\nmax_argc = 500' ||
		fail "expected [user $PC_GHOST] live once the user is known: $(argguard policy show)"
	[[ ! -e /run/argguard.names-unknown ]] ||
		fail "expected /run/argguard.names-unknown gone once every name resolved"
	[[ $(systemctl show -p ConditionResult --value argguard-names.service) == yes ]] ||
		fail "expected argguard-names.service to have run"

	# With no name skipped, the unit does nothing.
	pc_cleanup
	systemctl start argguard-names.service
	assert_eq no "$(systemctl show -p ConditionResult --value argguard-names.service)" \
		"argguard-names.service's condition with no name skipped"

	# A site that wants an unknown name to be an error says so.
	cp "$POLICY_FILE" "$PC_SITE"
	mkdir -m 0755 "$PC_DIR"
	printf '[global]\nunknown_names = error\n\n[user %s]\nmax_argc = 500\n' "$PC_GHOST" \
		>"$PC_DIR/50-builders.conf"
	pc_refused "$PC_DIR/50-builders.conf:4: [user $PC_GHOST]: no such user on this host (unknown_names = error" \
		argguard policy apply "$POLICY_FILE"
}
