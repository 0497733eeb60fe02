#!/bin/bash
# Started before cifs.ko is loaded, the agent attaches once it is and a
# share is mounted.
. "$VM_DIR/lib.sh"

umount "$SMB_MNT"
# The session behind the mount goes away asynchronously.
for _ in $(seq 50); do
	rmmod cifs 2>rmmod.err && break
	sleep 0.2
done
[ ! -e /sys/module/cifs ] || fail "cannot unload cifs for this test: $(cat rmmod.err) (refcnt $(cat /sys/module/cifs/refcnt))"
printf '[agent]\nthreshold = 20ms\nuser =\n[histogram]\ninterval = 0\n' >conf
agent_start -c conf
grep -q "cifs module not loaded" "$AGENT_LOG" || fail "agent did not say it waits for cifs"
modprobe cifs
mount -t cifs //127.0.0.1/share "$SMB_MNT" -o guest,vers=3.0
for _ in $(seq 100); do
	grep -q "cifs operations attached" "$AGENT_LOG" && break
	sleep 0.2
done
grep -q "cifs operations attached" "$AGENT_LOG" || fail "agent did not attach after cifs loaded"
journal_mark
echo x >"$SMB_MNT/late.$$"
netem_on 20
rm "$SMB_MNT/late.$$"
netem_off
e=$(journal_wait FUNCTION=INODE_OP_UNLINK | head -1)
assert_ge "$(journal_field "$e" LATENCY_US)" 20000 "LATENCY_US after late attach"
agent_stop
