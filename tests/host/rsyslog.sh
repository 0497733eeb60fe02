#!/bin/bash
# deploy/rsyslog/smblat.conf with a real rsyslogd reading a real journald of
# the test's own, set up as on Debian (journald forwards to rsyslog's
# imuxsock, whose messages go to a catch-all file like /var/log/syslog):
#  - every smblat entry arrives once in /var/log/smblat/smblat.json, with
#    every journal field, numbers as JSON numbers, also past imjournal's
#    default rate limit (20000 in 600 s): a flood of 23000 entries;
#  - smblat's entries stay out of the catch-all file, other messages still
#    arrive there once (imjournal's copy of them is dropped);
#  - with imjournal's default rate limit the flood is cut, silently, which
#    the shipped setting prevents;
#  - rsyslog files every entry under facility daemon, from imjournal and
#    from journald's forwarding alike.
. "${SOURCE_ROOT:?}/tests/lib-journald.sh"
journald_ns "$@"
. "${SOURCE_ROOT:?}/tests/lib-host.sh"
. "${SOURCE_ROOT:?}/tests/lib-entries.sh"
RSYSLOG_PID=
rsyslog_stop() {
	[ -n "$RSYSLOG_PID" ] || return 0
	kill "$RSYSLOG_PID" 2>/dev/null || true
	wait "$RSYSLOG_PID" 2>/dev/null || true
	RSYSLOG_PID=
}
trap 'rsyslog_stop; entries_cleanup; journald_private_cleanup; cleanup' EXIT
# /var/log of the namespace: the shipped file writes /var/log/smblat/
mount -t tmpfs tmpfs /var/log
printf '[Journal]\nStorage=volatile\nRateLimitIntervalSec=0\nRuntimeMaxUse=512M\nForwardToSyslog=yes\nForwardToWall=no\n' \
	>"$TMP/journald.conf"
mount --bind "$TMP/journald.conf" /etc/systemd/journald.conf
journald_private_start

# jlog TAG TEXT: a message into the journal
jlog() {
	printf 'SYSLOG_IDENTIFIER=%s\nMESSAGE=%s\n' "$1" "$2" | logger --journald
}

# rsyslog.conf as Debian has it: imuxsock on journald's forwarding socket,
# the drop-ins, then the catch-all rule.
rsyslog_start() {     # rsyslog_start DROPIN WORKDIR
	mkdir -p "$2"
	cat >"$2/rsyslog.conf" <<CONF
global(workDirectory="$2")
module(load="imuxsock" SysSock.Name="/run/systemd/journal/syslog")
template(name="facility" type="string" string="%inputname% %syslogfacility-text%\\n")
if \$programname == "smblat" then action(type="omfile" file="$2/facility" template="facility")
include(file="$1")
*.* action(type="omfile" file="$TMP/syslog")
CONF
	rsyslogd -n -f "$2/rsyslog.conf" -i "$2/rsyslogd.pid" 2>"$2/rsyslogd.err" &
	RSYSLOG_PID=$!
	# ready when a message through journald and imuxsock arrives
	local tag="ready$RANDOM"
	for _ in $(seq 300); do
		jlog "$tag" hello
		grep -q "$tag" "$TMP/syslog" 2>/dev/null && return 0
		kill -0 "$RSYSLOG_PID" 2>/dev/null || { cat "$2/rsyslogd.err" >&2; fail "rsyslogd exited"; }
		sleep 0.1
	done
	fail "rsyslogd not forwarding after 30 s"
}

rsyslog_start "$SOURCE_ROOT/deploy/rsyslog/smblat.conf" "$TMP/rs"
jlog othertag "one message"

entries_make
entries_smb
# a flood past imjournal's default burst of 20000
cat >"$TMP/flood.conf" <<CONF
[agent]
user =
kernel_stack = no
ringbuf_size = 64M
rate_limit = 0
[smb]
enabled = no
[histogram]
interval = 1h
[probe ${ENTRIES_LABEL}_BIG]
target = $TMP/shipflood:fast_call
threshold = 0
CONF
agent_start -c "$TMP/flood.conf"
# 300 us a call: about what journald takes, so that few are lost on the way
n=$("$TMP/shipflood" 23000 300)
agent_stop
journalctl --sync
total=$(journalctl -t smblat -o json --no-pager | wc -l)
big=$(journalctl -t smblat -o json --no-pager "FUNCTION=${ENTRIES_LABEL}_BIG" MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250 | wc -l)
echo "journal: $total smblat entries, $big of the flood of $n calls"
[ "$big" -gt 20000 ] || fail "the flood wrote only $big entries: the test proves nothing"

out=/var/log/smblat/smblat.json
for _ in $(seq 1200); do
	[ "$(wc -l <"$out" 2>/dev/null || echo 0)" -ge "$total" ] && break
	sleep 0.1
