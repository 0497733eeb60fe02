# SPDX-License-Identifier: LGPL-2.1-or-later
"""The beats' journald readers and Elasticsearch ingest, as far as
tests/host/elk.sh needs them.

No Elasticsearch, journalbeat, Filebeat or Elastic Agent runs in the tests,
so this builds the documents those shippers would send from real
`journalctl -o json` entries, after their sources, and carries out what the
shipped pipeline (deploy/elk/smblat-pipeline.json) uses with Elasticsearch's
semantics, refusing anything else:

  ship(entry, shipper)            the document a shipper publishes, for the
      SHIPPERS below: the field table of its journald reader (unknown fields
      in journald.custom.<name in lower case, leading '_' trimmed>, MESSAGE_ID
      where that version puts it), its own additions, libbeat's builtin
      host.name (the shipping host, SHIPPER_HOST) and agent.*, and the
      shipped configurations' save_remote_hostname (log.source.address).
  run_pipeline(pipeline, doc)     the processors set, rename, convert,
      remove, gsub and date with the options Elasticsearch 7.0 has (an
      option 7.0 lacks is refused: the pipeline is for 7.x too), `if`
      conditions of the forms ctx.a?.b != null / == null / == 'text' / == 42,
      mustache {{{a.b}}} in set values, the pipeline's on_failure.
"""
import copy
import datetime
import re

# The shipping host, as libbeat names it in host.name; not the journal's
# _HOSTNAME, as for entries that came through systemd-journal-remote.
SHIPPER_HOST = "collector.example"

# journalbeat's field table as its last 7.x source has it
# (journalbeat/pkg/journalfield/default.go; Filebeat 7.x's journald input
# has the same), its rows for the fields a journal entry of smblat's can
# carry: journal field -> (target fields, integer?)
_JOURNALBEAT_7 = {
    "COREDUMP_UNIT": (["journald.coredump.unit"], False),
    "COREDUMP_USER_UNIT": (["journald.coredump.user_unit"], False),
    "OBJECT_PID": (["journald.object.pid"], True),
    "_KERNEL_DEVICE": (["journald.kernel.device"], False),
    "_KERNEL_SUBSYSTEM": (["journald.kernel.subsystem"], False),
    "_SYSTEMD_INVOCATION_ID": (["systemd.invocation_id"], False),
    "_SYSTEMD_USER_SLICE": (["systemd.user_slice"], False),
    "_AUDIT_LOGINUID": (["journald.audit.login_uid"], True),
    "_AUDIT_SESSION": (["journald.audit.session"], False),
    "_BOOT_ID": (["journald.host.boot_id"], False),
    "_CAP_EFFECTIVE": (["journald.process.capabilities"], False),
    "_CMDLINE": (["journald.process.command_line"], False),
    "CODE_FILE": (["journald.code.file"], False),
    "CODE_FUNC": (["journald.code.func"], False),
    "CODE_LINE": (["journald.code.line"], True),
    "_COMM": (["journald.process.name"], False),
    "_EXE": (["journald.process.executable"], False),
    "_GID": (["journald.gid"], True),
    "_HOSTNAME": (["host.hostname"], False),
    "_MACHINE_ID": (["host.id"], False),
    "MESSAGE": (["message"], False),
    "_PID": (["journald.pid"], True),
    "PRIORITY": (["syslog.priority", "log.syslog.priority"], True),
    "SYSLOG_FACILITY": (["syslog.facility", "log.syslog.facility.code"], True),
    "SYSLOG_IDENTIFIER": (["syslog.identifier"], False),
    "SYSLOG_PID": (["syslog.pid"], True),
    "_SYSTEMD_CGROUP": (["systemd.cgroup"], False),
    "_SYSTEMD_OWNER_UID": (["systemd.owner_uid"], True),
    "_SYSTEMD_SESSION": (["systemd.session"], False),
    "_SYSTEMD_SLICE": (["systemd.slice"], False),
    "_SYSTEMD_UNIT": (["systemd.unit"], False),
    "_SYSTEMD_USER_UNIT": (["systemd.user_unit"], False),
    "_TRANSPORT": (["systemd.transport"], False),
    "_UID": (["journald.uid"], True),
}
# Filebeat 8.x (filebeat/input/journald/pkg/journalfield): MESSAGE_ID in
# message_id, UNIT in journald.unit
_FILEBEAT_8 = dict(_JOURNALBEAT_7, MESSAGE_ID=(["message_id"], False), UNIT=(["journald.unit"], False))
# Filebeat 9.x (beats#42403): the syslog.* fields only under log.syslog.*,
# MESSAGE_ID in log.syslog.msgid
_FILEBEAT_9 = dict(_FILEBEAT_8,
                   MESSAGE_ID=(["log.syslog.msgid"], False),
                   PRIORITY=(["log.syslog.priority"], True),
                   SYSLOG_FACILITY=(["log.syslog.facility.code"], True),
                   SYSLOG_IDENTIFIER=(["log.syslog.appname"], False),
                   SYSLOG_PID=(["log.syslog.procid"], True))
