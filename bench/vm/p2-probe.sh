#!/bin/bash
# P2 (guest): BPF run time per call of smblat's programs vs empty bpftrace
# programs on the same hooks (every smb operation), fentry and kprobe, under
# the same small-file workload.
. "$BENCH_DIR/vm/bench-lib.sh"

files=${BENCH_P2_FILES:-200}
sysctl -qw kernel.bpf_stats_enabled=1
make_tree src "$files"

# workload PID WHO BACKEND: copy the tree to the share and remove it while
# PID's programs are attached; one result line with their run time/count.
workload() {
	local s0 s1 rt0 rc0 rt1 rc1 np
	s0=$(prog_stats "$1")
	cp -r src "$SMB_MNT/p2"
	rm -rf "$SMB_MNT/p2"
	s1=$(prog_stats "$1")
	read -r rt0 rc0 _ <<<"$s0"
	read -r rt1 rc1 np <<<"$s1"
	result "p2 vm $3 $2 run_time_ns $((rt1 - rt0)) run_cnt $((rc1 - rc0)) progs $np"
	prog_stats_by_name "$1" | while read -r name rt cnt; do
		result "p2_prog vm $3 $2 $name $rt $cnt"
	done
}

for be in fentry kprobe; do
	printf '[agent]\nthreshold = 10ms\nuser =\nbackend = %s\n[histogram]\ninterval = 0\n' "$be" >conf
	smb_targets conf >targets
	agent_start -c conf
	workload "$AGENT_PID" smblat "$be"
	agent_stop
	if [ "$be" = fentry ]; then kind=kfunc; else kind=kprobe; fi
	bt_script "$kind" targets empty >empty.bt
	bt_start empty.bt
	workload "$TRACER_PID" empty "$be"
	bt_stop
done
