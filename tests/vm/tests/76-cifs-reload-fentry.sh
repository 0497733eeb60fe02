#!/bin/bash
# fentry links pin cifs.ko (each BPF trampoline holds a module reference), so
# rmmod fails while they are attached. The way out: reload the agent with
# [smb] enabled = no, which detaches the layer; then cifs unloads, and a
# reload with enabled = yes attaches to the new module.
. "$VM_DIR/lib.sh"

conf() {
	printf '[agent]\nthreshold = 20ms\nuser =\nbackend = fentry\n[histogram]\ninterval = 0\n[smb]\nenabled = %s\ninclude = INODE_OP_UNLINK INODE_OP_CREATE\n' "$1" >conf
}

wait_log() {
	for _ in $(seq 150); do
		[ "$(grep -cE "$1" "$AGENT_LOG" || true)" -ge "$2" ] && return 0
		sleep 0.2
	done
	fail "agent did not log '$1' ($2 times): $(grep 'smb:' "$AGENT_LOG" | tail -3)"
}

unlink_slow() {
	journal_mark
	echo x >"$SMB_MNT/reload.$$"
	netem_on 20
	rm "$SMB_MNT/reload.$$"
	netem_off
	e=$(journal_wait FUNCTION=INODE_OP_UNLINK | head -1)
	assert_ge "$(journal_field "$e" LATENCY_US)" 20000 "LATENCY_US $1"
}

conf yes
refcnt0=$(cat /sys/module/cifs/refcnt)
agent_start -c conf
grep -qE "smb: [1-9][0-9]* of [0-9]+ cifs operations attached \(fentry\)" "$AGENT_LOG" ||
	fail "no fentry attach: $(grep 'smb:' "$AGENT_LOG")"
refcnt1=$(cat /sys/module/cifs/refcnt)
log "cifs refcnt $refcnt0 before the agent, $refcnt1 with fentry attached"
assert_ge "$refcnt1" $((refcnt0 + 1)) "module references held by fentry links"
unlink_slow "before the reload"

umount "$SMB_MNT"
for _ in $(seq 10); do    # let the SMB session go, so only our references remain
	[ "$(cat /sys/module/cifs/refcnt)" -le $((refcnt1 - refcnt0)) ] && break
	sleep 0.3
done
if rmmod cifs 2>rmmod.err; then
	fail "rmmod cifs succeeded with fentry attached"
fi
log "rmmod with fentry attached: $(cat rmmod.err)"

conf no
kill -HUP "$AGENT_PID"
wait_log "smb: layer disabled by reload: [1-9][0-9]* probes detached" 1
for _ in $(seq 50); do
	rmmod cifs 2>rmmod.err && break
	sleep 0.2
done
[ ! -e /sys/module/cifs ] || fail "rmmod cifs after the detach: $(cat rmmod.err) (refcnt $(cat /sys/module/cifs/refcnt))"

modprobe cifs
mount -t cifs //127.0.0.1/share "$SMB_MNT" -o guest,vers=3.0
conf yes
kill -HUP "$AGENT_PID"
wait_log "smb: [1-9][0-9]* of [0-9]+ cifs operations attached \(fentry\)" 2
unlink_slow "after the reload"
agent_stop