done
echo "rsyslog: $(wc -l <"$out") lines in $out"
journalctl -t smblat -o json --no-pager >"$TMP/entries.json"
python3 - "$TMP/entries.json" "$out" "$SOURCE_ROOT" <<'PY' || fail "JSON lines differ from the journal"
import json, re, sys
entries = [json.loads(l) for l in open(sys.argv[1])]
lines = [json.loads(l) for l in open(sys.argv[2])]
gen = open(sys.argv[3] + "/deploy/generate").read()
numeric = set(re.findall(r'\("([A-Z0-9_]+)", "(?:long|integer|double)"\)', gen)) | {"PRIORITY", "SYSLOG_FACILITY", "_PID", "_UID", "_GID"}
problems = []
# entries sent in one batch may share a timestamp: the end of the call tells them apart
key = lambda d: (d["MESSAGE"], str(d["_SOURCE_REALTIME_TIMESTAMP"]), str(d.get("END_REALTIME_USEC")))
got = {}
for d in lines:
    if key(d) in got:
        problems.append("twice: %s" % d["MESSAGE"][:60])
    got[key(d)] = d
if len(lines) != len(entries):
    problems.append("%d JSON lines for %d journal entries" % (len(lines), len(entries)))
seen_numbers = set()
for e in entries:
    d = got.get(key(e))
    if d is None:
        problems.append("missing: %s" % e["MESSAGE"][:60])
        continue
    for f, raw in e.items():
        if f.startswith("__"):
            continue       # the journal's cursor and receive time: imjournal has them as properties
        v = d.get(f)
        if f in numeric:
            want = float(raw) if "." in raw else int(raw)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v != want:
                problems.append("%s: %s = %r, want the number %s" % (e.get("FUNCTION"), f, v, raw))
            seen_numbers.add(f)
        elif v != raw:
            problems.append("%s: %s = %r, want %r" % (e.get("FUNCTION"), f, v, raw))
for f in ("LATENCY_US", "PID", "THREAD_ID", "COUNT", "P99_US", "INTERVAL_S", "SUPPRESSED", "SMB_MID", "BYTES"):
    if f not in seen_numbers:
        problems.append("no entry with %s: the test proves nothing about it" % f)
for p in sorted(set(problems))[:40]:
    print("FAIL:", p, file=sys.stderr)
print("checked %d entries, typed fields: %s" % (len(entries), " ".join(sorted(seen_numbers))))
sys.exit(1 if problems else 0)
PY
grep -q "smblat" "$TMP/syslog" && { grep smblat "$TMP/syslog" | head -3; fail "smblat's entries reached the catch-all file too"; }
[ "$(grep -c "othertag" "$TMP/syslog")" -eq 1 ] || fail "other messages arrive $(grep -c othertag "$TMP/syslog") times, not once"
rsyslog_stop
# the facility of every smblat message, as rsyslog's rules see it
sort "$TMP/rs/facility" | uniq -c | sed 's/^/facility: /'
[ "$(grep -c " daemon$" "$TMP/rs/facility")" -eq "$(wc -l <"$TMP/rs/facility")" ] ||
	fail "smblat's messages are not all of facility daemon in rsyslog"
for input in imjournal imuxsock; do
	grep -q "^$input daemon$" "$TMP/rs/facility" || fail "no smblat message from $input"
done

# Without the shipped rate-limit setting, imjournal cuts the flood.
# (its state saved after every entry, so that the test sees when it is through)
sed 's/Ratelimit.Interval="0"/PersistStateInterval="1"/' "$SOURCE_ROOT/deploy/rsyslog/smblat.conf" >"$TMP/default-ratelimit.conf"
grep -q PersistStateInterval "$TMP/default-ratelimit.conf" || fail "no Ratelimit.Interval in the shipped file"
mv "$out" "$TMP/first.json"
rsyslog_start "$TMP/default-ratelimit.conf" "$TMP/rs2"
# imjournal drops without a word; it has read the journal through when the
# cursor in its state file is at the last entry.
state="$TMP/rs2/imjournal-smblat.state"
unread() { [ -s "$state" ] && journalctl -q --no-pager --after-cursor="$(cat "$state")" | wc -l || echo many; }
for _ in $(seq 1200); do
	left=$(unread)
	[ "$left" = 0 ] && break
	sleep 0.1
done
rsyslog_stop
[ "$(unread)" = 0 ] || fail "rsyslogd with imjournal's defaults did not read the journal through"
got=$(wc -l <"$out")
echo "default imjournal rate limit: $got of $total entries"
[ "$got" -lt "$total" ] || fail "imjournal's default rate limit dropped nothing"
echo ok
