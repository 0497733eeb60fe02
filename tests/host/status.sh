#!/bin/bash
# Status entries as under smblat.service, where stderr is the journal
# (JOURNAL_STREAM): each status reaches the journal exactly once, as an
# entry of its kind's MESSAGE_ID with the fields an alert matches (LAYER,
# LAYER_STATE, FUNCTION, REASON, counts), and nothing comes through the
# stderr stream. Without JOURNAL_STREAM the same lines go to stderr too.
# On a private journald: other agents on the machine must not count.
. "${SOURCE_ROOT:?}/tests/lib-journald.sh"
journald_ns "$@"
. "${SOURCE_ROOT:?}/tests/lib-host.sh"
trap 'journald_private_cleanup; cleanup' EXIT
journald_private_start

prog="$TMP/statusprog"
cp "$BUILD_ROOT/tests/slowprog" "$prog"
conf() {    # conf BLOCK(yes/no) PROBES...: the file, with [probe] sections
	local block=$1 p
	shift
	printf '[agent]\nuser = nosuchuser%s\n[smb]\nenabled = no\n[smb2]\nenabled = no\n' $$ >"$TMP/smblat.conf"
	printf '[block]\nenabled = %s\n[smbd]\nenabled = yes\nbinary = %s/no/smbd\n' "$block" "$TMP" >>"$TMP/smblat.conf"
	for p in "$@"; do
		printf '[probe %s]\ntarget = %s\n' "${p%%=*}" "${p#*=}" >>"$TMP/smblat.conf"
	done
}
conf yes "ST_CALL=$prog:slow_call" "ST_MISSING=$prog:no_such_function"

# Under a journal stream, as systemd starts a service: JOURNAL_STREAM is the
# device and inode of the stream on stderr.
systemd-cat -t smblat-stderr sh -c 'JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec "$@"' \
	sh "$SMBLAT" -c "$TMP/smblat.conf" >"$TMP/out" 2>&1 &
for _ in $(seq 300); do
	pid=$(journalctl -q -o export --no-pager MESSAGE_ID=6d4a741edd5141d1b887a019dbc27c13 | sed -n 's/^_PID=//p')
	[ -n "$pid" ] && break
	sleep 0.1
done
[ -n "$pid" ] || { journalctl --no-pager >&2; fail "no ready entry after 30 s"; }
AGENT_PID=$pid
# SIGHUP: block off, the missing probe gone; then a broken file
conf no "ST_CALL=$prog:slow_call"
kill -HUP "$pid"
wait_status() {   # wait_status MESSAGE_ID: until the agent wrote one
	for _ in $(seq 300); do
		journalctl -q --no-pager "_PID=$pid" "MESSAGE_ID=$1" | grep -q . && return 0
		sleep 0.1
	done
	fail "no entry with MESSAGE_ID=$1"
}
wait_status 14507de9f48d4e27ad9cec800b9e680e
printf '[agent]\nthreshold = soon\n' >"$TMP/smblat.conf"
kill -HUP "$pid"
wait_status 41cf10865b7c4f0b81d93775fba5fb15
kill -TERM "$pid"
for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
AGENT_PID=
wait_status 000a570d70c34918a2d2b92626a85235
journalctl --sync
journalctl -q -o json --no-pager "_PID=$pid" >"$TMP/entries.json"

python3 - "$TMP/entries.json" <<'PY' || fail "status entries under JOURNAL_STREAM"
import json, sys
entries = [json.loads(l) for l in open(sys.argv[1])]
problems = []
stream = [e for e in entries if e.get("_TRANSPORT") != "journal"]
for e in stream:
    problems.append("through the stderr stream: %s" % e.get("MESSAGE"))
status = [e for e in entries if e.get("_TRANSPORT") == "journal" and "LATENCY_US" not in e
          and "COUNT" not in e and "LOST_RINGBUF" not in e]
