#!/bin/bash
# Slow SMB client calls carry their whole kernel stack, as the shipped
# configuration runs the agent (dropped to an unprivileged user), for
# every distinct stack of a workload: on kernels whose kretprobes cannot
# unwind (before 5.15) the stack is the one taken at the call's entry
# (issue 25 item 12: on Debian 11's 5.10 the entries had no STACK at all).
. "$VM_DIR/lib.sh"

id nobody >/dev/null 2>&1 || fail "no user nobody in the guest"
cat >conf <<CONF
[agent]
threshold = 15ms
user = nobody
[smb]
include = INODE_OP_UNLINK INODE_OP_MKDIR INODE_OP_RMDIR INODE_OP_RENAME2 INODE_OP_RENAME INODE_OP_SETATTR
[histogram]
interval = 0
CONF
chmod 644 conf
d=$SMB_MNT/stk.$$
mkdir -p "$d"
for i in 1 2 3; do echo x >"$d/f$i"; echo x >"$d/m$i"; done

agent_start -c conf
assert_eq "$(awk '/^Uid:/ {print $2}' "/proc/$AGENT_PID/status")" "$(id -u nobody)" "agent uid after the drop"
journal_mark
netem_on 20
for i in 1 2 3; do
	rm "$d/f$i"
	mv "$d/m$i" "$d/n$i"
	mkdir "$d/dir$i"
	rmdir "$d/dir$i"
	touch -d '2001-01-01 00:00' "$d/n$i"
done
netem_off
# 3 of each of 5 operations over the slowed link: every one slow, every entry written
for _ in $(seq 60); do
	[ "$(journal_query MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250 LAYER=smb | wc -l)" -ge 15 ] && break
	sleep 1
done
journal_query MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250 LAYER=smb >entries.json
n=0
bad=
while IFS= read -r e; do
	f=$(journal_field "$e" FUNCTION)
	s=$(journal_field "$e" STACK)
	n=$((n + 1))
	[ "$n" -gt 1 ] || log "first entry: $(jq -c '{FUNCTION, KERNEL_FUNCTION, STACK, UID: ._UID}' <<<"$e")"
	# the kernel function first, then its callers down to the syscall
	if ! grep -q '^cifs_' <<<"$s" || ! grep -qE 'vfs_|do_syscall|entry_SYSCALL' <<<"$s"; then
		bad="$bad $f: [$(tr '\n' ' ' <<<"$s")]"
	fi
	# the entry's stack starts at the function itself, named once
	first=$(head -1 <<<"$s")
	second=$(sed -n 2p <<<"$s")
	[ "${first%%+*}" != "${second%%+*}" ] || bad="$bad $f: the function twice: [$(tr '\n' ' ' <<<"$s")]"
done <entries.json
log "$n slow SMB entries"
assert_ge "$n" 15 "slow SMB entries"
[ -z "$bad" ] || fail "entries without their stack:$bad"

# the counters are read as that user too: a summary of the three unlinks
kill -USR1 "$AGENT_PID"
s=$(journal_wait FUNCTION=INODE_OP_UNLINK MESSAGE_ID=ab8331e2b4474579a55840c9d3a77bac --timeout 60 | head -1)
assert_eq "$(journal_field "$s" COUNT)" 3 "INODE_OP_UNLINK summary COUNT as user nobody"

agent_stop
