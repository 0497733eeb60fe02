#!/bin/bash
# cifs.ko unloaded and loaded again under a running agent (kprobe backend,
# which holds no module reference): the agent notices, detaches its cifs
# probes and says so, then attaches to the new module and logs a slow
# unlink again; the smb2 layer's mid hooks follow the module the same way.
. "$VM_DIR/lib.sh"

# Lines of /sys/kernel/debug/kprobes/list name the module as a word ("cifs" or "[cifs]").
kprobes_cifs() {
	grep -cw cifs /sys/kernel/debug/kprobes/list || true
}

rmmod_cifs() {
	# The session behind the mount goes away asynchronously.
	for _ in $(seq 50); do
		rmmod cifs 2>rmmod.err && return 0
		sleep 0.2
	done
	return 1
}

# connection_events = no: the connection events' tracepoint links on cifs
# hold a module reference, as fentry links do (76-cifs-reload-pinned)
printf '[agent]\nthreshold = 20ms\nuser =\nbackend = kprobe\n[histogram]\ninterval = 0\n[smb]\ninclude = INODE_OP_UNLINK INODE_OP_CREATE FILE_WRITE_ITER\n[smb2]\nenabled = yes\nconnection_events = no\n' >conf
agent_start -c conf
# Where the smb2 layer cannot run (said why), the smb layer's part still runs.
if no_smb2=$(smb2_unavailable "$AGENT_LOG"); then
	log "smb2 checks left out: $no_smb2"
else
	grep -qE "smb2: [1-9][0-9]* SMB2 commands timed through [1-9] mid hooks? \(kprobe\)" "$AGENT_LOG" ||
		fail "no smb2 attach: $(grep 'smb2:' "$AGENT_LOG")"
fi
grep -qE "smb: [1-9][0-9]* of [0-9]+ cifs operations attached \(kprobe\)" "$AGENT_LOG" ||
	fail "no kprobe attach: $(grep 'smb:' "$AGENT_LOG")"
before=$(kprobes_cifs)
log "kprobes on cifs while attached: $before, module refcnt $(cat /sys/module/cifs/refcnt)"
grep -w cifs /sys/kernel/debug/kprobes/list
assert_ge "$before" 2 "kprobes on cifs functions"
smb_unlink_slow "before the reload"

umount "$SMB_MNT"
rmmod_cifs || fail "rmmod cifs with kprobes attached: $(cat rmmod.err) (refcnt $(cat /sys/module/cifs/refcnt))"
agent_log_wait "smb: cifs module unloaded: [1-9][0-9]* probes? detached" 1
[ -n "$no_smb2" ] || agent_log_wait "smb2: cifs module unloaded: [1-9] mid hooks? detached" 1
attached=$(grep -oE "smb: [0-9]+ of [0-9]+ cifs operations attached" "$AGENT_LOG" | head -1 | awk '{print $2}')
detached=$(grep -oE "smb: cifs module unloaded: [0-9]+ probes detached" "$AGENT_LOG" | awk '{print $5}')
assert_eq "$detached" "$attached" "probes detached on unload (attached at start)"
kill -0 "$AGENT_PID" || fail "agent died with the module"
assert_eq "$(kprobes_cifs)" 0 "kprobes left on cifs after the detach"
journal_query MESSAGE_ID=7106711428c445b698f0b7f8871465e2 | grep -q "cifs module unloaded" ||
	fail "no status entry in the journal for the unload"

modprobe cifs
mount -t cifs //127.0.0.1/share "$SMB_MNT" -o guest,vers=3.0
agent_log_wait "smb: [1-9][0-9]* of [0-9]+ cifs operations attached \(kprobe\)" 2
[ -n "$no_smb2" ] || agent_log_wait "smb2: [1-9][0-9]* SMB2 commands timed through [1-9] mid hooks? \(kprobe\)" 2
# the same functions and mid hooks again, each once (FILE_WRITE_ITER names three of them)
assert_eq "$(kprobes_cifs)" "$before" "kprobes on the new cifs"
smb_unlink_slow "after the reload"
# the unlink's requests, timed by the hooks on the new module
if [ -z "$no_smb2" ]; then
	e=$(journal_wait FUNCTION=SMB2_CREATE | head -1)
	assert_ge "$(journal_field "$e" LATENCY_US)" 20000 "SMB2_CREATE after the reload"
fi
agent_stop
sed -i '/^\[smb2\]$/,$d' conf
printf '[smb2]\nconnection_events = no\n' >>conf

# As an unprivileged user: the attach capabilities stay permitted (raised
# only around an attach), so the agent follows the module as root does.
cat "$AGENT_LOG" >>"$LOG_DIR/agent-root.log"
: >"$AGENT_LOG"
sed -i 's/^user =$/user = nobody/' conf
agent_start -c conf
before=$(kprobes_cifs)
assert_eq "$(awk '/^Uid:/ {print $3}' /proc/$AGENT_PID/status)" "$(id -u nobody)" "agent's effective uid"
assert_eq "$(awk '/^CapEff:/ {print $2}' /proc/$AGENT_PID/status)" "$(cap_eff_idle)" "effective capabilities"
umount "$SMB_MNT"
rmmod_cifs || fail "rmmod cifs (unprivileged agent): $(cat rmmod.err)"
agent_log_wait "smb: cifs module unloaded: [1-9][0-9]* probes? detached; attaching again" 1
# smb2 (auto, the default) follows the module too: its hooks count in before
[ -n "$no_smb2" ] || agent_log_wait "smb2: cifs module unloaded: [1-9] mid hooks? detached" 1
assert_eq "$(kprobes_cifs)" 0 "kprobes left on cifs after the unprivileged detach"
modprobe cifs
mount -t cifs //127.0.0.1/share "$SMB_MNT" -o guest,vers=3.0
agent_log_wait "smb: [1-9][0-9]* of [0-9]+ cifs operations attached \(kprobe\)" 2
[ -n "$no_smb2" ] || agent_log_wait "smb2: [1-9][0-9]* SMB2 commands timed through [1-9] mid hooks? \(kprobe\)" 2
assert_eq "$(kprobes_cifs)" "$before" "kprobes on the new cifs, attached unprivileged"
assert_eq "$(awk '/^CapEff:/ {print $2}' /proc/$AGENT_PID/status)" "$(cap_eff_idle)" "effective capabilities after the attach"
smb_unlink_slow "after the unprivileged reload"
agent_stop
