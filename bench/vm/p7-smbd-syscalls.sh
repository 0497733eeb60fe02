#!/bin/bash
# P7: every smbd syscall counted while FILES files of 10 KiB are copied
# onto the SMB mount: the copy's wall time with no tracer, with smblat's
# syscalls layer (select = smbd) and with strace -c -f on every smbd
# process; one run each, in that order, the same tree.
. "$BENCH_DIR/vm/bench-lib.sh"

files=${BENCH_FILES:-1000}
sysctl -qw kernel.bpf_stats_enabled=1
printf '[agent]\nuser =\nkernel_stack = no\n[histogram]\ninterval = 0\n[smb]\nenabled = no\n[syscalls]\nenabled = yes\nselect = smbd\n' >conf
make_tree src "$files"
result p7_files "$files"

for mode in none smblat strace; do
	prog_ids_before before.json
	case $mode in
	smblat) agent_start -c conf ;;
	strace)
		args=()
		for p in $(pgrep -x smbd); do args+=(-p "$p"); done
		strace -c -f -o strace.out "${args[@]}" 2>strace.err &
		spid=$!
		# attached when every smbd names strace as its tracer
		for _ in $(seq 300); do
			n=0
			for p in $(pgrep -x smbd); do
				grep -q "TracerPid:[[:space:]]*$spid" "/proc/$p/status" || n=$((n + 1))
			done
			[ "$n" -eq 0 ] && break
			sleep 0.1
		done
		;;
	esac
	ids=$(prog_ids_new before.json)
	sync
	s0=$(prog_stats "$ids")
	t0=${EPOCHREALTIME/[.,]/}
	cp -r src "$SMB_MNT/dst"
	t1=${EPOCHREALTIME/[.,]/}
	s1=$(prog_stats "$ids")
	read -r rt0 rc0 _ <<<"$s0"
	read -r rt1 rc1 _ <<<"$s1"
	case $mode in
	smblat) agent_stop ;;
	strace) kill -INT "$spid"; wait "$spid" || true; cp strace.out "$LOG_DIR/strace.out" ;;
	esac
	result "p7_run $mode wall_us $((t1 - t0)) bpf_ns $((rt1 - rt0)) bpf_cnt $((rc1 - rc0))"
	rm -rf "$SMB_MNT/dst"
done