# the sd-journal readers see no address fields; these the tables drop
_DROPPED = {"_SOURCE_REALTIME_TIMESTAMP", "_SOURCE_MONOTONIC_TIMESTAMP"}

SHIPPERS = ("journalbeat 7", "filebeat 7", "filebeat 8", "filebeat 9", "elastic-agent 8")
# the data stream dataset the Elastic Agent's integration is given
AGENT_DATASET = "smblat"


class PipelineError(Exception):
    pass


def _split(path):
    return path.split(".")


def get(doc, path, default=None):
    cur = doc
    for part in _split(path):
        if not isinstance(cur, dict) or part not in cur:
            return default
        cur = cur[part]
    return cur


def has(doc, path):
    sentinel = object()
    return get(doc, path, sentinel) is not sentinel


def put(doc, path, value):
    parts = _split(path)
    cur = doc
    for part in parts[:-1]:
        nxt = cur.get(part)
        if nxt is None:
            nxt = cur[part] = {}
        elif not isinstance(nxt, dict):
            raise PipelineError("cannot set [%s]: [%s] is not an object" % (path, part))
        cur = nxt
    cur[parts[-1]] = value


def delete(doc, path):
    parts = _split(path)
    parent = get(doc, ".".join(parts[:-1])) if len(parts) > 1 else doc
    if not isinstance(parent, dict) or parts[-1] not in parent:
        raise PipelineError("field [%s] not present" % path)
    del parent[parts[-1]]


def _fields(entry, table):
    doc = {}
    custom = {}
    for key, value in entry.items():
        if key.startswith("__") or key in _DROPPED:
            continue
        if key in table:
            names, integer = table[key]
            if integer:
                try:
                    value = int(str(value).split(",")[0])
                except ValueError:
                    pass
            for name in names:
                put(doc, name, value)
        else:
            custom[key.lstrip("_").lower()] = value
    if custom:
        put(doc, "journald.custom", custom)
    return doc


def _ecs_enrichment(doc):
    """Filebeat's journald input: the process that logged the entry, in ECS."""
    if has(doc, "journald.uid"):
        put(doc, "user.id", str(get(doc, "journald.uid")))
        if has(doc, "journald.gid"):
            put(doc, "user.group.id", str(get(doc, "journald.gid")))
    if has(doc, "journald.pid"):
        put(doc, "process.pid", get(doc, "journald.pid"))
    for src, dst in (("journald.process.name", "process.name"),
                     ("journald.process.executable", "process.executable")):
        if get(doc, src):
            put(doc, dst, get(doc, src))
    cmdline = get(doc, "journald.process.command_line")
    if cmdline:
        args = re.findall(r'"(?:\\"|[^"])*?"|\S+', cmdline)
        put(doc, "process.command_line", cmdline)
        put(doc, "process.args", args)
        put(doc, "process.args_count", len(args))


def _libbeat(doc, beat, version):
    """What every beat adds: its own name in host.name unless the event has
    one, agent.*, ecs.version."""
    if not has(doc, "host.name"):
        put(doc, "host.name", SHIPPER_HOST)
    put(doc, "agent", {"type": beat, "version": version, "name": SHIPPER_HOST})
    put(doc, "ecs.version", "1.12.0" if version.startswith("7") else "8.0.0")


