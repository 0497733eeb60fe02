#!/bin/bash
# deploy/elk on real entries: the agent writes entries of every kind this
# kernel can produce into a journald of the test's own (and the smb/smb2
# layers' fields through the journal sink, tests/smbentries.c); each entry,
# shaped as each shipper publishes it (tests/ingest.py: journalbeat 7.x,
# Filebeat 7.x, 8.x and 9.x's journald input, the Elastic Agent's journald
# integration 8.x), goes through the shipped ingest pipeline, and the result
# must be typed ECS and the same whatever the shipper: numbers for every
# *_US, COUNT and PID-like field, process.* the traced task, event.code the
# MESSAGE_ID, event.action the kind of entry, @timestamp the call's end,
# event.duration its latency in ns, host.name the journal's _HOSTNAME (not
# the shipping host's), the rest under smblat.*, every field mapped by the
# shipped index template (and the Elastic Agent's component template) with
# a matching type. The pipeline uses nothing Elasticsearch 7.0 lacks. The
# files are what deploy/generate writes, and every field they name is in
# smblat-fields(7) and in this run's entries.
. "${SOURCE_ROOT:?}/tests/lib-journald.sh"
journald_ns "$@"
. "${SOURCE_ROOT:?}/tests/lib-host.sh"
. "${SOURCE_ROOT:?}/tests/lib-entries.sh"
trap 'entries_cleanup; journald_private_cleanup; cleanup' EXIT
journald_private_start

# The committed files are the generator's.
"$SOURCE_ROOT/deploy/generate" "$TMP/gen"
for f in elk/smblat-pipeline.json elk/smblat-template.json elk/smblat-agent-component.json \
	rsyslog/smblat.conf rsyslog/smblat-pgsql.sql; do
	diff -u "$SOURCE_ROOT/deploy/$f" "$TMP/gen/$f" ||
		fail "deploy/$f is not what deploy/generate writes: run it and commit"
done

entries_make
entries_smb
# deploy/elk/filebeat.yml and journalbeat.yml: the journal match they give
# the shipper selects the entries; their pipeline and index are the shipped
# ones; _HOSTNAME is kept (save_remote_hostname) and no add_host_metadata
# replaces host.*.
fb="$SOURCE_ROOT/deploy/elk/filebeat.yml"
jb="$SOURCE_ROOT/deploy/elk/journalbeat.yml"
match=$(sed -n '/include_matches.match:/{n;s/^ *- *//p}' "$fb")
[ "$match" = SYSLOG_IDENTIFIER=smblat ] || fail "filebeat.yml: include_matches '$match'"
[ "$(sed -n '/include_matches:/{n;s/^ *- *"\(.*\)"$/\1/p}' "$jb")" = "$match" ] ||
	fail "journalbeat.yml: include_matches is not $match"
grep -q '^journalbeat.inputs:' "$jb" || fail "journalbeat.yml: no journalbeat.inputs"
for y in "$fb" "$jb"; do
	grep -qE '^  pipeline: smblat$' "$y" || fail "$y: no 'pipeline: smblat' in the output"
	grep -qE '^  index: "smblat-[a-z]+"$' "$y" || fail "$y: index not matching smblat-*"
	grep -qE '^    save_remote_hostname: true$' "$y" || fail "$y: _HOSTNAME not kept"
	grep -qE '^processors: \[\]$' "$y" || fail "$y: global processors (add_host_metadata) not off"
done
journalctl -o json --no-pager "$match" >"$TMP/entries.json"
[ "$(journalctl -o json --no-pager -t smblat | wc -l)" -eq "$(wc -l <"$TMP/entries.json")" ] ||
	fail "filebeat.yml's match does not select exactly smblat's entries"
echo "$(wc -l <"$TMP/entries.json") entries"

PYTHONPATH="$SOURCE_ROOT/tests" python3 - "$SOURCE_ROOT" "$TMP/entries.json" "$ENTRIES_AGENT_PID" <<'PY'
import json, re, sys
import ingest

