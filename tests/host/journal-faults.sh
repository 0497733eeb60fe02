#!/bin/bash
# journald failing under the agent, on a journald of the test's own:
#  1. frozen (SIGSTOP) for as long as a flood runs, with no rate limit: the
#     agent keeps pinging the watchdog; once its queue for journald is full
#     it stops reading the ring buffer (backpressure: the kernel drops and
#     counts the rest, rather than the agent decoding events only to refuse
#     them), and the accounting still adds up once journald is back (SIGCONT);
#  2. killed while the agent runs (its socket left behind: ECONNREFUSED;
#     then removed: ENOENT), then started again: failures are said and
#     counted, writing resumes;
#  3. absent at start: the agent says so and prints events to the terminal;
#  4. frozen when the agent is stopped: it exits in bounded time and says on
#     stderr what it could not write.
. "${SOURCE_ROOT:?}/tests/lib-journald.sh"
journald_ns "$@"
. "${SOURCE_ROOT:?}/tests/lib-host.sh"
LISTENER=
trap '[ -z "$LISTENER" ] || kill "$LISTENER" 2>/dev/null; journald_private_cleanup; cleanup' EXIT
journald_private_start
. "${SOURCE_ROOT:?}/tests/lib-accounting.sh"

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

# wait_for WHAT COMMAND...: runs COMMAND every 0.2 s until it succeeds, 120 s at most
wait_for() {
	local what=$1
	shift
	for _ in $(seq 600); do
		"$@" && return 0
		sleep 0.2
	done
	fail "timed out waiting for $what"
}

# entries_at_least LABEL N: journald has stored N slow-call entries of LABEL
entries_at_least() {
	journalctl --sync 2>/dev/null || true
	[ "$(journalctl -q -t smblat -o cat --since "@$TEST_START" "FUNCTION=$1" MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250 2>/dev/null |
		wc -l)" -ge "$2" ]
}

# write_failed_reported LABEL N: loss entries in the journal count N write failures of LABEL
write_failed_reported() {
	[ "$(lost_of "$1" failed)" -ge "$2" ]
}

# status_counts FROM: "WRITTEN FAILED" of each STATUS= the agent sent, from line FROM of the notify log
status_counts() {
	tail -n +"$1" "$TMP/notify.log" | sed -n 's/^[0-9.]* STATUS=.* \([0-9]*\) entries written, \([0-9]*\) failed$/\1 \2/p'
}

# failed_at_least FROM N: a STATUS= since line FROM counts N failed writes
failed_at_least() {
	status_counts "$1" | awk -v n="$2" '$2 >= n {ok = 1} END {exit !ok}'
}

# writer_idle FROM: two STATUS= in a row since line FROM (one a second) with the
# same counts: the agent's queue of entries for journald is empty
writer_idle() {
	status_counts "$1" | awk 'prev == $0 {ok = 1} {prev = $0} END {exit !ok}'
}

# notify_mark: where the notify log ends now, for the waits above
notify_mark() {
	echo $(($(wc -l <"$TMP/notify.log") + 1))
}

# --- 1: journald frozen under a flood --------------------------------------
label="FROZEN_$$"
write_flood_conf "$label" "rate_limit = 0"
NOTIFY_SOCKET="$TMP/notify.sock" WATCHDOG_USEC=2000000 agent_start -c "$TMP/smblat.conf"
"$prog" 40000 200 >"$TMP/n1" &
work=$!
wait_for "the flood's first entries" entries_at_least "$label" 1
# Frozen for as long as the flood runs (8 s of calls at least): the agent
# must keep draining the ring buffer and pinging the watchdog meanwhile.
kill -STOP "$JOURNALD_PID"
t0=$(date +%s.%N)
wait "$work"
t1=$(date +%s.%N)
kill -CONT "$JOURNALD_PID"
kill -0 "$AGENT_PID" || fail "agent died while journald was frozen"
mark=$(awk -v b="$t1" '$1 < b' "$TMP/notify.log" | wc -l)
wait_for "the agent's queue to drain" writer_idle $((mark + 1))
agent_stop
frozen=$(python3 -c 'import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))' "$t0" "$t1")
pings=$(awk -v a="$t0" -v b="$t1" '$1 > a && $1 < b && $2 == "WATCHDOG=1"' "$TMP/notify.log" | wc -l)
echo "watchdog pings while journald was frozen for $frozen s: $pings"
python3 -c 'import sys; sys.exit(float(sys.argv[1]) < 4)' "$frozen" ||
	fail "journald frozen for only $frozen s: the flood ended too soon to prove anything"
