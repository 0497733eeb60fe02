#!/bin/bash
# Threshold 0 logs every call (readdir, buffered write + fsync); after SIGTERM
# no BPF link or program of ours is left.
. "$VM_DIR/lib.sh"

printf '[agent]\nthreshold = 0\nuser =\n[histogram]\ninterval = 0\n' >conf
agent_start -c conf
journal_mark
links=$(bpftool link show | grep -cE '^[0-9]+: ' || true)
assert_ge "$links" 10 "BPF links while running"
ls -la "$SMB_MNT" >/dev/null
dd if=/dev/zero of="$SMB_MNT/w.$$" bs=64k count=16 conv=fsync status=none
journal_wait FUNCTION=FILE_READDIR COMM=ls >/dev/null
journal_wait FUNCTION=FILE_WRITE_ITER COMM=dd >/dev/null
journal_wait FUNCTION=FILE_FSYNC COMM=dd >/dev/null
agent_stop
rm -f "$SMB_MNT/w.$$"
left=$(bpftool prog show | grep -cE 'name (smblat_entry|smblat_exit|kprobe_entry|kprobe_exit|kmulti_entry|kmulti_exit|fentry_entry|fexit_exit)' || true)
assert_eq "$left" 0 "BPF programs of ours left after SIGTERM"