root, path, agent_pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
problems = []
def bad(msg):
    problems.append(msg)

pipeline = json.load(open(root + "/deploy/elk/smblat-pipeline.json"))
tmpl = json.load(open(root + "/deploy/elk/smblat-template.json"))
entries = [json.loads(l) for l in open(path)]

# --- the fields of smblat-fields(7) ------------------------------------------
man, in_fields = set(), False
lines = open(root + "/man/smblat-fields.7").read().splitlines()
for i, l in enumerate(lines):
    if l.startswith(".SH"):
        in_fields = "FIELDS" in l or "ENTRIES" in l
    elif in_fields and i and lines[i - 1] == ".TP" and re.match(r"^\.BR? ", l):
        man |= set(re.findall(r"[A-Z][A-Z0-9_]+", l.split(None, 1)[1]))
header = {"MESSAGE", "MESSAGE_ID", "PRIORITY", "SYSLOG_FACILITY", "SYSLOG_IDENTIFIER"}
seen = set().union(*(e.keys() for e in entries))

# fields the shipped files name: journald.custom.<f> in the pipeline,
# smblat.<f> in both
named = set()
for step in pipeline["processors"]:
    (kind, p), = step.items()
    for v in [p.get("field"), p.get("target_field"), p.get("copy_from")]:
        for f in (v if isinstance(v, list) else [v]):
            m = re.match(r"^(?:journald\.custom|smblat)\.([a-z0-9_]+)$", f or "")
            if m:
                named.add(m.group(1).upper())
smap = tmpl["template"]["mappings"]["properties"]["smblat"]["properties"]
named |= {k.upper() for k in smap}
for f in sorted(named - man):
    bad("%s is named in deploy/elk but not in smblat-fields(7)" % f)
for f in sorted(named - seen):
    bad("%s is named in deploy/elk but in no entry of this run" % f)
for f in sorted(man - named - header):
    bad("%s of smblat-fields(7) is not handled by deploy/elk" % f)
for f in sorted(man - seen):
    bad("%s of smblat-fields(7) is in no entry of this run" % f)

# --- the template's types -----------------------------------------------------
def tmpl_type(path, mappings=None):
    mappings = mappings or tmpl["template"]["mappings"]
    node = {"properties": mappings["properties"]}
    for part in path.split("."):
        node = node.get("properties", {}).get(part)
        if node is None:
            break
    if node is not None:
        return node.get("type", "object")
    for dt in mappings["dynamic_templates"]:
        (_, d), = dt.items()
        pm = d.get("path_match")
        if pm and re.match("^" + re.escape(pm).replace(r"\*", ".*") + "$", path):
            return d["mapping"]["type"]
    return None

PY_TYPES = {"long": int, "integer": int, "double": (int, float), "date": str,
            "keyword": str, "text": str, "match_only_text": str}
NUMERIC = re.compile(r"(_US|_USEC|COUNT|^PID|^THREAD_ID|^ERRNO|^BYTES|^SECTOR|_MID|^LOST_RINGBUF"
                     r"|^SUPPRESSED|^WRITE_FAILED|^INTERVAL_S|ATTACHED|^DETACHED|^PROBES_[A-Z]+"
                     r"|^ENTRIES_[A-Z]+)$")
ECS_OF = {"PID": "process.pid", "THREAD_ID": "process.thread.id", "COMM": "process.name",
          "UID": "process.user.id"}
