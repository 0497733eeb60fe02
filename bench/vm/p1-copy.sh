#!/bin/bash
# P1: small-file copy onto the SMB mount with no tracer, with smblat (every
# smb operation, 10 ms threshold) and with bpftrace doing the same per-call
# work on the same functions. Interleaved rounds; per run the copy's wall
# time and the BPF run time of the tracer's programs during the copy.
. "$BENCH_DIR/vm/bench-lib.sh"

files=${BENCH_FILES:-1000}
rounds=${BENCH_ROUNDS:-3}
sysctl -qw kernel.bpf_stats_enabled=1

printf '[agent]\nthreshold = 10ms\nuser =\n[histogram]\ninterval = 0\n' >conf
smb_targets conf >targets
nf=$(wc -l <targets)
assert_ge "$nf" 10 "smb functions attached"
bt_script kfunc targets >trace.bt
cp trace.bt "$LOG_DIR/trace.bt"
result p1_files "$files"
result p1_functions "$nf"

make_tree src "$files"
log "source tree: $files files in $(find src -type d | wc -l) directories"

modes=(none smblat bpftrace)
for ((r = 0; r < rounds; r++)); do
	for ((k = 0; k < 3; k++)); do
		# rotate the order so no mode always runs first after a stop
		mode=${modes[(r + k) % 3]}
		prog_ids_before ids-before
		case $mode in
		smblat) agent_start -c conf ;;
		bpftrace) bt_start trace.bt ;;
		esac
		ids=$(prog_ids_new ids-before)
		sync
		s0=$(prog_stats "$ids")
		t0=${EPOCHREALTIME/[.,]/}
		cp -r src "$SMB_MNT/dst"
		t1=${EPOCHREALTIME/[.,]/}
		s1=$(prog_stats "$ids")
		read -r rt0 rc0 _ <<<"$s0"
		read -r rt1 rc1 np <<<"$s1"
		wall_us=$((t1 - t0))
		result "p1_run $r $mode wall_us $wall_us bpf_ns $((rt1 - rt0)) bpf_cnt $((rc1 - rc0)) progs $np"
		case $mode in
		smblat) agent_stop ;;
		bpftrace) bt_stop ;;
		esac
		rm -rf "$SMB_MNT/dst"
	done
done
