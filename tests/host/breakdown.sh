#!/bin/bash
# --breakdown on this kernel, for the layers it has: system calls, a user
# function (uprobes) and block requests of one workload, as histograms side
# by side on the terminal and as one BREAKDOWN summary per layer in the
# journal. (Kernel functions, cifs and SMB2 need a kernel with kprobes or
# fentry: the VM rig.)
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

LOOP=
bd_cleanup() {
	[ -z "$LOOP" ] || losetup -d "$LOOP" 2>/dev/null || true
	cleanup
}
trap bd_cleanup EXIT

journald_ensure
prog="$TMP/slowprog-$$"
cp "$BUILD_ROOT/tests/slowprog" "$prog"
truncate -s 16M "$TMP/disk.img"
LOOP=$(losetup -f --show "$TMP/disk.img") || fail "losetup: cannot create a loop device"
printf '[agent]\nuser =\n' >"$TMP/smblat.conf"

# The workload: two 30 ms calls of the traced function, sixteen 64 KiB
# direct writes to the loop device.
workload() {
	"$prog" 30 30 >/dev/null
	dd if=/dev/zero of="$LOOP" bs=64k count=16 oflag=direct status=none
}

# Bad combinations say why.
rc=0
"$SMBLAT" --stdout --breakdown -j -d 1 2>"$TMP/err" >/dev/null || rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--breakdown prints tables" "$TMP/err" || fail "--breakdown -j: exit $rc: $(cat "$TMP/err")"
rc=0
"$SMBLAT" --stdout --breakdown=0 -d 1 2>"$TMP/err" >/dev/null || rc=$?
[ "$rc" -eq 2 ] && grep -q "invalid --breakdown interval" "$TMP/err" || fail "--breakdown=0: exit $rc"

# An interval without a single traced call (-p of a process that makes
# none, or a comm= no task has): the columns' header and zero totals, not a
# crash (issue 25 item 1: exit 139 in hist_print_columns).
sleep 600 &
idle=$!
rc=0
"$SMBLAT" -c "$TMP/smblat.conf" --stdout --breakdown=1 -p "$idle" -d 2 >"$TMP/idle.out" 2>"$TMP/idle.err" || rc=$?
[ "$rc" -eq 0 ] || { kill "$idle"; fail "--breakdown -p IDLE: exit $rc: $(tail -3 "$TMP/idle.err")"; }
grep -q "^per layer" "$TMP/idle.out" && grep -q "total : 0 " "$TMP/idle.out" ||
	{ kill "$idle"; fail "--breakdown -p IDLE: no empty table: $(cat "$TMP/idle.out")"; }
printf '[agent]\nuser =\ncomm = no-such-task\n' >"$TMP/comm.conf"
rc=0
"$SMBLAT" -c "$TMP/comm.conf" --stdout --breakdown=1 -d 2 >"$TMP/idle.out" 2>"$TMP/idle.err" || rc=$?
kill "$idle"
[ "$rc" -eq 0 ] && grep -q "total : 0 " "$TMP/idle.out" ||
	fail "--breakdown with comm= of no task: exit $rc: $(tail -3 "$TMP/idle.err")"

# On the terminal: one table at the end of the run (the interval is longer).
agent_start -c "$TMP/smblat.conf" --stdout --breakdown=600 -f "$prog:slow_call" -d 20
workload
wait "$AGENT_PID" || fail "agent exit status $?"
AGENT_PID=
cat "$TMP/agent.out"
grep -q "^per layer" "$TMP/agent.out" || fail "no per-layer table"
# kernel functions may attach here or not: only what this kernel surely has is checked
python3 - "$TMP/agent.out" <<'PY' || fail "per-layer table does not show the workload"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
head = next(i for i, l in enumerate(lines) if l.startswith("per layer"))
names = lines[head + 1].split(":", 1)[1].split()
for want in ("syscall", "uprobes", "block"):
    assert want in names, f"no {want} column: {names}"
col = {n: i for i, n in enumerate(names)}

def counts(line):
    # "lo -> hi : c1 |bar| c2 |bar| ..." and "total : c1 c2 ..."
    rest = line.split(":", 1)[1]
    return [int(x) for x in re.findall(r"(?:^|\|)\s*(\d+)\s", rest)]

rows = {}
for l in lines[head + 3:]:
    m = re.match(r"\s*([\d.]+) -> ([\d.]+)\s*:", l)
    if m:
        rows[float(m.group(1))] = counts(l)
    elif l.strip().startswith("total"):
        total = [int(x) for x in l.split(":", 1)[1].split()]
        break
print("columns", names, "totals", total)
assert total[col["uprobes"]] == 2, f"uprobes total {total[col['uprobes']]}, want the 2 calls"
slow = sum(c[col["uprobes"]] for lo, c in rows.items() if lo >= 16777.216)
assert slow == 2, f"the 30 ms calls not from the 16777.216 -> 33554.432 row on: {rows}"
assert total[col["block"]] >= 16, f"block total {total[col['block']]}, want the 16 writes or more"
assert total[col["syscall"]] >= 16, f"syscall total {total[col['syscall']]}"
PY

# In the journal: a BREAKDOWN summary per layer, the same counts.
agent_start -c "$TMP/smblat.conf" --breakdown=600 -f "$prog:slow_call"
pid=$AGENT_PID
workload
agent_stop
j=$(journal_json "MESSAGE_ID=951a530d517b48cca8e44bac27398543" "_PID=$pid")
printf '%s\n' "$j" | python3 -c '
import json, sys
got = {}
for line in sys.stdin:
    if line.strip():
        e = json.loads(line)
        got[e["BREAKDOWN_LAYER"]] = e
for l, e in sorted(got.items()):
    print(l, e["FUNCTION"], e["LAYER"], e["COUNT"], e.get("HIST", ""))
assert got["uprobes"]["FUNCTION"] == "BREAKDOWN_UPROBES" and got["uprobes"]["LAYER"] == "func"
assert int(got["uprobes"]["COUNT"]) == 2, got["uprobes"]["COUNT"]
assert int(got["block"]["COUNT"]) >= 16 and got["block"]["LAYER"] == "block"
assert int(got["syscall"]["COUNT"]) >= 16
# both calls in buckets of 30 ms or more (a loaded machine may stretch a sleep)
n = 0
for b in got["uprobes"]["HIST"].split():
    rng, c = b.split(":")
    assert float(rng.split("-")[1]) > 30000, got["uprobes"]["HIST"]
    n += int(c)
assert n == 2, got["uprobes"]["HIST"]
' || fail "BREAKDOWN entries: $j"
echo "PASS"
