#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Turns the raw lines of bench/run into the markdown table.

usage: report.py RAW...                  print the table
       report.py --readme README RAW...  replace the table between the markers

RAW is the raw output of bench/run or a results file (its "## raw" part).
With several, a figure measured in a later one replaces the earlier rows of
that figure (e.g. a full run, then "bench/run --only p5" again).
"""
import statistics
import sys

BEGIN, END = "<!-- bench-table-begin -->", "<!-- bench-table-end -->"


def kv(words):
    """'a 1 b 2' -> {'a': '1', 'b': '2'}"""
    return {words[i]: words[i + 1] for i in range(0, len(words) - 1, 2)}


def med(v):
    return statistics.median(v) if v else None


def f(x, fmt="%.1f", none="n/a"):
    return none if x is None else fmt % x


def figure(row):
    return row[1][:2] if len(row) > 1 else ""


def load_one(path):
    meta, rows = {}, []
    lines = open(path).read().splitlines()
    if "## raw" in lines:
        lines = lines[lines.index("## raw") + 1:]
    for line in lines:
        w = line.split()
        if not w:
            continue
        if w[0] == "meta":
            meta[w[1]] = " ".join(w[2:])
        else:
            rows.append(w)
    return meta, rows


def load(paths):
    metas, rows = [], []
    for path in paths:
        meta, new = load_one(path)
        figs = {figure(r) for r in new}
        rows = [r for r in rows if figure(r) not in figs] + new
        meta["figures"] = " ".join(sorted(f.upper() for f in figs if f.startswith("p")))
        metas.append(meta)
    return metas, rows


def p1(rows, out):
    runs = [r for r in rows if len(r) > 2 and r[1] == "p1_run"]
    if not runs:
        return
    where = runs[0][0]
    files = next((r[2] for r in rows if r[1:2] == ["p1_files"]), "?")
    nfun = next((r[2] for r in rows if r[1:2] == ["p1_functions"]), "?")
    wall, share, percall, extra = {}, {}, {}, {}
    for r in runs:
        mode, d = r[3], kv(r[4:])
        w = int(d["wall_us"])
        wall.setdefault(mode, []).append(w / 1e6)
        if "tracer_cpu_ms" in d:
            x = extra.setdefault(mode, {"cpu": [], "jd": [], "ev": []})
            x["cpu"].append(int(d["tracer_cpu_ms"]) / 1000)
            x["jd"].append(int(d["journald_cpu_ms"]) / 1000)
            x["ev"].append(int(d["events"]))
        if mode != "none":
            share.setdefault(mode, []).append(100.0 * int(d["bpf_ns"]) / (w * 1000))
            if int(d["bpf_cnt"]) >= 2:
                percall.setdefault(mode, []).append(int(d["bpf_ns"]) / (int(d["bpf_cnt"]) / 2))
    n = len(wall.get("none", []))
    base = med(wall.get("none"))
    out.append("| P1 | copy %s files (10 KiB, %d dirs) to SMB, VM %s, %s functions, median of %d: wall time none / smblat / bpftrace | %s / %s / %s s |"
               % (files, (int(files) + 9) // 10 if files.isdigit() else 0, where, nfun, n,
                  f(base, "%.2f"), f(med(wall.get("smblat")), "%.2f"), f(med(wall.get("bpftrace")), "%.2f")))
    for mode in ("smblat", "bpftrace"):
        m = med(wall.get(mode))
        over = None if m is None or not base else 100.0 * (m - base) / base
        out.append("| P1 | %s: BPF run time / copy wall time ; wall time vs none ; BPF ns per traced call | %s %% ; %s %% ; %s ns |"
                   % (mode, f(med(share.get(mode)), "%.2f"), f(over, "%+.1f"), f(med(percall.get(mode)), "%.0f")))
    for mode in ("none", "smblat", "bpftrace"):
        x = extra.get(mode)
        if x:
            out.append("| P1 | %s: during the copy, tracer CPU ; journald CPU ; slow calls written (entries / lines) | %s s ; %s s ; %s |"
                       % (mode, f(med(x["cpu"]), "%.2f"), f(med(x["jd"]), "%.2f"), f(med(x["ev"]), "%.0f")))


def p2(rows, out):
    cost = {}
    for r in rows:
        if len(r) > 4 and r[1] == "p2":
            where = "host" if r[0] == "host" else "VM " + r[0]
            hook, who, d = r[2], r[3], kv(r[4:])
            if r[0] != "host":  # guest lines: "6.12 p2 vm BACKEND WHO ..."
                hook, who, d = r[3], r[4], kv(r[5:])
            cnt, rt = int(d["run_cnt"]), int(d["run_time_ns"])
            # entry and exit program per call: cost of the pair
            cost[(where, hook, who)] = (rt / (cnt / 2) if cnt >= 2 else None, cnt // 2)
    hooks = []
    for (where, hook, _who) in cost:
        if (where, hook) not in hooks:
            hooks.append((where, hook))
    for where, hook in hooks:
        s, sc = cost.get((where, hook, "smblat"), (None, 0))
        e, ec = cost.get((where, hook, "empty"), (None, 0))
        t, tc = cost.get((where, hook, "timestamps"), (None, 0))
        out.append("| P2 | %s %s: ns per call (entry+exit programs) smblat / empty pair | %s / %s ns (%s / %s calls)%s |"
                   % (where, hook, f(s, "%.0f"), f(e, "%.0f"), sc or "-", ec or "-",
                      "; %.2fx" % (s / e) if s and e else ""))
        if t:
            out.append("| P2 | %s %s: a pair that only takes the two timestamps (bpftrace nsecs) | %.0f ns (%.2fx the empty pair; %d calls) |"
                       % (where, hook, t, t / e if e else 0, tc))


def p2e(rows, out):
    """The loop's time per call, paired by round: what each tracer adds."""
    per = {}
    for r in rows:
        if len(r) > 4 and r[:2] == ["host", "p2e"]:
            hook, who, d = r[2], r[3], kv(r[4:])
            if int(d["calls"]):
                ns = float(d["seconds"]) * 1e9 / int(d["calls"])
                per.setdefault(hook, {}).setdefault(int(d["round"]), {})[who] = ns
    target = {"uprobe": 1.15, "tracepoint": 1.3}
    for hook, rounds in per.items():
        full = [x for x in rounds.values() if all(w in x for w in ("none", "empty", "bpftrace", "smblat"))]
        if not full:
            continue
        base = med([x["none"] for x in full])
        add = {w: med([x[w] - x["none"] for x in full if w in x]) for w in ("empty", "stamps", "bpftrace", "smblat")}
        ratio = [(x["smblat"] - x["none"]) / (x["empty"] - x["none"]) for x in full if x["empty"] > x["none"]]
        out.append("| P2 | host %s end to end, median of %d interleaved rounds: loop ns per call untraced ; "
                   "added by empty programs / bpftrace latency / smblat | %.0f ; %s / %s / %s ns |"
                   % (hook, len(full), base, f(add["empty"], "%.0f"), f(add["bpftrace"], "%.0f"), f(add["smblat"], "%.0f")))
        if ratio and add["empty"]:
            out.append("| P2 | host %s end to end: smblat's added time / empty programs' (target <= %.2fx) ; / bpftrace's | "
                       "%.2fx (rounds %.2f-%.2f) ; %s |"
                       % (hook, target.get(hook, 0), med(ratio), min(ratio), max(ratio),
                          "%.2fx" % (add["smblat"] / add["bpftrace"]) if add["bpftrace"] else "n/a"))
        if add["stamps"] is not None and add["empty"]:
            out.append("| P2 | host %s end to end: a pair that only reads the clock on both sides (the floor of a latency probe) ; / empty programs' | "
                       "%.0f ns ; %.2fx |" % (hook, add["stamps"], add["stamps"] / add["empty"]))


