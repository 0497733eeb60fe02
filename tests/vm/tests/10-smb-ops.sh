#!/bin/bash
# The core acceptance scenarios: slow unlink, rename and setattr on a real
# SMB share with 20 ms of loopback delay, each a journal entry with the
# fields operators query; a fast op stays silent.
. "$VM_DIR/lib.sh"

cat >conf <<CONF
[agent]
threshold = 20ms
user =
[histogram]
interval = 0
CONF
d=$SMB_MNT/ops.$$
mkdir -p "$d"
echo x >"$d/victim"
echo x >"$d/from"
echo x >"$d/stamp"
echo x >"$d/quick"

agent_start -c conf
journal_mark
quick_ms=$(elapsed_ms rm "$d/quick")    # no delay: below the threshold, unless the machine stretched it

netem_on 20
rm "$d/victim" & rm_pid=$!
wait $rm_pid
mv "$d/from" "$d/to"
touch -d '2001-01-01 00:00' "$d/stamp"
netem_off

e=$(journal_wait FUNCTION=INODE_OP_UNLINK FILE=victim | head -1)
log "unlink entry: $e"
assert_ge "$(journal_field "$e" LATENCY_US)" 20000 "INODE_OP_UNLINK LATENCY_US"
assert_eq "$(journal_field "$e" PID)" "$rm_pid" "PID of the rm"
assert_eq "$(journal_field "$e" COMM)" rm "COMM"
assert_eq "$(journal_field "$e" LAYER)" smb "LAYER"
assert_eq "$(journal_field "$e" KERNEL_FUNCTION)" cifs_unlink "KERNEL_FUNCTION"
assert_eq "$(journal_field "$e" SMB_SHARE)" '\\127.0.0.1\share' "SMB_SHARE"
assert_eq "$(journal_field "$e" THRESHOLD_US)" 20000 "THRESHOLD_US"
assert_eq "$(journal_field "$e" MESSAGE_ID)" a48f35af155e4887a8d221f2a9c1c250 "MESSAGE_ID"
journal_field "$e" STACK | grep -q '^cifs_unlink' || fail "STACK does not start at cifs_unlink: $(journal_field "$e" STACK)"
journal_field "$e" STACK | grep -q 'vfs_unlink' || fail "STACK lacks the VFS caller: $(journal_field "$e" STACK)"
journal_field "$e" MESSAGE | grep -qE '^INODE_OP_UNLINK took [0-9]+\.[0-9]{3} ms: rm\[[0-9]+\] on \\\\127\.0\.0\.1\\share' ||
	fail "MESSAGE: $(journal_field "$e" MESSAGE)"

e=$(journal_wait FUNCTION=INODE_OP_RENAME2 | head -1)
assert_ge "$(journal_field "$e" LATENCY_US)" 20000 "INODE_OP_RENAME2 LATENCY_US"
assert_eq "$(journal_field "$e" COMM)" mv "COMM of the rename"
# FILE is the dentry name when the call returned: the new name after a rename.
assert_eq "$(journal_field "$e" FILE)" to "FILE of the rename"

e=$(journal_wait FUNCTION=INODE_OP_SETATTR | head -1)
assert_ge "$(journal_field "$e" LATENCY_US)" 20000 "INODE_OP_SETATTR LATENCY_US"
assert_eq "$(journal_field "$e" COMM)" touch "COMM of the setattr"

agent_stop
# judged by the rm's own measure: a loaded host can stretch even a quick rm past 20 ms
[ "$quick_ms" -ge 20 ] ||
	assert_eq "$(journal_count FUNCTION=INODE_OP_UNLINK FILE=quick)" 0 "entries for the unlink below threshold"
rm -rf "$d"
