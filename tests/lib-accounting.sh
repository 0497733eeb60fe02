# Helpers for the accounting tests (flood.sh, journal-faults.sh): every call
# the probes saw is an entry or a counted loss.

# write_flood_conf LABEL AGENT_LINES: threshold 0 on floodprog's fast_call
# and nothing else (the layers enabled = auto would attach on an smbd host),
# loss reports every second, one summary at exit.
write_flood_conf() {
	cat >"$TMP/smblat.conf" <<CONF
[agent]
user =
kernel_stack = no
$2
[smb]
enabled = no
[smbd]
enabled = no
[block]
enabled = no
[journal]
lost_interval = 1s
[histogram]
interval = 1h
[probe $1]
target = $TMP/floodprog:fast_call
threshold = 0
CONF
}

# account LABEL N: sets ENTRIES, LOST_RINGBUF, SUPPRESSED, WRITE_FAILED,
# COUNT (summaries), ELAPSED (first to last entry, s); fails unless they add up.
account() {
	local label=$1 n=$2 out
	out=$(journal_json | python3 -c '
import json, sys
label = sys.argv[1]
entries = count = 0
lost = [0, 0, 0, 0]
times = []
for line in sys.stdin:
    e = json.loads(line)
    mid = e.get("MESSAGE_ID")
    if mid == "a48f35af155e4887a8d221f2a9c1c250" and e.get("FUNCTION") == label:
        entries += 1
        times.append(int(e["END_REALTIME_USEC"]))
    elif mid == "ab8331e2b4474579a55840c9d3a77bac" and e.get("FUNCTION") == label:
        count += int(e["COUNT"])
    elif mid == "007f72e0507d4b96b52049ce539ad083":
        for item in e.get("LOST_FUNCTIONS", "").split():
            name, _, v = item.rpartition(":")
            if name == label:
                for i, x in enumerate(v.split("/")):
                    lost[i] += int(x)
elapsed = (max(times) - min(times)) / 1e6 if times else 0
print(entries, lost[0], lost[1], lost[2], count, "%.3f" % elapsed)
' "$label")
	read -r ENTRIES LOST_RINGBUF SUPPRESSED WRITE_FAILED COUNT ELAPSED <<<"$out"
	echo "$label: workload $n calls; journal $ENTRIES entries + ring buffer $LOST_RINGBUF + suppressed $SUPPRESSED + write failed $WRITE_FAILED = $((ENTRIES + LOST_RINGBUF + SUPPRESSED + WRITE_FAILED)); summary COUNT $COUNT"
	[ "$COUNT" -eq "$n" ] || fail "$label: summary COUNT $COUNT, the workload made $n calls"
	[ $((ENTRIES + LOST_RINGBUF + SUPPRESSED + WRITE_FAILED)) -eq "$n" ] ||
		fail "$label: entries and losses add up to $((ENTRIES + LOST_RINGBUF + SUPPRESSED + WRITE_FAILED)), not $n"
}
