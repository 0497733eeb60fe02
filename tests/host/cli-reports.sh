#!/bin/bash
# What the agent prints reads as English and as a report: counts with the
# word in the right number ("1 call", "1 entry"), the tables of --hist (and
# --breakdown, --smbd-pid) under the time of each round, and -U's stacks
# in CSV rows (a column of their own) rather than dropped; the stop line
# counts what the journal received.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"
journald_ensure

prog="$TMP/reportprog-$$"
cp "$BUILD_ROOT/tests/slowprog" "$prog"
target="$prog:slow_call"
printf '[agent]\nuser =\n' >"$TMP/plain.conf"
wrong_number='\b1 (calls|entries|functions|probes|processes|stacks|requests|events|hooks)\b'

# 1. one call, one entry, one function: the status lines say so in the singular
agent_start -c "$TMP/plain.conf" --stdout -f "$target" 0
"$prog" 2 >/dev/null
for _ in $(seq 100); do grep -q "slow_call" "$TMP/agent.out" && break; sleep 0.1; done
agent_stop
cat "$TMP/agent.err"
grep -q "ready: 1 function attached" "$TMP/agent.err" || fail "no 'ready: 1 function attached'"
grep -q "func: 1 of 1 probe attached" "$TMP/agent.err" || fail "no 'func: 1 of 1 probe attached'"
grep -q "stopped: 1 entry written" "$TMP/agent.err" || fail "no 'stopped: 1 entry written'"
! grep -E "$wrong_number" "$TMP/agent.err" || fail "a count of 1 with a plural word"

# ... and the journal's counted-stack entry of the one call
agent_start -c "$TMP/plain.conf" --stacks -f "$target" 0
"$prog" 2 >/dev/null
agent_stop
msg=$(journal_json MESSAGE_ID=29fff22de3004d9c8fdf70318b61193f FUNCTION="$target" | field MESSAGE)
echo "$msg"
echo "$msg" | grep -q "stack 1 of 1: 1 call, " || fail "counted-stack entry: $msg"

# 2. --hist: every table under the time of its round
agent_start -c "$TMP/plain.conf" --stdout --hist=1 -d 4 -f "$target" 0
"$prog" 2 >/dev/null
rc=0
wait "$AGENT_PID" || rc=$?
AGENT_PID=
[ "$rc" -eq 0 ] || { cat "$TMP/agent.err"; fail "--hist run exited $rc"; }
cat "$TMP/agent.out"
headings=$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2}, the last [0-9]+\.[0-9] s:$' "$TMP/agent.out" || true)
[ "$headings" -ge 3 ] || fail "$headings time headings in 4 s of --hist=1"
# a table follows its heading, not another heading's
grep -A1 -E '^[0-9]{2}:[0-9]{2}:[0-9]{2}, the last' "$TMP/agent.out" | grep -q "^FUNCTION " ||
	fail "no table under a heading"

# 3. -j -U: the user stack in a STACK column, one row per call
agent_start -c "$TMP/plain.conf" -j -U -f "$target" 0
"$prog" 2 >/dev/null
for _ in $(seq 100); do grep -q "slow_call" "$TMP/agent.out" && break; sleep 0.1; done
agent_stop
cat "$TMP/agent.out"
head -1 "$TMP/agent.out" | grep -qx "ENDTIME_us,TASK,PID,FUNCTION,LATENCY_us,RVAL,STACK" ||
	fail "-j -U header: $(head -1 "$TMP/agent.out")"
python3 - "$TMP/agent.out" "$target" <<'PY' || fail "-j -U: no row with the call's user stack"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert all(len(r) == 7 for r in rows), rows
calls = [r for r in rows[1:] if r[3] == sys.argv[2]]
assert len(calls) == 1, calls
# symbolized or not (the program may be gone when its frames are read): frames, not nothing
assert len(calls[0][6].split(";")) >= 2, calls[0][6]
PY
# 4. the stop line counts every entry written to the journal, also the
# first status lines (sent before the writer thread runs) and those of the
# last moment (the final summary, the counted stacks)
agent_start -c "$TMP/plain.conf" --stacks -f "$target" 0
pid=$AGENT_PID
"$prog" 2 2 2 >/dev/null
agent_stop
read -r counted before < <(journal_json _PID="$pid" | python3 -c '
import json, sys
n = 0
for line in sys.stdin:
    e = json.loads(line)
    if e.get("MESSAGE_ID") == "000a570d70c34918a2d2b92626a85235":
        print(e.get("ENTRIES_WRITTEN", "?"), n)
        break
    n += 1
else:
    print("none", n)
')
echo "stop line: $counted entries written; the journal has $before entries of the agent before it"
[ "$before" -ge 7 ] || fail "$before entries before the stop line: 3 calls, a summary, a stack and status lines expected"
[ "$counted" = "$before" ] || fail "the stop line counts $counted entries written, the journal has $before"
echo ok
