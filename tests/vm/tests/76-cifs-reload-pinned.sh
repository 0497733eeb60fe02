#!/bin/bash
# fentry links pin cifs.ko (each BPF trampoline holds a module reference),
# and so do kprobe.multi links on 6.12 (6.1 has no kprobe.multi): rmmod fails
# while they are attached. The way out: reload the agent with
# [smb] enabled = no, which detaches the layer and drops the references;
# then cifs unloads, and a reload with enabled = yes attaches to the new module.
. "$VM_DIR/lib.sh"

conf() {
	# connection events off: their tracepoint links pin cifs too, in every backend
	printf '[agent]\nthreshold = 20ms\nuser =\nbackend = %s\n[histogram]\ninterval = 0\n[smb]\nenabled = %s\ninclude = INODE_OP_UNLINK INODE_OP_CREATE\n[smb2]\nconnection_events = no\n' "$1" "$2" >conf
}

# BACKEND (as in smblat.conf) NAME (as in the attach line)
pinned() {
	local refcnt0 refcnt1
	# agent_log_wait counts lines: each backend starts on an empty log, kept aside
	[ ! -s "$AGENT_LOG" ] || cat "$AGENT_LOG" >>"$LOG_DIR/agent-earlier.log"
	: >"$AGENT_LOG"
	conf "$1" yes
	refcnt0=$(cat /sys/module/cifs/refcnt)
	# a backend the kernel refuses: the agent says why and that it has nothing to trace
	if ! timeout 300 "$SMBLAT" -c conf --list-probes >list.out 2>list.err ||
	   ! grep -qE "^INODE_OP_UNLINK .* attached$" list.out; then
		grep -q "smb: layer unavailable" list.err || fail "$2: not attached, and no reason: $(cat list.err)"
		log "$2: not available on this kernel: $(grep 'smb:' list.err | tail -1)"
		unavailable=$2
		return 0
	fi
	agent_start -c conf
	grep -qE "smb: [1-9][0-9]* of [0-9]+ cifs operations attached \($2\)" "$AGENT_LOG" ||
		fail "no $2 attach: $(grep 'smb:' "$AGENT_LOG")"
	refcnt1=$(cat /sys/module/cifs/refcnt)
	log "$2: cifs refcnt $refcnt0 before the agent, $refcnt1 attached"
	assert_ge "$refcnt1" $((refcnt0 + 1)) "module references held by $2 links"
	smb_unlink_slow "$2 before the reload"

	umount "$SMB_MNT"
	for _ in $(seq 10); do    # let the SMB session go, so only our references remain
		[ "$(cat /sys/module/cifs/refcnt)" -le $((refcnt1 - refcnt0)) ] && break
		sleep 0.3
	done
	! rmmod cifs 2>rmmod.err || fail "rmmod cifs succeeded with $2 attached"
	log "$2: rmmod while attached: $(cat rmmod.err)"

	conf "$1" no
	kill -HUP "$AGENT_PID"
	agent_log_wait "smb: layer disabled by reload: [1-9][0-9]* probes? detached" 1
	for _ in $(seq 50); do
		rmmod cifs 2>rmmod.err && break
		sleep 0.2
	done
	[ ! -e /sys/module/cifs ] ||
		fail "$2: rmmod cifs after the detach: $(cat rmmod.err) (refcnt $(cat /sys/module/cifs/refcnt))"

	modprobe cifs
	mount -t cifs //127.0.0.1/share "$SMB_MNT" -o guest,vers=3.0
	conf "$1" yes
	kill -HUP "$AGENT_PID"
	agent_log_wait "smb: [1-9][0-9]* of [0-9]+ cifs operations attached \($2\)" 2
	smb_unlink_slow "$2 after the reload"
	agent_stop
}

unavailable=
no_fentry=
if [ -e /sys/kernel/btf/cifs ]; then
	pinned fentry fentry
	[ -z "$unavailable" ] || fail "fentry not available"
else
	no_fentry="fentry on cifs needs module BTF (CONFIG_DEBUG_INFO_BTF_MODULES, Linux 5.11)"
	log "$no_fentry"
fi
pinned kprobe-multi kprobe-multi
# Debian's 6.1 refuses kprobe.multi programs (EOPNOTSUPP); 6.12 and sid have them.
case $KSERIES in
6.12|sid) [ -z "$unavailable" ] || fail "kprobe.multi not available on $KSERIES" ;;
esac
[ -z "$no_fentry" ] || [ -z "$unavailable" ] ||
	skip "$no_fentry; kprobe.multi (Linux 5.18) not available either"
