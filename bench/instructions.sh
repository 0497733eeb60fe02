#!/bin/bash
# P3's user-space cost per event, in instructions (callgrind): the agent at
# threshold 0 with a uprobe on bench/loop.c's bench_op() for SECONDS, P3's
# configuration (no rate limit, the probe alone). The loop's calls far
# outrun an agent under callgrind: most are lost in the ring buffer, which
# costs the agent nothing. Per stage, each inclusive: on_event() per event
# read (decode, build, hand-off to the writer); of that decoding
# (layers_decode(), event_record_clear()) per event, building the entry
# (event_fields()) and queueing it (writer_push()) per entry built; the
# writer thread per entry written (the kernel's side of the sends is not
# in it: callgrind counts user space).
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
rate_limit = 0
[smb]
enabled = no
[smb2]
enabled = no
[block]
enabled = no
[smbd]
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


stages = ["on_event", "layers_decode", "event_record_clear", "ratelimit_allows", "journal_write_event",
          "event_fields", "writer_push", "writer_main"]
want = {k: [0, 0] for k in stages}
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
m = re.search(r"stopped: (\d+) entries written, (\d+) failed", sys.argv[3])
written = int(m.group(1)) if m else 0
print("loop calls %s; agent: %s" % (sys.argv[2], sys.argv[3]))
events = want["on_event"][0]
built = want["event_fields"][0]
if not events or not built or not written:
    sys.exit("instructions: no events, entries or writes in the profile")
per = lambda k, n: want[k][1] / n
decode = per("layers_decode", events) + per("event_record_clear", events)
print("events read %d, entries built %d, written %d" % (events, built, written))
print("instructions: on_event %.0f per event read (decode %.0f, rate limit %.0f); "
      "per entry built: build %.0f, queue %.0f; writer thread %.0f per entry written; "
      "per entry written, all user space: %.0f"
      % (per("on_event", events), decode, per("ratelimit_allows", events), per("event_fields", built),
         per("writer_push", built), per("writer_main", written),
         (want["on_event"][1] + want["writer_main"][1]) / written))
PY
