#!/bin/bash
# The kernel's verifier goes through the smb layer's exit template in a
# bounded number of instructions. Each fentry clone is verified anew, once
# per cifs function at start-up, so a path the verifier cannot prune costs
# start-up time on every function. The histogram's log2 as a binary search
# made it follow 64 paths per accounting, and the per-share counting inlined
# multiplied the slow-call entry's fill: 11,490 instructions here and 33,578
# on 6.1 for the VFS exit (fentry clones 7x slower), now about 5,000 here
# and 3,851 on 6.1. The VM runs the same check on each kernel (32-verify-cost).
# The user-stack walk by unwind tables (bpf/ustack.bpf.h, global functions
# verified with every program that may take a user stack) took the VFS exit
# from 4,503 to 8,124 here: the budget is 9,000 since.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

obj="$BUILD_ROOT/bpf/smblat.bpf.o"
rc=0
"$BUILD_ROOT/tests/verifycost" "$obj" 9000 vfs_kretprobe call_kretprobe vfs_kprobe call_kprobe \
	>"$TMP/cost" 2>&1 || rc=$?
cat "$TMP/cost"
[ "$rc" = 77 ] && { echo "SKIP: $(head -1 "$TMP/cost")"; exit 77; }
[ "$rc" = 0 ] || fail "a template over its verification budget (above)"
