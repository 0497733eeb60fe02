#!/bin/bash
# Threshold 0 logs every call (readdir, buffered write + fsync); after SIGTERM
# no BPF link or program of ours is left.
. "$VM_DIR/lib.sh"

printf '[agent]\nthreshold = 0\nuser =\n[histogram]\ninterval = 0\n' >conf
# ours are the links and programs that appear while the agent starts (auto
# may attach every operation through one kprobe.multi pair: two links)
# ids KIND: the ids of the kernel's BPF links or programs (none: [])
ids() { bpftool -j "$1" show | jq -cs 'add // [] | [.[].id]'; }
links_before=$(ids link)
progs_before=$(ids prog)
agent_start -c conf
journal_mark
links=$(ids link | jq -c --argjson old "$links_before" '. - $old')
progs=$(ids prog | jq -c --argjson old "$progs_before" '. - $old')
assert_ge "$(jq length <<<"$links")" 2 "BPF links of ours while running"
assert_ge "$(jq length <<<"$progs")" 2 "BPF programs of ours while running"
ls -la "$SMB_MNT" >/dev/null
dd if=/dev/zero of="$SMB_MNT/w.$$" bs=64k count=16 conv=fsync status=none
journal_wait FUNCTION=FILE_READDIR COMM=ls >/dev/null
journal_wait FUNCTION=FILE_WRITE_ITER COMM=dd >/dev/null
journal_wait FUNCTION=FILE_FSYNC COMM=dd >/dev/null
agent_stop
rm -f "$SMB_MNT/w.$$"
left=$(ids link | jq --argjson ours "$links" '[.[] | select(. as $i | $ours | index($i))] | length')
assert_eq "$left" 0 "BPF links of ours left after SIGTERM"
left=$(ids prog | jq --argjson ours "$progs" '[.[] | select(. as $i | $ours | index($i))] | length')
assert_eq "$left" 0 "BPF programs of ours left after SIGTERM"
