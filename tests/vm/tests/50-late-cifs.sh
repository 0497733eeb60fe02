#!/bin/bash
# Started before cifs.ko is loaded, the agent attaches once it is and a
# share is mounted, running as an unprivileged user: it keeps only the attach
# capabilities, permitted and never effective outside an attach (a reload
# may attach more later, see smblat(8) PRIVILEGES).
. "$VM_DIR/lib.sh"

umount "$SMB_MNT"
# The session behind the mount goes away asynchronously.
for _ in $(seq 50); do
	rmmod cifs 2>rmmod.err && break
	sleep 0.2
done
[ ! -e /sys/module/cifs ] || fail "cannot unload cifs for this test: $(cat rmmod.err) (refcnt $(cat /sys/module/cifs/refcnt))"
printf '[agent]\nthreshold = 20ms\nuser = nobody\n[histogram]\ninterval = 0\n' >conf
agent_start -c conf
grep -q "cifs module not loaded" "$AGENT_LOG" || fail "agent did not say it waits for cifs"
st=/proc/$AGENT_PID/status
assert_eq "$(awk '/^Uid:/ {print $2}' $st)" "$(id -u nobody)" "agent uid after the drop"
assert_eq "$(awk '/^CapEff:/ {print $2}' $st)" "$(cap_eff_idle)" "effective capabilities while waiting"
[ "$(awk '/^CapPrm:/ {print $2}' $st)" != 0000000000000000 ] || fail "no attach capability kept for the late attach"
assert_eq "$(awk '/^NoNewPrivs:/ {print $2}' $st)" 1 "NoNewPrivs"
modprobe cifs
mount -t cifs //127.0.0.1/share "$SMB_MNT" -o guest,vers=3.0
for _ in $(seq 100); do
	grep -q "cifs operations attached" "$AGENT_LOG" && break
	sleep 0.2
done
grep -q "cifs operations attached" "$AGENT_LOG" || fail "agent did not attach after cifs loaded"
grep -qE "smb: [1-9][0-9]* of [0-9]+ cifs operations attached" "$AGENT_LOG" || fail "late attach attached nothing: $(grep 'smb:' "$AGENT_LOG")"
# raised around each layer's attach (smb2's mid hooks and connection events
# come after smb's line): lowered once the last layer has attached
for _ in $(seq 300); do
	[ "$(awk '/^CapEff:/ {print $2}' $st)" = "$(cap_eff_idle)" ] && break
	sleep 0.2
done
[ "$(awk '/^CapPrm:/ {print $2}' $st)" != 0000000000000000 ] || fail "attach capabilities forgotten: a reload could not attach"
assert_eq "$(awk '/^CapEff:/ {print $2}' $st)" "$(cap_eff_idle)" "effective capabilities after the late attach"
journal_mark
echo x >"$SMB_MNT/late.$$"
netem_on 20
rm "$SMB_MNT/late.$$"
netem_off
e=$(journal_wait FUNCTION=INODE_OP_UNLINK | head -1)
assert_ge "$(journal_field "$e" LATENCY_US)" 20000 "LATENCY_US after late attach"
agent_stop
