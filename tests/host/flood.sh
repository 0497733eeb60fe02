#!/bin/bash
# Accounting under a flood: threshold 0 on a tight loop makes every call an
# event. Whatever the ring buffer, the rate limit or journald drop, each call
# must be either a journal entry or counted in a loss entry:
#   entries + LOST_RINGBUF + SUPPRESSED + WRITE_FAILED == N (the workload's
#   own count) == COUNT of the summaries (the BPF side's count).
# Runs a journald of its own (lib-journald.sh), without journald's rate limit.
. "$SOURCE_ROOT/tests/lib-journald.sh"
journald_ns "$@"
. "$SOURCE_ROOT/tests/lib-host.sh"
trap 'journald_private_cleanup; cleanup' EXIT
journald_private_start

. "$SOURCE_ROOT/tests/lib-accounting.sh"

prog="$TMP/floodprog"
cp "$BUILD_ROOT/tests/floodprog" "$prog"

# --- 1: a ring buffer far too small for the flood ------------------------
label="FLOOD_$$"
write_flood_conf "$label" "ringbuf_size = 4K"
agent_start -c "$TMP/smblat.conf"
n=$("$prog" 30000)
agent_stop
account "$label" "$n"
[ "$LOST_RINGBUF" -gt 0 ] || fail "a 4K ring buffer lost nothing in a flood of $n events: the test proves nothing"

# --- 2: the agent's rate limit ---------------------------------------------
label="FLOODRATE_$$"
write_flood_conf "$label" "rate_limit = 200
rate_burst = 50"
agent_start -c "$TMP/smblat.conf"
n=$("$prog" 5000 100)       # 100 us per call: ~0.5 s, the ring buffer keeps up
sleep 0.2
agent_stop
account "$label" "$n"
[ "$SUPPRESSED" -gt 0 ] || fail "rate_limit = 200/s suppressed nothing of $n events in ~0.5 s"
# burst 50 plus 200/s over the run, give or take the agent's wake-ups
max=$(python3 -c "print(int(50 + 200 * ($ELAPSED + 1)))")
[ "$ENTRIES" -le "$max" ] || fail "$ENTRIES entries written with rate_limit 200/s burst 50 over ${ELAPSED}s (at most $max)"

# --- 3: the default limit (1000/s, bursts of 2000) --------------------------
# A flood as fast as the loop goes: the excess is suppressed before it
# reaches journald, which keeps up, so nothing is lost as a failed write.
label="FLOODDEF_$$"
write_flood_conf "$label" "ringbuf_size = 64M"
agent_start -c "$TMP/smblat.conf"
n=$("$prog" 50000)
agent_stop
account "$label" "$n"
[ "$SUPPRESSED" -gt 0 ] || fail "the default rate limit suppressed nothing of $n events"
[ "$WRITE_FAILED" -eq 0 ] || fail "$WRITE_FAILED entries failed to write under the default rate limit"
max=$(python3 -c "print(int(2000 + 1000 * ($ELAPSED + 1)))")
[ "$ENTRIES" -le "$max" ] || fail "$ENTRIES entries written with the default limit over ${ELAPSED}s (at most $max)"
echo ok
