#!/bin/bash
# One VFS call is one count: cifs_llseek calls generic_file_llseek and
# cifs's read_iter calls the generic or netfs one, each also serving
# FILE_LLSEEK or FILE_READ_ITER in another ops table. The summaries' COUNT
# must equal the workload's own lseek and read calls, on every kernel.
. "$VM_DIR/lib.sh"

f=$SMB_MNT/nested.$$
head -c 200000 /dev/urandom >"$f"

cat >conf <<CONF
[agent]
threshold = 1h
comm = seekread
user =
[histogram]
interval = 0
[smb]
include = FILE_LLSEEK FILE_READ_ITER
CONF

"$SMBLAT" -c conf --list-probes >probes.txt 2>&1 || fail "--list-probes: $(cat probes.txt)"
cp probes.txt "$LOG_DIR/"
log "FILE_LLSEEK and FILE_READ_ITER functions: $(grep -cE '^FILE_(LLSEEK|READ_ITER) .* attached' probes.txt)"
agent_start -c conf
journal_mark

# The workload counts its own calls; nothing else has the name it takes.
counts=$(python3 - "$f" <<'PY'
import os, sys
with open("/proc/self/comm", "w") as c:
    c.write("seekread")
fd = os.open(sys.argv[1], os.O_RDONLY)
seeks = reads = 0
for i in range(12):
    os.lseek(fd, i * 1000, os.SEEK_SET)
    seeks += 1
for whence in (os.SEEK_CUR, os.SEEK_END, os.SEEK_SET):
    os.lseek(fd, 0, whence)
    seeks += 1
while True:
    reads += 1
    if not os.read(fd, 3777):
        break
os.close(fd)
print(seeks, reads)
PY
)
read -r seeks reads <<<"$counts"
log "workload: $seeks lseek, $reads read calls"
assert_ge "$seeks" 15 "lseek calls of the workload"
assert_ge "$reads" 50 "read calls of the workload"

kill -USR1 "$AGENT_PID"
s=$(journal_wait FUNCTION=FILE_LLSEEK MESSAGE_ID=ab8331e2b4474579a55840c9d3a77bac | head -1)
log "FILE_LLSEEK summary: $s"
assert_eq "$(journal_field "$s" COUNT)" "$seeks" "FILE_LLSEEK COUNT for $seeks lseek calls"
s=$(journal_wait FUNCTION=FILE_READ_ITER MESSAGE_ID=ab8331e2b4474579a55840c9d3a77bac | head -1)
log "FILE_READ_ITER summary: $s"
assert_eq "$(journal_field "$s" COUNT)" "$reads" "FILE_READ_ITER COUNT for $reads read calls"
agent_stop
rm -f "$f"
