#!/bin/bash
# The syscalls layer on a real kernel, every smbd syscall counted while
# 1,000 files of 10 KiB are copied onto the share, checked against a count
# the kernel keeps itself: /proc/PID/io's syscr and syscw, the read and
# write family calls of each process (all its threads, those gone too).
. "$VM_DIR/lib.sh"

src=$PWD/tree
# in one process: 1,100 forks of mkdir and head took minutes under TCG
python3 - "$src" <<'PY'
import os, sys
for d in range(100):
    os.makedirs(f"{sys.argv[1]}/d{d}")
    for f in range(10):
        with open(f"{sys.argv[1]}/d{d}/f{f}", "wb") as out:
            out.write(os.urandom(10240))
PY
[ "$(find "$src" -type f | wc -l)" -eq 1000 ] || fail "the source tree is not 1,000 files"
cat >conf <<CONF
[agent]
user =
kernel_stack = no
[histogram]
interval = 0
[smb]
enabled = no
[syscalls]
enabled = yes
select = smbd
CONF

# io FIELD: FIELD of /proc/PID/io summed over the smbd processes
io() {
	local n=0 p v
	for p in $(pgrep -x smbd); do
		v=$(awk -v f="$1:" '$1 == f { print $2 }' "/proc/$p/io" 2>/dev/null) || continue
		n=$((n + ${v:-0}))
	done
	echo "$n"
}
pids0=$(pgrep -x smbd | sort | tr '\n' ' ')
agent_start -c conf
journal_mark
r0=$(io syscr)
w0=$(io syscw)
cp -r "$src" "$SMB_MNT/tree.$$"
sync
r1=$(io syscr)
w1=$(io syscw)
pids1=$(pgrep -x smbd | sort | tr '\n' ' ')
[ "$pids0" = "$pids1" ] || fail "smbd processes came or went during the copy: $pids0 / $pids1"
kill -USR1 "$AGENT_PID"
journal_wait FUNCTION=SYSCALL_PWRITE64 --timeout 120 >/dev/null
agent_stop
rm -rf "$SMB_MNT/tree.$$"

# count NAME...: the summed COUNT of these syscalls' summaries since the mark
count() {
	local n=0 f c
	for f in "$@"; do
		c=$(journal_query FUNCTION="SYSCALL_$f" MESSAGE_ID=37696141c77044bb90174634b6002f95 |
			jq -s 'map(.COUNT | tonumber) | add // 0')
		n=$((n + c))
	done
	echo "$n"
}
# fs/read_write.c counts these in syscr and syscw (sendfile in both)
reads=$(count READ PREAD64 READV PREADV PREADV2 SENDFILE)
writes=$(count WRITE PWRITE64 WRITEV PWRITEV PWRITEV2 SENDFILE)
log "read family: smblat $reads, /proc syscr $((r1 - r0)); write family: smblat $writes, syscw $((w1 - w0))"
assert_eq "$reads" $((r1 - r0)) "read-family syscalls against syscr"
assert_eq "$writes" $((w1 - w0)) "write-family syscalls against syscw"
assert_ge "$(count PWRITE64)" 1000 "a pwrite64 per file at least"
log "smbd syscalls in all: $(journal_query MESSAGE_ID=37696141c77044bb90174634b6002f95 | jq -s 'map(.COUNT | tonumber) | add')"
