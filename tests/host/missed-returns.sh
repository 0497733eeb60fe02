#!/bin/bash
# A call whose return never comes (left by longjmp here; in the kernel a
# return program the kernel skipped, a kretprobe out of instances) must
# not hide the thread's later calls: its frame is found over at the next
# entry and counted as UNTIMED, and every call that returns is counted.
# Before (issue 25 item 13) the stale frames stayed: 16 of them filled the
# thread's frame stack and every later call was lost as not timed.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

journald_ensure
prog="$TMP/jmpprog-$$"
cp "$BUILD_ROOT/tests/jmpprog" "$prog"
label="$prog:op"
printf '[agent]\nuser =\n[smb]\nenabled = no\n[histogram]\ninterval = 1h\n[journal]\nlost_interval = 1h\n' >"$TMP/conf"
SUM=ab8331e2b4474579a55840c9d3a77bac

mkfifo "$TMP/go"
"$prog" w <"$TMP/go" >"$TMP/prog.out" &
pp=$!
exec 3>"$TMP/go"
# -a 1: the call keeps a frame for its argument, also where uprobe.session would need none
agent_start -c "$TMP/conf" -p "$pp" -f "$label" -a 1 -m 1000
apid=$AGENT_PID
echo go >&3
exec 3>&-
wait "$pp" || fail "jmpprog failed: $(cat "$TMP/prog.out")"
agent_stop
count=$(journal_json "MESSAGE_ID=$SUM" "_PID=$apid" "FUNCTION=$label" | jq -s 'map(.COUNT | tonumber) | add // 0')
untimed=$(lost_of "$label" untimed)
echo "COUNT $count, UNTIMED $untimed"
[ "$count" -eq 50 ] || fail "$count calls counted, want the 50 that returned"
[ "$untimed" -eq 20 ] || fail "$untimed calls counted as not timed, want the 20 left by longjmp"
echo "ok"
