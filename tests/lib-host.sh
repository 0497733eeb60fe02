# Helpers for tests/host/*.sh: a real journald, the agent, journal queries.
set -eu

fail() { echo "FAIL: $*" >&2; exit 1; }

TMP=$(mktemp -d /tmp/smblat-test.XXXXXX)
# The journal outlives the test, and its markers ($$) recur: a later run
# with the same PID saw an earlier run's entries. Queries start here.
TEST_START=$(date +%s.%6N)
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
	# emptied here, not by the child's redirection: the wait below could
	# otherwise still see the "ready:" of an earlier agent of the same test
	: >"$TMP/agent.out"
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

# journal_json MATCH...: entries of this test run (written since it began,
# with a marker of it in COMM or FUNCTION).
journal_json() {
	journalctl --sync 2>/dev/null || true
	journalctl -t smblat -o json --no-pager --since "@$TEST_START" "$@" 2>/dev/null || true
}

# lost_of LABEL KIND: LABEL's calls the loss entries count as KIND (ringbuf,
# suppressed, failed, untimed; all: their sum), from LOST_FUNCTIONS' items
# LABEL:R/S/F[/U].
lost_of() {
	journal_json MESSAGE_ID=007f72e0507d4b96b52049ce539ad083 | python3 -c '
import json, sys
label, kind = sys.argv[1:]
kinds = ["ringbuf", "suppressed", "failed", "untimed"]
n = 0
for line in sys.stdin:
    for item in json.loads(line).get("LOST_FUNCTIONS", "").split():
        name, _, counts = item.rpartition(":")
        if name == label:
            n += sum(int(x) for k, x in zip(kinds, counts.split("/")) if kind in (k, "all"))
print(n)
' "$1" "$2"
}

# field NAME: reads one JSON entry on stdin, prints the field.
field() {
	python3 -c 'import json,sys; print(json.loads(sys.stdin.readline()).get(sys.argv[1], ""))' "$1"
}

# shipped_user: the smblat user of units/smblat.sysusers, as the package
# makes it, in an overlay of /etc (the machine's own is left alone); for a
# test in a mount namespace of its own, whose mounts end with it.
shipped_user() {
	mkdir -p "$TMP/ov"
	mount -t tmpfs tmpfs "$TMP/ov"
	mkdir -p "$TMP/ov/etc" "$TMP/ov/etc.work"
	mount -t overlay overlay -o "lowerdir=/etc,upperdir=$TMP/ov/etc,workdir=$TMP/ov/etc.work" /etc
	getent passwd smblat >/dev/null || systemd-sysusers "$SOURCE_ROOT/units/smblat.sysusers" >/dev/null
	getent passwd smblat >/dev/null || fail "no smblat user after systemd-sysusers"
}

# smbd_start DIR PORT: the machine's smbd on samba_conf DIR PORT, in the
# background (SMBD_PID), once it answers a client; smbd_stop ends it, and
# its children with it (they follow their parent's SIGTERM).
SMBD_PID=
smbd_start() {
	local smbd
	command -v smbclient >/dev/null || fail "smbclient not installed"
	smbd=$(command -v smbd || echo /usr/sbin/smbd)
	[ -x "$smbd" ] || fail "smbd not installed"
	samba_conf "$1" "$2"
	setsid "$smbd" -F --no-process-group -s "$1/smb.conf" --debug-stdout >"$1/smbd.out" 2>&1 &
	SMBD_PID=$!
	for _ in $(seq 100); do
		timeout 5 smbclient "//127.0.0.1/share" -p "$2" -N -c "ls" >/dev/null 2>&1 && return 0
		kill -0 "$SMBD_PID" 2>/dev/null || { cat "$1/smbd.out" >&2; fail "smbd exited"; }
		sleep 0.2
	done
	fail "smbd did not answer on port $2"
}
smbd_stop() {
	[ -n "$SMBD_PID" ] || return 0
	kill "$SMBD_PID" 2>/dev/null || true
	for _ in $(seq 50); do kill -0 "$SMBD_PID" 2>/dev/null || break; sleep 0.1; done
	SMBD_PID=
}

# samba_conf DIR [PORT]: a standalone smbd's smb.conf in DIR, and its
# directories, on loopback (at PORT, else 445) with a guest share [share]
# on DIR/share.
samba_conf() {
	local S=$1
	mkdir -p "$S"/{share,run,lock,state,cache,private,log}
	cat >"$S/smb.conf" <<CONF
[global]
server role = standalone server
interfaces = lo
bind interfaces only = yes
smb ports = ${2:-445}
pid directory = $S/run
lock directory = $S/lock
state directory = $S/state
cache directory = $S/cache
private dir = $S/private
ncalrpc dir = $S/run/ncalrpc
log file = $S/log/log.%m
passdb backend = tdbsam:$S/private/passdb.tdb
map to guest = Bad User
guest account = nobody
load printers = no
disable spoolss = yes
printcap name = /dev/null
rpc start on demand helpers = no
[share]
path = $S/share
guest ok = yes
read only = no
force user = root
CONF
}
