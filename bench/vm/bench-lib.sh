# Helpers for the guest benchmarks (bench/vm/*.sh), on top of tests/vm/lib.sh.
# Results go to $LOG_DIR/results.txt as "KEY VALUE..." lines; bench/run
# collects them after the guest stopped.
# shellcheck shell=bash

. "$VM_DIR/lib.sh"

RESULTS=$LOG_DIR/results.txt
: >"$RESULTS"

# result KEY VALUE...: one line of the results file (and the test log).
result() {
	echo "$*" >>"$RESULTS"
	log "result: $*"
}

. "$BENCH_DIR/progs.sh"

# smb_targets CONF: "FUNCTION MODULE SYMBOL" for every smb operation the
# agent attaches with CONF (MODULE is "-" for vmlinux).
smb_targets() {
	"$SMBLAT" --list-probes -c "$1" 2>/dev/null | awk '
		$2 == "smb" && $NF == "attached" {
			mod = "-"
			if ($4 ~ /^\[.*\]$/) { mod = substr($4, 2, length($4) - 2) }
			print $1, mod, $3
		}' | sort -u -k3,3
}

# bt_script KIND TARGETS [empty]: a bpftrace program for the functions in
# the file TARGETS (smb_targets output). KIND kfunc or kprobe. Without
# "empty" it does what the agent does per call: entry time per task and
# function, latency on return, a log2 histogram per function, and a line
# with the kernel stack for calls of 10 ms or more. With "empty", entry and
# return programs that do nothing.
bt_script() {
	local kind=$1 targets=$2 empty=${3:-} i=0 fn mod sym en ex
	echo 'BEGIN { printf("ready\n"); }'
	while read -r fn mod sym; do
		if [ "$kind" = kfunc ]; then
			if [ "$mod" = - ]; then en=kfunc:$sym ex=kretfunc:$sym
			else en=kfunc:$mod:$sym ex=kretfunc:$mod:$sym; fi
		else
			en=kprobe:$sym ex=kretprobe:$sym
		fi
		if [ -n "$empty" ]; then
			echo "$en { } $ex { }"
		else
			cat <<-BT
			$en { @start[tid, $i] = nsecs; }
			$ex /@start[tid, $i]/ {
				\$d = nsecs - @start[tid, $i];
				delete(@start[tid, $i]);
				@lat[$i] = hist(\$d / 1000);
				if (\$d >= 10000000) { printf("$fn %d %s %d us%s\n", pid, comm, \$d / 1000, kstack); }
			}
			BT
		fi
		i=$((i + 1))
	done <"$targets"
}

TRACER_PID=
TRACER_LOG=

# bt_start FILE: run bpftrace on FILE in the background, wait for its BEGIN.
bt_start() {
	TRACER_LOG=$LOG_DIR/bpftrace.log
	echo "== $(date +%T.%3N) bpftrace $1" >>"$TRACER_LOG"
	local start_line t0
	start_line=$(wc -l <"$TRACER_LOG")
	BPFTRACE_MAP_KEYS_MAX=100000 bpftrace "$1" </dev/null >>"$TRACER_LOG" 2>&1 &
	TRACER_PID=$!
	t0=$(now_ms)
	while ! awk -v s="$start_line" 'NR > s && /^ready$/ { f = 1 } END { exit !f }' "$TRACER_LOG"; do
		kill -0 "$TRACER_PID" 2>/dev/null || fail "bpftrace exited before it was ready (see bpftrace.log)"
		(($(now_ms) - t0 < 300000)) || fail "bpftrace not ready after 300 s"
		sleep 0.2
	done
	log "bpftrace ready (pid $TRACER_PID) after $(($(now_ms) - t0)) ms"
}

bt_stop() {
	kill -INT "$TRACER_PID" 2>/dev/null || true
	local t0
	t0=$(now_ms)
	while kill -0 "$TRACER_PID" 2>/dev/null && (($(now_ms) - t0 < 300000)); do
		sleep 0.2
	done
	kill -KILL "$TRACER_PID" 2>/dev/null || true
	wait "$TRACER_PID" 2>/dev/null || true
	log "bpftrace stopped after $(($(now_ms) - t0)) ms"
	TRACER_PID=
}

# make_tree DIR FILES: FILES files of 10 KiB, 10 per directory.
make_tree() {
	local dir=$1 files=$2 d f blob
	# 10240 bytes of text; written by the shell itself (a fork per file
	# costs tens of ms under TCG)
	blob=$(head -c 7680 /dev/urandom | base64 -w0)
	mkdir -p "$dir"
	for ((d = 0; d < (files + 9) / 10; d++)); do
		mkdir "$dir/d$d"
		for ((f = 0; f < 10 && d * 10 + f < files; f++)); do
			printf '%s' "$blob" >"$dir/d$d/f$f"
		done
	done
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

_bench_exit() {
	if [ -n "$TRACER_PID" ]; then
		kill -KILL "$TRACER_PID" 2>/dev/null || true
	fi
	_vm_exit
}
trap _bench_exit EXIT
