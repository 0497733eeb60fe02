#!/bin/bash
# journald failing under the agent, on a journald of the test's own:
#  1. frozen (SIGSTOP) for 10 s under a flood: the agent keeps pinging the
#     watchdog and draining the ring buffer, counts what it could not write,
#     and the accounting still adds up once journald is back (SIGCONT);
#  2. killed while the agent runs (its socket left behind: ECONNREFUSED;
#     then removed: ENOENT), then started again: failures are said and
#     counted, writing resumes;
#  3. absent at start: the agent says so and prints events to the terminal;
#  4. frozen when the agent is stopped: it exits in bounded time and says on
#     stderr what it could not write.
. "$SOURCE_ROOT/tests/lib-journald.sh"
journald_ns "$@"
. "$SOURCE_ROOT/tests/lib-host.sh"
LISTENER=
trap '[ -z "$LISTENER" ] || kill "$LISTENER" 2>/dev/null; journald_private_cleanup; cleanup' EXIT
journald_private_start
. "$SOURCE_ROOT/tests/lib-accounting.sh"

prog="$TMP/floodprog"
cp "$BUILD_ROOT/tests/floodprog" "$prog"

# A notify socket that logs "TIME MESSAGE" per datagram.
python3 -u - "$TMP/notify.sock" >"$TMP/notify.log" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
while True:
    m = s.recv(4096).decode()
    for line in m.split("\n"):
        print("%.3f %s" % (time.time(), line))
PY
LISTENER=$!
for _ in $(seq 50); do [ -S "$TMP/notify.sock" ] && break; sleep 0.1; done

# --- 1: journald frozen under a flood --------------------------------------
label="FROZEN_$$"
write_flood_conf "$label" ""
NOTIFY_SOCKET="$TMP/notify.sock" WATCHDOG_USEC=2000000 agent_start -c "$TMP/smblat.conf"
"$prog" 40000 200 >"$TMP/n1" &
work=$!
sleep 1
kill -STOP "$JOURNALD_PID"
t0=$(date +%s.%N)
sleep 10
t1=$(date +%s.%N)
kill -CONT "$JOURNALD_PID"
kill -0 "$AGENT_PID" || fail "agent died while journald was frozen"
wait "$work"
sleep 2.5       # the queue drains, the loss timer fires
agent_stop
pings=$(awk -v a="$t0" -v b="$t1" '$1 > a && $1 < b && $2 == "WATCHDOG=1"' "$TMP/notify.log" | wc -l)
echo "watchdog pings while journald was frozen for 10 s: $pings"
[ "$pings" -ge 8 ] || fail "only $pings WATCHDOG=1 pings in 10 s with WATCHDOG_USEC=2s: the event loop blocked"
grep -q "journal writes failing: journald is not keeping up" "$TMP/agent.err" ||
	{ cat "$TMP/agent.err"; fail "no line saying journal writes were failing"; }
account "$label" "$(cat "$TMP/n1")"
[ "$WRITE_FAILED" -gt 0 ] || fail "journald frozen for 10 s and no write failed: the test proves nothing"
# Draining goes on while journald is frozen: the 4M ring buffer holds ~7000
# events, a stuck loop would lose nearly everything beyond that.
[ "$LOST_RINGBUF" -lt "$WRITE_FAILED" ] ||
	fail "ring buffer lost $LOST_RINGBUF, more than the $WRITE_FAILED write failures: the loop did not keep draining"

# --- 2: journald killed, then back ----------------------------------------
label="RESTART_$$"
write_flood_conf "$label" ""
agent_start -c "$TMP/smblat.conf"
n1=$("$prog" 200 1000)
sleep 1.5; journalctl --sync
journald_private_stop keep-socket
n2=$("$prog" 300 1000)
sleep 2.5       # a loss report fails too, and is kept for later
journald_private_start
n3=$("$prog" 200 1000)
sleep 2.5; journalctl --sync
# Gone again, its socket removed this time (ENOENT), and back.
journald_private_stop
n4=$("$prog" 100 1000)
sleep 2.5
journald_private_start
n5=$("$prog" 100 1000)
sleep 2.5
agent_stop
grep -q "journal writes failing: Connection refused" "$TMP/agent.err" ||
	{ cat "$TMP/agent.err"; fail "journald gone: no line saying writes fail with ECONNREFUSED"; }
