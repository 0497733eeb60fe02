#!/bin/bash
# The smbd layer on a real kernel: the guest's smbd (started before the
# agent) serves the cifs mount; its VFS calls and SMB2 requests become
# entries. uprobe.multi came with 6.6: 5.10 and 6.1 use single uprobes.
. "$VM_DIR/lib.sh"

cat >conf <<CONF
[agent]
threshold = 0
user =
kernel_stack = no
[histogram]
interval = 0
[smb]
enabled = no
[smbd]
enabled = yes
vfs = yes
CONF

agent_start -c conf
line=$(grep -E "smbd: [0-9]+ VFS operations?" "$LOG_DIR/agent.log" | tail -1)
log "$line"
case $KSERIES in
5.10|6.1) want=uprobe ;;          # uprobe.multi is Linux 6.6
6.12) want=uprobe-multi ;;        # uprobe.session is Linux 6.13
*) want=uprobe-session ;;
esac
[[ "$line" == *"($want)" ]] || fail "expected backend $want: $line"
journal_mark
f=$SMB_MNT/smbd.$$
echo data >"$f"
cat "$f" >/dev/null
rm "$f"
smbd_pids=" $(pgrep -x smbd | tr '\n' ' ') "

for fn in SMBD_VFS_OPENAT SMBD_VFS_UNLINKAT SMBD_SMB2_CREATE SMBD_SMB2_CLOSE; do
	e=$(journal_wait FUNCTION=$fn | head -1)
	pid=$(journal_field "$e" PID)
	log "$fn: PID $pid COMM $(journal_field "$e" COMM) LATENCY_US $(journal_field "$e" LATENCY_US)"
	[[ "$smbd_pids" == *" $pid "* ]] || fail "$fn from PID $pid, not an smbd ($smbd_pids)"
	assert_eq "$(journal_field "$e" LAYER)" smbd "LAYER of $fn"
	[[ "$(journal_field "$e" COMM)" == smbd* ]] || fail "COMM of $fn: $(journal_field "$e" COMM)"
done
agent_stop     # its log line says how long detaching took
