#!/bin/bash
# bench/run is not a timed test; only its command line is checked here:
# --help works and bad arguments are refused with one clear line.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

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
grep -qF '| P2 | host uprobe: ns per call (entry+exit programs) smblat / empty pair | 300 / 100 ns (10 / 10 calls); 3.00x |' <<<"$table" ||
	fail "report.py table: $table"
# P3: the agent's rate against the raw loop alone and against the raw loop
# with the flood's tight loop beside it (1000/s, 2000/s and 1250/s here)
cat >"$TMP/raw3" <<'RAW'
meta mode quick
host p3 agent calls 9000 flood_us 5000000 total_us 5000000 journal 5000 written 5000 failed 0 lost_ringbuf 4000 suppressed 0 write_failed 0 lost_entries 1
host p3 raw total_us 5000000 journal 10000 sent 10000 failed 0
host p3 raw_busy total_us 4000000 journal 5000 sent 5000 failed 0
RAW
table=$(python3 "$SOURCE_ROOT/bench/report.py" "$TMP/raw3") || fail "report.py failed on P3"
grep -qF '| 1000 / 2000 (50 %) |' <<<"$table" || fail "report.py P3 against the raw loop: $table"
grep -qF '| 1250 ; 80 % |' <<<"$table" || fail "report.py P3 against the busy raw loop: $table"

# P2 end to end: time per call from each round's calls in its seconds, what
# each tracer adds over the same round's untraced loop, medians over rounds
# (round 1: none 100, empty 200, stamps 250, bpftrace 500, smblat 300 ns;
# round 2: none 100, empty 300, stamps 350, bpftrace 700, smblat 400 ns)
cat >"$TMP/raw2e" <<'RAW'
meta mode quick
host p2e tracepoint none round 1 calls 10000000 seconds 1
host p2e tracepoint empty round 1 calls 5000000 seconds 1
host p2e tracepoint stamps round 1 calls 4000000 seconds 1
host p2e tracepoint bpftrace round 1 calls 2000000 seconds 1
host p2e tracepoint smblat round 1 calls 10000000 seconds 3
host p2e tracepoint none round 2 calls 10000000 seconds 1
host p2e tracepoint empty round 2 calls 10000000 seconds 3
host p2e tracepoint stamps round 2 calls 2000000 seconds 0.7
host p2e tracepoint bpftrace round 2 calls 10000000 seconds 7
host p2e tracepoint smblat round 2 calls 2500000 seconds 1
RAW
table=$(python3 "$SOURCE_ROOT/bench/report.py" "$TMP/raw2e") || fail "report.py failed on P2 end to end"
grep -qF '| 100 ; 150 / 500 / 250 ns |' <<<"$table" || fail "report.py P2 end to end, added times: $table"
grep -qF '| 1.75x (rounds 1.50-2.00) ; 0.50x |' <<<"$table" || fail "report.py P2 end to end, ratios: $table"
grep -qF '| 200 ns ; 1.33x |' <<<"$table" || fail "report.py P2 end to end, the clock-read floor: $table"

# P5's flood: the probe's entries and its own losses add up to its calls
cat >"$TMP/raw5" <<'RAW'
meta mode quick
host p5 flood_events calls 1000 written 100 lost_ringbuf 200 suppressed 650 write_failed 50
RAW
table=$(python3 "$SOURCE_ROOT/bench/report.py" "$TMP/raw5") || fail "report.py failed on P5"
grep -qF '| 1000 / 100 + 200 + 650 + 50 (1000) |' <<<"$table" || fail "report.py P5 flood accounting: $table"

# A full-mode run writes its results file (the file name of a quick run
# carries "-quick"; the full one's once ended bench/run under set -e, after
# all the measuring, with no file). --report takes the raw lines of a run.
cat >"$TMP/full.raw" <<'RAW'
meta date 2026-11-22 10:00 UTC
meta stamp 2026-11-22T1000
meta host_kernel 6.99.0-test
meta mode full
host p2 uprobe smblat run_time_ns 3000 run_cnt 20 progs 2
host p2 uprobe empty run_time_ns 1000 run_cnt 20 progs 2
RAW
rc=0
out=$("$SOURCE_ROOT/bench/run" --report "$TMP/full.raw" --results "$TMP/results" --no-readme 2>&1) || rc=$?
[ "$rc" -eq 0 ] || fail "bench/run --report of a full run exited with $rc: $out"
res=$TMP/results/2026-11-22T1000-6.99.0-test.txt
[ -s "$res" ] || fail "no results file $res: $(ls "$TMP/results" 2>&1)"
grep -qF '| 300 / 100 ns (10 / 10 calls); 3.00x |' "$res" || fail "results file without the table: $(cat "$res")"
# the results file is a valid --report input too (its raw part)
sed -i 's/^meta mode full/meta mode quick/' "$res"
"$SOURCE_ROOT/bench/run" --report "$res" --results "$TMP/results" --no-readme >/dev/null 2>&1 ||
	fail "bench/run --report of a results file failed"
grep -qF '| 300 / 100 ns (10 / 10 calls); 3.00x |' "$TMP/results/2026-11-22T1000-6.99.0-test-quick.txt" ||
	fail "no -quick results file with the table"

# A tracer's programs are the ids that appeared while it started, compared
# as numbers: ids that cross a power of ten (9 -> 10) once broke the guest's
# set difference ("comm: file 2 is not in sorted order").
mkdir "$TMP/bin"
cat >"$TMP/bin/bpftool" <<'SH'
#!/bin/sh
cat "$FAKE_PROGS"
SH
chmod +x "$TMP/bin/bpftool"
ids=$(
	PATH=$TMP/bin:$PATH
	. "$SOURCE_ROOT/bench/progs.sh"
	export FAKE_PROGS=$TMP/progs.json
	echo '[{"id":8,"name":"a"},{"id":9,"name":"b"}]' >"$FAKE_PROGS"
	prog_ids_before "$TMP/ids-before"
	echo '[{"id":8,"name":"a"},{"id":9,"name":"b"},{"id":10,"name":"BEGIN"},{"id":11,"name":"c","run_time_ns":30,"run_cnt":3},{"id":100,"name":"c","run_time_ns":70,"run_cnt":7}]' >"$FAKE_PROGS"
	new=$(prog_ids_new "$TMP/ids-before")
	echo "$new"
	prog_stats "$new"
)
[ "$ids" = $'[11,100]\n100 10 2' ] || fail "new programs after 8 9: '$ids' (want [11,100] and their 100 ns over 10 runs)"

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
