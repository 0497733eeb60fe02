#!/bin/bash
# Connection events and per-share summaries. smbd restarted under the
# mounted share: the client's reconnect is an SMB_RECONNECT entry (its own
# MESSAGE_ID) naming server and share, and the new session an
# SMB_SESSION_SETUP entry. The new smbd also listens on a second port with
# a second share: two connections that netem delays differently (5 ms and
# 40 ms); the per-share summaries of the same FUNCTION tell the shares
# apart, and the per-server summary holds both.
. "$VM_DIR/lib.sh"

MID_RECONNECT=a936ebed06754f1283b3c504570f470f
MID_SESSION_SETUP=f95b658a9a114ac2b5a319ebdff7e4e1
MID_SHARE=3fc21a16f1424ec8a54fe2f452147959
MID_SERVER=e78ca87a34de4a1da3e39d418e9302a2
SAMBA=/run/smblat/samba
MNT2=/run/smblat/share2-mnt

cat >conf <<CONF
[agent]
threshold = 30ms
user =
kernel_stack = no
[histogram]
interval = 0
[smb2]
enabled = yes
threshold = 30ms
CONF

cleanup2() {
	tc qdisc del dev lo root >/dev/null 2>&1 || true
	! mountpoint -q "$MNT2" || umount -f "$MNT2" || true
}
trap 'cleanup2; _vm_exit' EXIT

smbd_pid() { cat "$SAMBA/pid/smbd.pid" 2>/dev/null; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

agent_start -c conf
if why=$(smb2_unavailable "$AGENT_LOG"); then
	skip "$why"
fi
journal_mark

# The second share, the second port: in the configuration smbd restarts with.
mkdir -p /srv/share2 "$MNT2"
sed -e 's/^\([[:space:]]*smb ports =\).*/\1 445 4455/' "$SAMBA/smb.conf" >"$SAMBA/smb2.conf"
cat >>"$SAMBA/smb2.conf" <<CONF
[share2]
    path = /srv/share2
    guest ok = yes
    guest only = yes
    read only = no
    force user = root
CONF
grep -q 'smb ports = 445 4455' "$SAMBA/smb2.conf" || fail "smb.conf has no 'smb ports' line to extend"
old=$(smbd_pid)
[ -n "$old" ] || fail "no smbd pid in $SAMBA/pid"
# requests on the connection first: the reconnect names their session
echo x >"$SMB_MNT/pre.$$"
rm "$SMB_MNT/pre.$$"
log "restarting smbd ($old) under the mounted share"
# SIGKILL: smbd ending on SIGTERM signals its whole process group, which
# in this guest holds journald; its children follow the parent's death.
kids=$(pgrep -P "$old" || true)
kill -KILL "$old" $kids
# gone, or a zombie: its parent is the rig's shell, not this test
gone() { local st; st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null); [ -z "$st" ] || [ "$st" = Z ]; }
for _ in $(seq 300); do gone "$old" && break; sleep 0.1; done
gone "$old" || fail "smbd $old did not exit"
setsid smbd -F --no-process-group -s "$SAMBA/smb2.conf" </dev/null >>"$LOG_DIR/smbd.out" 2>&1 &
for _ in $(seq 900); do port_open 4455 && port_open 445 && break; sleep 0.1; done
port_open 4455 || fail "the new smbd does not listen on 4455: $(tail -5 "$LOG_DIR/smbd.out")"

e=$(journal_wait FUNCTION=SMB_RECONNECT --timeout 60 | head -1)
log "reconnect: $e"
assert_eq "$(journal_field "$e" MESSAGE_ID)" "$MID_RECONNECT" "MESSAGE_ID of the reconnect"
assert_eq "$(journal_field "$e" SMB_SERVER)" 127.0.0.1 "SMB_SERVER of the reconnect"
assert_eq "$(journal_field "$e" SMB_SHARE)" '\\127.0.0.1\share' "SMB_SHARE of the reconnect"
[[ $(journal_field "$e" SMB_SESSION_ID) =~ ^0x[0-9a-f]{16}$ ]] || fail "SMB_SESSION_ID of the reconnect"
[ -z "$(journal_field "$e" THRESHOLD_US)" ] || fail "a connection event with THRESHOLD_US"

