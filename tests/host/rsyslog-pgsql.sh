#!/bin/bash
# deploy/rsyslog/smblat-pgsql.conf and smblat-pgsql.sql end to end: the
# agent's slow-call entries go from a journald of the test's own through a
# real rsyslogd (imjournal, ompgsql) into a real PostgreSQL (a cluster of the
# test's own on a unix socket), set up as deploy/README.md tells operators
# (the shipped schema, a role that may only insert, the libpq service).
#  - every smblat entry of the journal is one row: its fields as the journal
#    has them, and every typed column equal to the journal's value (latency
#    as bigint, the call's end as timestamptz from END_REALTIME_USEC, PID as
#    integer, ...);
#  - entries written while rsyslogd is stopped arrive after it starts again,
#    once (imjournal's state file); entries written while PostgreSQL is down
#    arrive when it is back (the action's queue and retries).
. "${SOURCE_ROOT:?}/tests/lib-journald.sh"
journald_ns "$@"
. "${SOURCE_ROOT:?}/tests/lib-host.sh"
RSYSLOG_PID=
PG_UP=
rsyslog_stop() {
	[ -n "$RSYSLOG_PID" ] || return 0
	kill "$RSYSLOG_PID" 2>/dev/null || true
	wait "$RSYSLOG_PID" 2>/dev/null || true
	RSYSLOG_PID=
}
trap 'rsyslog_stop; pg_stop; journald_private_cleanup; cleanup' EXIT
journald_private_start

# --- PostgreSQL: the newest server installed, its cluster in $TMP ------------
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$pgbin/initdb" ] || fail "no PostgreSQL server installed (tests/packages.txt: postgresql)"
chmod 711 "$TMP"
mkdir "$TMP/pg"
chown postgres: "$TMP/pg"
as_pg() { runuser -u postgres -- "$@"; }
as_pg "$pgbin/initdb" -D "$TMP/pg/data" -A trust -U postgres --no-sync -E UTF8 --locale=C.UTF-8 \
	>"$TMP/pg/initdb.log" 2>&1 || { cat "$TMP/pg/initdb.log" >&2; fail "initdb failed"; }
pg_start() {
	as_pg "$pgbin/pg_ctl" -D "$TMP/pg/data" -l "$TMP/pg/log" -w -t 30 \
		-o "-c listen_addresses='' -k $TMP/pg -c fsync=off" start >/dev/null ||
		{ cat "$TMP/pg/log" >&2; fail "PostgreSQL did not start"; }
	PG_UP=1
}
pg_stop() {
	[ -n "$PG_UP" ] || return 0
	as_pg "$pgbin/pg_ctl" -D "$TMP/pg/data" -m fast -w stop >/dev/null
	PG_UP=
}
sql() { psql -h "$TMP/pg" -U postgres -d "${DB:-smblat}" -v ON_ERROR_STOP=1 -qAt "$@"; }
pg_start
echo "PostgreSQL $(DB=postgres sql -c 'SHOW server_version')"

# The operator's setup (deploy/README.md): database, schema, a role that may
# insert and nothing else, the libpq service rsyslog connects with.
DB=postgres sql -c "CREATE DATABASE smblat" -c "CREATE ROLE rsyslog LOGIN"
sql -f "$SOURCE_ROOT/deploy/rsyslog/smblat-pgsql.sql"
sql -c "GRANT INSERT ON smblat_entry TO rsyslog"
# An insert that fails costs ompgsql the rows before it in its transaction
# (it rolls back, then goes on outside one): no content may make the typing
# fail.
for v in "'abc'" "''" "'1e5'" "'-'" "'99999999999999999999'" "'1.'" "'.5'" "repeat('9', 400)" "'0x10'" "' 1'"; do
	sql -c "SELECT smblat_bigint($v), smblat_integer($v), smblat_double($v), smblat_usec_time($v),
		smblat_kind($v)" >/dev/null || fail "the schema's casts fail on $v"
done
printf '[smblat]\nhost=%s\ndbname=smblat\nuser=rsyslog\n' "$TMP/pg" >"$TMP/pg_service.conf"