KIND = {"a48f35af155e4887a8d221f2a9c1c250": "smblat.slow",
        "ab8331e2b4474579a55840c9d3a77bac": "smblat.summary",
        "007f72e0507d4b96b52049ce539ad083": "smblat.loss",
        "37696141c77044bb90174634b6002f95": "smblat.syscalls",
        "29fff22de3004d9c8fdf70318b61193f": "smblat.stacks",
        "11b150a9ad4f43938f3c7ca311c0eec3": "smblat.offcpu",
        "2610ed9fe5674be1b0126b87a071d042": "smblat.smbd_split",
        "3aefbceff9ca401c9d1fb860c0bd08d8": "smblat.smbd_exit",
        "06e3d38cf4f04c3c8e16f9276e76cd63": "smblat.smbd_break",
        "a936ebed06754f1283b3c504570f470f": "smblat.smb_reconnect",
        "f95b658a9a114ac2b5a319ebdff7e4e1": "smblat.smb_session_setup",
        "6ac0619b14644612bd95457ad7005318": "smblat.smb_logoff",
        "895ca5666f9041d3bee0c9778ef5d300": "smblat.smb_session_expired",
        "2e39dd28181a468bbe618a3a021c98ed": "smblat.smb_tree_connect",
        "28dcdd6eb1ea44efbc89c1b9de94d738": "smblat.smb_credit_stall",
        "aa3cc49f94e7446e82bc583a55646de4": "smblat.smb_slow_response",
        "3fc21a16f1424ec8a54fe2f452147959": "smblat.share_summary",
        "e78ca87a34de4a1da3e39d418e9302a2": "smblat.server_summary",
        "951a530d517b48cca8e44bac27398543": "smblat.breakdown"}

# every kind of status has its own MESSAGE_ID (agent/base/messages.h)
for mid in re.findall(r'"([0-9a-f]{32})"', open(root + "/agent/base/messages.h").read()):
    KIND.setdefault(mid, "smblat.status")
LEVELS = ["emergency", "alert", "critical", "error", "warning", "notice", "informational", "debug"]

def leaves(d, prefix=""):
    for k, v in d.items():
        p = prefix + k
        if isinstance(v, dict):
            yield from leaves(v, p + ".")
        else:
            yield p, v

for p in ingest.check_es_7_0(pipeline):
    bad("the pipeline uses %s, which Elasticsearch 7.0 lacks" % p)
agent_map = json.load(open(root + "/deploy/elk/smblat-agent-component.json"))["template"]["mappings"]

# What the pipeline makes of an entry, and must make alike from every
# shipper's document: the typed fields.
SAME = ("@timestamp", "smblat.", "process.", "event.code", "event.action", "event.duration",
        "event.end", "event.module", "host.name", "log.level")
def typed(doc):
    return {p: v for p, v in leaves(doc) if p.startswith(SAME)}