# The share works again through a new session.
for _ in $(seq 60); do ls "$SMB_MNT" >/dev/null 2>&1 && break; sleep 1; done
ls "$SMB_MNT" >/dev/null || fail "the share did not come back after the restart"
e=$(journal_wait FUNCTION=SMB_SESSION_SETUP --timeout 60 | tail -1)
log "session setup: $e"
assert_eq "$(journal_field "$e" MESSAGE_ID)" "$MID_SESSION_SETUP" "MESSAGE_ID of the session setup"
assert_eq "$(journal_field "$e" SMB_SERVER)" 127.0.0.1 "SMB_SERVER of the session setup"

# the rig mounts the first share with these options (guest-run SMB_OPTS)
mount -t cifs //127.0.0.1/share2 "$MNT2" -o guest,vers=3.0,port=4455 || fail "mount share2 on port 4455"

# 40 ms each way on port 4455, 5 ms on everything else.
tc qdisc replace dev lo root handle 1: prio
tc qdisc add dev lo parent 1:1 handle 10: netem delay 40ms
tc qdisc add dev lo parent 1:2 handle 20: netem delay 5ms
tc filter add dev lo parent 1: protocol ip prio 1 u32 match ip dport 4455 0xffff flowid 1:1
tc filter add dev lo parent 1: protocol ip prio 1 u32 match ip sport 4455 0xffff flowid 1:1
tc filter add dev lo parent 1: protocol ip prio 2 u32 match u32 0 0 flowid 1:2
# a summary now ends the interval of the restart: the next one holds the workload alone
kill -USR1 "$AGENT_PID"
journal_wait MESSAGE_ID=$MID_SHARE 'SMB_SHARE=\\127.0.0.1\share' >/dev/null
journal_mark
for m in "$SMB_MNT" "$MNT2"; do
	for i in 1 2 3 4 5; do
		echo x >"$m/ev.$$.$i"
		rm "$m/ev.$$.$i"
	done
done
tc qdisc del dev lo root

kill -USR1 "$AGENT_PID"
s1=$(journal_wait MESSAGE_ID=$MID_SHARE FUNCTION=SMB2_CREATE 'SMB_SHARE=\\127.0.0.1\share' | tail -1)
s2=$(journal_wait MESSAGE_ID=$MID_SHARE FUNCTION=SMB2_CREATE 'SMB_SHARE=\\127.0.0.1\share2' | tail -1)
sv=$(journal_wait MESSAGE_ID=$MID_SERVER FUNCTION=SMB2_CREATE SMB_SERVER=127.0.0.1 | tail -1)
c1=$(journal_field "$s1" COUNT) a1=$(journal_field "$s1" AVG_US)
c2=$(journal_field "$s2" COUNT) a2=$(journal_field "$s2" AVG_US)
cs=$(journal_field "$sv" COUNT)
log "SMB2_CREATE: share $c1 calls avg $a1 us; share2 $c2 calls avg $a2 us; server $cs calls"
assert_ge "$c1" 10 "SMB2_CREATE calls on share (5 creates, 5 unlinks)"
assert_ge "$c2" 10 "SMB2_CREATE calls on share2"
assert_eq "$(journal_field "$s2" SMB_SERVER)" 127.0.0.1 "SMB_SERVER of share2's summary"
# 80 ms round trips against 10 ms ones
assert_ge "$a2" 70000 "share2's average SMB2_CREATE"
# 35 ms more each way: most of the 70 ms shows in the averages (TCG adds its own to both)
assert_ge "$((a2 - a1))" 50000 "share2's average less share's"
assert_ge "$cs" "$((c1 + c2))" "the server's SMB2_CREATE calls against its shares'"
# The VFS calls per share too (the smb layer's exits count them out of line):
# the workload's own count, five unlinks on each share.
for m in share share2; do
	u=$(journal_wait MESSAGE_ID=$MID_SHARE FUNCTION=INODE_OP_UNLINK "SMB_SHARE=\\\\127.0.0.1\\$m" | tail -1)
	assert_eq "$(journal_field "$u" COUNT)" 5 "INODE_OP_UNLINK calls on $m"
done

agent_stop
umount "$MNT2"
