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
# --- 4: four processes on two CPUs at once, no call slow ----------------------
# The per-CPU counters take plain adds only where the kernel runs no two
# programs of one id interleaved on a CPU; uprobe programs are preemptible,
# so theirs are atomic. Whichever way, the summary's COUNT is the sum of the
# workloads' own counts, and its histogram holds every one of those calls.
label="FLOODPAR_$$"
write_flood_conf "$label" ""
sed -i 's/^threshold = 0$/threshold = 1h/' "$TMP/smblat.conf"
agent_start -c "$TMP/smblat.conf"
pids=
for i in 1 2 3 4; do
	"$prog" 200000 >"$TMP/par.$i" &
	pids="$pids $!"
done
for p in $pids; do wait "$p"; done
agent_stop
n=$(cat "$TMP"/par.? | awk '{ s += $1 } END { print s }')
out=$(journal_json MESSAGE_ID=ab8331e2b4474579a55840c9d3a77bac "FUNCTION=$label" | python3 -c '
import json, sys
count = hist = 0
mins, maxs = [], []
for line in sys.stdin:
    e = json.loads(line)
    count += int(e["COUNT"])
    hist += sum(int(b.rsplit(":", 1)[1]) for b in e["HIST"].split())
    mins.append(int(e["MIN_US"])); maxs.append(int(e["MAX_US"]))
print(count, hist, min(mins) if mins else -1, max(maxs) if maxs else -1)')
read -r count hist min max <<<"$out"
echo "$label: workloads $n calls; summary COUNT $count, histogram $hist, MIN_US $min, MAX_US $max"
[ "$count" -eq "$n" ] || fail "$label: summary COUNT $count, the four workloads made $n calls"
[ "$hist" -eq "$n" ] || fail "$label: the histogram holds $hist calls of $n"
[ "$min" -ge 0 ] && [ "$min" -le "$max" ] || fail "$label: MIN_US $min, MAX_US $max"
echo ok
