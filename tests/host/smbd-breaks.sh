#!/bin/bash
# SMBD_OPLOCK_BREAK and SMBD_LEASE_BREAK: Samba's own protocol tests
# (smbtorture smb2.oplock.batch1, smb2.oplock.levelii501,
# smb2.lease.break_twice) make smbd break oplocks and a lease; the client
# prints every break it receives and the level it answers with. Each break
# the client answers must be one entry, in the same order with the same
# levels, from the smbd that served the client, with a latency under smbd's
# break timeout (levelii501's client answers 500 ms late); a level II
# oplock broken to none, which an SMB2 client does not acknowledge (smbd
# ends it itself; levelii501's late answer is refused), none. smbd and the
# client run in a network namespace of their own (port 445 is free there).
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

if [ "${1:-}" = --inner ]; then
	# in the namespace: $2 the samba directory
	S=$2
	ip link set lo up
	setsid smbd -F --no-process-group -s "$S/smb.conf" </dev/null >"$S/smbd.out" 2>&1 &
	sp=$!
	echo "$sp" >"$S/smbd.pid"
	stop() {
		kill "$sp" 2>/dev/null || true
		for _ in $(seq 100); do kill -0 "$sp" 2>/dev/null || return 0; sleep 0.1; done
	}
	trap stop EXIT
	for _ in $(seq 150); do
		timeout 5 smbclient //127.0.0.1/share -N -c ls >/dev/null 2>&1 && break
		sleep 0.2
	done
	timeout 120 smbtorture //127.0.0.1/share -U% smb2.oplock.batch1 >"$S/oplock.out" 2>&1 || exit 1
	timeout 120 smbtorture //127.0.0.1/share -U% smb2.oplock.levelii501 >>"$S/oplock.out" 2>&1 || exit 1
	timeout 120 smbtorture //127.0.0.1/share -U% smb2.lease.break_twice >"$S/lease.out" 2>&1 || exit 1
	exit 0
fi

command -v smbtorture >/dev/null || fail "smbtorture (samba-testsuite) not installed"
journald_ensure
S=$TMP/samba
samba_conf "$S"
printf '[agent]\nuser =\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n[smbd]\nenabled = yes\n' >"$TMP/conf"
agent_start -c "$TMP/conf"
grep -q "following smbd processes" "$TMP/agent.err" || fail "smbd processes not followed: $(cat "$TMP/agent.err")"
unshare -n "$0" --inner "$S" || fail "smbtorture failed: $(cat "$S"/*.out)"
sp=$(cat "$S/smbd.pid")
pid=$AGENT_PID
# stopping drains the ring buffer and the writer: every entry is written then
agent_stop

# the smbd processes that served the clients: children of the namespace's smbd
children=$(journal_json MESSAGE_ID=3aefbceff9ca401c9d1fb860c0bd08d8 _PID="$pid" |
	python3 -c 'import json,sys
for l in sys.stdin:
    e = json.loads(l)
    if e.get("PPID") == sys.argv[1]: print(e["PID"])' "$sp")
[ -n "$children" ] || fail "no SMBD_EXIT entry for a child of smbd $sp"

# check FUNCTION CLIENT_OUTPUT: the entries against the breaks the client saw
check() {
	local want got
	# (the run's summary at exit has the same FUNCTION, another MESSAGE_ID)
	journal_json FUNCTION="$1" _PID="$pid" MESSAGE_ID=06e3d38cf4f04c3c8e16f9276e76cd63 >"$TMP/$1.json"
	[ "$(grep -c . "$TMP/$1.json")" -gt 0 ] || fail "no $1 entry: $(grep -i break "$TMP/agent.err")"
	head -1 "$TMP/$1.json" | field MESSAGE
	# the client's handlers print each break and the level they acknowledge
	# (oplock: "Acking to level II", "Got break to level II ..., postponing
	# break response"; lease: "acking to 0x5 (RW)"); the breaks of a level II
	# oplock to none ("Break from level II to none", "Got break to none")
	# are not answered: smbd removes the oplock as it sends them
	grep -qE "Break from level II to none|Got break to none" "$2" || [ "$1" != SMBD_OPLOCK_BREAK ] ||
		fail "the client saw no break of a level II oplock to none"
	want=$(sed -nE 's/.*Acking to level II.*/level2/p; s/.*Got break to level II.*/level2/p;
		s/.*acking to 0x[0-9a-f]+ \(([RWH]*)\) in lease handler.*/\1/p' "$2" | tr '\n' ' ')
	got=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    print(json.loads(l)["BREAK_TO"], end=" ")' "$TMP/$1.json")
	echo "$1: client saw [$want], entries [$got]"
	[ -n "$want" ] && [ "$got" = "$want" ] || fail "$1: BREAK_TO [$got], the client answered [$want]"
	python3 - "$TMP/$1.json" $children <<'PY' || fail "$1 entries"
import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    assert e["PID"] in sys.argv[2:], "break from smbd %s, not a child of the test's smbd" % e["PID"]
    # lease states as MS-SMB2 and the client spell them
    for f in ("BREAK_FROM", "BREAK_TO"):
        assert e["FUNCTION"] != "SMBD_LEASE_BREAK" or e[f] in ("none", "R", "RW", "RH", "RWH"), "%s %s" % (f, e[f])
    lat = int(e["LATENCY_US"])
    # smbd gives up waiting for an answer after 35 s: under that, the client answered
    assert 0 < lat < 30000000, "LATENCY_US %d" % lat
PY
}
check SMBD_OPLOCK_BREAK "$S/oplock.out"
check SMBD_LEASE_BREAK "$S/lease.out"
# levelii501's client answers its break to level II 500 ms late: from the
# break sent to its answer
late=$(python3 -c 'import json,sys
print(max(int(json.loads(l)["LATENCY_US"]) for l in open(sys.argv[1])))' "$TMP/SMBD_OPLOCK_BREAK.json")
echo "the latest oplock break answered after $late us"
[ "$late" -ge 500000 ] || fail "no oplock break answered after the 500 ms the client waited ($late us)"
echo "ok"