counts = {}
results = {}
for shipper in ingest.SHIPPERS:
    agent = shipper.startswith("elastic-agent")
    for i, e in enumerate(entries):
        fb = ingest.ship(e, shipper)
        if shipper == "filebeat 9" and ingest.get(fb, "journald.custom.latency_us") not in (None, e.get("LATENCY_US")):
            bad("filebeat shape: LATENCY_US not in journald.custom.latency_us")
        if ingest.get(fb, "host.name") == e["_HOSTNAME"]:
            bad("%s: the shipper's host.name is the journal's _HOSTNAME: host.name proves nothing" % shipper)
        doc, err = ingest.run_pipeline(pipeline, fb)
        name = "%s (%s)" % (e.get("FUNCTION", e["MESSAGE"][:40]), shipper)
        if err:
            bad("%s: pipeline failed: %s" % (name, err))
            continue
        kind = KIND.get(e.get("MESSAGE_ID"))
        counts[kind] = counts.get(kind, 0) + 1
        if doc.get("event", {}).get("code") != e["MESSAGE_ID"]:
            bad("%s: event.code %r" % (name, ingest.get(doc, "event.code")))
        if "smblat." + str(ingest.get(doc, "event.action")) != kind:
            bad("%s: event.action %r, want %s" % (name, ingest.get(doc, "event.action"), kind))
        # ECS: the Elastic Agent's event.dataset is its data stream's
        want = ingest.AGENT_DATASET if agent else kind
        if ingest.get(doc, "event.dataset") != want:
            bad("%s: event.dataset %r, want %r" % (name, ingest.get(doc, "event.dataset"), want))
        if ingest.has(doc, "message_id") or ingest.has(doc, "journald.custom.message_id"):
            bad("%s: MESSAGE_ID left beside event.code" % name)
        if ingest.get(doc, "log.level") != LEVELS[int(e["PRIORITY"])]:
            bad("%s: log.level %r" % (name, ingest.get(doc, "log.level")))
        if ingest.get(doc, "log.syslog.facility.code") != 3:
            bad("%s: log.syslog.facility.code %r, want 3 (daemon)"
                % (name, ingest.get(doc, "log.syslog.facility.code")))
        if ingest.get(doc, "host.name") != e["_HOSTNAME"]:
            bad("%s: host.name %r, want _HOSTNAME %r" % (name, ingest.get(doc, "host.name"), e["_HOSTNAME"]))
        # every smblat field: typed, where it belongs, and nowhere else
        for f, raw in e.items():
            if f.startswith("_") or f in header:
                continue
            where = ECS_OF.get(f, "smblat." + f.lower())
            v = ingest.get(doc, where)
            if ingest.has(doc, "journald.custom." + f.lower()):
                bad("%s: %s left in journald.custom" % (name, f))
            if NUMERIC.search(f):
                want = float(raw) if "." in raw else int(raw)
                if isinstance(v, bool) or not isinstance(v, (int, float)) or v != want:
                    bad("%s: %s -> %s = %r, want the number %r" % (name, f, where, v, want))
            elif v != raw and not (tmpl_type(where) in ("long", "integer") and v == int(raw)):
                bad("%s: %s -> %s = %r, want %r" % (name, f, where, v, raw))
        if "PID" in e:
            if ingest.get(doc, "process.pid") == agent_pid or ingest.get(doc, "process.executable"):
                bad("%s: process.* still describes the agent" % name)
        elif ingest.has(doc, "process"):
            bad("%s: process.* on an entry without a traced task: %r" % (name, doc["process"]))
        if "END_REALTIME_USEC" in e:
            want = ingest.iso_ms(int(e["END_REALTIME_USEC"]) // 1000)
            if doc["@timestamp"] != want or ingest.get(doc, "event.end") != want:
                bad("%s: @timestamp %s, event.end %s, want %s (END_REALTIME_USEC)"
                    % (name, doc["@timestamp"], ingest.get(doc, "event.end"), want))
        if "LATENCY_US" in e:
            if ingest.get(doc, "event.duration") != int(e["LATENCY_US"]) * 1000:
                bad("%s: event.duration %r, LATENCY_US %s" % (name, ingest.get(doc, "event.duration"), e["LATENCY_US"]))
        elif ingest.has(doc, "event.duration"):
            bad("%s: event.duration without LATENCY_US" % name)
        # the template maps what the pipeline made, with a matching type
        # (the Elastic Agent's data stream: the component template)
        for p, v in typed(doc).items():
            for label, t in [("the template", tmpl_type(p))] + ([("the agent's component", tmpl_type(p, agent_map))] if agent else []):
                if t is None:
                    bad("%s: %s not mapped by %s" % (name, p, label))
                elif not isinstance(v, PY_TYPES.get(t, object)) or isinstance(v, bool):
                    bad("%s: %s = %r does not fit %s's %s" % (name, p, v, label, t))
        # the same typed fields from every shipper
        first = results.setdefault(i, (shipper, typed(doc)))
        if first[1] != typed(doc):
            diff = sorted(set(first[1].items()) ^ set(typed(doc).items()), key=str)[:4]
            bad("%s: typed differently from %s: %s" % (name, first[0], diff))

print("pipeline results:", ", ".join("%s %d" % kv for kv in sorted(counts.items(), key=str)))
for k in KIND.values():
    if not counts.get(k):
        bad("no %s entry in this run" % k)
if problems:
    for p in sorted(set(problems))[:60]:
        print("FAIL:", p, file=sys.stderr)
    sys.exit(1)
PY
echo ok
