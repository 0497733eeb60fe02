# SPDX-License-Identifier: LGPL-2.1-or-later
"""Filebeat and Elasticsearch ingest, as far as tests/host/elk.sh needs them.

No Elasticsearch runs in the tests, so this carries out what the shipped
pipeline (deploy/elk/smblat-pipeline.json) uses, with Elasticsearch's
semantics, and refuses anything else:

  filebeat_event(entry, variant)  a `journalctl -o json` entry as filebeat's
      journald input publishes it (filebeat/input/journald: the conversion
      table of pkg/journalfield, unknown fields in journald.custom.<name in
      lower case, leading '_' trimmed>, process.* from _PID/_COMM, MESSAGE
      in message, @timestamp from the journal's receive time). variant
      says where MESSAGE_ID goes: "9" log.syslog.msgid, "8" message_id,
      "7" journald.custom.message_id.
  run_pipeline(pipeline, doc)     the processors set, rename, convert,
      remove, gsub and date, `if` conditions of the forms
      ctx.a?.b != null / == null / == 'text' / == 42, mustache {{{a.b}}} in
      set values, the pipeline's on_failure.
"""
import copy
import datetime
import re

# filebeat's conversion table (pkg/journalfield/default.go), the fields a
# journald entry of smblat's can carry: name -> (target fields, integer?)
_FILEBEAT = {
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
    "_SYSTEMD_INVOCATION_ID": (["systemd.invocation_id"], False),
    "_TRANSPORT": (["systemd.transport"], False),
    "_UID": (["journald.uid"], True),
}
_DROPPED = {"__CURSOR", "__MONOTONIC_TIMESTAMP", "__REALTIME_TIMESTAMP",
            "_SOURCE_REALTIME_TIMESTAMP", "_SOURCE_MONOTONIC_TIMESTAMP"}
_MESSAGE_ID = {"9": "log.syslog.msgid", "8": "message_id", "7": None}


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


def filebeat_event(entry, variant="9"):
    doc = {}
    custom = {}
    mid_target = _MESSAGE_ID[variant]
    for key, value in entry.items():
        if key == "MESSAGE_ID" and mid_target:
            put(doc, mid_target, value)
        elif key in _FILEBEAT:
            names, integer = _FILEBEAT[key]
            if integer:
                try:
                    value = int(str(value).split(",")[0])
                except ValueError:
                    pass
            for name in names:
                put(doc, name, value)
        elif key not in _DROPPED:
            custom[key.lstrip("_").lower()] = value
    if custom:
        put(doc, "journald.custom", custom)
    # withECSEnrichment: the process that logged the entry
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
    put(doc, "event.kind", "event")
    put(doc, "input.type", "journald")
    ts = int(entry["__REALTIME_TIMESTAMP"])
    doc["@timestamp"] = iso_ms(ts // 1000)
    return doc


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
        if "copy_from" in p:
            if not has(doc, p["copy_from"]):
                raise PipelineError("field [%s] not present" % p["copy_from"])
            value = copy.deepcopy(get(doc, p["copy_from"]))
        else:
            value = p["value"]
            if isinstance(value, str):
                value = template(value, doc)
        if p.get("ignore_empty_value") and value in ("", None):
            return
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


def run_pipeline(pipeline, doc):
    """Runs it on a copy of doc; returns the result and the failure message, or None."""
    doc = copy.deepcopy(doc)
    for step in pipeline["processors"]:
        (kind, p), = step.items()
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
