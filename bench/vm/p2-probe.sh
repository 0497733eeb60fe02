#!/bin/bash
# P2 (guest): BPF run time per call of smblat's programs vs empty bpftrace
# programs on the same hooks (every smb operation), fentry and kprobe, under
# the same small-file workload. The threshold is out of reach, so this is the
# path every call takes (timing, counters, histogram); the slow-call path
# (ring buffer, stack) shows in P1 and P3.
. "$BENCH_DIR/vm/bench-lib.sh"

files=${BENCH_P2_FILES:-200}
sysctl -qw kernel.bpf_stats_enabled=1
make_tree src "$files"

# workload WHO BACKEND: copy the tree to the share and remove it while
# the programs in $ids are attached; one result line with their run time/count.
workload() {
	local s0 s1 rt0 rc0 rt1 rc1 np
	s0=$(prog_stats "$ids")
	cp -r src "$SMB_MNT/p2"
	rm -rf "$SMB_MNT/p2"
	s1=$(prog_stats "$ids")
	read -r rt0 rc0 _ <<<"$s0"
	read -r rt1 rc1 np <<<"$s1"
	result "p2 vm $2 $1 run_time_ns $((rt1 - rt0)) run_cnt $((rc1 - rc0)) progs $np"
	prog_stats_by_name "$ids" | while read -r name rt cnt; do
		result "p2_prog vm $2 $1 $name $rt $cnt"
	done
}

# fentry-hash: fentry with per-thread state in the hash by thread id that
# kernels without task storage use (thread_state = hash), beside the
# task-storage fentry of the same run; its empty pair is fentry's.
for be in fentry fentry-hash kprobe; do
	# the smb layer alone, as the empty pair: the layers auto switches on
	# beside it (smb2, block, smbd serving the copy) ran programs the empty
	# pair does not have, 46,017 runs against 4,996 in the 03:21 run
	printf '[agent]\nthreshold = 1h\nuser =\nbackend = %s\nthread_state = %s\n[histogram]\ninterval = 0\n[smb2]\nenabled = no\n[block]\nenabled = no\n[smbd]\nenabled = no\n' \
		"${be%-hash}" "$([ "$be" = fentry-hash ] && echo hash || echo auto)" >conf
	smb_targets conf >targets
	prog_ids_before ids-before
	agent_start -c conf
	ids=$(prog_ids_new ids-before)
	workload smblat "$be"
	agent_stop
	[ "$be" != fentry-hash ] || continue
	if [ "$be" = fentry ]; then kind=kfunc; else kind=kprobe; fi
	bt_script "$kind" targets empty >empty.bt
	prog_ids_before ids-before
	bt_start empty.bt
	ids=$(prog_ids_new ids-before)
	workload empty "$be"
	bt_stop
done
