#!/bin/bash
# P4: exec to READY=1 and SIGTERM to exit, all cifs operations, per backend
# (auto: what the agent picks), with where the start-up time went (the
# agent's ready line) and its detach time; bpftrace starting and stopping on
# the same functions (kfunc and kprobe, the per-call work of P1) for comparison.
. "$BENCH_DIR/vm/bench-lib.sh"

reps=${BENCH_REPS:-3}
for be in auto fentry kprobe-multi kprobe; do
	printf '[agent]\nthreshold = 10ms\nuser =\nbackend = %s\n[histogram]\ninterval = 0\n' "$be" >conf
	# what the backend really attaches here (kprobe.multi may be refused)
	"$SMBLAT" --list-probes -c conf >list 2>&1 || true
	used=$(awk '$2 == "smb" && $NF == "attached" { n[$(NF - 1)]++ } END { for (b in n) { printf "%s%s:%d", s, b, n[b]; s = "," } }' list)
	result "p4_backend $be ${used:-none}"
	[ -n "$used" ] || continue
	for ((i = 0; i < reps; i++)); do
		: >agent.log
		out=$(python3 "$BENCH_DIR/notify-time.py" --log agent.log -- "$SMBLAT" -c conf) ||
			{ cat agent.log >>"$LOG_DIR/agent.log"; fail "$be: notify-time failed (see agent.log)"; }
		cat agent.log >>"$LOG_DIR/agent.log"
		result "p4_run $be $out"
		result "p4_profile $be $(sed -n 's/.*(start-up \(.*\))$/\1/p' agent.log | tail -1 | tr ' ' '_')"
		result "p4_detach $be $(sed -n 's/.*detached in \([0-9.]*\) s.*/\1/p' agent.log | tail -1)"
	done
done

# bpftrace on the functions the agent attaches with the same kind of probe
for kind in kfunc kprobe; do
	be=fentry
	[ "$kind" = kfunc ] || be=kprobe
	printf '[agent]\nthreshold = 10ms\nuser =\nbackend = %s\n[histogram]\ninterval = 0\n' "$be" >conf
	smb_targets conf >targets
	[ -s targets ] || continue
	bt_script "$kind" targets >"bt-$kind.bt"
	for ((i = 0; i < reps; i++)); do
		t0=$(now_ms)
		bt_start "bt-$kind.bt"
		t1=$(now_ms)
		bt_stop
		t2=$(now_ms)
		result "p4_bpftrace $kind functions $(wc -l <targets) ready_ms $((t1 - t0)) stop_ms $((t2 - t1))"
	done
done