def p3(rows, out):
    a = next((kv(r[3:]) for r in rows if r[:3] == ["host", "p3", "agent"]), None)
    raw = next((kv(r[3:]) for r in rows if r[:3] == ["host", "p3", "raw"]), None)
    if not a or not raw:
        return
    ar = int(a["journal"]) / (int(a["total_us"]) / 1e6)
    rr = int(raw["journal"]) / (int(raw["total_us"]) / 1e6)
    out.append("| P3 | threshold 0 uprobe flood (%.0f s, host): entries/s in the journal, smblat / raw sd_journal_sendv loop | %.0f / %.0f (%.0f %%) |"
               % (int(a["flood_us"]) / 1e6, ar, rr, 100.0 * ar / rr if rr else 0))
    busy = next((kv(r[3:]) for r in rows if r[:3] == ["host", "p3", "raw_busy"]), None)
    if busy:
        br = int(busy["journal"]) / (int(busy["total_us"]) / 1e6)
        out.append("| P3 | the raw loop with the flood's tight loop running beside it (as it runs beside the agent): entries/s ; smblat / that | %.0f ; %.0f %% |"
                   % (br, 100.0 * ar / br if br else 0))
    cpu = next((kv(r[3:]) for r in rows if r[:3] == ["host", "p3", "agent_cpu"]), None)
    if cpu and "journald_ms" in raw:
        def us(ms, n):
            return 1000.0 * int(ms) / int(n) if int(n) else 0
        part = "%.1f / %.1f / %.1f" % (us(cpu["main_ms"], a["journal"]), us(cpu["writer_ms"], a["journal"]),
                                     us(cpu["journald_ms"], a["journal"]))
        part += " ; %.1f / %.1f" % (us(int(raw["cpu_us"]) // 1000, raw["journal"]), us(raw["journald_ms"], raw["journal"]))
        if busy and "journald_ms" in busy:
            part += " ; %.1f / %.1f" % (us(int(busy["cpu_us"]) // 1000, busy["journal"]),
                                        us(busy["journald_ms"], busy["journal"]))
        out.append("| P3 | CPU per entry in the journal (us): smblat's event loop (decode, build, queue) / writer thread (send) / journald ; raw loop: sender / journald ; raw loop beside the tight loop: sender / journald | %s |" % part)
    calls = int(a["calls"])
    # the probe's entries in the journal and its losses; "written" is every entry of the agent's
    acc = [a.get(k, "?") for k in ("journal", "lost_ringbuf", "suppressed", "write_failed")]
    try:
        total = sum(int(x) for x in acc)
    except ValueError:
        total = None
    out.append("| P3 | loss accounting: calls / in journal + ring buffer lost + suppressed + write failed (sum) ; all entries written | %d / %s + %s + %s + %s (%s) ; %s |"
               % (calls, *acc, total if total is not None else "?", a.get("written", "?")))


def p4(rows, out):
    runs, used, prof, det, bt = {}, {}, {}, {}, {}
    for r in rows:
        if len(r) > 2 and r[1] == "p4_run":
            d = kv(r[3:])
            if d.get("rc") != "0":
                continue
            runs.setdefault((r[0], r[2]), []).append((int(d["ready_ms"]), int(d["stop_ms"])))
        elif len(r) > 2 and r[1] == "p4_backend":
            used[(r[0], r[2])] = r[3] if len(r) > 3 else "?"
        elif len(r) > 3 and r[1] == "p4_profile":
            prof[(r[0], r[2])] = r[3].replace("_", " ")
        elif len(r) > 3 and r[1] == "p4_detach" and r[3]:
            det.setdefault((r[0], r[2]), []).append(float(r[3]))
        elif len(r) > 2 and r[1] == "p4_bpftrace":
            d = kv(r[3:])
            bt.setdefault((r[0], r[2], d.get("functions", "?")), []).append(
                (int(d["ready_ms"]), int(d["stop_ms"])))
    for (k, be), v in sorted(runs.items()):
        out.append("| P4 | VM %s backend=%s (%s), median of %d: exec to READY=1 ; SIGTERM to exit | %.1f s ; %.1f s |"
                   % (k, be, used.get((k, be), "?"), len(v),
                      med([x[0] for x in v]) / 1000, med([x[1] for x in v]) / 1000))
        if (k, be) in prof:
            out.append("| P4 | VM %s backend=%s: start-up (last run, the agent's own account) ; detach | %s ; %s s |"
                       % (k, be, prof[(k, be)], f(med(det.get((k, be))), "%.1f")))
    for (k, be), u in sorted(used.items()):
        if u == "none":
            out.append("| P4 | VM %s backend=%s | not available on this kernel |" % (k, be))
    for (k, kind, n), v in sorted(bt.items()):
        out.append("| P4 | VM %s bpftrace %s on the same %s functions, median of %d: start to BEGIN ; SIGINT to exit | %.1f s ; %.1f s |"
                   % (k, kind, n, len(v), med([x[0] for x in v]) / 1000, med([x[1] for x in v]) / 1000))


def p5(rows, out):
    for r in rows:
        if r[:4] == ["host", "p5", "flood", "minutes"]:
            w = r[4:]
            mins = w[0]
            after = kv(w[w.index("after") + 1:])
            ready = kv(w[w.index("ready") + 1:w.index("after")])
            out.append("| P5 | VmRSS at ready ; VmRSS / VmHWM after %s min threshold-0 flood (host) | %.1f MiB ; %.1f / %.1f MiB |"
                       % (mins, int(ready["VmRSS:"]) / 1024, int(after["VmRSS:"]) / 1024, int(after["VmHWM:"]) / 1024))
        elif r[:3] == ["host", "p5", "flood_events"]:
            d = kv(r[3:])
            acc = [d.get(k, "0") for k in ("written", "lost_ringbuf", "suppressed", "write_failed")]
            try:
                total = str(sum(int(x) for x in acc))
            except ValueError:
                total = "?"
            out.append("| P5 | events in that flood: probe hits / in the journal (rate_limit 100/s) + ring buffer lost + suppressed + write failed (sum) | %s / %s + %s + %s + %s (%s) |"
                       % (d.get("calls"), *acc, total))
        elif len(r) > 2 and r[1] == "p5_guest":
            d = kv(r[3:])
            parts = ", ".join("%s %.1f" % (k, int(d[k]) / 1024) for k in ("bpf_maps", "heap", "anon", "files") if k in d)
            out.append("| P5 | VM %s VmRSS, shipped configuration, %s (MiB: %s) ; VmHWM | %.1f MiB (%s) ; %.1f MiB |"
                       % (r[0], r[2], "ring buffer and other BPF maps, heap, other anonymous, libraries", int(d["VmRSS:"]) / 1024, parts, int(d["VmHWM:"]) / 1024))
        elif r[:3] == ["host", "p5", "idle"]:
            d = kv(r[4:])
            out.append("| P5 | idle, host, %s config: wake-ups (context switches/s over %s s) ; VmRSS | %.2f /s ; %s |"
                       % (r[3], d["seconds"], int(d["ctxt_switches"]) / int(d["seconds"]),
                          "%.1f MiB" % (int(d["rss_kb"]) / 1024) if "rss_kb" in d else "-"))
        elif r[:3] == ["host", "p5", "parts"]:
            d = kv(r[4:])
            parts = ", ".join("%s %.1f" % (k, int(d[k]) / 1024) for k in ("bpf_maps", "heap", "anon", "exe", "libs", "other") if k in d)
            out.append("| P5 | host VmRSS, %s, made of (MiB; bpf_maps: the ring buffers mapped twice; anon: large allocations as the kernel symbol table, stacks) | %s |"
                       % (r[3].replace("_", " "), parts))
        elif r[:3] == ["host", "p5", "idle_refused"]:
            out.append("| P5 | idle, host, %s config | refused on this host: %s |" % (r[3], " ".join(r[4:])))


P6_LABELS = {
    "none": "no tracer", "default": "smblat, smbd layer as shipped (SMB2 requests, exits, breaks)",
    "requests": "smblat, SMB2 request timing alone (exits = no, breaks = no)",
    "vfs": "smblat, vfs = yes (every VFS call too)", "split": "smblat default + time_split",
    "stacks": "smblat default + stacks (user stacks of every SMB2 request)",
    "syscalls": "smblat default + every smbd syscall accounted",
    "empty-default": "empty bpftrace programs on the default's hooks",
    "empty-requests": "empty bpftrace programs on the SMB2 request hooks alone",
    "empty-sysexit": "empty bpftrace program on raw_syscalls:sys_exit alone",
    "empty-vfs": "empty bpftrace programs on the vfs = yes hooks", "strace": "strace -c -f on smbd",
}


def p6(rows, out):
    runs = [r for r in rows if r[:3] == ["host", "p6", "run"]]
    if not runs:
        return
    meta = kv(next((r[3:] for r in rows if r[:4] == ["host", "p6", "meta", "files"]), []))
    wall, bpf = {}, {}
    for r in runs:
        d = kv(r[5:])
        wall.setdefault(r[4], []).append(int(d["wall_us"]))
        bpf.setdefault(r[4], []).append(int(d["bpf_ns"]))
    base = med(wall.get("none", [0]))
    for mode, label in P6_LABELS.items():
        if mode not in wall:
            continue
        w = med(wall[mode])
        out.append("| P6 | smbclient copy of %s files (10 KiB) to a loopback smbd, median of %d, load %s: %s "
                   "| %.0f ms (%+.1f %%), BPF %.1f ms |"
                   % (meta.get("files", "?"), len(wall[mode]), meta.get("load", "?"), label, w / 1000,
                      100.0 * (w - base) / base if base else 0, med(bpf[mode]) / 1e6))


def p7(rows, out):
    runs = [r for r in rows if len(r) > 2 and r[1] == "p7_run"]
    if not runs:
        return
    files = next((r[2] for r in rows if r[1:2] == ["p7_files"]), "?")
    wall = {r[2]: int(kv(r[3:])["wall_us"]) for r in runs}
    base = wall.get("none")
    cells = []
    for mode in ("none", "smblat", "strace"):
        if mode in wall:
            cells.append("%.1f s%s" % (wall[mode] / 1e6, " (%+.1f %%)" % (100.0 * (wall[mode] - base) / base)
                                        if base and mode != "none" else ""))
    out.append("| P7 | copy %s files (10 KiB) to SMB, VM %s, every smbd syscall counted, one run: "
               "none / smblat (syscalls layer) / strace -c -f on smbd | %s |"
               % (files, runs[0][0], " / ".join(cells)))


def table(metas, rows):
    out = []
    for meta in metas:
        out.append("%s: run %s, %s mode, host kernel %s, %s CPUs, load %s, commit %s, took %s s."
                   % (meta.get("figures", "?"), meta.get("date", "?"), meta.get("mode", "?"),
                      meta.get("host_kernel", "?"), meta.get("cpus", "?"), meta.get("loadavg", "?"),
                      meta.get("commit", "?"), meta.get("seconds", "?")))
        out.append("")
    out += ["| | figure | value |", "| --- | --- | --- |"]
    for fn in (p1, p2, p2e, p3, p4, p5, p6, p7):
        fn(rows, out)
    errs = [" ".join(r) for r in rows if len(r) > 1 and r[1] == "error"]
    if errs:
        out.append("")
        out.extend("Failed: " + e for e in errs)
    return "\n".join(out)


def main():
    args = sys.argv[1:]
    readme = None
    if args[:1] == ["--readme"]:
        readme, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    text = table(*load(args))
    if readme is None:
        print(text)
        return
    doc = open(readme).read()
    if BEGIN not in doc or END not in doc:
        sys.exit("report.py: %s has no %s ... %s markers" % (readme, BEGIN, END))
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    open(readme, "w").write(head + BEGIN + "\n" + text + "\n" + END + tail)


main()
