#!/bin/bash
# --breakdown with every layer: one workload on the cifs share (20 ms
# netem) and on ext4 (direct writes to a loop device), its system calls,
# VFS calls, cifs operations, SMB2 requests and block requests as
# histograms side by side on the terminal, and one BREAKDOWN summary per
# layer in the journal.
. "$VM_DIR/lib.sh"

MID_BREAKDOWN=951a530d517b48cca8e44bac27398543
cat >conf <<CONF
[agent]
user =
kernel_stack = no
CONF
d=$SMB_MNT/bd.$$
mkdir -p "$d"

workload() {
	netem_on 20
	for i in 1 2 3; do
		echo x >"$d/f$i"
		rm "$d/f$i"
	done
	netem_off
	dd if=/dev/zero of="$EXT4_MNT/bd.$$" bs=64k count=16 oflag=direct status=none
	rm -f "$EXT4_MNT/bd.$$"
}

# On the terminal: the table at the end of the run. Without cifs BTF
# (5.10) the smb2 layer cannot run: its column is left out, said why.
agent_start -c conf --stdout --breakdown=600
layers="syscall vfs smb smb2 block"
if why=$(smb2_unavailable "$AGENT_LOG"); then
	log "without smb2: $why"
	layers="syscall vfs smb block"
fi
workload
agent_stop
out=$LOG_DIR/agent.log
LAYERS=$layers python3 - "$out" <<'PY' || fail "per-layer table: $(grep -A30 '^per layer' "$out" | tail -30)"
import os, re, sys
lines = open(sys.argv[1]).read().splitlines()
head = max(i for i, l in enumerate(lines) if l.startswith("per layer"))
names = lines[head + 1].split(":", 1)[1].split()
total = None
for l in lines[head + 3:]:
    if l.strip().startswith("total"):
        total = [int(x) for x in l.split(":", 1)[1].split()]
        break
print("columns", names, "totals", total)
col = dict(zip(names, total))
want = os.environ["LAYERS"].split()
for w in want:
    assert col.get(w, 0) > 0, f"no {w} calls: {col}"
# every SMB2 request of the workload went through a cifs operation and a system call
assert col["syscall"] >= 6 and col["smb"] >= 6, col
assert "smb2" not in want or col["smb2"] >= 6, col
assert col["block"] >= 16, col
PY
grep -A25 '^per layer' "$out" | tail -25 >&2

# In the journal: one BREAKDOWN summary per layer.
agent_start -c conf --breakdown=600
journal_mark
workload
agent_stop
for l in $layers; do
	e=$(journal_wait MESSAGE_ID=$MID_BREAKDOWN BREAKDOWN_LAYER=$l | tail -1)
	log "$l: FUNCTION $(journal_field "$e" FUNCTION) COUNT $(journal_field "$e" COUNT) HIST $(journal_field "$e" HIST)"
	assert_ge "$(journal_field "$e" COUNT)" 1 "COUNT of the $l layer"
done
if [ "${layers/smb2/}" != "$layers" ]; then
	e=$(journal_wait MESSAGE_ID=$MID_BREAKDOWN BREAKDOWN_LAYER=smb2 | tail -1)
	assert_eq "$(journal_field "$e" FUNCTION)" BREAKDOWN_SMB2 "FUNCTION of the smb2 layer's summary"
	# the SMB2 requests under 20 ms netem take 40 ms or more
	[[ $(journal_field "$e" MAX_US) =~ ^[0-9]+$ ]] || fail "MAX_US of smb2: $(journal_field "$e" MAX_US)"
	assert_ge "$(journal_field "$e" MAX_US)" 40000 "MAX_US of the smb2 layer"
fi
rm -rf "$d"
