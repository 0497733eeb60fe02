#!/bin/bash
# Every block request is accounted for: rounds of mixed direct I/O (reads,
# writes, flushes, discards) on two loop devices at once; in each round,
# per op, the agent's summary COUNT plus the requests it reported lost
# equals what the kernel itself counted for the devices in
# /sys/block/DEV/stat (requests completed), exactly. A request is lost
# only when the kernel completed it without running the completion
# program, which it says when the request's struct is used again: each
# round ends with reads and a flush that use every request struct again.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

. "${SOURCE_ROOT:?}/tests/lib-loop.sh"

# stat_sum DEV...: "READ WRITE DISCARD FLUSH" requests completed, summed over DEVs
# (fields 1, 5, 12 and 16 of Documentation/block/stat.rst)
stat_sum() {
	local d
	for d in "$@"; do cat "/sys/block/$(basename "$d")/stat"; done |
		awk '{r += $1; w += $5; d += $12; f += $16} END {print r, w, d, f}'
}

# agent_counts PID SINCE_US: "COUNT LOST" per op (READ WRITE DISCARD FLUSH) from
# the summary and loss entries agent PID wrote since SINCE_US
agent_counts() {
	journal_json "_PID=$1" | python3 -c '
import json, sys
since = int(sys.argv[1])
ops = ["BLOCK_READ", "BLOCK_WRITE", "BLOCK_DISCARD", "BLOCK_FLUSH"]
count = dict.fromkeys(ops, 0)
lost = dict.fromkeys(ops, 0)
for line in sys.stdin:
    e = json.loads(line)
    if int(e["__REALTIME_TIMESTAMP"]) < since:
        continue        # an earlier agent with the same pid
    mid = e.get("MESSAGE_ID")
    if mid == "ab8331e2b4474579a55840c9d3a77bac" and e["FUNCTION"] in ops:
        count[e["FUNCTION"]] += int(e["COUNT"])
    elif mid == "007f72e0507d4b96b52049ce539ad083":
        for item in e.get("LOST_FUNCTIONS", "").split():
            name, _, v = item.rpartition(":")
            if name in ops:
                lost[name] += sum(map(int, v.split("/")))
print(" ".join(str(count[o]) for o in ops), " ".join(str(lost[o]) for o in ops))
' "$2"
}

journald_ensure
loop_new a 64M
loop_new b 64M
names="$(basename "${LOOPS[0]}") $(basename "${LOOPS[1]}")"
for l in "${LOOPS[@]}"; do
	# flushes reach the device only with a write back cache
	echo "write back" >"/sys/block/$(basename "$l")/queue/write_cache" 2>/dev/null || true
done
grep -q "write back" "/sys/block/$(basename "${LOOPS[0]}")/queue/write_cache" ||
	echo "note: no write back cache on the loop devices: fsync sends no flush"
# No slow-call entries: their ring buffer losses would count in LOST too.
cat >"$TMP/smblat.conf" <<CONF
[agent]
user =
kernel_stack = no
[smb]
enabled = no
[block]
enabled = yes
threshold = 1h
disks = $names
[histogram]
interval = 1h
CONF

rounds=${BLOCK_ROUNDS:-4}
ops=${BLOCK_OPS:-3000}
bad=0
lost_total=0
for round in $(seq "$rounds"); do
	since=$(date +%s%6N)
	agent_start -c "$TMP/smblat.conf"
	pid=$AGENT_PID
	read -r r0 w0 d0 f0 < <(stat_sum "${LOOPS[@]}")
	"$BUILD_ROOT/tests/blkprog" "${LOOPS[0]}" "$ops" 3 "$round" >"$TMP/a.out" &
	wa=$!
	"$BUILD_ROOT/tests/blkprog" "${LOOPS[1]}" "$ops" 2 "$((round + 100))" >"$TMP/b.out"
	wait "$wa" || fail "blkprog on ${LOOPS[0]} failed"
	# every request struct used again (a flush between: the flush request too)
	for l in "${LOOPS[@]}"; do
		n=$(cat "/sys/block/$(basename "$l")/queue/nr_requests")
		dd if="$l" of=/dev/null bs=4k count=$((4 * n)) iflag=direct status=none
		python3 -c 'import os, sys; os.fsync(os.open(sys.argv[1], os.O_WRONLY))' "$l"
		dd if="$l" of=/dev/null bs=4k count=$((4 * n)) iflag=direct status=none
	done
	read -r r1 w1 d1 f1 < <(stat_sum "${LOOPS[@]}")
	agent_stop
	kernel="$((r1 - r0)) $((w1 - w0)) $((d1 - d0)) $((f1 - f0))"
	read -r cr cw cd cf lr lw ld lf < <(agent_counts "$pid" "$since")
	echo "round $round: $(cat "$TMP/a.out") / $(cat "$TMP/b.out")"
	echo "  requests READ WRITE DISCARD FLUSH: kernel $kernel; agent COUNT $cr $cw $cd $cf, lost $lr $lw $ld $lf"
	[ "$((r1 - r0))" -gt 0 ] && [ "$((w1 - w0))" -gt 0 ] && [ "$((d1 - d0))" -gt 0 ] ||
		fail "round $round: no reads, writes or discards reached the devices"
	agent="$((cr + lr)) $((cw + lw)) $((cd + ld)) $((cf + lf))"
	[ "$agent" = "$kernel" ] ||
		{ echo "FAIL: round $round: the agent accounted for $agent requests, the kernel completed $kernel" >&2; bad=1; }
	lost_total=$((lost_total + lr + lw + ld + lf))
done
[ "$bad" -eq 0 ] || fail "block requests missed or counted twice"
echo "requests the kernel completed without running the completion program, all rounds: $lost_total"
echo ok
