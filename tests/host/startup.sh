#!/bin/bash
# On this machine's kernel (no fentry, no kprobes, no cifs): the agent says
# which layers it cannot run and why, keeps running, and exits 0 on SIGTERM
# leaving no BPF program behind.
. "$SOURCE_ROOT/tests/lib-host.sh"

journald_ensure
printf '[agent]\nuser =\n' >"$TMP/smblat.conf"
agent_start -c "$TMP/smblat.conf"
grep -E "^smblat: smb: (layer unavailable on this kernel: .+|cifs module not loaded; attaching when it is)$" "$TMP/agent.err" \
	|| { cat "$TMP/agent.err"; fail "no line saying why the smb layer is not attached"; }
if [ ! -e /sys/bus/event_source/devices/kprobe ] && ! grep -q "kernel has no kprobes" "$TMP/agent.err"; then
	fail "kprobes are missing here but the agent does not say so"
fi
# The programs the agent holds, by id, from its file descriptors.
ids=$(grep -h '^prog_id:' /proc/"$AGENT_PID"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u)
[ -n "$ids" ] || fail "agent ready but holds no BPF program"
agent_stop
for id in $ids; do
	! bpftool prog show id "$id" >/dev/null 2>&1 || fail "BPF program $id still loaded after exit"
done
journal_json MESSAGE_ID=7106711428c445b698f0b7f8871465e2 --since "-2min" | grep -q '"MESSAGE" *: *"ready:' \
	|| fail "no ready status entry in the journal"
echo ok
