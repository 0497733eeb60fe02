#!/bin/bash
# Interval summaries in a real journald: one entry per active FUNCTION with
# exact counts and percentiles within one bucket; idle intervals write
# nothing; SIGUSR1 writes one at once; with periodic summaries off
# ([histogram] interval = 0) the final one is still written.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

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

# wait_summaries N: until there are N summary entries (at most 30 s)
wait_summaries() {
	for _ in $(seq 300); do
		[ "$(summaries | grep -c . || true)" -ge "$1" ] && return 0
		sleep 0.1
	done
	fail "$(summaries | grep -c . || true) summary entries after 30 s, expected $1"
}

agent_start -c "$TMP/smblat.conf"
# 20 calls: 10 of 4 ms, 9 of 12 ms, 1 of 40 ms -> p50 ~ 4 ms, p99 ~ 40 ms.
"$prog" 4 4 4 4 4 4 4 4 4 4 12 12 12 12 12 12 12 12 12 40 >"$TMP/measured"
wait_summaries 1
s=$(summaries)
echo "after one interval: $s"
[ "$(echo "$s" | grep -c .)" -eq 1 ] || fail "expected one summary entry, got: $s"
set -- $s
# The program timed each call itself; the agent's figures must agree within
# one bucket (a quarter of a power of two, so within 25 %) of the true ones.
read -r tmin tmax t50 t99 < <(sort -n "$TMP/measured" | awk '{v[NR]=$1} END {print v[1], v[NR], v[10], v[20]}')
echo "measured by the program: min $tmin max $tmax p50 $t50 p99 $t99"
within() { python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not (b * 0.75 <= a <= b * 1.25 + 100))' "$1" "$2"; }
[ "$1" -eq 20 ] || fail "COUNT=$1, expected 20"
within "$2" "$tmin" || fail "MIN_US=$2, measured $tmin"
within "$3" "$tmax" || fail "MAX_US=$3, measured $tmax"
within "$4" "$t50" || fail "P50_US=$4, measured p50 $t50"
within "$5" "$t99" || fail "P99_US=$5, measured p99 $t99"
[ "$6" -eq 0 ] || fail "SLOW_COUNT=$6 with a 1 s threshold"
[ "$8" -ge 3 ] || fail "MESSAGE has no distribution rows"

# What is tested here is time itself: two intervals pass with no calls.
sleep 4.5
s=$(summaries)
[ "$(echo "$s" | grep -c .)" -eq 1 ] || fail "idle intervals wrote summaries: $s"

"$prog" 5 5 >/dev/null
wait_summaries 2        # the timer keeps firing after idle intervals
s=$(summaries)
[ "$(echo "$s" | grep -c .)" -eq 2 ] || fail "no summary for the third interval: $s"
set -- $(echo "$s" | tail -1)
[ "$1" -eq 2 ] || fail "third interval: COUNT=$1, expected 2 (no double counting)"

"$prog" 7 7 7 >/dev/null
kill -USR1 "$AGENT_PID"
wait_summaries 3
s=$(summaries)
[ "$(echo "$s" | grep -c .)" -eq 3 ] || fail "SIGUSR1 wrote no summary at once: $s"
set -- $(echo "$s" | tail -1)
[ "$1" -eq 3 ] || fail "summary after SIGUSR1: COUNT=$1, expected 3 (no double counting)"
agent_stop

# interval = 0: no periodic summary, but the final one at stop counts every call
label="SUMMARY0_$$"
sed -i "s/^interval = 2s$/interval = 0/; s/^\[probe .*\]$/[probe $label]/" "$TMP/smblat.conf"
agent_start -c "$TMP/smblat.conf"
"$prog" 3 3 3 3 >/dev/null
agent_stop
s=$(summaries)
echo "interval = 0: $s"
[ "$(echo "$s" | grep -c .)" -eq 1 ] || fail "interval = 0: expected the final summary, got: $s"
set -- $s
[ "$1" -eq 4 ] || fail "interval = 0: final COUNT=$1, expected 4"
echo ok