# WATCHDOG_USEC=2s: a ping a second, less one for each end of the window
python3 -c 'import sys; sys.exit(int(sys.argv[1]) < float(sys.argv[2]) * 0.8 - 1)' "$pings" "$frozen" ||
	fail "only $pings WATCHDOG=1 pings in $frozen s with WATCHDOG_USEC=2s: the event loop blocked"
grep -q "journal writes failing: journald is not keeping up" "$TMP/agent.err" ||
	{ cat "$TMP/agent.err"; fail "no line saying journal writes were failing"; }
account "$label" "$(cat "$TMP/n1")"
[ "$WRITE_FAILED" -gt 0 ] || fail "journald frozen for 10 s and no write failed: the test proves nothing"
# Backpressure: the first event the full queue refuses stops the reading
# until half the queue is free, so the kernel drops the rest of the flood
# (ring buffer lost); an agent reading on refuses them one by one instead.
[ "$LOST_RINGBUF" -gt $((WRITE_FAILED * 10)) ] ||
	fail "ring buffer lost $LOST_RINGBUF, write failed $WRITE_FAILED: the agent went on reading events it could only refuse"

# --- 2: journald killed, then back ----------------------------------------
label="RESTART_$$"
write_flood_conf "$label" ""
from=$(notify_mark)
NOTIFY_SOCKET="$TMP/notify.sock" agent_start -c "$TMP/smblat.conf"
n1=$("$prog" 200 1000)
wait_for "$n1 entries in the journal" entries_at_least "$label" "$n1"
journald_private_stop keep-socket
n2=$("$prog" 300 1000)
# every write failed, and a loss report with them (kept for later: it failed too)
wait_for "$n2 failed writes" failed_at_least "$from" "$n2"
journald_private_start
n3=$("$prog" 200 1000)
wait_for "$((n1 + n3)) entries in the journal" entries_at_least "$label" $((n1 + n3))
wait_for "the kept loss report" write_failed_reported "$label" "$n2"
# Gone again, its socket removed this time (ENOENT), and back.
journald_private_stop
n4=$("$prog" 100 1000)
wait_for "$((n2 + n4)) failed writes" failed_at_least "$from" $((n2 + n4))
journald_private_start
n5=$("$prog" 100 1000)
wait_for "$((n1 + n3 + n5)) entries in the journal" entries_at_least "$label" $((n1 + n3 + n5))
wait_for "the loss reports of both outages" write_failed_reported "$label" $((n2 + n4))
agent_stop
grep -q "journal writes failing: Connection refused" "$TMP/agent.err" ||
	{ cat "$TMP/agent.err"; fail "journald gone: no line saying writes fail with ECONNREFUSED"; }
grep -q "journal writes failing: No such file or directory" "$TMP/agent.err" ||
	{ cat "$TMP/agent.err"; fail "journald socket gone: no line saying writes fail with ENOENT"; }
# writer resumed (base/messages.h)
[ "$(journal_json MESSAGE_ID=dfa753592cc54982a469608e72db4a98 | grep -c "journal writes resumed")" -ge 2 ] ||
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
wait_for "the flood's first entries" entries_at_least "$label" 1
kill -STOP "$JOURNALD_PID"
wait "$work"
start=$(date +%s)
agent_stop
took=$(($(date +%s) - start))
kill -CONT "$JOURNALD_PID"
echo "agent stopped in ${took}s with journald frozen"
[ "$took" -le 15 ] || fail "agent took ${took}s to stop with journald frozen"
grep "lost $label:" "$TMP/agent.err" || { cat "$TMP/agent.err"; fail "nothing said on stderr about entries not written at exit"; }
journalctl --sync
read -r e_rb e_sup e_wf < <(sed -n "s/^smblat: lost $label: \([0-9]*\) ring buffer, \([0-9]*\) rate limited, \([0-9]*\) not written, [0-9]* not timed$/\1 \2 \3/p" "$TMP/agent.err" | tail -1)
account_partial() {
	# the summary at exit may be among what was not written: no COUNT check
	local out
	out=$(journal_json "FUNCTION=$label" "MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250" | grep -c . || true)
	echo "$out"
}
ENTRIES=$(account_partial)
LOSTJ=$(lost_of "$label" all)
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
terminal_lines() { [ "$(grep -c "fast_call\|$label" "$TMP/agent.out")" -ge 5 ]; }
wait_for "5 events on the terminal" terminal_lines
agent_stop
grep -q "journald is not running (/run/systemd/journal/socket: No such file or directory): printing events to the terminal instead" "$TMP/agent.err" ||
	{ cat "$TMP/agent.err"; fail "no line saying journald is absent"; }
[ "$(grep -c "fast_call\|$label" "$TMP/agent.out")" -ge 5 ] ||
	{ cat "$TMP/agent.out"; fail "events not printed to the terminal without journald"; }
echo ok
