#!/bin/bash
# Smoke test of the VM rig itself: SMB mount, cifs BTF, journald, netem and
# bpftool all work in the guest. Does not need the agent.
. "$VM_DIR/lib.sh"

log "kernel $KVER (series $KSERIES), agent path $SMBLAT"

# The share is mounted over cifs, and the ext4 scratch fs is ext4.
[ "$(stat -f -c %T "$SMB_MNT")" = smb2 ] || [ "$(stat -f -c %T "$SMB_MNT")" = cifs ] ||
	fail "$SMB_MNT is not a cifs mount: $(stat -f -c %T "$SMB_MNT")"
grep -qE "^//127\.0\.0\.1/share $SMB_MNT cifs " /proc/mounts || fail "no cifs mount at $SMB_MNT in /proc/mounts"
grep -qE "^/dev/loop[0-9]+ $EXT4_MNT ext4 " /proc/mounts || fail "no ext4 loop mount at $EXT4_MNT"

# Module BTF for cifs is what the agent's fentry/kprobe programs resolve
# against.
[ -e /sys/kernel/btf/cifs ] || fail "/sys/kernel/btf/cifs missing"
[ -e /sys/kernel/btf/vmlinux ] || fail "/sys/kernel/btf/vmlinux missing"

# journald receives both syslog and stream entries.
logger -t smbltest "hello from $TEST_NAME"
echo "stream hello from $TEST_NAME" | systemd-cat -t smbltest
ok=0
for _ in $(seq 50); do
	n=$(journalctl --no-pager -q -t smbltest --cursor "$JOURNAL_CURSOR" -o cat | grep -c "hello from $TEST_NAME" || true)
	if [ "$n" -ge 2 ]; then
		ok=1
		break
	fi
	sleep 0.1
done
[ "$ok" = 1 ] || fail "journalctl did not show the logger/systemd-cat entries"

# The same via the lib.sh helpers (identifier smblat), to check them.
logger -t smblat "rig check $$"
line=$(journal_wait "MESSAGE=rig check $$" --timeout 10)
[ "$(journal_field "$line" MESSAGE)" = "rig check $$" ] || fail "journal_field returned the wrong MESSAGE"
[ "$(journal_field "$line" SYSLOG_IDENTIFIER)" = smblat ] || fail "journal_field returned the wrong SYSLOG_IDENTIFIER"
assert_eq "$(journal_count "MESSAGE=rig check $$")" 1 "journal_count"
journal_mark
assert_eq "$(journal_count "MESSAGE=rig check $$")" 0 "journal_count after journal_mark"

# Files on the share work; without netem an unlink is fast, with a 20 ms
# delay on lo it takes at least one delayed round trip.
dir=$SMB_MNT/$TEST_NAME.$$
mkdir "$dir"
echo data >"$dir/fast"
echo data >"$dir/slow"
[ "$(cat "$dir/fast")" = data ] || fail "read back from the share failed"
fast=$(elapsed_ms rm "$dir/fast")
log "rm without netem: $fast ms"
netem_on 20
slow=$(elapsed_ms rm "$dir/slow")
netem_off
log "rm with 20 ms netem: $slow ms"
assert_ge "$slow" 20 "rm on the share with netem 20ms"
[ ! -e "$dir/slow" ] || fail "file still exists after rm"
rmdir "$dir"

# ext4 side works too.
echo data >"$EXT4_MNT/$TEST_NAME.$$"
rm "$EXT4_MNT/$TEST_NAME.$$"

# BPF tooling: listing programs works (the kernel may have none loaded).
bpftool prog list >"$LOG_DIR/bpftool-prog.txt" || fail "bpftool prog list failed"
bpftool btf dump file /sys/kernel/btf/cifs format raw >"$LOG_DIR/cifs-btf.txt" ||
	fail "bpftool cannot read the cifs BTF"
grep -q "'cifs_unlink'" "$LOG_DIR/cifs-btf.txt" || fail "cifs_unlink not in the cifs BTF"
log "bpftool: $(wc -l <"$LOG_DIR/bpftool-prog.txt") lines of prog list"

log "rig OK"
