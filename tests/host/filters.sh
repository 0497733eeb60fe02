#!/bin/bash
# The BPF-side process filters on this kernel: with -p PID or [agent] comm =
# only the chosen process's calls become entries, though the uprobes fire
# for every process. Copies of slowprog under two names give two comms;
# threshold 0 makes every call an entry. slowprog's own timings go to /dev/null.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

journald_ensure
SLOW_ID=a48f35af155e4887a8d221f2a9c1c250
prog_a="$TMP/fltA$$"
prog_b="$TMP/fltB$$"
cp "$BUILD_ROOT/tests/slowprog" "$prog_a"
cp "$BUILD_ROOT/tests/slowprog" "$prog_b"
comm_a=$(basename "$prog_a" | cut -c1-15)
comm_b=$(basename "$prog_b" | cut -c1-15)
BG_PID=
trap 'cleanup; [ -n "$BG_PID" ] && kill "$BG_PID" 2>/dev/null || true' EXIT

# write_conf AGENT_LINE LABEL_A [LABEL_B]: probes on slow_call of prog_a (and prog_b).
write_conf() {
	{
		printf '[agent]\nuser =\n%s\n[smb]\nenabled = no\n' "$1"
		printf '[probe %s]\ntarget = %s:slow_call\nthreshold = 0\n' "$2" "$prog_a"
		[ -z "${3:-}" ] || printf '[probe %s]\ntarget = %s:slow_call\nthreshold = 0\n' "$3" "$prog_b"
	} >"$TMP/smblat.conf"
}

# entries LABEL: "PID COMM" of each slow-call entry with that FUNCTION.
entries() {
	journal_json "FUNCTION=$1" "MESSAGE_ID=$SLOW_ID" | python3 -c '
import json, sys
for line in sys.stdin:
    e = json.loads(line)
    print(e["PID"], e["COMM"])
'
}

# count FILE COLUMN VALUE: lines of FILE whose COLUMN (1: PID, 2: COMM) is VALUE.
count() {
	awk -v c="$2" -v v="$3" '$c == v { n++ } END { print n + 0 }' "$1"
}

# bg_start PROG: a long-running copy (100 calls of 100 ms) in the background.
bg_start() {
	"$1" $(for _ in $(seq 100); do printf '100 '; done) >/dev/null &
	BG_PID=$!
}

bg_stop() {
	kill -0 "$BG_PID" 2>/dev/null || fail "background process $BG_PID ended before the test was done"
	kill "$BG_PID"
	wait "$BG_PID" 2>/dev/null || true
	BG_PID=
}

# --- -p PID: the same program, two processes, one of them wanted -----------
label="FILTERPID_$$"
write_conf "" "$label"
bg_start "$prog_a"
wanted=$BG_PID
agent_start -c "$TMP/smblat.conf" -p "$wanted"
"$prog_a" 20 20 20 20 20 >/dev/null &
other=$!
wait "$other"
sleep 0.5       # a few more calls of the wanted process while the agent runs
bg_stop
agent_stop
entries "$label" >"$TMP/pid.txt"
echo "-p $wanted (other $other): $(count "$TMP/pid.txt" 1 "$wanted") wanted, $(count "$TMP/pid.txt" 1 "$other") other, $(wc -l <"$TMP/pid.txt") in all"
[ "$(count "$TMP/pid.txt" 1 "$wanted")" -ge 1 ] || fail "-p $wanted: no entry from the wanted process"
[ "$(count "$TMP/pid.txt" 1 "$other")" -eq 0 ] || fail "-p $wanted: entries from process $other"
[ "$(count "$TMP/pid.txt" 1 "$wanted")" -eq "$(wc -l <"$TMP/pid.txt")" ] \
	|| fail "-p $wanted: entries from other processes: $(sort -u "$TMP/pid.txt" | tr '\n' ' ')"

# --- no filter: both probes and both processes log (the control) ---------
label_a="FILTERNONEA_$$"
label_b="FILTERNONEB_$$"
write_conf "" "$label_a" "$label_b"
agent_start -c "$TMP/smblat.conf"
"$prog_a" 20 20 20 >/dev/null &
pa=$!
"$prog_b" 20 20 20 >/dev/null &
pb=$!
wait "$pa" "$pb"
agent_stop
entries "$label_a" >"$TMP/none-a.txt"
entries "$label_b" >"$TMP/none-b.txt"
echo "no filter: $(wc -l <"$TMP/none-a.txt") entries of $comm_a, $(wc -l <"$TMP/none-b.txt") of $comm_b"
[ "$(count "$TMP/none-a.txt" 2 "$comm_a")" -eq 3 ] || fail "no filter: $comm_a entries: $(cat "$TMP/none-a.txt")"
[ "$(count "$TMP/none-b.txt" 2 "$comm_b")" -eq 3 ] || fail "no filter: $comm_b entries: $(cat "$TMP/none-b.txt")"

# --- comm = NAME: only that comm, though the other's probe fires ---------
label_a="FILTERCOMMA_$$"
label_b="FILTERCOMMB_$$"
write_conf "comm = $comm_a" "$label_a" "$label_b"
agent_start -c "$TMP/smblat.conf"
"$prog_a" 20 20 20 >/dev/null &
pa=$!
"$prog_b" 20 20 20 >/dev/null &
pb=$!
wait "$pa" "$pb"
agent_stop
entries "$label_a" >"$TMP/comm-a.txt"
entries "$label_b" >"$TMP/comm-b.txt"
echo "comm = $comm_a: $(wc -l <"$TMP/comm-a.txt") entries of $comm_a, $(wc -l <"$TMP/comm-b.txt") of $comm_b"
[ "$(count "$TMP/comm-a.txt" 2 "$comm_a")" -ge 1 ] || fail "comm = $comm_a: no entry from $comm_a"
[ "$(count "$TMP/comm-a.txt" 1 "$pa")" -eq 3 ] || fail "comm = $comm_a: $(cat "$TMP/comm-a.txt"), want 3 calls of $pa"
[ "$(wc -l <"$TMP/comm-b.txt")" -eq 0 ] || fail "comm = $comm_a: entries from $comm_b: $(cat "$TMP/comm-b.txt")"

# --- comm of the other program: the filter is no fixed pass for the first --
label_a="FILTERCOMMC_$$"
label_b="FILTERCOMMD_$$"
write_conf "comm = $comm_b" "$label_a" "$label_b"
agent_start -c "$TMP/smblat.conf"
"$prog_a" 20 20 >/dev/null &
pa=$!
"$prog_b" 20 20 >/dev/null &
pb=$!
wait "$pa" "$pb"
agent_stop
entries "$label_a" >"$TMP/comm-c.txt"
entries "$label_b" >"$TMP/comm-d.txt"
echo "comm = $comm_b: $(wc -l <"$TMP/comm-c.txt") entries of $comm_a, $(wc -l <"$TMP/comm-d.txt") of $comm_b"
[ "$(wc -l <"$TMP/comm-c.txt")" -eq 0 ] || fail "comm = $comm_b: entries from $comm_a: $(cat "$TMP/comm-c.txt")"
[ "$(count "$TMP/comm-d.txt" 1 "$pb")" -eq 2 ] || fail "comm = $comm_b: $(cat "$TMP/comm-d.txt"), want 2 calls of $pb"
echo ok