def ship(entry, shipper):
    """The document `shipper` (one of SHIPPERS) publishes for a journal entry,
    as the shipped journalbeat.yml/filebeat.yml (save_remote_hostname) or the
    Elastic Agent integration set up as deploy/README.md says configure it."""
    beat, version = shipper.split()
    table = {"journalbeat": _JOURNALBEAT_7, "filebeat": {"7": _JOURNALBEAT_7, "8": _FILEBEAT_8,
             "9": _FILEBEAT_9}.get(version), "elastic-agent": _FILEBEAT_8}[beat]
    doc = _fields(entry, table)
    if beat != "journalbeat":
        _ecs_enrichment(doc)
    put(doc, "event.kind", "event")
    if beat == "journalbeat":
        put(doc, "event.created", iso_ms(int(entry["__REALTIME_TIMESTAMP"]) // 1000 + 5))
    else:
        put(doc, "input.type", "journald")
    if beat != "elastic-agent" and has(doc, "host.hostname"):
        # save_remote_hostname: true
        put(doc, "log.source.address", get(doc, "host.hostname"))
    doc["@timestamp"] = iso_ms(int(entry["__REALTIME_TIMESTAMP"]) // 1000)
    if beat == "elastic-agent":
        _agent(doc)
    _libbeat(doc, "filebeat" if beat == "elastic-agent" else beat, version + ".0.0")
    return doc


def _agent(doc):
    """The Elastic Agent's journald integration (elastic/integrations,
    packages/journald/agent/input/journald.yml.hbs): its convert and
    drop_fields processors, then the processor deploy/README.md has the
    operator add (_HOSTNAME kept in log.source.address), then the agent's
    add_host_metadata (replaces host.*) and the data stream's fields."""
    for src, dst in (("message_id", "event.code"), ("journald.code.file", "log.origin.file.name"),
                     ("journald.code.line", "log.origin.file.line"),
                     ("journald.code.func", "log.origin.function"),
                     ("syslog.pid", "log.syslog.procid"), ("syslog.identifier", "log.syslog.appname")):
        if has(doc, src):
            value = get(doc, src)
            delete(doc, src)
            put(doc, dst, value)
    doc.pop("syslog", None)
    if has(doc, "host.hostname"):
        put(doc, "log.source.address", get(doc, "host.hostname"))
    doc["host"] = {"name": SHIPPER_HOST, "hostname": SHIPPER_HOST, "id": "0" * 32,
                   "architecture": "x86_64", "os": {"family": "debian", "kernel": "6.1.0"}}
    doc["data_stream"] = {"type": "logs", "dataset": AGENT_DATASET, "namespace": "default"}
    put(doc, "event.dataset", AGENT_DATASET)
    doc["elastic_agent"] = {"id": "agent", "version": "8.15.0", "snapshot": False}


def filebeat_event(entry, variant="9"):
    """Filebeat's journald input (the earlier interface of this module)."""
    return ship(entry, "filebeat " + variant)


def iso_ms(ms):
    """Elasticsearch's date output, yyyy-MM-dd'T'HH:mm:ss.SSSXXX in UTC."""
    t = datetime.datetime.fromtimestamp(ms // 1000, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (ms % 1000)


_COND = re.compile(r"^ctx\.([A-Za-z0-9_@]+(?:\?\.[A-Za-z0-9_@]+)*)\s*(==|!=)\s*"
                   r"(null|'[^']*'|-?[0-9]+)$")


def condition(expr, doc):
    m = _COND.match(expr.strip())
    if not m:
        raise NotImplementedError("condition not understood here: %s" % expr)
    path = m.group(1).replace("?.", ".")
    value = get(doc, path)
    lit = m.group(3)
    want = None if lit == "null" else lit[1:-1] if lit.startswith("'") else int(lit)
    eq = value == want and (want is None or type(value) is type(want))
    return eq if m.group(2) == "==" else not eq


def template(text, doc):
    def sub(m):
        v = get(doc, m.group(1).strip())
        return "" if v is None else str(v)
    return re.sub(r"\{\{\{?([^{}]+?)\}?\}\}", sub, text)


def _convert(value, typ, field):
    if isinstance(value, list):
        return [_convert(v, typ, field) for v in value]
    s = str(value)
    try:
        if typ in ("long", "integer"):
            v = int(s, 16) if re.match(r"^-?0[xX]", s) else int(s, 10)
            if typ == "integer" and not -2**31 <= v < 2**31:
                raise ValueError(s)
            return v
        if typ in ("double", "float"):
            return float(s)
        if typ == "string":
            return s
        if typ == "boolean":
            if s.lower() in ("true", "false"):
                return s.lower() == "true"
            raise ValueError(s)
    except ValueError:
        raise PipelineError("unable to convert [%s] to %s" % (s, typ))
    raise NotImplementedError("convert type %s" % typ)


def _date(value, formats):
    for fmt in formats:
        if fmt == "UNIX_MS":
            try:
                return iso_ms(int(str(value)))
            except ValueError:
                continue
        else:
            raise NotImplementedError("date format %s" % fmt)
    raise PipelineError("unable to parse date [%s]" % value)


def _processor(kind, p, doc):
    missing_ok = p.get("ignore_missing", False)
    if kind == "set":
        value = p["value"]
        if isinstance(value, str):
            value = template(value, doc)
        if not p.get("override", True) and get(doc, p["field"]) is not None:
            return
        put(doc, p["field"], value)
    elif kind == "rename":
        if not has(doc, p["field"]):
            if missing_ok:
                return
            raise PipelineError("field [%s] doesn't exist" % p["field"])
        if has(doc, p["target_field"]) and not p.get("override", False):
            raise PipelineError("field [%s] already exists" % p["target_field"])
        value = get(doc, p["field"])
        delete(doc, p["field"])
        put(doc, p["target_field"], value)
    elif kind == "convert":
        if not has(doc, p["field"]) or get(doc, p["field"]) is None:
            if missing_ok:
                return
            raise PipelineError("field [%s] not present" % p["field"])
        put(doc, p.get("target_field", p["field"]), _convert(get(doc, p["field"]), p["type"], p["field"]))
    elif kind == "remove":
        fields = p["field"] if isinstance(p["field"], list) else [p["field"]]
        for f in fields:
            if has(doc, f):
                delete(doc, f)
            elif not missing_ok:
                raise PipelineError("field [%s] not present" % f)
    elif kind == "gsub":
        if not has(doc, p["field"]):
            if missing_ok:
                return
            raise PipelineError("field [%s] not present" % p["field"])
        value = get(doc, p["field"])
        if not isinstance(value, str):
            raise PipelineError("field [%s] of type [%s] cannot be cast to string" %
                                (p["field"], type(value).__name__))
        replacement = re.sub(r"\$(\d+)", r"\\\1", p["replacement"])
        put(doc, p.get("target_field", p["field"]), re.sub(p["pattern"], replacement, value))
    elif kind == "date":
        if p.get("timezone", "UTC") != "UTC" or "output_format" in p:
            raise NotImplementedError("date: only UTC and the default output format")
        if not has(doc, p["field"]):
            raise PipelineError("field [%s] not present" % p["field"])
        put(doc, p.get("target_field", "@timestamp"), _date(get(doc, p["field"]), p["formats"]))
    else:
        raise NotImplementedError("processor %s" % kind)


# The processors' options in Elasticsearch 7.0's reference (no processor
# `description`, set's copy_from or ignore_empty_value, which came later).
ES_7_0_OPTIONS = {
    "set": {"field", "value", "override"},
    "rename": {"field", "target_field", "ignore_missing"},
    "convert": {"field", "target_field", "type", "ignore_missing"},
    "remove": {"field", "ignore_missing"},
    "gsub": {"field", "pattern", "replacement", "target_field", "ignore_missing"},
    "date": {"field", "target_field", "formats", "timezone", "locale"},
}
ES_7_0_COMMON = {"if", "tag", "on_failure", "ignore_failure"}


def check_es_7_0(pipeline):
    """The processors and options of the pipeline Elasticsearch 7.0 lacks."""
    problems = []
    for step in pipeline["processors"] + pipeline.get("on_failure", []):
        (kind, p), = step.items()
        if kind not in ES_7_0_OPTIONS:
            problems.append("processor %s" % kind)
            continue
        for option in sorted(set(p) - ES_7_0_OPTIONS[kind] - ES_7_0_COMMON):
            problems.append("%s's option %s" % (kind, option))
    return sorted(set(problems))


def run_pipeline(pipeline, doc):
    """Runs it on a copy of doc; returns the result and the failure message, or None."""
    doc = copy.deepcopy(doc)
    for step in pipeline["processors"]:
        (kind, p), = step.items()
        unknown = set(p) - ES_7_0_OPTIONS.get(kind, set()) - ES_7_0_COMMON
        if unknown:
            raise NotImplementedError("%s: %s not in Elasticsearch 7.0" % (kind, sorted(unknown)))
        if "if" in p and not condition(p["if"], doc):
            continue
        try:
            _processor(kind, p, doc)
        except PipelineError as e:
            if p.get("ignore_failure"):
                continue
            doc["_ingest"] = {"on_failure_message": str(e)}
            for f in pipeline.get("on_failure", []):
                (k, fp), = f.items()
                _processor(k, fp, doc)
            del doc["_ingest"]
            return doc, str(e)
    return doc, None
