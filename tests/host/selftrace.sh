#!/bin/bash
# The agent never traces itself, and stops when told even while events
# keep coming: a syscall:write probe at threshold 0 with its own output
# going to a file must not feed its writes back, must honour -d, SIGTERM
# must end a run flooded by another process, and a journal-mode probe on
# the syscall journal writes go through records no entry of the agent.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

journald_ensure
printf '[agent]\nuser =\n' >"$TMP/plain.conf"

# 1. -d 3 with every write of the machine traced, ours going to a file
#    (other agents may run on this machine: ours is told by its PID)
start=$(date +%s)
rc=0
"$SMBLAT" -c "$TMP/plain.conf" --stdout -u 0 -d 3 -f syscall:write >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; fail "-d 3 run still running after 60 s"; }
wait "$pid" || rc=$?
took=$(($(date +%s) - start))
[ "$rc" -eq 0 ] || { cat "$TMP/err"; fail "-d 3 run exited $rc"; }
[ "$took" -le 20 ] || fail "-d 3 took $took s"
n=$(awk -v p="$pid" '$3 == p' "$TMP/out" | wc -l)
[ "$n" -eq 0 ] || fail "$n rows of the agent's own writes: $(awk -v p="$pid" '$3 == p' "$TMP/out" | head -3)"
[ "$(stat -c %s "$TMP/out")" -lt 50000000 ] || fail "output grew to $(stat -c %s "$TMP/out") bytes in 3 s"

# 2. SIGTERM while another process floods the traced syscall
agent_start -c "$TMP/plain.conf" --stdout -u 0 -f syscall:getppid
python3 -c 'import os
while True: os.getppid()' &
flood=$!
for _ in $(seq 300); do [ "$(wc -l <"$TMP/agent.out")" -gt 1000 ] && break; sleep 0.1; done
[ "$(wc -l <"$TMP/agent.out")" -gt 1000 ] || fail "the flood made no rows"
kill -TERM "$AGENT_PID"
rc=0
for _ in $(seq 150); do kill -0 "$AGENT_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$AGENT_PID" 2>/dev/null && { kill -9 "$AGENT_PID"; kill "$flood"; fail "still running 15 s after SIGTERM under a flood"; }
wait "$AGENT_PID" || rc=$?
AGENT_PID=
kill "$flood"
[ "$rc" -eq 0 ] || fail "exit status $rc after SIGTERM under a flood"

# 3. journal mode: the agent's own sendmsg to journald is not traced
label="SELFSEND_$$"
printf '[agent]\nuser =\n[smb]\nenabled = no\n[probe %s]\ntarget = syscall:sendmsg\nthreshold = 0\n' \
	"$label" >"$TMP/journal.conf"
agent_start -c "$TMP/journal.conf"
agent_pid=$AGENT_PID
logger -t "selftrace-$$" "a sendmsg of another process"
for _ in $(seq 300); do
	journal_json "FUNCTION=$label" | grep -q . && break
	sleep 0.1
done
agent_stop
own=$(journal_json "FUNCTION=$label" "MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250" "PID=$agent_pid" | grep -c . || true)
all=$(journal_json "FUNCTION=$label" "MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250" | grep -c . || true)
echo "sendmsg entries: $all, of the agent: $own"
[ "$all" -ge 1 ] || fail "no sendmsg entry at all: the test proves nothing"
[ "$own" -eq 0 ] || fail "$own entries of the agent's own sendmsg"
echo ok
