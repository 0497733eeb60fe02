#!/bin/bash
# SMBD_TIME_SPLIT covers the interval, or the part of it each smbd lived,
# and its phases add up to that: the main smbd, already waiting for
# events when the agent attached and idle a while longer, then forking a
# connection's smbd; that one from its fork on (its setup before its first
# wait included) to its exit, whose SMBD_EXIT entry gives its lifetime.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

command -v smbclient >/dev/null || fail "smbclient not installed"
SMBD=$(command -v smbd || echo /usr/sbin/smbd)
[ -x "$SMBD" ] || fail "smbd not installed"
SMBD_PID=
split_cleanup() {
	[ -n "$SMBD_PID" ] && kill "$SMBD_PID" 2>/dev/null || true
	[ -n "$SMBD_PID" ] && for _ in $(seq 50); do kill -0 "$SMBD_PID" 2>/dev/null || break; sleep 0.1; done
	cleanup
}
trap split_cleanup EXIT
journald_ensure
port=$((20000 + $$ % 20000))
S=$TMP/samba
samba_conf "$S" "$port"
setsid "$SMBD" -F --no-process-group -s "$S/smb.conf" </dev/null >"$S/smbd.out" 2>&1 &
SMBD_PID=$!
for _ in $(seq 150); do
	timeout 5 smbclient //127.0.0.1/share -p "$port" -N -c ls >/dev/null 2>&1 && break
	kill -0 "$SMBD_PID" 2>/dev/null || fail "smbd exited: $(cat "$S/smbd.out")"
	sleep 0.2
done
# the sessions of that wait have left: the main smbd waits for the next
for _ in $(seq 150); do
	# (smbd-notifyd and cleanupd stay: their names are their own)
	[ -z "$(pgrep -P "$SMBD_PID" -x smbd)" ] && break
	sleep 0.2
done

# one summary, at the end, over the whole run
printf '[agent]\nuser =\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n[smbd]\nenabled = yes\ntime_split = yes\n' \
	>"$TMP/conf"
agent_start -c "$TMP/conf"
pid=$AGENT_PID
# the workload's shape, not a wait for anything: the main smbd stays in its
# wait for events, attached to, for two seconds before a client comes
sleep 2
timeout 30 smbclient //127.0.0.1/share -p "$port" -N -c "ls; mkdir d$$; rmdir d$$" >"$TMP/client.out" 2>&1 ||
	fail "smbclient: $(cat "$TMP/client.out")"
x=
for _ in $(seq 150); do
	x=$(journal_json MESSAGE_ID=3aefbceff9ca401c9d1fb860c0bd08d8 _PID="$pid" PPID="$SMBD_PID" | tail -1)
	[ -n "$x" ] && break
	sleep 0.2
done
[ -n "$x" ] || fail "no SMBD_EXIT of the session's smbd"
child=$(field PID <<<"$x")
agent_stop

splits=$(journal_json FUNCTION=SMBD_TIME_SPLIT _PID="$pid")
main=$(jq -c "select(.PID == \"$SMBD_PID\")" <<<"$splits" | tail -1)
sess=$(jq -c "select(.PID == \"$child\")" <<<"$splits" | tail -1)
[ -n "$main" ] || fail "no SMBD_TIME_SPLIT of the main smbd $SMBD_PID: $splits"
[ -n "$sess" ] || fail "no SMBD_TIME_SPLIT of the session's smbd $child: $splits"
echo "main: $(jq -r .MESSAGE <<<"$main")"
echo "session: $(jq -r .MESSAGE <<<"$sess")"
lifetime=$(field LATENCY_US <<<"$x")
# the phases add up to the wall time (5 %), which is the whole interval for
# the main smbd and the lifetime for the session's (5 % and 1 ms)
python3 - "$main" "$sess" "$lifetime" <<'PY' || fail "time split (above)"
import json, sys
main, sess, lifetime = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])
phases = ("WAIT_US", "RECV_US", "PARSE_US", "RUN_US", "SEND_US", "CTDB_US", "OTHER_US")
bad = []
for name, e in (("main", main), ("session", sess)):
    wall = int(e["WALL_US"])
    total = sum(int(e[p]) for p in phases)
    print("%s: WALL_US %d, phases %d, INTERVAL_S %s" % (name, wall, total, e["INTERVAL_S"]))
    if abs(total - wall) > 0.05 * wall:
        bad.append("%s: phases %d us, WALL_US %d us" % (name, total, wall))
interval = float(main["INTERVAL_S"]) * 1e6
if abs(int(main["WALL_US"]) - interval) > 0.05 * interval:
    bad.append("main smbd: WALL_US %s, the interval %d us" % (main["WALL_US"], interval))
if int(main["WAIT_US"]) < 0.5 * interval:
    bad.append("main smbd: waited %s us of %d" % (main["WAIT_US"], interval))
print("session: lifetime %d us" % lifetime)
if abs(int(sess["WALL_US"]) - lifetime) > 0.05 * lifetime + 1000:
    bad.append("session smbd: WALL_US %s, its lifetime %d us" % (sess["WALL_US"], lifetime))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
echo "ok"
