#!/bin/bash
# Interval summaries in a real journald: one entry per active FUNCTION with
# exact counts and percentiles within one bucket; idle intervals write
# nothing; SIGUSR1 writes one at once.
. "$SOURCE_ROOT/tests/lib-host.sh"

journald_ensure
prog="$TMP/slowprog"
cp "$BUILD_ROOT/tests/slowprog" "$prog"
label="SUMMARY_$$"
cat >"$TMP/smblat.conf" <<CONF
[agent]
threshold = 1s
user =
[smb]
enabled = no
[histogram]
interval = 2s
[probe $label]
target = $prog:slow_call
CONF

summaries() {
	journal_json "FUNCTION=$label" "MESSAGE_ID=ab8331e2b4474579a55840c9d3a77bac" | python3 -c '
import json, sys
for line in sys.stdin:
    e = json.loads(line)
    print(e["COUNT"], e["MIN_US"], e["MAX_US"], e["P50_US"], e["P99_US"], e["SLOW_COUNT"], e["INTERVAL_S"], len(e["MESSAGE"].splitlines()))
'
}

agent_start -c "$TMP/smblat.conf"
# 20 calls: 10 of 4 ms, 9 of 12 ms, 1 of 40 ms -> p50 ~ 4 ms, p99 ~ 40 ms.
"$prog" 4 4 4 4 4 4 4 4 4 4 12 12 12 12 12 12 12 12 12 40
sleep 2.5
s=$(summaries)
echo "after one interval: $s"
[ "$(echo "$s" | grep -c .)" -eq 1 ] || fail "expected one summary entry, got: $s"
set -- $s
[ "$1" -eq 20 ] || fail "COUNT=$1, expected 20"
[ "$2" -ge 4000 ] && [ "$2" -lt 5000 ] || fail "MIN_US=$2, expected ~4 ms"
[ "$3" -ge 40000 ] && [ "$3" -lt 48000 ] || fail "MAX_US=$3, expected ~40 ms"
# One bucket is a quarter of a power of two: within 25 % of the true value.
[ "$4" -ge 3000 ] && [ "$4" -le 5000 ] || fail "P50_US=$4, expected 4 ms within one bucket"
[ "$5" -ge 30000 ] && [ "$5" -le 48000 ] || fail "P99_US=$5, expected 40 ms within one bucket"
[ "$6" -eq 0 ] || fail "SLOW_COUNT=$6 with a 1 s threshold"
[ "$8" -ge 3 ] || fail "MESSAGE has no distribution rows"

sleep 4.5       # two idle intervals
s=$(summaries)
[ "$(echo "$s" | grep -c .)" -eq 1 ] || fail "idle intervals wrote summaries: $s"

"$prog" 7 7 7
kill -USR1 "$AGENT_PID"
sleep 0.5
s=$(summaries)
[ "$(echo "$s" | grep -c .)" -eq 2 ] || fail "SIGUSR1 wrote no summary at once: $s"
set -- $(echo "$s" | tail -1)
[ "$1" -eq 3 ] || fail "summary after SIGUSR1: COUNT=$1, expected 3 (no double counting)"
agent_stop
echo ok
