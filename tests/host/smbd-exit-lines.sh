#!/bin/bash
# SMBD_EXIT entries and lines say what happened as it happened: TARGET is
# the exit function smbd called (smbd_exit_server_cleanly when a client
# leaves) or the kernel's end of the process; an smbd that never served a
# client and exited 0 (smbd --version) is at info priority, not warning;
# on the terminal an exit reads "SMBD_EXIT ...: exited", not "on exited";
# and with --folded an exit, which weighs a lifetime, is no flame graph
# line (issue 25 items 5 and 21).
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

command -v smbclient >/dev/null || fail "smbclient not installed"
SMBD=$(command -v smbd || echo /usr/sbin/smbd)
[ -x "$SMBD" ] || fail "smbd not installed"

SMBD_PID=
smbd_cleanup() {
	[ -n "$SMBD_PID" ] && kill "$SMBD_PID" 2>/dev/null || true
	[ -n "$SMBD_PID" ] && for _ in $(seq 50); do kill -0 "$SMBD_PID" 2>/dev/null || break; sleep 0.1; done
	cleanup
}
trap smbd_cleanup EXIT

journald_ensure
port=$((20000 + ($$ + 7919) % 20000))
S="$TMP/samba"
samba_conf "$S" "$port"
# only the exits: every other view and the requests off
cat >"$TMP/smblat.conf" <<CONF
[agent]
user =
[smb]
enabled = no
[block]
enabled = no
[smbd]
enabled = yes
binary = $SMBD
breaks = no
include = SMBD_SMB2_NEGOTIATE
threshold = 1h
CONF

# wait_for SECONDS CMD...: polls CMD every 0.1 s
wait_for() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}

# 1. in the journal: smbd --version, then a client session
agent_start -c "$TMP/smblat.conf"
agent_pid=$AGENT_PID
"$SMBD" --version >"$TMP/version.out"
vpid_exit() { journal_json FUNCTION=SMBD_EXIT _PID="$agent_pid" | jq -e -s 'length >= 1' >/dev/null; }
wait_for 30 vpid_exit || fail "no SMBD_EXIT for smbd --version"
setsid "$SMBD" -F --no-process-group -s "$S/smb.conf" --debug-stdout >"$S/smbd.out" 2>&1 &
SMBD_PID=$!
ok=
for _ in $(seq 100); do
	timeout 5 smbclient "//127.0.0.1/share" -p "$port" -N -c "ls" >/dev/null 2>&1 && ok=1 && break
	kill -0 "$SMBD_PID" 2>/dev/null || { cat "$S/smbd.out" >&2; fail "smbd exited"; }
	sleep 0.2
done
[ -n "$ok" ] || fail "smbd does not answer on port $port"
# the session's child ends through exit_server_cleanly once smbclient left
cleanly() {
	journal_json FUNCTION=SMBD_EXIT _PID="$agent_pid" SMBD_EXIT_HOW=exit_server_cleanly |
		jq -e -s 'length >= 1' >/dev/null
}
wait_for 60 cleanly || fail "no SMBD_EXIT of a session child"
agent_stop
journal_json FUNCTION=SMBD_EXIT MESSAGE_ID=3aefbceff9ca401c9d1fb860c0bd08d8 _PID="$agent_pid" |
	jq -r '[.PID, .PRIORITY, .SMBD_EXIT_HOW, .TARGET, (.SMB_CLIENT // "-"), .MESSAGE] | @tsv' >"$TMP/exits"
cat "$TMP/exits"
# smbd --version: no client, status 0: info (6); TARGET the process's end
awk -F'\t' '$3 == "none" && $5 == "-"' "$TMP/exits" >"$TMP/quiet"
[ -s "$TMP/quiet" ] || fail "no SMBD_EXIT without a client and exit function"
awk -F'\t' '$2 != 6 {exit 1}' "$TMP/quiet" || fail "an smbd that served nobody and exited 0 is not at info priority: $(cat "$TMP/quiet")"
awk -F'\t' '$4 != "sched_process_exit" {exit 1}' "$TMP/quiet" ||
	fail "TARGET of an exit without smbd's exit functions: $(cut -f4 "$TMP/quiet")"
# the session child: exit_server_cleanly is what TARGET names
awk -F'\t' '$3 == "exit_server_cleanly"' "$TMP/exits" >"$TMP/clean"
awk -F'\t' '$4 !~ /:smbd_exit_server_cleanly$/ {exit 1}' "$TMP/clean" ||
	fail "TARGET of an exit through exit_server_cleanly: $(cut -f4 "$TMP/clean")"
awk -F'\t' '$2 != 4 {exit 1}' "$TMP/clean" || fail "a client's smbd exit is not at warning priority"

# 2. on the terminal, with --folded: the exit is a line on stderr, ": exited"
#    or its reason, and no folded line on stdout weighs its lifetime
agent_start -c "$TMP/smblat.conf" --folded
"$SMBD" --version >/dev/null
wait_for 30 grep -q " SMBD_EXIT " "$TMP/agent.err" || fail "no SMBD_EXIT line on stderr: $(cat "$TMP/agent.err")"
agent_stop
grep " SMBD_EXIT " "$TMP/agent.err"
! grep -q "SMBD_EXIT" "$TMP/agent.out" || fail "SMBD_EXIT in the folded lines: $(grep SMBD_EXIT "$TMP/agent.out")"
grep -q " SMBD_EXIT .*: exited" "$TMP/agent.err" || fail "the exit line does not say \": exited\""
! grep -q " on exited" "$TMP/agent.err" || fail "the exit line says \"on exited\""
echo "ok"
