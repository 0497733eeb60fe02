#!/bin/bash
# systemd-journal-upload -> systemd-journal-remote over loopback HTTP, from a
# journald of the test's own: every smblat entry arrives with every field
# and value it has locally (the journal's own receive time included); a
# second upload with the saved state sends only what is new.
. "${SOURCE_ROOT:?}/tests/lib-journald.sh"
journald_ns "$@"
. "${SOURCE_ROOT:?}/tests/lib-host.sh"
. "${SOURCE_ROOT:?}/tests/lib-entries.sh"
REMOTE_PID=
trap '[ -z "$REMOTE_PID" ] || kill "$REMOTE_PID" 2>/dev/null; entries_cleanup; journald_private_cleanup; cleanup' EXIT
journald_private_start

port=$((19532 + $$ % 1000))
mkdir -p "$TMP/remote"
/lib/systemd/systemd-journal-remote --listen-http="127.0.0.1:$port" --split-mode=none \
	--output="$TMP/remote/all.journal" 2>"$TMP/remote.err" &
REMOTE_PID=$!
for _ in $(seq 100); do
	python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port" 2>/dev/null && break
	kill -0 "$REMOTE_PID" 2>/dev/null || { cat "$TMP/remote.err" >&2; fail "systemd-journal-remote exited"; }
	sleep 0.1
done

upload() {
	/lib/systemd/systemd-journal-upload --url="http://127.0.0.1:$port" --follow=no \
		--save-state="$TMP/upload.state" 2>"$TMP/upload.err" ||
		{ cat "$TMP/upload.err" >&2; fail "systemd-journal-upload failed"; }
}

# compare: every local smblat entry once on the remote side, field for field
compare() {
	journalctl -o json --no-pager -t smblat >"$TMP/local.json"
	journalctl -o json --no-pager -t smblat --file="$TMP/remote/all.journal" >"$TMP/remote.json"
	python3 - "$TMP/local.json" "$TMP/remote.json" <<'PY'
import json, sys
local = [json.loads(l) for l in open(sys.argv[1])]
remote = [json.loads(l) for l in open(sys.argv[2])]
# the cursor names a position in one journal file; the rest must match
strip = lambda e: {k: v for k, v in e.items() if k != "__CURSOR"}
key = lambda e: (e["__REALTIME_TIMESTAMP"], e["MESSAGE"])
have = {}
problems = []
for e in remote:
    if key(e) in have:
        problems.append("uploaded twice: " + e["MESSAGE"][:60])
    have[key(e)] = strip(e)
fields = set()
for e in local:
    r = have.get(key(e))
    if r is None:
        problems.append("missing: " + e["MESSAGE"][:60])
        continue
    for k, v in strip(e).items():
        if r.get(k) != v:
            problems.append("%s: %s = %r remotely, %r here" % (e.get("FUNCTION"), k, r.get(k), v))
    extra = set(r) - set(strip(e))
    if extra:
        problems.append("%s: extra fields remotely: %s" % (e.get("FUNCTION"), sorted(extra)))
    fields |= {k for k in e if not k.startswith("_")}
if len(remote) != len(local):
    problems.append("%d entries remotely, %d here" % (len(remote), len(local)))
for p in sorted(set(problems))[:40]:
    print("FAIL:", p, file=sys.stderr)
print("%d entries, %d smblat fields each as here: %s" % (len(local), len(fields), " ".join(sorted(fields))))
sys.exit(1 if problems or not local else 0)
PY
}

entries_make
upload
compare || fail "the entries did not arrive as they are here"

# new entries after a first upload: only they go out the second time
entries_smb
upload
compare || fail "the second upload did not send exactly the new entries"
echo ok