# --- rsyslogd with the shipped drop-in ----------------------------------------
mkdir "$TMP/rs"
cat >"$TMP/rs/rsyslog.conf" <<CONF
global(workDirectory="$TMP/rs")
include(file="$SOURCE_ROOT/deploy/rsyslog/smblat-pgsql.conf")
CONF
rsyslog_start() {
	PGSERVICEFILE="$TMP/pg_service.conf" rsyslogd -n -f "$TMP/rs/rsyslog.conf" -i "$TMP/rs/pid" \
		2>>"$TMP/rs/err" &
	RSYSLOG_PID=$!
}
rows() { sql -c "SELECT count(*) FROM smblat_entry"; }
entries() { journalctl --sync; journalctl -t smblat -o json --no-pager | wc -l; }
# wait_rows N: until the table holds N rows (or more: the comparison says)
wait_rows() {
	for _ in $(seq 300); do
		[ "$(rows)" -ge "$1" ] && return 0
		[ -z "$RSYSLOG_PID" ] || kill -0 "$RSYSLOG_PID" 2>/dev/null ||
			{ cat "$TMP/rs/err" >&2; fail "rsyslogd exited"; }
		sleep 0.1
	done
	cat "$TMP/rs/err" >&2
	grep -A2 ERROR "$TMP/pg/log" | head -20 >&2
	fail "$(rows) rows after 30 s, $1 entries in the journal"
}
now() { date +%s%6N; }

# --- the agent's slow calls ----------------------------------------------------
label="PGSQL_$$"
slow="$TMP/pgslow"
cp "$BUILD_ROOT/tests/slowprog" "$slow"
cat >"$TMP/agent.conf" <<CONF
[agent]
user =
[smb]
enabled = no
[histogram]
interval = 1h
[probe ${label}]
target = $slow:slow_call
threshold = 10ms
args = 1
CONF
agent_start -c "$TMP/agent.conf"
rsyslog_start
"$slow" 20 13 25 >/dev/null       # 13: the call returns -ENOENT
wait_rows "$(entries)"
echo "rsyslogd running: $(rows) rows"

# A restart of the shipper: entries written while it is stopped.
rsyslog_stop
t_stopped=$(now)
"$slow" 30 13 35 >/dev/null
t_started=$(now)
n=$(entries)
[ "$(rows)" -lt "$n" ] || fail "rows arrived while rsyslogd was stopped: the test proves nothing"
rsyslog_start
wait_rows "$n"
echo "rsyslogd restarted: $(rows) rows"

# PostgreSQL down: entries wait in rsyslog's queue.
pg_stop
t_down=$(now)
"$slow" 40 45 >/dev/null
t_up=$(now)
pg_start
agent_stop                        # its last entries: summaries, stop
wait_rows "$(entries)"
# a clean stop: every entry rsyslogd read is in the database or saved to
# its queue; nothing may come after the comparison
rsyslog_stop
echo "PostgreSQL restarted, rsyslogd stopped: $(rows) rows"

journalctl -t smblat -o json --no-pager >"$TMP/entries.json"
sql -c "SELECT json_agg(r) FROM (SELECT *,
	(extract(epoch FROM event_time) * 1000000)::bigint AS event_usec,
	(extract(epoch FROM journal_time) * 1000000)::bigint AS journal_usec FROM smblat_entry) r" \
	>"$TMP/rows.json"
sql -c "SELECT json_object_agg(column_name, data_type) FROM information_schema.columns
	WHERE table_name = 'smblat_entry'" >"$TMP/columns.json"
python3 - "$SOURCE_ROOT" "$TMP/entries.json" "$TMP/rows.json" "$TMP/columns.json" "$label" \
	"$t_stopped" "$t_started" "$t_down" "$t_up" <<'PY' || fail "the database differs from the journal"
import collections, json, sys
from importlib.machinery import SourceFileLoader

root, entries_path, rows_path, cols_path, label = sys.argv[1:6]
t_stopped, t_started, t_down, t_up = map(int, sys.argv[6:10])
gen = SourceFileLoader("generate", root + "/deploy/generate").load_module()
entries = [json.loads(l) for l in open(entries_path)]
rows = json.load(open(rows_path)) or []
cols = json.load(open(cols_path))
problems = []
bad = problems.append

# The columns the operator queries, typed as promised (and every field's
# column as the generator's table says).
for col, typ in [("latency_us", "bigint"), ("event_time", "timestamp with time zone"),
                 ("journal_time", "timestamp with time zone"), ("pid", "integer"),
                 ("thread_id", "integer"), ("function", "text"), ("errno", "integer"),
                 ("end_realtime_usec", "bigint"), ("count", "bigint"), ("interval_s", "double precision")]:
    if cols.get(col) != typ:
        bad("column %s is %s, want %s" % (col, cols.get(col), typ))
