#!/bin/bash
# The process filters hold for the smbd views too: with -p PID the agent
# writes SMBD_EXIT, SMBD_OPLOCK_BREAK and SMBD_LEASE_BREAK entries of that
# process only; --smbd-pid refuses, in one line and a non-zero exit, a pid
# that does not exist or is not an smbd. smbd runs in a network namespace
# of its own (smbtorture's port 445 is free there), its clients too.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

command -v smbtorture >/dev/null || fail "smbtorture (samba-testsuite) not installed"
command -v nsenter >/dev/null || fail "nsenter not installed"
journald_ensure
S=$TMP/samba
samba_conf "$S"
SP=
held=()
holders=()
filters_cleanup() {
	for h in "${held[@]}" "${holders[@]}"; do kill "$h" 2>/dev/null || true; done
	[ -n "$SP" ] && kill "$SP" 2>/dev/null || true
	[ -n "$SP" ] && for _ in $(seq 50); do kill -0 "$SP" 2>/dev/null || break; sleep 0.1; done
	cleanup
}
trap filters_cleanup EXIT
unshare -n sh -c 'ip link set lo up && exec setsid smbd -F --no-process-group -s "$1"' sh "$S/smb.conf" \
	</dev/null >"$S/smbd.out" 2>&1 &
SP=$!
inns=(nsenter --net="/proc/$SP/ns/net")
for _ in $(seq 150); do
	timeout 5 "${inns[@]}" smbclient //127.0.0.1/share -N -c ls >/dev/null 2>&1 && break
	kill -0 "$SP" 2>/dev/null || fail "smbd exited: $(cat "$S/smbd.out")"
	sleep 0.2
done
printf '[agent]\nuser =\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n[smbd]\nenabled = yes\n' >"$TMP/conf"

# 1. --smbd-pid: a process that does not exist, or is not an smbd, is one
#    clear line and a non-zero exit; an smbd is taken
refused() {
	local rc=0
	timeout 30 "$SMBLAT" -c "$TMP/conf" --smbd-pid "$1" >"$TMP/refused.out" 2>"$TMP/refused.err" || rc=$?
	echo "--smbd-pid $1: exit $rc: $(cat "$TMP/refused.err")"
	[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "--smbd-pid $1 ($2) was taken (exit $rc)"
	[ "$(grep -c . "$TMP/refused.err")" -eq 1 ] || fail "--smbd-pid $1: not one line: $(cat "$TMP/refused.err")"
	grep -q "$3" "$TMP/refused.err" || fail "--smbd-pid $1: does not say \"$3\""
}
refused 999999 "no process" "no such process"
refused $$ "a shell" "not an smbd"
agent_start -c "$TMP/conf" --smbd-pid "$SP"
agent_stop

# 2. two sessions, each held open by a client waiting on a FIFO; the agent
#    follows one of them: only its exit is an entry
session_child() {
	local before=$1 c
	for _ in $(seq 150); do
		c=$(comm -13 <(echo "$before") <(pgrep -P "$SP" | sort) | head -1)
		[ -n "$c" ] && { echo "$c"; return 0; }
		sleep 0.2
	done
	fail "no smbd child for the held session"
}
children=()
holders=()
for i in 1 2; do
	mkfifo "$TMP/hold$i"
	before=$(pgrep -P "$SP" | sort)
	"${inns[@]}" smbclient //127.0.0.1/share -N <"$TMP/hold$i" >/dev/null 2>&1 &
	held+=($!)
	# the FIFO's writer is a process of its own: no later client inherits it
	sleep 600 >"$TMP/hold$i" &
	holders+=($!)
	children+=("$(session_child "$before")")
done
echo "sessions: ${children[*]}"
agent_start -c "$TMP/conf" -p "${children[0]}"
pid=$AGENT_PID
# the clients leave: each session's smbd exits
kill "${holders[@]}"
for c in "${children[@]}"; do
	for _ in $(seq 150); do kill -0 "$c" 2>/dev/null || break; sleep 0.2; done
	! kill -0 "$c" 2>/dev/null || fail "session smbd $c still running after its client left"
done
agent_stop
exits=$(journal_json MESSAGE_ID=3aefbceff9ca401c9d1fb860c0bd08d8 _PID="$pid" | jq -r .PID | sort -u | tr '\n' ' ')
echo "-p ${children[0]}: SMBD_EXIT of [$exits]"
[ "$exits" = "${children[0]} " ] || fail "-p ${children[0]}: SMBD_EXIT entries of [$exits]"

# 3. -p the main smbd while its children break oplocks and leases and exit:
#    no entry of theirs
agent_start -c "$TMP/conf" -p "$SP"
pid=$AGENT_PID
before=$(pgrep -P "$SP" | sort)
timeout 120 "${inns[@]}" smbtorture //127.0.0.1/share -U% smb2.oplock.batch1 >"$TMP/oplock.out" 2>&1 ||
	fail "smbtorture: $(tail -5 "$TMP/oplock.out")"
timeout 120 "${inns[@]}" smbtorture //127.0.0.1/share -U% smb2.lease.break_twice >"$TMP/lease.out" 2>&1 ||
	fail "smbtorture: $(tail -5 "$TMP/lease.out")"
grep -q "Acking to level II" "$TMP/oplock.out" || fail "smbtorture saw no oplock break"
grep -q "acking to" "$TMP/lease.out" || fail "smbtorture saw no lease break"
# its children are gone before the agent stops: their exits were seen
for _ in $(seq 150); do
	[ -z "$(comm -13 <(echo "$before") <(pgrep -P "$SP" | sort))" ] && break
	sleep 0.2
done
agent_stop
others=$(journal_json LAYER=smbd _PID="$pid" | jq -r --arg sp "$SP" \
	'select((.FUNCTION // "") | test("^SMBD_(EXIT|OPLOCK_BREAK|LEASE_BREAK)$")) | select(.PID and .PID != $sp) |
	"\(.FUNCTION) \(.PID)"' |
	sort | uniq -c)
[ -z "$others" ] || fail "-p $SP: entries of other processes: $others"
echo "ok"