# MESSAGE_ID -> (fields that must be there, with a value or None for any)
want = [
    ("34875d28e8d74ae0835d1a43ea797a29", "starting smblat", {}),
    ("4114fad0ff2740eca80cf1ac940e44d6", "user nosuchuser", {"REASON": "no-user"}),
    ("70f3a1c5e2d349b5852ba8ebaca7f03f", "block: ", {"LAYER": "block", "LAYER_STATE": "attached",
                                                     "ATTACHED": None, "NOT_ATTACHED": "0"}),
    ("4785c1bdd50f433086649b46c3453a80", "smbd: layer unavailable", {"LAYER": "smbd",
                                        "LAYER_STATE": "unavailable", "REASON": "not-found"}),
    ("54f66d96cd1445c1a2a205ae99a3daaa", "probe ST_MISSING: not attached", {"LAYER": "func",
                                        "FUNCTION": "ST_MISSING", "REASON": "not-found"}),
    ("70f3a1c5e2d349b5852ba8ebaca7f03f", "func: 1 of 2 probes attached", {"LAYER": "func",
                                        "LAYER_STATE": "attached", "ATTACHED": "1", "NOT_ATTACHED": "1"}),
    ("6d4a741edd5141d1b887a019dbc27c13", "ready: ", {"ATTACHED": None, "THRESHOLD_US": "10000"}),
    ("fb55e150488c49ce9e5fc54896673a65", "block: layer disabled by reload", {"LAYER": "block",
                                        "LAYER_STATE": "off", "REASON": "disabled", "DETACHED": None}),
    # the missing probe was never attached: not one of the removed
    ("14507de9f48d4e27ad9cec800b9e680e", "reload: applied: 0 probes added, 0 removed, 1 kept",
     {"PROBES_ADDED": "0", "PROBES_REMOVED": "0", "PROBES_KEPT": "1", "PROBES_FAILED": "0",
      "DETACHED": None, "ATTACHED": "0", "THRESHOLD_US": "10000"}),
    ("41cf10865b7c4f0b81d93775fba5fb15", "reload: ", {"REASON": "config-invalid"}),
    ("000a570d70c34918a2d2b92626a85235", "stopped: ", {"ENTRIES_WRITTEN": None, "ENTRIES_FAILED": "0"}),
]
seen = set()
for mid, text, fields in want:
    hits = [e for e in status if e.get("MESSAGE_ID") == mid and text in e.get("MESSAGE", "")]
    if len(hits) != 1:
        problems.append("%d entries of %s \"%s\", want 1" % (len(hits), mid, text))
        continue
    e = hits[0]
    seen.add(id(e))
    if e.get("SYSLOG_FACILITY") != "3" or e.get("SYSLOG_IDENTIFIER") != "smblat":
        problems.append("%s: SYSLOG_FACILITY %s" % (text, e.get("SYSLOG_FACILITY")))
    for f, v in fields.items():
        if f not in e or (v is not None and e[f] != v):
            problems.append("%s: %s=%r, want %r" % (text, f, e.get(f), v or "a value"))
for e in status:
    if id(e) not in seen:
        problems.append("unexpected status entry: %s %s" % (e.get("MESSAGE_ID"), e.get("MESSAGE")))
for p in problems:
    print("FAIL:", p, file=sys.stderr)
print("%d status entries, %d through the stream" % (len(status), len(stream)))
sys.exit(1 if problems else 0)
PY

# Without JOURNAL_STREAM (a terminal, a log file): on stderr as well.
conf yes "ST_CALL=$prog:slow_call"
agent_start -c "$TMP/smblat.conf"
agent_stop
for line in "smblat: starting smblat" "smblat: user nosuchuser$$ does not exist" "smblat: block: " \
	"smblat: smbd: layer unavailable" "smblat: ready: " "smblat: stopped: "; do
	[ "$(grep -c "^$line" "$TMP/agent.err")" -eq 1 ] || { cat "$TMP/agent.err"; fail "not once on stderr: $line"; }
done

# A start that fails says so once, with its reason.
printf '[agent]\nuser =\n[smb]\nenabled = no\n[smb2]\nenabled = no\n[block]\nenabled = no\n[smbd]\nenabled = no\n' >"$TMP/none.conf"
rc=0
systemd-cat -t smblat-stderr sh -c 'JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec "$@"' \
	sh "$SMBLAT" -c "$TMP/none.conf" || rc=$?
journalctl --sync
n=$(journalctl -q -o json --no-pager MESSAGE_ID=d9f0e7479be54e2a93402d20c058f2d9 REASON=nothing-to-trace | wc -l)
[ "$n" -eq 1 ] || fail "$n 'did not start' entries with REASON=nothing-to-trace"
[ "$(journalctl -q --no-pager -t smblat-stderr | wc -l)" -eq 0 ] ||
	fail "lines through the stderr stream: $(journalctl -q --no-pager -t smblat-stderr)"
echo ok