grep -q "journal writes failing: No such file or directory" "$TMP/agent.err" ||
	{ cat "$TMP/agent.err"; fail "journald socket gone: no line saying writes fail with ENOENT"; }
[ "$(journal_json MESSAGE_ID=7106711428c445b698f0b7f8871465e2 | grep -c "journal writes resumed")" -ge 2 ] ||
	fail "not two status entries saying journal writes resumed"
account "$label" $((n1 + n2 + n3 + n4 + n5))
[ "$WRITE_FAILED" -ge $((n2 + n4)) ] ||
	fail "$((n2 + n4)) events while journald was down, only $WRITE_FAILED counted as write failed"
[ "$ENTRIES" -ge $((n1 + n3 + n5)) ] ||
	fail "writing did not resume: $ENTRIES entries for $((n1 + n3 + n5)) calls outside the outages"

# --- 4: stopped while journald is frozen ----------------------------------
# The agent must still exit, in bounded time, and say on stderr what it could
# not write; with that, the count still adds up.
label="EXITFROZEN_$$"
write_flood_conf "$label" ""
agent_start -c "$TMP/smblat.conf"
"$prog" 20000 100 >"$TMP/n4" &
work=$!
sleep 0.5
kill -STOP "$JOURNALD_PID"
wait "$work"
start=$(date +%s)
agent_stop
took=$(($(date +%s) - start))
kill -CONT "$JOURNALD_PID"
echo "agent stopped in ${took}s with journald frozen"
[ "$took" -le 15 ] || fail "agent took ${took}s to stop with journald frozen"
grep "lost $label:" "$TMP/agent.err" || { cat "$TMP/agent.err"; fail "nothing said on stderr about entries not written at exit"; }
sleep 1; journalctl --sync
read -r e_rb e_sup e_wf < <(sed -n "s/^smblat: lost $label: \([0-9]*\) ring buffer, \([0-9]*\) rate limited, \([0-9]*\) not written$/\1 \2 \3/p" "$TMP/agent.err" | tail -1)
account_partial() {
	# the summary at exit may be among what was not written: no COUNT check
	local out
	out=$(journal_json "FUNCTION=$label" "MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250" | grep -c . || true)
	echo "$out"
}
ENTRIES=$(account_partial)
LOSTJ=$(journal_json MESSAGE_ID=007f72e0507d4b96b52049ce539ad083 | python3 -c '
import json, sys
n = 0
for line in sys.stdin:
    for item in json.loads(line).get("LOST_FUNCTIONS", "").split():
        name, _, v = item.rpartition(":")
        if name == sys.argv[1]:
            n += sum(map(int, v.split("/")))
print(n)' "$label")
n4=$(cat "$TMP/n4")
total=$((ENTRIES + LOSTJ + e_rb + e_sup + e_wf))
echo "$label: workload $n4; journal $ENTRIES entries + $LOSTJ in loss entries + $((e_rb + e_sup + e_wf)) said on stderr = $total"
[ "$total" -eq "$n4" ] || fail "$label: $total accounted for, the workload made $n4 calls"
[ "$e_wf" -gt 0 ] || fail "journald frozen at exit but nothing unwritten: the test proves nothing"

# --- 3: no journald at start -----------------------------------------------
journald_private_stop
label="NOJOURNAL_$$"
write_flood_conf "$label" ""
agent_start -c "$TMP/smblat.conf"
"$prog" 5 >/dev/null
sleep 1
agent_stop
grep -q "journald is not running (/run/systemd/journal/socket: No such file or directory): printing events to the terminal instead" "$TMP/agent.err" ||
	{ cat "$TMP/agent.err"; fail "no line saying journald is absent"; }
[ "$(grep -c "fast_call\|$label" "$TMP/agent.out")" -ge 5 ] ||
	{ cat "$TMP/agent.out"; fail "events not printed to the terminal without journald"; }
echo ok
