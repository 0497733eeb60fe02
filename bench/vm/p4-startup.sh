#!/bin/bash
# P4: exec to READY=1 and SIGTERM to exit, all cifs operations, per backend.
. "$BENCH_DIR/vm/bench-lib.sh"

reps=${BENCH_REPS:-3}
for be in fentry kprobe-multi kprobe; do
	printf '[agent]\nthreshold = 10ms\nuser =\nbackend = %s\n[histogram]\ninterval = 0\n' "$be" >conf
	# what the backend really attaches here (kprobe.multi may fall back)
	"$SMBLAT" --list-probes -c conf >list 2>&1 || true
	used=$(awk '$2 == "smb" && $NF == "attached" { n[$(NF - 1)]++ } END { for (b in n) { printf "%s%s:%d", s, b, n[b]; s = "," } }' list)
	result "p4_backend $be ${used:-none}"
	for ((i = 0; i < reps; i++)); do
		out=$(python3 "$BENCH_DIR/notify-time.py" --log "$LOG_DIR/agent.log" -- "$SMBLAT" -c conf) ||
			fail "$be: notify-time failed (see agent.log)"
		result "p4_run $be $out"
	done
done
