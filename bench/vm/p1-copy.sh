#!/bin/bash
# P1: small-file copy onto the SMB mount with no tracer, with smblat (every
# smb operation, 10 ms threshold) and with bpftrace doing the same per-call
# work on the same functions. Interleaved rounds; per run the copy's wall
# time and the BPF run time of the tracer's programs during the copy.
. "$BENCH_DIR/vm/bench-lib.sh"

files=${BENCH_FILES:-1000}
rounds=${BENCH_ROUNDS:-3}
sysctl -qw kernel.bpf_stats_enabled=1

# The smb layer alone: the layers auto switches on beside it (smb2 requests,
# block, smbd serving the copy in this guest) do work bpftrace's script does not.
only_smb='[smb2]\nenabled = no\n[block]\nenabled = no\n[smbd]\nenabled = no\n'
printf "[agent]\nthreshold = 10ms\nuser =\n[histogram]\ninterval = 0\n$only_smb" >conf
# bpftrace's kfunc probes go where the agent's fentry programs can go
printf '[agent]\nthreshold = 10ms\nuser =\nbackend = fentry\n[histogram]\ninterval = 0\n' >conf-fentry
smb_targets conf-fentry >targets
nf=$(wc -l <targets)
assert_ge "$nf" 10 "smb functions attached"
bt_script kfunc targets >trace.bt
cp trace.bt "$LOG_DIR/trace.bt"
result p1_files "$files"
result p1_functions "$nf"

make_tree src "$files"
log "source tree: $files files in $(find src -type d | wc -l) directories"

# CPU time (ms, user + system) of a process, 0 when there is none
cpu_ms() {
	local pid=$1 hz
	hz=$(getconf CLK_TCK)
	[ -n "$pid" ] && [ -r "/proc/$pid/stat" ] || { echo 0; return; }
	# fields 14 and 15 after the ")" that ends the command name
	sed 's/.*) //' "/proc/$pid/stat" | awk -v hz="$hz" '{ print int(($12 + $13) * 1000 / hz) }'
}
journald_pid=$(pgrep -o systemd-journal || true)

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
		case $mode in
		smblat) tracer=$AGENT_PID ;;
		bpftrace) tracer=$TRACER_PID ;;
		*) tracer= ;;
		esac
		journal_mark
		# no file before bpftrace first ran: 0 lines (a failing cat in a pipe ends the script)
		bt0=$(wc -l <"$LOG_DIR/bpftrace.log" 2>/dev/null || echo 0)
		sync
		s0=$(prog_stats "$ids")
		c0=$(cpu_ms "$tracer") j0=$(cpu_ms "$journald_pid")
		t0=${EPOCHREALTIME/[.,]/}
		cp -r src "$SMB_MNT/dst"
		t1=${EPOCHREALTIME/[.,]/}
		s1=$(prog_stats "$ids")
		c1=$(cpu_ms "$tracer") j1=$(cpu_ms "$journald_pid")
		read -r rt0 rc0 _ <<<"$s0"
		read -r rt1 rc1 np <<<"$s1"
		wall_us=$((t1 - t0))
		case $mode in
		smblat) agent_stop ;;
		bpftrace) bt_stop ;;
		esac
		# what the tracer wrote of this copy: the agent's journal entries, bpftrace's lines
		case $mode in
		smblat) out=$(journal_count MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250) ;;
		bpftrace) out=$(tail -n +$((bt0 + 1)) "$LOG_DIR/bpftrace.log" | grep -c ' us' || true) ;;
		*) out=0 ;;
		esac
		result "p1_run $r $mode wall_us $wall_us bpf_ns $((rt1 - rt0)) bpf_cnt $((rc1 - rc0)) progs $np tracer_cpu_ms $((c1 - c0)) journald_cpu_ms $((j1 - j0)) events $out"
		rm -rf "$SMB_MNT/dst"
	done
done
