#!/bin/bash
# P3's user-space cost per event, in instructions (callgrind): the agent at
# threshold 0 with a uprobe on bench/loop.c's bench_op() for SECONDS (the
# loop's calls far outrun an agent under callgrind: most are lost in the
# ring buffer, which costs the agent nothing). Per event, over the events
# the agent read: on_event() (decode, format, hand-off to the writer) and
# the writer thread (sending, libsystemd included), each inclusive.
#
#   bench/instructions.sh SMBLAT [SECONDS]     (as root, journald running)
#
# Instructions, not times: they do not depend on the load of the machine.
set -euo pipefail

SMBLAT=${1:?usage: bench/instructions.sh SMBLAT [SECONDS]}
SECS=${2:-5}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
command -v valgrind >/dev/null || { echo "instructions: needs valgrind" >&2; exit 2; }
W=$(mktemp -d /tmp/smblat-ipe.XXXXXX)
PID=
cleanup() {
	[ -z "$PID" ] || kill -KILL "$PID" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT

cc -O2 -g -o "$W/loop" "$BENCH_DIR/loop.c"
cat >"$W/conf" <<EOF
[agent]
threshold = 0
user =
[smb]
enabled = no
[histogram]
interval = 0
[probe BENCH_IPE]
target = $W/loop:bench_op
EOF

valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$SMBLAT" -c "$W/conf" \
	>"$W/out" 2>"$W/err" &
PID=$!
for _ in $(seq 1200); do
	grep -q "ready:" "$W/err" && break
	kill -0 "$PID" 2>/dev/null || { cat "$W/err" >&2; exit 1; }
	sleep 0.5
done
grep -q "ready:" "$W/err" || { echo "instructions: agent not ready after 600 s" >&2; exit 1; }
calls=$("$W/loop" "$SECS")
kill -TERM "$PID"
wait "$PID" || true
PID=
# IPE_KEEP=FILE keeps the profile (callgrind_annotate --inclusive=yes FILE)
[ -z "${IPE_KEEP:-}" ] || cp "$W/cg.out" "$IPE_KEEP"

python3 - "$W/cg.out" "$calls" "$(grep -m1 'stopped:' "$W/err" || true)" <<'PY'
import re, sys

names = {}


def name(tok):
    m = re.match(r"\((\d+)\)(?: (.*))?$", tok)
    if not m:
        return tok
    if m.group(2):
        names[m.group(1)] = m.group(2)
    return names.get(m.group(1), tok)


want = {"on_event": [0, 0], "writer_main": [0, 0]}
target, pending = None, None
with open(sys.argv[1]) as f:
    for line in f:
        line = line.rstrip("\n")
        if line.startswith(("fn=", "fl=", "fi=", "fe=", "ob=", "cob=", "cfi=", "cfl=")):
            tag, _, rest = line.partition("=")
            if tag in ("fn",):
                name(rest)
            continue
        if line.startswith("cfn="):
            target = name(line[4:])
            continue
        if line.startswith("calls="):
            pending = (target, int(line[6:].split()[0]))
            continue
        if pending:
            fn, n = pending
            pending = None
            if fn in want:
                want[fn][0] += n
                want[fn][1] += int(line.split()[-1])
events, ir = want["on_event"]
_, wir = want["writer_main"]
print("loop calls %s; agent: %s" % (sys.argv[2], sys.argv[3]))
if not events:
    sys.exit("instructions: no on_event calls in the profile")
print("events read %d; instructions per event: on_event %.0f, writer thread %.0f, together %.0f"
      % (events, ir / events, wir / events, (ir + wir) / events))
PY
