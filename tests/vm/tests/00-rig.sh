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
# against, on kernels that have module BTF at all (5.11 and later).
[ -e /sys/kernel/btf/vmlinux ] || fail "/sys/kernel/btf/vmlinux missing"
if find /sys/kernel/btf -mindepth 1 ! -name vmlinux | grep -q .; then
	[ -e /sys/kernel/btf/cifs ] || fail "/sys/kernel/btf/cifs missing"
	cifs_btf=1
else
	log "no module BTF on this kernel (CONFIG_DEBUG_INFO_BTF_MODULES, Linux 5.11)"
	cifs_btf=0
fi

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

# Files on the share work. One rm of N files is timed without and with a
# 20 ms netem delay on lo; every unlink then costs at least one delayed
# round trip (2 x 20 ms), so the difference per file must be >= 20 ms.
# Timing N files in one process keeps fork/exec cost (large under TCG)
# out of the per-file figure.
dir=$SMB_MNT/$TEST_NAME.$$
n=10
mkdir "$dir"
# A loaded host can stretch the rm without delay as much as netem does: up to
# three tries (a delay that does not work fails all three).
for try in 1 2 3; do
	for i in $(seq $n); do
		echo data >"$dir/fast.$i"
		echo data >"$dir/slow.$i"
	done
	[ "$(cat "$dir/fast.1")" = data ] || fail "read back from the share failed"
	fast=$(elapsed_ms rm "$dir"/fast.*)
	netem_on 20
	slow=$(elapsed_ms rm "$dir"/slow.*)
	netem_off
	per_file=$(((slow - fast) / n))
	log "try $try: rm of $n files: $fast ms without netem, $slow ms with 20 ms netem; +$per_file ms per file"
	[ -z "$(ls -A "$dir")" ] || fail "files left after rm: $(ls -A "$dir")"
	((per_file < 20)) || break
done
assert_ge "$per_file" 20 "extra time per rm on the share with netem 20ms (ms)"
rmdir "$dir"

# ext4 side works too.
echo data >"$EXT4_MNT/$TEST_NAME.$$"
rm "$EXT4_MNT/$TEST_NAME.$$"

# BPF tooling: listing programs works (the kernel may have none loaded).
bpftool prog list >"$LOG_DIR/bpftool-prog.txt" || fail "bpftool prog list failed"
[ "$cifs_btf" = 0 ] || grep -qa cifs_unlink /sys/kernel/btf/cifs || fail "cifs_unlink not in the cifs BTF"
log "bpftool: $(wc -l <"$LOG_DIR/bpftool-prog.txt") lines of prog list"

log "rig OK"
