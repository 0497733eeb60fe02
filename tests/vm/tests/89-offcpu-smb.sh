#!/bin/bash
# Off-CPU time of the smb layer's calls (offcpu = yes): a cifs unlink
# waits for smbd's response switched off its CPU, so OFFCPU_US is most of
# LATENCY_US and the two parts add up to it; the summary's top off-CPU
# stack of INODE_OP_UNLINK is the wait for the server's response, of class
# network.
. "$VM_DIR/lib.sh"

n=20
d=$SMB_MNT/offcpu.$$
mkdir -p "$d"
for i in $(seq "$n"); do : >"$d/f$i"; done

cat >conf <<CONF
[agent]
threshold = 0
comm = offcpu-rm
offcpu = yes
kernel_stack = no
user =
[histogram]
interval = 0
[smb]
include = INODE_OP_UNLINK
CONF
agent_start -c conf
journal_mark
python3 - "$d" "$n" <<'PY'
import os, sys
with open("/proc/self/comm", "w") as c:
    c.write("offcpu-rm")
for i in range(1, int(sys.argv[2]) + 1):
    os.unlink(os.path.join(sys.argv[1], "f%d" % i))
PY
rmdir "$d"

journal_wait FUNCTION=INODE_OP_UNLINK COMM=offcpu-rm >/dev/null
for _ in $(seq 150); do
	[ "$(journal_count FUNCTION=INODE_OP_UNLINK COMM=offcpu-rm MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250)" -ge "$n" ] && break
	sleep 0.2
done
journal_query FUNCTION=INODE_OP_UNLINK COMM=offcpu-rm MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250 >unlinks.json
cp unlinks.json "$LOG_DIR/"
cat >split.py <<'PY'
import json, sys
n = mostly = 0
for line in sys.stdin:
    j = json.loads(line)
    lat, off, on = (int(j.get(k, -1)) for k in ("LATENCY_US", "OFFCPU_US", "ONCPU_US"))
    if off < 0 or on < 0:
        sys.exit("an unlink without OFFCPU_US/ONCPU_US: %s" % line[:300])
    if abs(on + off - lat) > 1:
        sys.exit("ONCPU_US %d + OFFCPU_US %d != LATENCY_US %d" % (on, off, lat))
    n += 1
    mostly += off * 2 > lat
print("%d unlinks, %d of them mostly off-CPU" % (n, mostly))
if n < int(sys.argv[1]):
    sys.exit("%d unlinks in the journal, want %s" % (n, sys.argv[1]))
if mostly * 2 < n:
    sys.exit("only %d of %d unlinks spent most of their time off-CPU" % (mostly, n))
PY
python3 split.py "$n" <unlinks.json >split.txt 2>&1 || { cat split.txt; fail "$(tail -1 split.txt)"; }
log "$(cat split.txt)"

kill -USR1 "$AGENT_PID"
top=$(journal_wait FUNCTION=INODE_OP_UNLINK MESSAGE_ID=11b150a9ad4f43938f3c7ca311c0eec3 STACK_RANK=1 | head -1)
log "top off-CPU stack: $(journal_field "$top" OFFCPU_CLASS) $(journal_field "$top" OFFCPU_US) us $(journal_field "$top" STACK_FOLDED)"
journal_field "$top" STACK_FOLDED | grep -qE 'wait_for_response|compound_send_recv|cifs_send_recv' ||
	fail "the top off-CPU stack of unlink is not the wait for the server's response"
assert_eq "$(journal_field "$top" OFFCPU_CLASS)" network "class of the wait for the server's response"
agent_stop
