#!/bin/bash
# The counted stacks of smbd's SMB2 requests are taken where smbd begins to
# handle the request (smbd_smb2_request_process_<cmd>), not where the reply
# goes out (smbd_smb2_request_done_ex, reached from a completion on a later
# turn of the event loop, the same for every command): a real smbd on
# loopback, started after the agent, and a client creating files; each
# SMBD_SMB2_CREATE stack ends in smbd_smb2_request_process_create, came
# through smbd_smb2_request_dispatch, names no reply function, and the
# stacks together count at least one call per file created.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

trap 'smbd_stop; cleanup' EXIT

wait_for() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}

journald_ensure
port=$((20000 + $$ % 20000))
S="$TMP/samba"

# stacks counted, no slow-call entries
cat >"$TMP/smblat.conf" <<CONF
[agent]
threshold = 1h
user =
[smb]
enabled = no
[histogram]
interval = 0
[smbd]
enabled = yes
vfs = no
stacks = yes
CONF

agent_start -c "$TMP/smblat.conf" --folded --stacks
# started after the agent: its processes are found as they come
smbd_start "$S" "$port"

files=20
echo data >"$TMP/f"
cmds=""
for i in $(seq "$files"); do cmds="$cmds put $TMP/f f$i-$$;"; done
timeout 60 smbclient "//127.0.0.1/share" -p "$port" -N -c "$cmds" >"$TMP/client.out" 2>&1 ||
	fail "smbclient: $(cat "$TMP/client.out")"

has_create() { grep -q ";SMBD_SMB2_CREATE [0-9]*$" "$TMP/agent.out"; }
kill -USR1 "$AGENT_PID"
wait_for 30 has_create || fail "no counted SMBD_SMB2_CREATE stack: $(cat "$TMP/agent.out" "$TMP/agent.err")"
agent_stop
grep ";SMBD_SMB2_CREATE [0-9]*$" "$TMP/agent.out" >"$TMP/create"
cat "$TMP/create"

bad=$(grep -v ";smbd_smb2_request_process_create;SMBD_SMB2_CREATE [0-9]*$" "$TMP/create" || true)
[ -z "$bad" ] || fail "a CREATE stack not ending in its handler: $bad"
bad=$(grep -v ";smbd_smb2_request_dispatch;" "$TMP/create" || true)
[ -z "$bad" ] || fail "a CREATE stack not through smbd_smb2_request_dispatch: $bad"
! grep -q "smbd_smb2_request_done\|smbd_smb2_request_error" "$TMP/create" ||
	fail "a CREATE stack taken at the reply"
calls=$(awk '{ n += $NF } END { print n + 0 }' "$TMP/create")
[ "$calls" -ge "$files" ] || fail "$calls CREATE calls counted, $files files created"
echo "PASS: $(wc -l <"$TMP/create") CREATE stacks, $calls calls, each from its handler"
