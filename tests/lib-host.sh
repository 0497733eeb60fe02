# Helpers for tests/host/*.sh: a real journald, the agent, journal queries.
set -eu

fail() { echo "FAIL: $*" >&2; exit 1; }

TMP=$(mktemp -d /tmp/smblat-test.XXXXXX)
AGENT_PID=
cleanup() {
	[ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT

# journald must answer on its socket; start a standalone one when none does.
journald_ensure() {
	if python3 - <<'PY' 2>/dev/null; then return 0; fi
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.connect("/run/systemd/journal/socket")
PY
	rm -f /run/systemd/journal/socket
	mkdir -p /run/systemd/journal
	setsid /lib/systemd/systemd-journald </dev/null >/dev/null 2>&1 &
	for _ in $(seq 50); do
		[ -S /run/systemd/journal/socket ] && return 0
		sleep 0.2
	done
	fail "systemd-journald did not start"
}

# agent_start ARGS...: runs the agent, waits for its ready line.
agent_start() {
	# emptied here, not by the background redirection: that may come after
	# the first look for "ready:", which would then find the last agent's
	: >"$TMP/agent.err"
	"$SMBLAT" "$@" >"$TMP/agent.out" 2>"$TMP/agent.err" &
	AGENT_PID=$!
	for _ in $(seq 300); do
		grep -q "ready:" "$TMP/agent.err" && return 0
		kill -0 "$AGENT_PID" 2>/dev/null || { cat "$TMP/agent.err" >&2; fail "agent exited before ready"; }
		sleep 0.1
	done
	cat "$TMP/agent.err" >&2
	fail "agent not ready after 30 s"
}

# agent_stop: SIGTERM, and the exit status must be 0.
agent_stop() {
	kill -TERM "$AGENT_PID"
	local rc=0
	wait "$AGENT_PID" || rc=$?
	AGENT_PID=
	[ "$rc" -eq 0 ] || { cat "$TMP/agent.err" >&2; fail "agent exited with $rc after SIGTERM"; }
}

# journal_json MATCH...: entries of this test run (by a unique marker in COMM or FUNCTION).
journal_json() {
	journalctl --sync 2>/dev/null || true
	journalctl -t smblat -o json --no-pager "$@" 2>/dev/null || true
}

# field NAME: reads one JSON entry on stdin, prints the field.
field() {
	python3 -c 'import json,sys; print(json.loads(sys.stdin.readline()).get(sys.argv[1], ""))' "$1"
}
