#!/bin/bash
# bench/run is not a timed test; only its command line is checked here:
# --help works and bad arguments are refused with one clear line.
. "$SOURCE_ROOT/tests/lib-host.sh"

out=$("$SOURCE_ROOT/bench/run" --help) || fail "bench/run --help exited with $?"
grep -q '^usage: bench/run' <<<"$out" || fail "bench/run --help prints no usage: $out"
grep -q -- '--quick' <<<"$out" || fail "bench/run --help does not mention --quick"

rc=0
err=$("$SOURCE_ROOT/bench/run" --only p9 2>&1) || rc=$?
[ "$rc" -ne 0 ] || fail "bench/run --only p9 succeeded"
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "more than one line for a bad --only: $err"
grep -q "p9" <<<"$err" || fail "the error does not name p9: $err"

rc=0
err=$("$SOURCE_ROOT/bench/run" --bogus 2>&1) || rc=$?
[ "$rc" -ne 0 ] && grep -q -- "--bogus" <<<"$err" || fail "bench/run --bogus: rc $rc, '$err'"

# The table generator turns raw lines into rows (a tiny known input).
cat >"$TMP/raw" <<'RAW'
meta mode quick
host p2 uprobe smblat run_time_ns 3000 run_cnt 20 progs 2
host p2 uprobe empty run_time_ns 1000 run_cnt 20 progs 2
RAW
table=$(python3 "$SOURCE_ROOT/bench/report.py" "$TMP/raw") || fail "report.py failed"
grep -qF '| P2 | host uprobe: ns per call (entry+exit programs) smblat / empty pair | 300 / 100 ns (10 / 10 calls) |' <<<"$table" ||
	fail "report.py table: $table"
# P6: medians against no tracer
cat >"$TMP/raw6" <<'RAW'
host p6 meta files 1000 rounds 2 load 0.50 0.40 0.30
host p6 run 0 none wall_us 1000000 bpf_ns 0
host p6 run 1 none wall_us 1200000 bpf_ns 0
host p6 run 0 default wall_us 1050000 bpf_ns 2000000
host p6 run 1 default wall_us 1150000 bpf_ns 4000000
RAW
table=$(python3 "$SOURCE_ROOT/bench/report.py" "$TMP/raw6") || fail "report.py failed on P6"
grep -qF '| P6 | smbclient copy of 1000 files (10 KiB) to a loopback smbd, median of 2, load 0.50: smblat, smbd layer as shipped (SMB2 requests, exits, breaks) | 1100 ms (+0.0 %), BPF 3.0 ms |' <<<"$table" ||
	fail "report.py P6 table: $table"
echo ok