want_type = {}
for name, es in gen.FIELDS:
    want_type[name] = gen.PG_OVERRIDE.get(name, gen.PG_TYPES[es])
    if cols.get(name.lower()) != want_type[name]:
        bad("column %s is %s, want %s" % (name.lower(), cols.get(name.lower()), want_type[name]))

def typed(raw, typ):
    if raw is None:
        return None
    if typ in ("bigint", "integer"):
        return int(raw)
    if typ == "double precision":
        return float(raw)
    return raw

# Every entry once: the row's fields are the entry's fields exactly.
data = lambda e: json.dumps({k: v for k, v in e.items() if not k.startswith("__")}, sort_keys=True)
in_db = collections.Counter(json.dumps(r["fields"], sort_keys=True) for r in rows)
in_journal = collections.Counter(data(e) for e in entries)
for k, n in (in_db - in_journal).items():
    m = json.loads(k)
    bad("%d rows too many of %s: %s" % (n, m.get("FUNCTION"), m.get("MESSAGE", "")[:60]))
for k, n in (in_journal - in_db).items():
    m = json.loads(k)
    bad("%d entries missing: %s: %s" % (n, m.get("FUNCTION"), m.get("MESSAGE", "")[:60]))

by_fields = {json.dumps(r["fields"], sort_keys=True): r for r in rows}
kinds = collections.Counter()
for e in entries:
    r = by_fields.get(data(e))
    if r is None:
        continue
    name = "%s %s" % (e.get("FUNCTION", "-"), e["__REALTIME_TIMESTAMP"])
    kinds[r["kind"]] += 1
    # the journal's receive time, and the event's own time
    if r["journal_usec"] != int(e["__REALTIME_TIMESTAMP"]):
        bad("%s: journal_time %s, __REALTIME_TIMESTAMP %s" % (name, r["journal_usec"], e["__REALTIME_TIMESTAMP"]))
    want = int(e.get("END_REALTIME_USEC", e["__REALTIME_TIMESTAMP"]))
    if r["event_usec"] != want:
        bad("%s: event_time %s, want %s" % (name, r["event_usec"], want))
    for col, f in [("host", "_HOSTNAME"), ("message_id", "MESSAGE_ID"), ("message", "MESSAGE")]:
        if r[col] != e.get(f):
            bad("%s: %s = %r, %s = %r" % (name, col, r[col], f, e.get(f)))
    if r["priority"] != int(e["PRIORITY"]) or r["agent_pid"] != int(e["_PID"]):
        bad("%s: priority %r, agent_pid %r" % (name, r["priority"], r["agent_pid"]))
    # every field of the table, one by one, typed
    for f, typ in want_type.items():
        v, w = r[f.lower()], typed(e.get(f), typ)
        if v != w or type(v) is not type(w):
            bad("%s: column %s = %r, the journal's %s = %r" % (name, f.lower(), v, f, e.get(f)))

# What the test relies on happened.
slow = [e for e in entries if e.get("FUNCTION") == label and "LATENCY_US" in e]
phase = lambda a, b: [e for e in slow if a <= int(e["END_REALTIME_USEC"]) <= b]
if len(slow) != 8:
    bad("%d slow-call entries of %s, the workload made 8" % (len(slow), label))
if sum(e.get("ARGS") == "0xd" and "RETVAL" in e for e in slow) != 2:
    bad("not 2 calls of slow_call(13) with ARGS and RETVAL among the slow calls")
if len(phase(t_stopped, t_started)) != 3:
    bad("%d slow calls while rsyslogd was stopped, want 3" % len(phase(t_stopped, t_started)))
if len(phase(t_down, t_up)) != 2:
    bad("%d slow calls while PostgreSQL was down, want 2" % len(phase(t_down, t_up)))
if not kinds["summary"] or not kinds["status"]:
    bad("no summary or status entry: %s" % dict(kinds))
for p in problems[:40]:
    print("FAIL:", p, file=sys.stderr)
print("%d journal entries, %d rows (%s), every typed column checked"
      % (len(entries), len(rows), ", ".join("%s %d" % kv for kv in sorted(kinds.items()))))
sys.exit(1 if problems else 0)
PY
grep -q . "$TMP/rs/err" && { echo "rsyslogd said:"; cat "$TMP/rs/err"; }
echo ok
