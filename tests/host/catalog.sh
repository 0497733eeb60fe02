#!/bin/bash
# The message catalog through "journalctl -x" on a real journald: entries of
# every MESSAGE_ID the agent defines (agent/base/messages.h), each shown
# with its catalog text, every @FIELD@ of it filled in from the entry and
# no @...@ left. systemd substitutes only names of A-Z and _, and a field
# the entry lacks comes out as its bare name: both are checked per entry.
# The catalog is compiled into a root of the test's own, as a package's
# "journalctl --update-catalog" would, and seen by journalctl in the test's
# mount namespace only.
. "${SOURCE_ROOT:?}/tests/lib-journald.sh"
journald_ns "$@"
. "${SOURCE_ROOT:?}/tests/lib-host.sh"
. "${SOURCE_ROOT:?}/tests/lib-entries.sh"
trap 'entries_cleanup; journald_private_cleanup; cleanup' EXIT
journald_private_start

root="$TMP/croot"
mkdir -p "$root/usr/lib/systemd/catalog" "$root/var/lib/systemd/catalog"
cp "$SOURCE_ROOT/units/smblat.catalog" "$root/usr/lib/systemd/catalog/"
journalctl --root="$root" --update-catalog || fail "journalctl --update-catalog refused the catalog"
mount --bind "$root/var/lib/systemd/catalog" /var/lib/systemd/catalog

# Entries: slow calls, summaries, a loss report, start, layers, a reload,
# stop, syscall summaries, counted stacks (lib-entries.sh); the smb layers'
# entries, connection events and views, and smbd's exits, breaks and time
# split (tests/smbentries.c), ...
entries_make
entries_smb
# ... a failed call under its threshold (REASON=error), statuses of what
# cannot run, probes that fail, a layer a reload turns off, a broken reload
prog="$TMP/catprog"
cp "$BUILD_ROOT/tests/slowprog" "$prog"
cat >"$TMP/status.conf" <<CONF
[agent]
user = nosuchuser$$
[smb]
enabled = no
[smb2]
enabled = no
[block]
enabled = yes
[smbd]
enabled = yes
binary = $TMP/no/smbd
[probe CAT_ERROR]
target = $prog:slow_call
threshold = 1s
errors = yes
[probe CAT_MISSING]
target = $prog:no_such_function
CONF
agent_start -c "$TMP/status.conf"
"$prog" 13 >/dev/null
sed -i 's/^enabled = yes$/enabled = no/' "$TMP/status.conf"
kill -HUP "$AGENT_PID"
for _ in $(seq 300); do grep -q "reload: applied" "$TMP/agent.err" && break; sleep 0.1; done
printf '[agent]\nthreshold = soon\n' >"$TMP/status.conf"
kill -HUP "$AGENT_PID"
for _ in $(seq 300); do grep -q "keeping the running configuration" "$TMP/agent.err" && break; sleep 0.1; done
agent_stop
# ... a start with nothing to trace
printf '[agent]\nuser =\n[smb]\nenabled = no\n[smb2]\nenabled = no\n[block]\nenabled = no\n[smbd]\nenabled = no\n' >"$TMP/none.conf"
! "$SMBLAT" -c "$TMP/none.conf" 2>/dev/null || fail "nothing to trace, and yet it ran"
# ... and, through the agent's journal sink, those this machine cannot
# make it write (tests/statusentries.c)
"$BUILD_ROOT/tests/statusentries" || fail "statusentries failed"
journalctl --sync

journalctl -t smblat -o json --no-pager >"$TMP/entries.json"
journalctl -t smblat -x -o short --no-pager >"$TMP/explained.txt"
python3 - "$SOURCE_ROOT" "$TMP/entries.json" "$TMP/explained.txt" <<'PY' || fail "catalog texts"
import json, re, sys
root, entries_path, explained_path = sys.argv[1:]
entries = [json.loads(l) for l in open(entries_path)]
explained = open(explained_path).read()
problems = []

# the catalog: ID -> its lines (Subject and body)
catalog, mid = {}, None
for line in open(root + "/units/smblat.catalog"):
    line = line.rstrip("\n")
    m = re.match(r"^-- ([0-9a-f]{32})$", line)
    if m:
        mid = m.group(1)
        catalog[mid] = []
    elif mid and not line.startswith(("Defined-By:", "Documentation:")):
        catalog[mid].append(line)
defined = re.findall(r'#define SMBLAT_MID_[A-Z_]+ +"([0-9a-f]{32})"', open(root + "/agent/base/messages.h").read())

for mid in defined:
    text = "\n".join(catalog.get(mid, []))
    if not text:
        problems.append("%s: no catalog entry" % mid)
        continue
    for v in re.findall(r"@([^@\s]*)@", text):
        if not re.fullmatch(r"[A-Z_]+", v):
            problems.append("%s: @%s@ is no name systemd substitutes (A-Z and _ only)" % (mid, v))
    of_mid = [e for e in entries if e.get("MESSAGE_ID") == mid]
    if not of_mid:
        problems.append("%s: no entry in this run" % mid)
    for e in of_mid:
        for v in set(re.findall(r"@([A-Z_]+)@", text)):
            if v not in e:
                problems.append("%s: @%s@, and an entry without it: %s" % (mid, v, e["MESSAGE"][:60]))
        # the Subject as journalctl shows it for this entry
        subject = re.sub(r"@([A-Z_]+)@", lambda m: e.get(m.group(1), m.group(1)),
                         next(l for l in catalog[mid] if l.startswith("Subject:")))
        if subject not in explained:
            problems.append("%s: journalctl -x does not show \"%s\"" % (mid, subject))
for n, line in enumerate(explained.splitlines()):
    if "@" in line and not re.search(r"smblat\[[0-9]+\]:", line):
        problems.append("journalctl -x line %d left a variable: %s" % (n + 1, line))
kinds = len({e["MESSAGE_ID"] for e in entries})
for p in sorted(set(problems))[:40]:
    print("FAIL:", p, file=sys.stderr)
print("%d entries of %d MESSAGE_IDs (%d defined), %d lines of journalctl -x"
      % (len(entries), kinds, len(defined), len(explained.splitlines())))
sys.exit(1 if problems else 0)
PY
grep -q "logged as error" "$TMP/explained.txt" || fail "no slow-call entry logged as error"
echo ok
