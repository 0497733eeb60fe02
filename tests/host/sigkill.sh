#!/bin/bash
# SIGKILL leaves nothing behind: every BPF program and link of the agent
# (known by id from its file descriptors) is gone once it is dead, and no
# uprobe of ours stays registered in tracefs.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

journald_ensure
prog="$TMP/killprog$$"
cp "$BUILD_ROOT/tests/slowprog" "$prog"
cat >"$TMP/smblat.conf" <<CONF
[agent]
user =
[smb]
enabled = no
[probe KILL_$$]
target = $prog:slow_call
threshold = 0
CONF
agent_start -c "$TMP/smblat.conf"
"$prog" 1 >/dev/null
progs=$(grep -h '^prog_id:' /proc/"$AGENT_PID"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u)
links=$(grep -h '^link_id:' /proc/"$AGENT_PID"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u)
[ -n "$progs" ] || fail "agent ready but holds no BPF program"
[ -n "$links" ] || fail "agent ready but holds no BPF link (uprobes are links)"
for id in $progs; do
	bpftool prog show id "$id" >/dev/null 2>&1 || fail "program $id of the running agent not listed by bpftool"
done
# Our uprobes are links to our programs.
bpftool -j link show | python3 -c '
import json, sys
ids = set(map(int, sys.argv[1:]))
ours = [l for l in json.load(sys.stdin) if l.get("prog_id") in ids]
sys.exit(0 if ours else 1)' $progs || fail "bpftool shows no link to the agent's programs"
echo "running: programs $(echo $progs), links $(echo $links)"

kill -KILL "$AGENT_PID"
wait "$AGENT_PID" 2>/dev/null || true
AGENT_PID=
# Programs are freed once the last reference goes, which can take an RCU grace period.
for _ in $(seq 50); do
	left=""
	for id in $progs; do
		bpftool prog show id "$id" >/dev/null 2>&1 && left="$left prog:$id"
	done
	for id in $links; do
		bpftool link show id "$id" >/dev/null 2>&1 && left="$left link:$id"
	done
	[ -z "$left" ] && break
	sleep 0.1
done
[ -z "$left" ] || fail "left behind after SIGKILL:$left"
for f in /sys/kernel/tracing/uprobe_events /sys/kernel/debug/tracing/uprobe_events; do
	[ -r "$f" ] || continue
	! grep -q "$prog" "$f" || fail "uprobe on $prog still registered in $f"
done
"$prog" 1 >/dev/null || fail "the traced program fails after the agent was killed"
echo ok
